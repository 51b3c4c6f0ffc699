// Energy minimisation by steepest descent (integrator = steep), as GROMACS 2022's do_steep: on the CPU
// reference, one domain.
#pragma once

#include "engine/md_run.h"
#include "engine/setup.h"

namespace halomd {

// Minimises the loaded system; writes energy.csv (one row per accepted state), traj.trr (nstxout, nstfout),
// confout.gro (the lowest-energy configuration) and run.json into options.outdir. Throws InputError for
// options it cannot run (GPUs, domains, a continuation).
RunSummary run_minimization(const RunOptions& options, const SimulationInputs& in);

}  // namespace halomd
