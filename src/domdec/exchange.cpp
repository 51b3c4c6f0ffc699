// The in-process halo exchange (forward positions) and the direct gather it must match bit for bit.
#include "domdec/exchange.h"

#include <string>

#include "domdec/assignment.h"

namespace halomd::domdec {

void place_home(const DomainPlan& plan, const Box& box, std::span<const Vec3> x_global,
                std::span<Vec3> x_local) {
  for (int i = 0; i < plan.num_home; ++i) x_local[i] = shifted(x_global[plan.global[i]], plan.image[i], box);
}

std::vector<Vec3> gather_local_x(const DdPlan& plan, const DomainPlan& domain,
                                 std::span<const Vec3> x_global) {
  const Box& box = plan.box;
  std::vector<Vec3> x(domain.num_local());
  for (int i = 0; i < domain.num_local(); ++i) {
    const Vec3& xg = x_global[domain.global[i]];
    for (int d = 0; d < 3; ++d) {
      const bool wrap = domain.coords[d] + domain.zone[i][d] >= plan.grid.n[d];
      x[i][d] = shifted(xg[d], domain.image[i][d] - (wrap ? 1 : 0), box.len[d]);
      if (wrap) x[i][d] += box.len[d];
    }
  }
  return x;
}

void exchange_x(const DdPlan& plan, std::vector<std::vector<Vec3>>& x_local) {
  const int nd = static_cast<int>(plan.domains.size());
  if (static_cast<int>(x_local.size()) != nd) throw RuntimeError(-1, -1, "exchange_x: one array per domain");
  for (int dom = 0; dom < nd; ++dom) {
    if (static_cast<int>(x_local[dom].size()) != plan.domains[dom].num_local()) {
      throw RuntimeError(-1, -1,
                         "exchange_x: domain " + std::to_string(dom) + "'s array has not num_local entries");
    }
  }
  const int num_pulses = nd ? static_cast<int>(plan.domains[0].pulses.size()) : 0;
  for (int k = 0; k < num_pulses; ++k) {
    for (int dom = 0; dom < nd; ++dom) {
      const Pulse& p = plan.domains[dom].pulses[k];
      const Pulse& r = plan.domains[p.send_to].pulses[k];
      const std::vector<Vec3>& from = x_local[dom];
      std::vector<Vec3>& to = x_local[p.send_to];
      for (size_t i = 0; i < p.send.size(); ++i) to[r.recv_start + i] = from[p.send[i]] + p.shift;
    }
  }
}

}  // namespace halomd::domdec
