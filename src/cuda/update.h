// The update on the GPU, every step: v-rescale scaling, leap-frog and SETTLE in double precision, the
// blow-up checks, the kinetic energy and, in the last block to finish, the end of the step (the kinetic
// energy and centre-of-mass velocity reduced, the next step's coupling drawn, the step counter advanced).
#pragma once

#include "cuda/device_data.h"
#include "gpu/gpu_calls.h"

namespace halomd::cuda {

// One update; with energy also the constraint virial (into st->cvir_acc, zeroed by the caller) and the
// energy report of the step. Domain decomposition: host_reduce is whether the host enqueued the reduction
// over domains and finish_dd_step after it (0 or 1); the kernel follows it and records a disagreement with
// its own decision in st->reduce_mismatch (-1: the kernel's own decision, unchecked).
void launch_update(gpu::GpuCalls& calls, const UpdateParams& p, bool energy, int host_reduce = -1);
// Pressure coupling after a step: x(step + 1) of atoms [0, n) (n < 0: all p.n) scaled by mu atom by atom
// and, with velocities (C-rescale), their v(step + 1/2) and the pending centre-of-mass velocity by 1 / mu;
// their float records follow (p.len must already be the new box's). GPU domains scale their home atoms.
void launch_scale(gpu::GpuCalls& calls, const UpdateParams& p, const double (&mu)[3], bool velocities,
                  int n = -1);
// x[d][i] *= mu[d] for i in [0, n) (GPU domains: the skin check's reference after pressure coupling).
void launch_scale_positions(gpu::GpuCalls& calls, double* const (&x)[3], int n, const double (&mu)[3]);
// After a load: draws the coupling of st->step from st->ke_prev (one thread).
void launch_begin_step(gpu::GpuCalls& calls, const UpdateParams& p);

// Domain decomposition (UpdateParams::dd), on a step that sums over domains (the update leaves its sums in
// st->red, and with several tc-grps each group's in st->group_red): after the transport has summed them, this
// ends the step (one thread), then draws the groups' coupling of the next step.
void launch_finish_dd_step(gpu::GpuCalls& calls, const UpdateParams& p, bool energy);
// A reduction of KE(n - 1/2) the host asks for: stage this domain's sums into st->red, let the transport sum
// them, then take them as st->ke_prev.
void launch_stage_ke_prev(gpu::GpuCalls& calls, StepState* st);
void launch_take_ke_prev(gpu::GpuCalls& calls, StepState* st);
// The same for each group's KE(n - 1/2) (several tc-grps), through st->group_red.
void launch_stage_group_ke_prev(gpu::GpuCalls& calls, StepState* st, int groups);
void launch_take_group_ke_prev(gpu::GpuCalls& calls, StepState* st, int groups);
// The home cell widened by the plan's margin, per dimension (-inf/+inf where the grid has one domain).
struct CellLimits {
  double lo[3], hi[3];
};
// For atoms [0, n) (original order): the largest squared distance from positions x0 into st->disp2_bits,
// and the largest domdec::beyond_cell against `cell` into st->beyond_bits (the skin check, domdec/drift.h).
void launch_home_displacement(gpu::GpuCalls& calls, const UpdateParams& p, const double* const x0[3], int n,
                              const CellLimits& cell);

// What a domain needs to run again from a step: its home atoms' x and v and the step state.
struct HomeState {
  double* x[3];
  double* v[3];
  StepState* st;
};
// Copies atoms [0, n) of src's x and v and its step state into dst (one kernel).
void launch_copy_home_state(gpu::GpuCalls& calls, const HomeState& src, const HomeState& dst, int n);

}  // namespace halomd::cuda
