#include "cpu/coupling.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/units.h"
#include "cpu/cpu_executor.h"
#include "cpu/nose_hoover.h"
#include "cpu/thermostat.h"
#include "cpu/update.h"

namespace halomd {

std::vector<NoseHooverGroup> nose_hoover_groups(const ExecutorConfig& config) {
  const MdParams& mdp = *config.mdp;
  std::vector<NoseHooverGroup> out(std::max<size_t>(1, config.tc_ndf.size()));
  for (size_t g = 0; g < out.size(); ++g) {
    const double tau = mdp.tau_ts.empty() ? mdp.tau_t : mdp.tau_ts[g];
    out[g].ref_t = std::max(0.0, mdp.ref_ts.empty() ? mdp.ref_t : mdp.ref_ts[g]);
    out[g].qinv = nose_hoover_qinv(tau, out[g].ref_t);
    out[g].ndf = config.tc_ndf.empty() ? config.ndf : config.tc_ndf[g];
  }
  return out;
}

double annealed_ref_t(const MdParams& mdp, int group, double t) {
  const double ref = mdp.ref_ts.size() > static_cast<size_t>(group) ? mdp.ref_ts[group] : mdp.ref_t;
  if (mdp.annealing.size() <= static_cast<size_t>(group) || mdp.annealing[group] == Annealing::No) return ref;
  const std::vector<double>& times = mdp.anneal_times[group];
  const std::vector<double>& temps = mdp.anneal_temps[group];
  const size_t n = times.size();
  constexpr double kEps = 100 * std::numeric_limits<double>::epsilon();  // gmx_d's GMX_REAL_EPS * 100
  double at = t;
  if (mdp.annealing[group] == Annealing::Periodic) {
    const double period = times[n - 1];
    at = t - static_cast<int>(t / period) * period;  // truncated, as GROMACS
    if (std::fabs(at - period) < kEps) at = 0.0;
  }
  size_t j = 0;
  while (j + 1 < n && at > times[j + 1]) ++j;
  if (j + 1 >= n) return temps[n - 1];
  if (times[j + 1] - times[j] < kEps) return temps[j + 1];
  const double x = (at - times[j]) / (times[j + 1] - times[j]);
  return x * temps[j + 1] + (1.0 - x) * temps[j];
}

TemperatureCoupling::TemperatureCoupling(const ExecutorConfig& config)
    : mdp_(*config.mdp), ndf_(config.ndf), seed_(config.ld_seed) {
  ref_kinetic_ = 0.5 * config.ndf * units::kBoltzmann * mdp_.ref_t;
  for (size_t g = 0; g < config.tc_ndf.size(); ++g) {
    group_ref_kinetic_.push_back(0.5 * config.tc_ndf[g] * units::kBoltzmann * mdp_.ref_ts[g]);
    group_tau_.push_back(mdp_.tau_ts[g]);
    group_ndf_.push_back(config.tc_ndf[g]);
  }
  group_lambda_.assign(group_ref_kinetic_.size(), 1.0);
  if (mdp_.tcoupl == Tcoupl::NoseHoover) {
    for (const NoseHooverGroup& t : nose_hoover_groups(config)) {
      nh_qinv_.push_back(t.qinv);
      nh_ref_t_.push_back(t.ref_t);
      nh_ndf_.push_back(t.ndf);
    }
    const size_t groups = nh_qinv_.size();
    nh_xi_.assign(groups, 0.0);
    nh_vxi_.assign(groups, 0.0);
    nh_factor_.assign(groups, 0.0);
  }
}

void TemperatureCoupling::load(const MdState& s) {
  integral_ = s.thermostat_integral;
  if (!nh_xi_.empty() && s.nh_xi.size() == nh_xi_.size()) {
    nh_xi_ = s.nh_xi;
    nh_vxi_ = s.nh_vxi;
  }
}

void TemperatureCoupling::save(MdState& s) const {
  s.thermostat_integral = integral_;
  s.nh_xi = nh_xi_;
  s.nh_vxi = nh_vxi_;
}

void TemperatureCoupling::couple(const StepRequest& r, double ke, const std::vector<double>& group_ke) {
  nh_step_ = nose_hoover() && r.tcouple;
  lambda_ = 1.0;
  if (nh_step_) {
    // From KE(step - 1/2) of each group (cpu/nose_hoover.h).
    const double dt_tc = mdp_.nsttcouple * mdp_.dt;
    for (size_t g = 0; g < nh_xi_.size(); ++g)
      nh_factor_[g] = nose_hoover_couple(group_ke.empty() ? ke : group_ke[g], nh_ndf_[g], nh_qinv_[g],
                                         nh_ref_t_[g], dt_tc, nh_xi_[g], nh_vxi_[g]);
    return;
  }
  if (nose_hoover()) return;
  if (mdp_.annealed() && r.tcouple) {  // the references at this step's time (GROMACS: at every step)
    const double t = mdp_.tinit + static_cast<double>(r.step) * mdp_.dt;
    if (group_tau_.empty()) ref_kinetic_ = 0.5 * ndf_ * units::kBoltzmann * annealed_ref_t(mdp_, 0, t);
    for (size_t g = 0; g < group_tau_.size(); ++g)
      group_ref_kinetic_[g] =
          0.5 * group_ndf_[g] * units::kBoltzmann * annealed_ref_t(mdp_, static_cast<int>(g), t);
  }
  if (group_tau_.empty()) {
    if (r.tcouple) lambda_ = factor(ke, ref_kinetic_, ndf_, mdp_.tau_t, 0, r.step);
    return;
  }
  for (size_t g = 0; g < group_tau_.size(); ++g)
    group_lambda_[g] = r.tcouple ? factor(group_ke[g], group_ref_kinetic_[g], group_ndf_[g], group_tau_[g],
                                          static_cast<int>(g), r.step)
                                 : 1.0;
}

double TemperatureCoupling::factor(double ek, double ref_kinetic, double ndf, double tau_t, int group,
                                   int64_t step) {
  if (mdp_.tcoupl == Tcoupl::Berendsen) {
    const double l = berendsen_lambda(ek, ref_kinetic, tau_t / (mdp_.nsttcouple * mdp_.dt));
    integral_ -= (l * l - 1.0) * ek;
    return l;
  }
  return vrescale_lambda(ek, ref_kinetic, ndf, tau_t, mdp_, seed_, group, step, &integral_);
}

void TemperatureCoupling::update(const StepRequest& r, const std::vector<Vec3>& x, std::vector<Vec3>& v,
                                 const std::vector<Vec3>& f, const std::vector<double>& inv_mass,
                                 const std::vector<int>* group, double dt, std::vector<Vec3>& x_new,
                                 int threads) const {
  if (group_tau_.empty()) group = nullptr;
  if (nh_step_ || r.pr) {
    // Nose-Hoover's friction and Parrinello-Rahman's M in the update (GROMACS's general leap-frog).
    const size_t n = group ? group_tau_.size() : 1;
    const std::vector<double> lambdas =
        nose_hoover() ? std::vector<double>(n, 1.0) : (group ? group_lambda_ : std::vector<double>{lambda_});
    const std::vector<double> friction = nh_step_ ? nh_factor_ : std::vector<double>(n, 0.0);
    leapfrog_coupled(x, v, f, inv_mass, lambdas, friction, group, r.pr ? r.pr_scale : Vec3{}, dt, x_new,
                     threads);
  } else if (group) {
    leapfrog_update(x, v, f, inv_mass, group_lambda_, *group, dt, x_new, threads);
  } else {
    leapfrog_update(x, v, f, inv_mass, lambda_, dt, x_new, threads);
  }
}

double TemperatureCoupling::integral() {
  if (nose_hoover()) {
    // GROMACS's energyNoseHoover for leap-frog, summed over the groups in order.
    double e = 0.0;
    for (size_t g = 0; g < nh_xi_.size(); ++g)
      e += nose_hoover_energy(nh_ndf_[g], nh_qinv_[g], nh_ref_t_[g], nh_xi_[g], nh_vxi_[g]);
    integral_ = e;
  }
  return integral_;
}

}  // namespace halomd
