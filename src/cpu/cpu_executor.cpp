#include "cpu/cpu_executor.h"

#include "core/errors.h"
#include "core/units.h"
#include "cpu/thermostat.h"
#include "cpu/update.h"

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
      forces_(top_, mdp_, config.box, config.grid_box.volume() > 0 ? config.grid_box : config.box,
              config.threads) {
  const int n = top_.num_atoms();
  inv_mass_.resize(n);
  for (int i = 0; i < n; ++i) inv_mass_[i] = top_.mass[i] > 0 ? 1.0 / top_.mass[i] : 0.0;
  ref_kinetic_ = 0.5 * cfg_.ndf * units::kBoltzmann * mdp_.ref_t;
  for (size_t g = 0; g < cfg_.tc_ndf.size(); ++g) {
    group_ref_kinetic_.push_back(0.5 * cfg_.tc_ndf[g] * units::kBoltzmann * mdp_.ref_ts[g]);
    group_tau_.push_back(mdp_.tau_ts[g]);
  }
  group_lambda_.assign(group_ref_kinetic_.size(), 1.0);
  if (mdp_.tcoupl == Tcoupl::NoseHoover) {
    const size_t groups = std::max<size_t>(1, cfg_.tc_ndf.size());
    for (size_t g = 0; g < groups; ++g) {
      const double tau = mdp_.tau_ts.empty() ? mdp_.tau_t : mdp_.tau_ts[g];
      const double ref = std::max(0.0, mdp_.ref_ts.empty() ? mdp_.ref_t : mdp_.ref_ts[g]);
      // GROMACS's init_npt_masses for leap-frog: 1/Q = 1 / ((tau-t / 2 pi)^2 ref-t), 0 without coupling.
      const double q = (tau / (2.0 * units::kPi)) * (tau / (2.0 * units::kPi)) * ref;
      nh_qinv_.push_back(tau > 0 && ref > 0 ? 1.0 / q : 0.0);
      nh_ref_t_.push_back(ref);
      nh_ndf_.push_back(cfg_.tc_ndf.empty() ? cfg_.ndf : cfg_.tc_ndf[g]);
    }
    nh_xi_.assign(groups, 0.0);
    nh_vxi_.assign(groups, 0.0);
    nh_factor_.assign(groups, 0.0);
  }
  f_.resize(n);
  x_new_.resize(n);
}

void CpuExecutor::load(const MdState& s) {
  step_ = s.step;
  x_ = s.x;
  v_ = s.v;
  ke_half_prev_ = s.ke_half_prev;
  thermostat_integral_ = s.thermostat_integral;
  if (!nh_xi_.empty() && s.nh_xi.size() == nh_xi_.size()) {  // else a start: xi = vxi = 0, as GROMACS
    nh_xi_ = s.nh_xi;
    nh_vxi_ = s.nh_vxi;
  }
  if (!group_tau_.empty())
    group_ke_prev_ =
        s.ke_half_prev_groups.size() == group_tau_.size()
            ? s.ke_half_prev_groups
            : kinetic_energy_by_group(v_, top_.mass, *cfg_.tc_group, static_cast<int>(group_tau_.size()));
}

void CpuExecutor::save(MdState& s) {
  s.step = step_;
  s.x = x_;
  s.v = v_;
  s.ke_half_prev = ke_half_prev_;
  s.ke_half_prev_groups = group_ke_prev_;
  s.thermostat_integral = thermostat_integral_;
  s.nh_xi = nh_xi_;
  s.nh_vxi = nh_vxi_;
}

// GROMACS's nosehoover_tcoupl at a coupling step (leap-frog, no chains): vxi += dt_tc / Q (T_half - ref-t),
// xi += dt_tc (vxi_old + vxi) / 2, T_half from KE(step - 1/2); then the update's friction 0.5 dt_tc vxi.
void CpuExecutor::nose_hoover_coupling() {
  const double dt_tc = mdp_.nsttcouple * mdp_.dt;
  for (size_t g = 0; g < nh_xi_.size(); ++g) {
    const double ke = group_ke_prev_.empty() ? ke_half_prev_.trace() : group_ke_prev_[g];
    const double t_half = nh_ndf_[g] > 0 ? 2.0 * ke / (nh_ndf_[g] * units::kBoltzmann) : 0.0;
    const double old = nh_vxi_[g];
    nh_vxi_[g] += dt_tc * nh_qinv_[g] * (t_half - nh_ref_t_[g]);
    nh_xi_[g] += dt_tc * (old + nh_vxi_[g]) * 0.5;
    nh_factor_[g] = 0.5 * dt_tc * nh_vxi_[g];
  }
}

