// Fixed-point accumulation: integer sums do not depend on their order, so forces, energies and virials are
// bitwise the same for any thread count and any pair-list order (the idea of OpenMM's 64-bit force sums).
#pragma once

#include <cmath>
#include <cstdint>

namespace halomd {

// Forces: 2^32 units per kJ/mol/nm, resolution 2.3e-10, range +-2.1e9 per atom.
inline constexpr double kForceFixedScale = 4294967296.0;
// Per-atom energy and virial contributions: 2^28 units per kJ/mol, range +-3.4e10.
inline constexpr double kEnergyFixedScale = 268435456.0;
// Momenta (the domain-decomposed centre-of-mass removal): 2^32 units per amu nm/ps, range +-2.1e9.
inline constexpr double kMomentumFixedScale = 4294967296.0;

inline int64_t to_fixed(double value, double scale) {
  return static_cast<int64_t>(std::llrint(value * scale));
}
inline double from_fixed(int64_t value, double scale) { return static_cast<double>(value) / scale; }
// a + b and a - b modulo 2^64, as the GPU's unsigned atomics add. The non-bonded sums use them: in a blow-up
// a value can lie beyond the range (llrint then gives an unspecified value) or a sum can leave it, and the
// sum is then wrong instead of a signed overflow (undefined behaviour). A pair beyond the force check's bound
// stops the run; sums of many pairs below it wrap unreported, as they overflowed before. The other
// fixed-point sums (kinetic energy, SETTLE virial, momenta, force halos) still add plainly.
inline int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrap_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

}  // namespace halomd
