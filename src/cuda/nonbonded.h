// The non-bonded forces on the GPU: Lennard-Jones (plain or potential-shift) and reaction field over the
// pair list of pairsearch.h, plus the reaction-field correction of excluded pairs, exactly the CPU
// reference's definitions (cpu/pair_interaction.h) in float.
#pragma once

#include "cuda/device_data.h"
#include "gpu/gpu_calls.h"

namespace halomd::cuda {

// Forces (sorted order) and, with energy, the full-list sums of LJ, Coulomb and d (x) F added to
// st->nb_acc (which the caller zeroes before an energy step). With domains, a pass may compute some kinds of
// rows only (NonbondedPass): the passes of one step must together cover every row once.
void launch_nonbonded(gpu::GpuCalls& calls, const NonbondedParams& p, bool energy,
                      NonbondedPass pass = kAllAtoms);

}  // namespace halomd::cuda