// The thermostat's share of the conserved energy (GROMACS's energyNoseHoover for leap-frog):
// sum_g ndf_g (1/2 kB vxi^2 Q + xi kB ref-t).
double CpuExecutor::nose_hoover_energy() const {
  double e = 0.0;
  for (size_t g = 0; g < nh_xi_.size(); ++g) {
    if (nh_ndf_[g] <= 0.0) continue;
    if (nh_qinv_[g] > 0.0) e += 0.5 * units::kBoltzmann * nh_ndf_[g] * nh_vxi_[g] * nh_vxi_[g] / nh_qinv_[g];
    e += nh_ndf_[g] * nh_xi_[g] * units::kBoltzmann * nh_ref_t_[g];
  }
  return e;
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
  const bool nh_step = !nh_xi_.empty() && r.tcouple;
  if (nh_step) nose_hoover_coupling();
  // v-rescale's factors: one, or one per group.
  double lambda = 1.0;
  if (nh_xi_.empty() && group_tau_.empty() && r.tcouple)
    lambda = vrescale_lambda(ke_half_prev_.trace(), ref_kinetic_, cfg_.ndf, mdp_, cfg_.ld_seed, r.step,
                             &thermostat_integral_);
  if (nh_xi_.empty() && !group_tau_.empty())
    for (size_t g = 0; g < group_tau_.size(); ++g)
      group_lambda_[g] =
          r.tcouple ? vrescale_lambda(group_ke_prev_[g], group_ref_kinetic_[g], cfg_.tc_ndf[g], group_tau_[g],
                                      mdp_, cfg_.ld_seed, static_cast<int>(g), r.step, &thermostat_integral_)
                    : 1.0;
  const std::vector<int>* group = group_tau_.empty() ? nullptr : cfg_.tc_group;
  if (nh_step || r.pr) {
    // Nose-Hoover's friction and Parrinello-Rahman's M in the update (GROMACS's general leap-frog).
    const size_t groups = group ? group_tau_.size() : 1;
    const std::vector<double> lambdas = nh_xi_.empty() ? (group ? group_lambda_ : std::vector<double>{lambda})
                                                       : std::vector<double>(groups, 1.0);
    const std::vector<double> friction = nh_step ? nh_factor_ : std::vector<double>(groups, 0.0);
    leapfrog_coupled(x_, v_, f_, inv_mass_, lambdas, friction, group, r.pr ? r.pr_scale : Vec3{}, mdp_.dt,
                     x_new_, threads);
  } else if (group) {
    leapfrog_update(x_, v_, f_, inv_mass_, group_lambda_, *cfg_.tc_group, mdp_.dt, x_new_, threads);
  } else {
    leapfrog_update(x_, v_, f_, inv_mass_, lambda, mdp_.dt, x_new_, threads);
  }
  timers.stop();

  timers.start(Phase::Constraints);
  Tensor constr_virial;
  // LINCS, then SETTLE, as GROMACS's constrain (they never share an atom).
  const int lincs_failed =
      lincs_.apply(x_, x_new_, &v_, mdp_.dt, r.energy ? &constr_virial : nullptr, cfg_.box);
  const int settle_failed =
      settle_.apply(x_, x_new_, &v_, mdp_.dt, r.energy ? &constr_virial : nullptr, threads);
  check_blow_up(r.step, lincs_failed >= 0 ? lincs_failed : settle_failed, x_, x_new_);
  timers.stop();

  timers.start(Phase::Energies);
  const Tensor ke_half = kinetic_energy_tensor(v_, top_.mass, threads);
  std::vector<double> group_ke;
  if (!group_tau_.empty())
    group_ke = kinetic_energy_by_group(v_, top_.mass, *cfg_.tc_group, static_cast<int>(group_tau_.size()));
  if (r.comm) remove_com_velocity(v_, top_.mass);
  if (e) {
    e->virial += constr_virial;
    if (!nh_xi_.empty()) thermostat_integral_ = nose_hoover_energy();
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) e->kinetic.m[a][b] = 0.5 * (ke_half_prev_.m[a][b] + ke_half.m[a][b]);
    e->thermostat_integral = thermostat_integral_;
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
