#include "cuda/step_state.h"

#include <fmt/format.h>

#include <vector>

#include "core/errors.h"
#include "core/units.h"
#include "cpu/coupling.h"
#include "cpu/thermostat.h"
#include "cpu/update.h"

namespace halomd::cuda {
namespace {

const char* error_text(int kind) {
  switch (kind) {
    case kErrMoved:
      return "the system blew up: an atom moved more than 0.1 nm in one step or its position is not finite "
             "(time step too long, or bad starting structure?)";
    case kErrSettle:
      return "the system blew up: a water (SETTLE) or a LINCS constraint could not be satisfied, or a "
             "constraint turned more than lincs-warnangle in one step (time step too long, or bad starting "
             "structure?)";
    case kErrForce:
      return "non-finite or extreme force (atoms overlapping?)";
    default:
      return "the pair list is full: this atom (with HALOMD_GPU_CLUSTER=1: some super-cluster) has far more "
             "neighbours than any atom had at the start (the density changed a lot, or the system blew up)";
  }
}

double from_fixed(long long v) { return static_cast<double>(v) / kEnergyScale; }

// The GPU's thermostats hold at most kMaxTcGroups groups (StepState's arrays).
void check_group_count(int groups) {
  if (groups > kMaxTcGroups)
    throw InputError(
        "", 0,
        fmt::format("tc-grps has {} groups; the GPU couples at most {} (--backend cpu has no limit)", groups,
                    kMaxTcGroups));
}

}  // namespace

void set_initial_group_ke(const MdState& s, const ExecutorConfig& cfg, const UpdateParams& up, StepState& h) {
  const int groups = up.ngroups;
  if (groups <= 0) return;
  const std::vector<double> ke = s.ke_half_prev_groups.size() == static_cast<size_t>(groups)
                                     ? s.ke_half_prev_groups
                                     : kinetic_energy_by_group(s.v, cfg.top->mass, *cfg.tc_group, groups);
  for (int g = 0; g < groups; ++g) h.group_ke_prev[g] = ke[g];
}

int set_tc_group_params(const ExecutorConfig& cfg, UpdateParams& up) {
  if (!cfg.tc_group) return 0;
  const int groups = static_cast<int>(cfg.tc_ndf.size());
  check_group_count(groups);
  up.ngroups = groups;
  const MdParams& mdp = *cfg.mdp;
  for (int g = 0; g < groups; ++g) {
    up.group_ref_kinetic[g] = 0.5 * cfg.tc_ndf[g] * units::kBoltzmann * mdp.ref_ts[g];
    up.group_ndf[g] = cfg.tc_ndf[g];
    up.group_tau_steps[g] = mdp.tau_ts[g] / (mdp.nsttcouple * mdp.dt);
    up.group_seed[g] = vrescale_group_seed(cfg.ld_seed, g);  // the CPU's streams
  }
  return groups;
}

static_assert(kMaxCommGroups == kGpuMaxCommGroups, "core/executor.h's limit is the StepState's");

int set_comm_group_params(const ExecutorConfig& cfg, UpdateParams& up) {
  if (!cfg.comm_group) return 0;
  const int groups = cfg.comm_groups;
  if (groups > kMaxCommGroups)  // engine/backends.cpp refuses it naming the line first
    throw InputError("", 0, fmt::format("internal error: {} comm-grps on the GPU", groups));
  std::vector<double> mass(groups, 0.0);
  for (size_t a = 0; a < cfg.comm_group->size(); ++a)
    if ((*cfg.comm_group)[a] >= 0) mass[(*cfg.comm_group)[a]] += cfg.top->mass[a];
  up.ncomm = groups;
  for (int g = 0; g < groups; ++g) up.comm_inv_mass[g] = mass[g] > 0.0 ? 1.0 / mass[g] : 0.0;
  return groups;
}

Vec3 pending_vcm(const StepState& h, const UpdateParams& up, int group) {
  if (up.ncomm == 0) return {h.vcm[0], h.vcm[1], h.vcm[2]};
  if (group < 0) return {};
  return {h.comm_vcm[group][0], h.comm_vcm[group][1], h.comm_vcm[group][2]};
}

void set_nose_hoover_params(const ExecutorConfig& cfg, UpdateParams& up) {
  if (cfg.mdp->tcoupl != Tcoupl::NoseHoover) return;
  const std::vector<NoseHooverGroup> groups = nose_hoover_groups(cfg);
  check_group_count(static_cast<int>(groups.size()));
  up.nose_hoover = 1;
  up.nh_groups = static_cast<int>(groups.size());
  for (int g = 0; g < up.nh_groups; ++g) {
    up.nh_qinv[g] = groups[g].qinv;
    up.nh_ref_t[g] = groups[g].ref_t;
    up.nh_ndf[g] = groups[g].ndf;
  }
}

StepState initial_step_state(const MdState& s) {
  StepState h{};
  h.step = s.step;
  h.lambda = 1.0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) h.ke_prev[3 * a + b] = s.ke_half_prev.m[a][b];
  h.integral_before = h.integral = s.thermostat_integral;
  for (size_t g = 0; g < s.nh_xi.size() && g < static_cast<size_t>(kMaxTcGroups); ++g) {
    h.nh_xi[g] = s.nh_xi[g];  // Nose-Hoover's state from a checkpoint (a start has none: 0)
    h.nh_vxi[g] = s.nh_vxi[g];
  }
  h.error = kNoError;
  h.one = 1;
  return h;
}

StepRequest scheduled_request(const UpdateParams& up, int64_t step) {
  StepRequest r;
  r.step = step;
  r.tcouple = (up.vrescale || up.nose_hoover) && (step + up.nsttcouple - 1) % up.nsttcouple == 0;
  r.comm = up.comm_linear && step % up.nstcomm == 0;
  return r;
}

void check_request(const UpdateParams& up, const StepRequest& r, int64_t device_step) {
  if (r.step != device_step)
    throw RuntimeError(r.step, -1,
                       fmt::format("internal error: the CUDA executor is at step {}", device_step));
  // The device decides coupling and COM removal from its step counter; it must agree with the MD loop.
  const StepRequest device = scheduled_request(up, r.step);
  if (device.tcouple != r.tcouple || device.comm != r.comm)
    throw RuntimeError(r.step, -1,
                       "internal error: the CUDA executor's coupling schedule differs from the MD loop's");
}

void fill_energies(const StepState& h, double self_energy, StepEnergies* e) {
  e->lj = 0.5 * from_fixed(h.nb_acc[0]);  // every pair was summed from both of its atoms
  e->coulomb = 0.5 * from_fixed(h.nb_acc[1]) + self_energy;
  const int idx[3][3] = {{2, 5, 6}, {5, 3, 7}, {6, 7, 4}};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      e->virial.m[a][b] = -0.25 * from_fixed(h.nb_acc[idx[a][b]]) + from_fixed(h.cvir_acc[3 * a + b]);
      e->kinetic.m[a][b] = 0.5 * (h.rep_ke_prev[3 * a + b] + h.rep_ke_now[3 * a + b]);
    }
  e->thermostat_integral = h.rep_integral;
}

void throw_if_error(const StepState& h, std::span<const int> global) {
  if (h.error == kNoError) return;
  const long long step_bad = static_cast<long long>(h.error >> 32);
  int atom = static_cast<int>((h.error >> 2) & 0x3fffffffu);
  if (!global.empty()) atom = atom < static_cast<int>(global.size()) ? global[atom] : -1;
  throw RuntimeError(step_bad, atom, error_text(static_cast<int>(h.error & 3u)));
}

}  // namespace halomd::cuda
