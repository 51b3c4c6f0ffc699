// GROMACS 2022's leap-frog stochastic dynamics (integrator = sd, its "SD1"): after the leap-frog velocity
// v_n = v + f/m dt each atom of tc-grps group g gets v' = em_g v_n + sqrt(kB T_g (1 - em_g^2) / m) xi with
// em_g = exp(-dt / tau-t_g), T_g its ref-t and xi a standard normal per dimension; the position takes the
// mean of the two, x' = x + (v_n + v') / 2 dt. With constraints the two halves are apart, as in GROMACS: the
// plain leap-frog and the constraints, then the friction and noise with half their velocity change on the
// positions, then the constraints again with a half time step for the velocity correction and no virial.
// The normals come from the counter-based stream (core/random.h) keyed by (ld-seed, step, global atom), so
// threads, domains and continuations draw the same numbers; GROMACS draws other numbers, so only statistics
// (or ref-t = 0, friction alone) compare with it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/md_params.h"
#include "core/vec3.h"

namespace halomd {

class StochasticDynamics {
 public:
  // groups: tc-grps' count (1 without several groups: the first group's tau-t and ref-t).
  StochasticDynamics(const MdParams& mdp, int groups, uint64_t seed);

  // The whole step without constraints: v and x_new from x, v, f.
  void combined(int64_t step, const std::vector<Vec3>& x, std::vector<Vec3>& v, const std::vector<Vec3>& f,
                const std::vector<double>& inv_mass, const std::vector<int>* group,
                std::span<const int> global, double dt, std::vector<Vec3>& x_new, int threads) const;

  // The second half with constraints: friction and noise on v (the constrained leap-frog velocities), half
  // the change onto x_new.
  void friction_and_noise(int64_t step, std::vector<Vec3>& v, const std::vector<double>& inv_mass,
                          const std::vector<int>* group, std::span<const int> global, double dt,
                          std::vector<Vec3>& x_new, int threads) const;

 private:
  // The new velocity of atom i (global index g) from its leap-frog velocity vn.
  Vec3 kick(int64_t step, int g, int group, double inv_mass, const Vec3& vn) const;
  std::vector<double> em_, sigma_;  // per group: exp(-dt / tau-t), sqrt(kB ref-t (1 - em^2))
  uint64_t seed_;
};

}  // namespace halomd
