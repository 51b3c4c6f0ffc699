// The forces and energies of one configuration on the CPU reference, one domain: the pair list, the pairs
// (LJ and reaction-field, cut-off or Ewald Coulomb), PME's mesh part and the listed interactions. The MD
// executor and the energy minimiser both evaluate through it.
#pragma once

#include <memory>
#include <vector>

#include "core/executor.h"
#include "core/phase_timers.h"
#include "cpu/bonded.h"
#include "cpu/nonbonded.h"
#include "cpu/pairlist.h"
#include "cpu/pme.h"

namespace halomd {

class CpuForces {
 public:
  // grid_box: the box PME's grid size is chosen from (the run's first box, so that a continuation of a
  // pressure-coupled run keeps the grid).
  CpuForces(const Topology& top, const MdParams& mdp, const Box& box, const Box& grid_box, int threads);
  // f = the forces at x (kJ/mol/nm). With search, the pair list is rebuilt first (rlist of the .mdp). With
  // energies, fills lj, coulomb, coulomb_recip, bonded and virial (the kinetic part is left alone).
  void compute(const std::vector<Vec3>& x, bool search, int64_t step, std::vector<Vec3>& f,
               StepEnergies* energies, PhaseTimers& timers);
  size_t num_pairs() const { return list_.num_pairs(); }
  // A new box (pressure coupling); the pair list is kept until the next search, as GROMACS keeps it.
  void set_box(const Box& box);

 private:
  const Topology& top_;
  const MdParams& mdp_;
  Box box_;
  int threads_;
  NonbondedCpu nonbonded_;
  BondedCpu bonded_;
  std::unique_ptr<PmeCpu> pme_;  // coulombtype = PME only
  PairList list_;
};

}  // namespace halomd
