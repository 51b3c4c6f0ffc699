// LINCS (Hess et al., J. Comput. Chem. 18, 1463, 1997; P-LINCS, JCTC 4, 116, 2008): the distance constraints
// of [ constraints ] and of bonds the .mdp's constraints option converts, as GROMACS 2022 solves them
// (matrix expansion of lincs-order terms, lincs-iter corrections for rotational lengthening), positions,
// velocities and the constraint virial, in double precision.
#pragma once

#include <vector>

#include "core/box.h"
#include "core/topology.h"
#include "core/vec3.h"

namespace halomd {

class LincsCpu {
 public:
  // Constraints between two fully frozen atoms (Topology::frozen_pair) are left out unless frozen_pairs: the
  // start's constraining keeps them, as GROMACS's do_constrain_first (it moves both atoms alike).
  LincsCpu(const Topology& top, int order, int iterations, double warn_angle_deg, bool frozen_pairs = false);
  bool empty() const { return con_.empty(); }
  int num_constraints() const { return static_cast<int>(con_.size()); }

  // Moves x_new (unconstrained, reached from the constrained x_old) onto the constraints, the directions
  // taken from x_old. With v, adds the correction / dt to it; with virial, adds the constraint virial -1/2
  // sum r (x) F_c. Returns an atom of a constraint that rotated further than the warning angle or could not
  // be solved (a blow-up), or -1.
  int apply(const std::vector<Vec3>& x_old, std::vector<Vec3>& x_new, std::vector<Vec3>* v, double dt,
            Tensor* virial, const Box& box) const;

  // Energy minimisation's projection (GROMACS's do_lincsp on ConstraintVariable::ForceDispl): removes from f
  // the components along the constraints at x, by the same truncated expansion; adds the virial of what was
  // removed, as of constraint forces.
  void project(const std::vector<Vec3>& x, std::vector<Vec3>& f, Tensor* virial, const Box& box) const;

  // The root mean square of the relative deviations |x_a - x_b| / length - 1 (GROMACS's Constr. rmsd).
  double rms_deviation(const std::vector<Vec3>& x, const Box& box) const;

 private:
  struct Coupling {
    int other = 0;      // the coupled constraint
    double coef = 0.0;  // sign x 1/m of the shared atom x blc_i x blc_j (GROMACS's blmf)
  };
  std::vector<Constraint> con_;
  std::vector<double> blc_;  // 1 / sqrt(1/m_a + 1/m_b)
  std::vector<double> inv_mass_;
  std::vector<int> coupling_start_;  // CSR over con_
  std::vector<Coupling> coupling_;
  int order_, iterations_;
  double cos_warn_;

  // Solves (I - A) sol = rhs by the expansion sum_k A^k rhs, A_ij = coef_ij (r_i . r_j).
  void expand(const std::vector<Vec3>& r, std::vector<double>& rhs, std::vector<double>& sol) const;
};

}  // namespace halomd
