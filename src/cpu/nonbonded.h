// Short-range non-bonded forces, energies and virial of the CPU reference (double precision, fixed-point
// sums).
#pragma once

#include <cstdint>
#include <span>
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

// Each atom's interaction with its own reaction field (-1/2 c_rf f/eps_r q^2), or under Ewald with its own
// screening charge (-beta/sqrt(pi) f/eps_r q^2), summed for sum q^2 = q2: both in Coulomb (SR), as GROMACS's
// Verlet kernels count them.
double coulomb_self_energy(const PairParams& p, double q2);

struct NonbondedEnergies {
  double lj = 0.0;       // LJ (SR), kJ/mol
  double coulomb = 0.0;  // Coulomb (SR): pairs, reaction-field exclusion correction and self term
  Tensor virial;         // -1/2 sum r_ij (x) F_ij, kJ/mol
};

// Energy and virial sums in fixed point (kEnergyFixedScale units): sums over domains stay exact. The virial
// components are sum d (x) F with d = x_i - x_j and F the force on i, in the order xx, yy, zz, xy, xz, yz
// (the virial is -1/2 of it); no self term.
struct NonbondedFixedSums {
  int64_t lj = 0, coul = 0;
  int64_t vir[6] = {};
};

// The atoms one evaluation runs over: the whole system, or one domain's local atoms (home atoms, then halo).
struct NonbondedAtoms {
  std::span<const Vec3> x;
  std::span<const double> charge;  // per atom
  std::span<const int> type;       // per atom
  // Exclusions whose reaction-field correction this evaluation counts, CSR over the atoms (local indices),
  // each pair counted under i < j; both empty: none.
  std::span<const int> excl_start, excl;
  std::span<const int> global;  // global index per atom, for error messages; empty: identity
  Vec3 len;                     // box edges, nm
  Vec3 inv_len;                 // 1/L for the minimum image; 0 for plain differences (decomposed dimension)
};

class NonbondedCpu {
 public:
  NonbondedCpu(const Topology& top, const MdParams& mdp, int threads);

  // Forces (overwritten), and when want_energy the energies and virial. Throws RuntimeError naming the
  // atom when a pair force is non-finite or absurd (atoms on top of each other).
  void compute(const PairList& list, const std::vector<Vec3>& x, const Box& box, bool want_energy,
               int64_t step, std::vector<Vec3>& f, NonbondedEnergies& energies);

  // The same over any set of atoms, in fixed point: f (one entry per atom) is overwritten; sums are set
  // when want_energy. The self term is not included (self_energy(), once per system).
  void compute_fixed(const PairList& list, const NonbondedAtoms& atoms, bool want_energy, int64_t step,
                     std::span<FixedVec3> f, NonbondedFixedSums& sums);

  const PairParams& params() const { return params_; }
  // -1/2 c_rf f/eps_r sum q_i^2 (Ewald: -beta/sqrt(pi) f/eps_r sum q_i^2) over the whole system (kJ/mol): a
  // constant of the system.
  double self_energy() const { return self_energy_; }

 private:
  const Topology& top_;
  PairParams params_;
  int threads_;
  double self_energy_ = 0.0;                    // constant, see self_energy()
  std::vector<std::vector<int64_t>> f_thread_;  // per-thread fixed-point force buffers, 3N each
  std::vector<FixedVec3> f_fixed_;              // compute()'s forces before the conversion to double
};

// Energies and virial from fixed-point sums (over one domain or all), with the self term added.
NonbondedEnergies to_energies(const NonbondedFixedSums& sums, double self_energy);

}  // namespace halomd
