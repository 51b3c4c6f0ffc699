// Short-range non-bonded forces, energies and virial of the CPU reference (double precision, fixed-point
// sums).
#pragma once

#include <cstdint>
#include <vector>

#include "core/box.h"
#include "core/md_params.h"
#include "core/topology.h"
#include "core/vec3.h"
#include "cpu/pair_interaction.h"
#include "cpu/pairlist.h"

namespace halomd {

// The pair parameters GROMACS derives from the .mdp (k_rf, c_rf, shifts; PHYSICS.md).
PairParams make_pair_params(const MdParams& mdp);

struct NonbondedEnergies {
  double lj = 0.0;       // LJ (SR), kJ/mol
  double coulomb = 0.0;  // Coulomb (SR): pairs, reaction-field exclusion correction and self term
  Tensor virial;         // -1/2 sum r_ij (x) F_ij, kJ/mol
};

class NonbondedCpu {
 public:
  NonbondedCpu(const Topology& top, const MdParams& mdp, int threads);

  // Forces (overwritten), and when want_energy the energies and virial. Throws RuntimeError naming the
  // atom when a pair force is non-finite or absurd (atoms on top of each other).
  void compute(const PairList& list, const std::vector<Vec3>& x, const Box& box, bool want_energy,
               int64_t step, std::vector<Vec3>& f, NonbondedEnergies& energies);

  const PairParams& params() const { return params_; }

 private:
  const Topology& top_;
  PairParams params_;
  int threads_;
  double self_energy_ = 0.0;                    // -1/2 c_rf f/eps_r sum q_i^2, constant
  std::vector<std::vector<int64_t>> f_thread_;  // per-thread fixed-point force buffers, 3N each
};

}  // namespace halomd
