// A counter-based random stream: every number is a pure function of (seed, stream, step, index), so a run
// continued from a checkpoint draws exactly the numbers the uninterrupted run would, with no state to save.
// Host and device code share it (the CUDA executor draws the v-rescale numbers on the GPU); the math calls
// are the unqualified double-precision ones, which on the host are the same functions as std::.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/host_device.h"

namespace halomd {

// SplitMix64 finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014).
HALOMD_HOST_DEVICE inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

enum class RandomStream : uint64_t { Thermostat = 1, GenVel = 2, Barostat = 3, Langevin = 4 };

class CounterRandom {
 public:
  HALOMD_HOST_DEVICE CounterRandom(uint64_t seed, RandomStream stream, uint64_t step)
      : key_(mix64(mix64(seed ^ (static_cast<uint64_t>(stream) << 56)) ^ mix64(step))) {}

  // Uniform in (0, 1).
  HALOMD_HOST_DEVICE double uniform() {
    return (static_cast<double>(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  }
  // Standard normal (Box-Muller; one value per call, so the sequence is simple to reason about).
  HALOMD_HOST_DEVICE double normal() {
    const double u1 = uniform(), u2 = uniform();
    return sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
  }
  // Gamma(shape, 1) deviate (Marsaglia and Tsang, ACM TOMS 26, 363, 2000), shape > 0. A shape below 1 is
  // drawn as Gamma(shape + 1) U^(1/shape), the uniform drawn after the Gamma(shape + 1) numbers (no
  // recursion, so device code has a fixed stack).
  HALOMD_HOST_DEVICE double gamma(double shape) {
    const bool boost = shape < 1.0;
    const double a = boost ? shape + 1.0 : shape;
    const double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    double g;
    for (;;) {
      double x, v;
      do {
        x = normal();
        v = 1.0 + c * x;
      } while (v <= 0.0);
      v = v * v * v;
      const double u = uniform();
      if (u < 1.0 - 0.0331 * x * x * x * x) {
        g = d * v;
        break;
      }
      if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) {
        g = d * v;
        break;
      }
    }
    return boost ? g * pow(uniform(), 1.0 / shape) : g;
  }

 private:
  HALOMD_HOST_DEVICE uint64_t next() { return mix64(key_ + 0x632be59bd9b4e019ULL * ++counter_); }
  uint64_t key_;
  uint64_t counter_ = 0;
};

}  // namespace halomd
