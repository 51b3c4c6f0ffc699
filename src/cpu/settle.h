// SETTLE: the analytical constraint of rigid 3-site water (Miyamoto and Kollman, J. Comput. Chem. 13, 952,
// 1992), positions, velocities and the constraint virial.
#pragma once

#include <vector>

#include "core/topology.h"
#include "core/vec3.h"

namespace halomd {

class SettleCpu {
 public:
  explicit SettleCpu(const Topology& top);
  bool empty() const { return settles_.empty(); }
  int num_constraints() const { return 3 * static_cast<int>(settles_.size()); }

  // Moves x_new (unconstrained, reached from the constrained x_old) onto the constraints. When v is given,
  // adds the correction (x_constrained - x_new)/dt to it; when virial is given, adds the constraint virial
  // -1/2 sum_i x_old_i (x) F_c,i with F_c,i = m_i dx_i / dt^2. Returns the index of an atom whose water
  // could not be solved (moved too far), or -1.
  int apply(const std::vector<Vec3>& x_old, std::vector<Vec3>& x_new, std::vector<Vec3>* v, double dt,
            Tensor* virial, int threads) const;

  // Energy minimisation's projection (GROMACS's settle_proj): removes from f the components along each
  // water's three constraints at x (bond vectors over their target lengths), weighted by the inverse masses;
  // adds the virial of what was removed, as of constraint forces.
  void project(const std::vector<Vec3>& x, std::vector<Vec3>& f, Tensor* virial) const;

 private:
  std::vector<Settle> settles_;
  std::vector<double> m_o_, m_h_;  // per settle
};

}  // namespace halomd
