// The halo plan built through a transport (plan_build.h).
#include "comm/plan_build.h"

#include <chrono>

#include "core/errors.h"

namespace halomd::comm {

void build_plans(HaloTransport& transport, const domdec::DdGrid& grid, const Box& box,
                 const domdec::HaloRange& range, std::span<const HomeAtoms> home,
                 std::vector<domdec::DomainPlan>& plans, std::vector<std::vector<Vec3>>& x_local,
                 double* exchange_s, int threads, bool direct) {
  const std::vector<int>& domains = transport.domains();
  const size_t ns = domains.size();
  if (home.size() != ns) throw RuntimeError(-1, -1, "build_plans: one set of home atoms per domain");
  plans.clear();
  plans.reserve(ns);
  x_local.resize(ns);
  for (size_t s = 0; s < ns; ++s) {
    plans.push_back(domdec::start_domain(grid, box, domains[s], home[s].global, home[s].image));
    // Room for the halo up front (its atoms come pulse by pulse): ~1.4 home atoms at 4 domains of 45k atoms,
    // more where domains are thin; pages not written are never touched.
    const size_t room = 4 * home[s].global.size() + 1024;
    domdec::DomainPlan& started = plans.back();
    started.global.reserve(room);
    started.image.reserve(room);
    started.shift.reserve(room);
    started.zone.reserve(room);
    x_local[s].reserve(room);
    x_local[s].assign(home[s].x_frame.begin(), home[s].x_frame.end());
  }
  const domdec::IVec3 pulses = domdec::pulses_per_dim(grid, box, range);
  std::vector<int> dim_start(ns), to(ns), from(ns);
  std::vector<domdec::HaloAtoms> sent(ns), received(ns);
  // The pulse each slot just added: packed, exchanged, appended.
  auto exchange = [&]() {
    for (size_t s = 0; s < ns; ++s) {
      const domdec::Pulse& pulse = plans[s].pulses.back();
      sent[s] = domdec::pack_sent(plans[s], x_local[s], pulse, threads);
      to[s] = pulse.send_to;
      from[s] = pulse.recv_from;
    }
    const auto t0 = std::chrono::steady_clock::now();
    transport.exchange_atoms(to, from, sent, received);
    if (exchange_s)
      *exchange_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (size_t s = 0; s < ns; ++s) domdec::append_received(plans[s], x_local[s], box, received[s], threads);
  };
  if (direct && domdec::direct_pulses_possible(grid, pulses)) {
    // Every pulse sends home atoms only, so all are selected and packed first and exchanged together.
    const std::vector<domdec::IVec3> offsets = domdec::direct_offsets(grid);
    const size_t np = offsets.size();
    std::vector<std::vector<int>> to_m(np, std::vector<int>(ns)), from_m(np, std::vector<int>(ns));
    std::vector<std::vector<domdec::HaloAtoms>> sent_m(np, std::vector<domdec::HaloAtoms>(ns)),
        received_m(np, std::vector<domdec::HaloAtoms>(ns));
    for (size_t m = 0; m < np; ++m) {
      for (size_t s = 0; s < ns; ++s) {
        domdec::DomainPlan& plan = plans[s];
        const domdec::Pulse& pulse =
            domdec::add_direct_pulse(plan, grid, box, offsets[m],
                                     domdec::select_send_direct(x_local[s], plan.num_home, offsets[m],
                                                                plan.lo, range.send_range(), threads));
        sent_m[m][s] = domdec::pack_sent(plan, x_local[s], pulse, threads);
        to_m[m][s] = pulse.send_to;
        from_m[m][s] = pulse.recv_from;
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    transport.exchange_atoms_batch(to_m, from_m, sent_m, received_m);
    if (exchange_s)
      *exchange_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (size_t m = 0; m < np; ++m)
      for (size_t s = 0; s < ns; ++s)
        domdec::append_received_for(plans[s], static_cast<int>(m), x_local[s], box, received_m[m][s],
                                    threads);
    return;
  }
  for (int d = 0; d < 3; ++d) {
    if (grid.n[d] == 1) continue;
    for (size_t s = 0; s < ns; ++s) dim_start[s] = plans[s].num_local();
    for (int p = 1; p <= pulses[d]; ++p) {
      for (size_t s = 0; s < ns; ++s) {
        domdec::DomainPlan& plan = plans[s];
        const domdec::IndexRange cand = domdec::send_candidates(plan, d, p, dim_start[s]);
        domdec::add_pulse(plan, grid, box, d, p,
                          domdec::select_send(x_local[s], cand, d, plan.lo[d], range.send_range(), threads));
      }
      exchange();
    }
  }
}

}  // namespace halomd::comm
