#include "cpu/thermostat.h"

#include <cmath>

#include "core/random.h"

namespace halomd {

double vrescale_resample_kinetic(double kinetic, double ref_kinetic, double ndf, double tau_steps,
                                 uint64_t seed, int64_t step) {
  // As GROMACS: a coupling time below 0.1 coupling steps means instantaneous rescaling.
  const double factor = tau_steps > 0.1 ? std::exp(-1.0 / tau_steps) : 0.0;
  CounterRandom rng(seed, RandomStream::Thermostat, static_cast<uint64_t>(step));
  const double rr = rng.normal();
  // Sum of ndf-1 squared standard normals = 2 Gamma((ndf-1)/2).
  const double sum_noises = ndf > 1.0 ? 2.0 * rng.gamma(0.5 * (ndf - 1.0)) : 0.0;
  return kinetic + (1.0 - factor) * (ref_kinetic * (sum_noises + rr * rr) / ndf - kinetic) +
         2.0 * rr * std::sqrt(kinetic * ref_kinetic / ndf * (1.0 - factor) * factor);
}

}  // namespace halomd
