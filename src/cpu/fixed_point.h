// Fixed-point accumulation: integer sums do not depend on their order, so forces, energies and virials are
// bitwise the same for any thread count and any pair-list order (the idea of OpenMM's 64-bit force sums).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/vec3.h"

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
// Sums of fixed-point values use wrap_add and wrap_sub (core/vec3.h, as FixedVec3's operators do): modulo
// 2^64, so a blow-up's out-of-range value gives a wrong sum, never a signed overflow. A pair beyond the force
// check's bound stops the run; sums of many pairs below it wrap unreported (they overflowed before).

}  // namespace halomd
