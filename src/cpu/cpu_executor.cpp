#include "cpu/cpu_executor.h"

#include "core/errors.h"
#include "core/units.h"
#include "cpu/thermostat.h"
#include "cpu/update.h"
#include "cpu/vsite.h"

namespace halomd {
namespace {

// An atom that moves further than this in one step has blown up (nm).
constexpr double kMaxStepDisplacement = 0.1;

}  // namespace

double vrescale_lambda(double ek, double ref_kinetic, double ndf, const MdParams& mdp, uint64_t seed,
                       int64_t step, double* integral) {
  return vrescale_lambda(ek, ref_kinetic, ndf, mdp.tau_t, mdp, seed, 0, step, integral);
}

double vrescale_lambda(double ek, double ref_kinetic, double ndf, double tau_t, const MdParams& mdp,
                       uint64_t seed, int group, int64_t step, double* integral) {
  seed = vrescale_group_seed(seed, group);
  const double tau_steps = tau_t / (mdp.nsttcouple * mdp.dt);
  const double ek_new = vrescale_resample_kinetic(ek, ref_kinetic, ndf, tau_steps, seed, step);
  *integral -= ek_new - ek;
  return ek > 0 ? std::sqrt(ek_new / ek) : 1.0;
}

void check_blow_up(int64_t step, int settle_failed, const std::vector<Vec3>& x_old,
                   const std::vector<Vec3>& x_new, std::span<const int> global_index) {
  const int runaway = find_runaway_atom(x_old, x_new, kMaxStepDisplacement);
  if (settle_failed < 0 && runaway < 0) return;
  const int atom = runaway >= 0 ? runaway : settle_failed;
  throw RuntimeError(step, global_index.empty() ? atom : global_index[atom],
                     "the system blew up: an atom moved more than 0.1 nm in one step or a water "
                     "could not be constrained (time step too long, or bad starting structure?)");
}

CpuExecutor::CpuExecutor(const ExecutorConfig& config)
    : cfg_(config),
      top_(*config.top),
      mdp_(*config.mdp),
      settle_(top_),
      lincs_(top_, mdp_.lincs_order, mdp_.lincs_iter, mdp_.lincs_warnangle),
      forces_(top_, mdp_, config.box, config.pme_grid_box(), config.threads),
      coupling_(config) {
  if (mdp_.integrator == Integrator::Sd)
    sd_.emplace(mdp_, std::max<int>(1, static_cast<int>(cfg_.tc_ndf.size())), cfg_.ld_seed);
  const int n = top_.num_atoms();
  inv_mass_.resize(n);
  for (int i = 0; i < n; ++i) inv_mass_[i] = top_.update_inv_mass(i);
  f_.resize(n);
  x_new_.resize(n);
}

void CpuExecutor::load(const MdState& s) {
  step_ = s.step;
  x_ = s.x;
  v_ = s.v;
  ke_half_prev_ = s.ke_half_prev;
  coupling_.load(s);
  if (coupling_.groups() > 0)
    group_ke_prev_ = s.ke_half_prev_groups.size() == static_cast<size_t>(coupling_.groups())
                         ? s.ke_half_prev_groups
                         : kinetic_energy_by_group(v_, top_.mass, *cfg_.tc_group, coupling_.groups());
}

void CpuExecutor::save(MdState& s) {
  s.step = step_;
  s.x = x_;
  s.v = v_;
  s.ke_half_prev = ke_half_prev_;
  s.ke_half_prev_groups = group_ke_prev_;
  coupling_.save(s);
}

void CpuExecutor::scale_positions(const Tensor& mu, const Box& box) {
  for (Vec3& x : x_)
    for (int d = 0; d < 3; ++d) x[d] *= mu.m[d][d];
  cfg_.box = box;
  forces_.set_box(box);
}

void CpuExecutor::scale_coordinates(const Tensor& mu, const Box& box) {
  scale_positions(mu, box);
  for (Vec3& v : v_)
    for (int d = 0; d < 3; ++d) v[d] /= mu.m[d][d];
}

void CpuExecutor::step(const StepRequest& r, StepEnergies* e) {
  PhaseTimers& timers = *cfg_.timers;
  const int threads = cfg_.threads;
  forces_.compute(x_, r.ns, r.step, f_, e, timers);

  timers.start(Phase::Update);
  coupling_.couple(r, ke_half_prev_.trace(), group_ke_prev_);
  // The topology's constraints decide SD's form, as GROMACS's (LINCS leaves out those between frozen atoms).
  const bool constrained = !top_.constraints.empty() || !top_.settles.empty();
  if (sd_ && !constrained)
    sd_->combined(r.step, x_, v_, f_, inv_mass_, cfg_.tc_group, {}, mdp_.dt, x_new_, threads);
  else
    coupling_.update(r, x_, v_, f_, inv_mass_, cfg_.tc_group, mdp_.dt, x_new_, threads);
  keep_frozen_dimensions(top_.frozen, {}, x_, v_, x_new_);
  timers.stop();

  timers.start(Phase::Constraints);
  Tensor constr_virial;
  // LINCS, then SETTLE, as GROMACS's constrain (they never share an atom).
  const int lincs_failed =
      lincs_.apply(x_, x_new_, &v_, mdp_.dt, r.energy ? &constr_virial : nullptr, cfg_.box);
  const int settle_failed =
      settle_.apply(x_, x_new_, &v_, mdp_.dt, r.energy ? &constr_virial : nullptr, threads);
  check_blow_up(r.step, lincs_failed >= 0 ? lincs_failed : settle_failed, x_, x_new_);
  if (sd_ && constrained) {
    // SD's friction and noise, then the constraints again over half a step (no virial), as GROMACS.
    sd_->friction_and_noise(r.step, v_, inv_mass_, cfg_.tc_group, {}, mdp_.dt, x_new_, threads);
    keep_frozen_dimensions(top_.frozen, {}, x_, v_, x_new_);
    const int l2 = lincs_.apply(x_, x_new_, &v_, 0.5 * mdp_.dt, nullptr, cfg_.box);
    const int s2 = settle_.apply(x_, x_new_, &v_, 0.5 * mdp_.dt, nullptr, threads);
    check_blow_up(r.step, l2 >= 0 ? l2 : s2, x_, x_new_);
  }
  // Virtual sites from the updated atoms, as GROMACS 2022 after its update (a run from a .gro with
  // continuation = yes takes the file's sites for its first step, as GROMACS does).
  construct_vsites(top_.vsites, x_new_, cfg_.box, &x_, &v_, mdp_.dt);
  timers.stop();

  timers.start(Phase::Energies);
  const Tensor ke_half = kinetic_energy_tensor(v_, top_.mass, threads);
  std::vector<double> group_ke;
  if (coupling_.groups() > 0)
    group_ke = kinetic_energy_by_group(v_, top_.mass, *cfg_.tc_group, coupling_.groups());
  if (r.comm && cfg_.comm_group)
    remove_com_velocity(v_, top_.mass, *cfg_.comm_group, cfg_.comm_groups);
  else if (r.comm)
    remove_com_velocity(v_, top_.mass);
  // GROMACS removes no centre-of-mass velocity along an atom's frozen dimensions.
  if (r.comm) zero_frozen_velocities(top_.frozen, {}, v_);
  if (e) {
    e->virial += constr_virial;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) e->kinetic.m[a][b] = 0.5 * (ke_half_prev_.m[a][b] + ke_half.m[a][b]);
    e->thermostat_integral = coupling_.integral();
    e->group_kinetic.clear();
    for (size_t g = 0; g < group_ke.size(); ++g)
      e->group_kinetic.push_back(0.5 * (group_ke_prev_[g] + group_ke[g]));
  }
  timers.stop();

  x_.swap(x_new_);
  ke_half_prev_ = ke_half;
  if (!group_ke.empty()) group_ke_prev_ = group_ke;
  step_ = r.step + 1;
}

}  // namespace halomd
