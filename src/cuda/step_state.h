// The host's side of the device-resident StepState (device_data.h), shared by the single-GPU and the
// domain-decomposed CUDA executors: the state a load starts from, the schedule check, the energies an energy
// step reports, and the error a kernel recorded.
#pragma once

#include <cstdint>
#include <span>

#include "core/executor.h"
#include "cuda/device_data.h"

namespace halomd::cuda {

inline constexpr unsigned long long kNoError = ~0ull;

// The StepState of a run that starts from `s` (KE(n - 1/2), thermostat integral, no error).
StepState initial_step_state(const MdState& s);

// Several tc-grps (up.ngroups > 0): each group's KE(n - 1/2) in h, from the checkpoint
// (s.ke_half_prev_groups) or else from the velocities of every atom (s.v), as CpuExecutor::load.
void set_initial_group_ke(const MdState& s, const ExecutorConfig& cfg, const UpdateParams& up, StepState& h);

// Several tc-grps (cfg.tc_group): up.ngroups and each group's v-rescale parameters, as CpuExecutor's
// (InputError above kMaxTcGroups groups). Returns the group count (0 without tc_group); the caller uploads
// each atom's group and points up.tc_group at it.
int set_tc_group_params(const ExecutorConfig& cfg, UpdateParams& up);

// comm-grps other than the whole system (cfg.comm_group): up.ncomm and each group's 1 / total mass
// (InputError above kMaxCommGroups groups). Returns the group count (0 without comm_group); the caller
// uploads each atom's group and points up.comm_group at it.
int set_comm_group_params(const ExecutorConfig& cfg, UpdateParams& up);

// The centre-of-mass velocity the next update removes from an atom of comm-grps group `group` (-1: in none),
// the deferred removal that a checkpoint or a frame applies to the velocities it takes: the whole system's
// without comm-grps (up.ncomm == 0; group ignored).
Vec3 pending_vcm(const StepState& h, const UpdateParams& up, int group);

// tcoupl = Nose-Hoover: up.nose_hoover and each thermostat's constants, as the CPU's TemperatureCoupling
// (cpu/nose_hoover.h; InputError above kMaxTcGroups groups). Nothing for other thermostats.
void set_nose_hoover_params(const ExecutorConfig& cfg, UpdateParams& up);

// The coupling and COM-removal flags the device derives from its step counter for `step` (ns and energy
// left false): the one schedule the host's checks and decisions use.
StepRequest scheduled_request(const UpdateParams& up, int64_t step);

// Throws when the MD loop's request is not the step the device is at, or its coupling and COM-removal
// schedule differs from the one the device derives from its step counter.
void check_request(const UpdateParams& up, const StepRequest& r, int64_t device_step);

// The energies of an energy step from the StepState copied back (every pair was summed from both atoms).
void fill_energies(const StepState& h, double self_energy, StepEnergies* e);

// Throws RuntimeError for the error a kernel recorded (h.error != kNoError), naming step and atom; the
// recorded atom index is mapped through `global` when it is given (local atoms of a domain).
void throw_if_error(const StepState& h, std::span<const int> global = {});

}  // namespace halomd::cuda
