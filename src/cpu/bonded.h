// GROMACS's listed interactions on the CPU (bonds, angles, dihedrals, 1-4 pairs, position restraints, CMAP):
// forces, energies per GROMACS energy term, and their virial, in double precision (GROMACS manual, "Bonded
// interactions").
#pragma once

#include <span>
#include <vector>

#include "core/bonded_terms.h"
#include "core/box.h"
#include "core/topology.h"
#include "core/vec3.h"

namespace halomd {

struct BondedEnergies {
  BondedTermValues term{};
  Tensor virial;  // -1/2 sum_a r_a (x) F_a over every interaction, r_a relative to its first atom
};

class BondedCpu {
 public:
  // epsilon_r: the .mdp's epsilon-r, which divides Coulomb-14 as it divides the plain Coulomb interaction.
  BondedCpu(const Topology& top, double epsilon_r);
  bool empty() const { return terms_.empty(); }

  // Adds the forces at x to f; with energies, fills them (and the virial). The interactions' atoms are found
  // through the minimum image of the rectangular box, so molecules may be broken over the boundary.
  void compute(const std::vector<Vec3>& x, const Box& box, std::vector<Vec3>& f,
               BondedEnergies* energies) const;
  // The same for `terms` (atom indices into x and f) in place of the topology's: a domain's share of them on
  // its local atoms (cpu/dd_domain.h).
  void compute_terms(std::span<const BondedTerm> terms, std::span<const Vec3> x, const Box& box,
                     std::span<Vec3> f, BondedEnergies* energies) const;

 private:
  std::vector<BondedTerm> terms_;
  std::vector<CmapGrid> cmap_;  // Topology::cmap_grids
  double coulomb_factor_;       // f / epsilon_r
  double posres_com_frac_[3];   // Topology::posres_com_frac
};

}  // namespace halomd
