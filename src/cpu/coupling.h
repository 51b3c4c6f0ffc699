// Temperature coupling of the CPU executors (one domain or several): v-rescale or Berendsen with one group or
// several tc-grps, and Nose-Hoover (leap-frog, no chains) with one group or several, as GROMACS 2022 applies
// them to leap-frog; the state a checkpoint carries and the thermostat's share of the conserved energy. The
// executors own the half-step kinetic energies it reads (summed over domains where there are several), so
// both draw the same numbers from the same energies.
#pragma once

#include <cstdint>
#include <vector>

#include "core/executor.h"

namespace halomd {

// tcoupl = Nose-Hoover's thermostats (one per tc-grps group, or one for the whole system): 1/Q
// (cpu/nose_hoover.h), ref-t (negative taken as 0) and degrees of freedom, as the CPU and GPU updates use
// them.
struct NoseHooverGroup {
  double qinv = 0.0, ref_t = 0.0, ndf = 0.0;
};
std::vector<NoseHooverGroup> nose_hoover_groups(const ExecutorConfig& config);

// The reference temperature of tc-grps group `group` at time t (ps): with simulated annealing (mdp.annealing)
// GROMACS 2022's target, linear between the group's points (a step where two points share a time; the last
// temperature after them; periodic groups take t modulo the last time point), else its ref-t.
double annealed_ref_t(const MdParams& mdp, int group, double t);

class TemperatureCoupling {
 public:
  explicit TemperatureCoupling(const ExecutorConfig& config);

  // tc-grps groups with their own thermostat (0: the single group System).
  int groups() const { return static_cast<int>(group_tau_.size()); }
  bool nose_hoover() const { return !nh_xi_.empty(); }

  // Restores the integral and Nose-Hoover's xi and vxi (a start keeps xi = vxi = 0, as GROMACS).
  void load(const MdState& s);
  void save(MdState& s) const;

  // The factors of step r from KE(n - 1/2): `ke` the whole system's, `group_ke` per group (with groups).
  void couple(const StepRequest& r, double ke, const std::vector<double>& group_ke);

  // Leap-frog of step r with those factors (cpu/update.h); group: each atom's tc-grps group (with groups).
  void update(const StepRequest& r, const std::vector<Vec3>& x, std::vector<Vec3>& v,
              const std::vector<Vec3>& f, const std::vector<double>& inv_mass, const std::vector<int>* group,
              double dt, std::vector<Vec3>& x_new, int threads) const;

  // The conserved energy's integral at an energy step (Nose-Hoover's energy is computed here).
  double integral();

 private:
  // One group's factor at a coupling step from its KE(n - 1/2) (v-rescale's draw or Berendsen's), the
  // integral updated.
  double factor(double ek, double ref_kinetic, double ndf, double tau_t, int group, int64_t step);
  const MdParams& mdp_;
  double ndf_;
  uint64_t seed_;
  double ref_kinetic_ = 0.0;
  double integral_ = 0.0;
  bool nh_step_ = false;  // this step couples Nose-Hoover
  double lambda_ = 1.0;   // the single group's v-rescale factor
  // Several tc-grps: per group the reference kinetic energy, tau-t, degrees of freedom and the step's
  // v-rescale factor.
  std::vector<double> group_ref_kinetic_, group_tau_, group_ndf_, group_lambda_;
  // Nose-Hoover (one entry per group, or one): GROMACS's xi, vxi, 1/Q, reference temperature and degrees of
  // freedom, and the step's friction factor.
  std::vector<double> nh_xi_, nh_vxi_, nh_qinv_, nh_ref_t_, nh_ndf_, nh_factor_;
};

}  // namespace halomd
