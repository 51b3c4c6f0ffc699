// A counter-based random stream: every number is a pure function of (seed, stream, step, index), so a run
// continued from a checkpoint draws exactly the numbers the uninterrupted run would, with no state to save.
#pragma once

#include <cmath>
#include <cstdint>

namespace halomd {

// SplitMix64 finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014).
inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

enum class RandomStream : uint64_t { Thermostat = 1, GenVel = 2 };

class CounterRandom {
 public:
  CounterRandom(uint64_t seed, RandomStream stream, uint64_t step)
      : key_(mix64(mix64(seed ^ (static_cast<uint64_t>(stream) << 56)) ^ mix64(step))) {}

  // Uniform in (0, 1).
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
  // Standard normal (Box-Muller; one value per call, so the sequence is simple to reason about).
  double normal() {
    const double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
  }
  // Gamma(shape, 1) deviate (Marsaglia and Tsang, ACM TOMS 26, 363, 2000), shape > 0.
  double gamma(double shape) {
    if (shape < 1.0) return gamma(shape + 1.0) * std::pow(uniform(), 1.0 / shape);
    const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x, v;
      do {
        x = normal();
        v = 1.0 + c * x;
      } while (v <= 0.0);
      v = v * v * v;
      const double u = uniform();
      if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
      if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
    }
  }

 private:
  uint64_t next() { return mix64(key_ + 0x632be59bd9b4e019ULL * ++counter_); }
  uint64_t key_;
  uint64_t counter_ = 0;
};

}  // namespace halomd
