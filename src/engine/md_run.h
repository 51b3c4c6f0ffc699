// The MD loop of the CPU reference: leap-frog with SETTLE, v-rescale, buffered pair list, outputs,
// checkpoints.
#pragma once

#include <cstdint>
#include <string>

#include "core/box.h"
#include "core/executor.h"
#include "cpu/dispersion_correction.h"
#include "engine/energies.h"
#include "engine/run_options.h"

namespace halomd {

struct RunSummary {
  int64_t first_step = 0;
  int64_t last_step = 0;
  int64_t steps = 0;
  double wall_s = 0.0;
  double ns_per_day = 0.0;
};

// GROMACS's energy terms of one step from what an executor summed (PHYSICS.md); throws RuntimeError when they
// are not finite.
EnergyRow energy_row(int64_t step, double time_ps, const StepEnergies& e, const DispersionCorrection& dc,
                     const Box& box, double ndf);

// Runs the simulation the options describe (energy minimisation for integrator = steep). Throws InputError
// for bad input (before any step), RuntimeError for a run that blows up (naming the step and atom; files
// written so far stay valid).
RunSummary run_md(const RunOptions& options);

}  // namespace halomd
