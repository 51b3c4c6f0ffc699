// Nose-Hoover temperature coupling for leap-frog (no chains) as GROMACS 2022 defines it, one definition for
// the CPU executors' TemperatureCoupling (cpu/coupling.h) and the CUDA update (cuda/update.cu): a group's
// mass parameter, the coupling step and the thermostat's energy.
#pragma once

#include "core/host_device.h"
#include "core/units.h"

namespace halomd {

// GROMACS's init_npt_masses for leap-frog: 1/Q = 1 / ((tau-t / 2 pi)^2 ref-t); 0 without coupling (tau-t or
// ref-t not positive).
inline double nose_hoover_qinv(double tau_t, double ref_t) {
  const double q = (tau_t / (2.0 * units::kPi)) * (tau_t / (2.0 * units::kPi)) * ref_t;
  return tau_t > 0 && ref_t > 0 ? 1.0 / q : 0.0;
}

// GROMACS's nosehoover_tcoupl (leap-frog, no chains) for one group with ndf degrees of freedom and KE(step -
// 1/2) ke: vxi += dt_tc / Q (T_half - ref-t), xi += dt_tc (vxi_old + vxi) / 2 with dt_tc = nsttcouple dt;
// returns the update's friction factor 0.5 dt_tc vxi.
HALOMD_HOST_DEVICE inline double nose_hoover_couple(double ke, double ndf, double qinv, double ref_t,
                                                    double dt_tc, double& xi, double& vxi) {
  const double t_half = ndf > 0 ? 2.0 * ke / (ndf * units::kBoltzmann) : 0.0;
  const double old = vxi;
  vxi += dt_tc * qinv * (t_half - ref_t);
  xi += dt_tc * (old + vxi) * 0.5;
  return 0.5 * dt_tc * vxi;
}

// One group's share of GROMACS's energyNoseHoover for leap-frog: ndf (1/2 kB vxi^2 Q + xi kB ref-t).
HALOMD_HOST_DEVICE inline double nose_hoover_energy(double ndf, double qinv, double ref_t, double xi,
                                                    double vxi) {
  if (ndf <= 0.0) return 0.0;
  double e = ndf * xi * units::kBoltzmann * ref_t;
  if (qinv > 0.0) e += 0.5 * units::kBoltzmann * ndf * vxi * vxi / qinv;
  return e;
}

}  // namespace halomd
