// The update on the GPU, every step: v-rescale scaling, leap-frog and SETTLE in double precision, the
// blow-up checks, the kinetic energy and, in the last block to finish, the end of the step (the kinetic
// energy and centre-of-mass velocity reduced, the next step's coupling drawn, the step counter advanced).
#pragma once

#include "cuda/device_data.h"
#include "gpu/gpu_calls.h"

namespace halomd::cuda {

// One update; with energy also the constraint virial (into st->cvir_acc, zeroed by the caller) and the
// energy report of the step.
void launch_update(gpu::GpuCalls& calls, const UpdateParams& p, bool energy);
// After a load: draws the coupling of st->step from st->ke_prev (one thread).
void launch_begin_step(gpu::GpuCalls& calls, const UpdateParams& p);

}  // namespace halomd::cuda
