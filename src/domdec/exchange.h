// The halo exchange over all domains of one process: the reference that the transports must reproduce.
//
// Local positions, exactly (bits): a home atom has x_local = shifted(x_global, image, L) (assignment.h). A
// pulse's receiver gets the sender's x_local + pulse.shift, and a coordinate d gets L[d] added at most once
// (where the chain of pulses in d crosses the periodic boundary: the pulses are fewer than the domains), so
//   x_local[d] = shifted(x_global[d], image[d] - wrap[d], L[d]) + (wrap[d] ? L[d] : 0),
//   wrap[d] = (coords[d] + zone[d] >= n[d]),
// which equals x_global + shift up to one rounding (the sum of two shifts is not always exact in doubles).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/errors.h"
#include "domdec/halo_plan.h"

namespace halomd::domdec {

// Fills x_local[0, num_home) with the home atoms' positions in the domain's frame.
void place_home(const DomainPlan& plan, const Box& box, std::span<const Vec3> x_global,
                std::span<Vec3> x_local);

// Every local atom's position by the formula above, straight from the global positions (a direct gather).
std::vector<Vec3> gather_local_x(const DdPlan& plan, const DomainPlan& domain,
                                 std::span<const Vec3> x_global);

// The forward exchange of every pulse, in order, for all domains: x_local[D] must hold num_local entries of
// which the home part is set; the halo part is filled with x_local[sender][send[i]] + shift.
void exchange_x(const DdPlan& plan, std::vector<std::vector<Vec3>>& x_local);

namespace detail {

// Throws unless `arrays` holds one array of num_local entries per domain (`what` names the caller).
template <class T>
void check_local_arrays(const DdPlan& plan, const std::vector<std::vector<T>>& arrays, const char* what) {
  const int nd = static_cast<int>(plan.domains.size());
  if (static_cast<int>(arrays.size()) != nd)
    throw RuntimeError(-1, -1, std::string(what) + ": one array per domain");
  for (int dom = 0; dom < nd; ++dom) {
    if (static_cast<int>(arrays[dom].size()) != plan.domains[dom].num_local()) {
      throw RuntimeError(
          -1, -1,
          std::string(what) + ": domain " + std::to_string(dom) + "'s array has not num_local entries");
    }
  }
}

// Calls add(dom, sent, from, received) for every atom a pulse returns, pulses in reverse order, domains in
// order, atoms in send order: local atom `sent` of domain dom gets back what local atom `received` of domain
// `from` (its copy there) holds.
template <class Add>
void for_each_return(const DdPlan& plan, Add&& add) {
  const int nd = static_cast<int>(plan.domains.size());
  for (int k = static_cast<int>(plan.domains.empty() ? 0 : plan.domains[0].pulses.size()) - 1; k >= 0; --k) {
    for (int dom = 0; dom < nd; ++dom) {
      const Pulse& p = plan.domains[dom].pulses[k];
      const Pulse& r = plan.domains[p.send_to].pulses[k];
      for (size_t i = 0; i < p.send.size(); ++i)
        add(dom, p.send[i], p.send_to, r.recv_start + static_cast<int>(i));
    }
  }
}

}  // namespace detail

// The reverse reduction: the pulses in reverse order, each receiver's range added into the sender's `send`
// atoms (f_local[D] has num_local entries; the halo entries are read, not cleared). T needs +=.
template <class T>
void reduce_f(const DdPlan& plan, std::vector<std::vector<T>>& f_local) {
  detail::check_local_arrays(plan, f_local, "reduce_f");
  detail::for_each_return(plan, [&](int dom, int sent, int from, int received) {
    f_local[dom][sent] += f_local[from][received];
  });
}

// The reduction as the GPU transports make it (comm/gpu/gpu_halo_device.cuh): f_local is only read, and what
// comes back for each local atom is summed apart into received[D] (num_local entries, zero on entry), which
// the update then adds to f. Pulses in reverse order; a receiver sends f + received of its range (received
// is not 0 there only for atoms that it forwarded in a later pulse). T needs + and +=.
template <class T>
void reduce_f_apart(const DdPlan& plan, const std::vector<std::vector<T>>& f_local,
                    std::vector<std::vector<T>>& received) {
  detail::check_local_arrays(plan, f_local, "reduce_f_apart");
  detail::check_local_arrays(plan, received, "reduce_f_apart");
  detail::for_each_return(plan, [&](int dom, int sent, int from, int copy) {
    received[dom][sent] += f_local[from][copy] + received[from][copy];
  });
}

}  // namespace halomd::domdec
