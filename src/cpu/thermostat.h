// The v-rescale thermostat (Bussi, Donadio, Parrinello, J. Chem. Phys. 126, 014101, 2007) as GROMACS applies
// it to leap-frog: one scaling factor per coupling step for the single group System. Shared by the CPU
// executors and the CUDA executor, which draws the same numbers on the GPU.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/host_device.h"
#include "core/random.h"

namespace halomd {

// The random stream of tc-grps group `group`: group 0 draws the single group's numbers, the others their own.
HALOMD_HOST_DEVICE inline uint64_t vrescale_group_seed(uint64_t seed, int group) {
  return group == 0 ? seed : mix64(seed ^ (0x7c15ULL * static_cast<uint64_t>(group)));
}

// New kinetic energy drawn from the canonical-sampling stochastic equation (the paper's eq. A7):
// kinetic, ref_kinetic in kJ/mol; tau_steps = tau_t / (coupling interval); ndf degrees of freedom. A group
// without degrees of freedom (frozen) or at rest keeps its kinetic energy (factor 1, the integral unchanged),
// as GROMACS's vrescale_tcoupl leaves it.
HALOMD_HOST_DEVICE inline double vrescale_resample_kinetic(double kinetic, double ref_kinetic, double ndf,
                                                           double tau_steps, uint64_t seed, int64_t step) {
  if (!(ndf > 0.0) || !(kinetic > 0.0)) return kinetic;
  // As GROMACS: a coupling time below 0.1 coupling steps means instantaneous rescaling.
  const double factor = tau_steps > 0.1 ? exp(-1.0 / tau_steps) : 0.0;
  CounterRandom rng(seed, RandomStream::Thermostat, static_cast<uint64_t>(step));
  const double rr = rng.normal();
  // Sum of ndf-1 squared standard normals = 2 Gamma((ndf-1)/2).
  const double sum_noises = ndf > 1.0 ? 2.0 * rng.gamma(0.5 * (ndf - 1.0)) : 0.0;
  return kinetic + (1.0 - factor) * (ref_kinetic * (sum_noises + rr * rr) / ndf - kinetic) +
         2.0 * rr * sqrt(kinetic * ref_kinetic / ndf * (1.0 - factor) * factor);
}

// Berendsen's weak coupling (GROMACS 2022 berendsen_tcoupl) for leap-frog: the factor of a coupling step
// from the kinetic energy ek of the half step before, with ref_kinetic = ndf kB ref-t / 2 (so ref-t / T =
// ref_kinetic / ek) and tau_steps = tau-t / (coupling interval), kept within [0.8, 1.25] as GROMACS keeps it;
// 1 for tau-t <= 0 or ek <= 0. The conserved energy's integral loses (lambda^2 - 1) ek.
// (Clamped before the root: a coupling interval longer than tau-t can make the square negative, which
// GROMACS's own clamp of the root would leave NaN.)
HALOMD_HOST_DEVICE inline double berendsen_lambda(double ek, double ref_kinetic, double tau_steps) {
  if (!(tau_steps > 0.0) || !(ek > 0.0)) return 1.0;
  const double l2 = 1.0 + (ref_kinetic / ek - 1.0) / tau_steps;
  return l2 < 0.64 ? 0.8 : (l2 > 1.5625 ? 1.25 : sqrt(l2));
}

}  // namespace halomd
