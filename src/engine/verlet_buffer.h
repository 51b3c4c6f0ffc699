// The Verlet buffer estimate of GROMACS 2022 (grompp's "Calculated rlist for 1x1 atom pair-list"): the
// energy drift that pairs missing from a buffered pair list cause, from the atoms' thermal displacements over
// the list's lifetime and the potentials' derivatives at the cut-off, and the smallest rlist that keeps it
// within verlet-buffer-tolerance. halomd's lists hold atom pairs (1x1), so no cluster correction applies.
#pragma once

#include "core/box.h"
#include "core/md_params.h"
#include "core/topology.h"
#include "io/gro.h"

namespace halomd {

// The temperature the estimate uses, as grompp 2022 chooses it: ref-t with a thermostat; without one
// (NVE), gen-temp when gen-vel = yes, else the kinetic temperature of the .gro velocities over ndf degrees
// of freedom (0 when the file has none).
double verlet_buffer_temperature(const MdParams& mdp, const Topology& top, const io::GroFile& gro,
                                 double ndf);

// The estimated drift (kJ/mol/ps per atom) of a 1x1 list with cut-off rlist, built from positions that are
// then displaced over `lifetime` steps of dt, the drift spread over nstlist steps (grompp: lifetime =
// nstlist - 1). Atoms are grouped by mass, LJ type, charge and their SETTLE partner; a hydrogen of a
// SETTLE rotates about the centre of mass of its O-H pair (GROMACS's treatment of a constrained atom).
double verlet_buffer_drift(const MdParams& mdp, const Topology& top, const Box& box, double temperature,
                           int nstlist, int lifetime, double rlist);

// The smallest rlist = max(rvdw, rcoulomb) + k * 0.001 nm (k >= 0) whose drift is at most `tolerance`, found
// by GROMACS's bisection.
double verlet_buffer_rlist(const MdParams& mdp, const Topology& top, const Box& box, double temperature,
                           int nstlist, int lifetime, double tolerance);

}  // namespace halomd
