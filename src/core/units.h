// Physical constants in GROMACS units (nm, ps, amu, kJ/mol, K, bar, e), computed from CODATA 2018 as GROMACS
// 2022 does.
#pragma once

namespace halomd::units {

inline constexpr double kAvogadro = 6.02214076e23;            // 1/mol
inline constexpr double kBoltzmannSI = 1.380649e-23;          // J/K
inline constexpr double kElementaryCharge = 1.602176634e-19;  // C
inline constexpr double kEpsilon0SI = 8.8541878128e-12;       // F/m
inline constexpr double kPi = 3.14159265358979323846;

// k_B in kJ/mol/K.
inline constexpr double kBoltzmann = kBoltzmannSI * kAvogadro / 1e3;
// f = 1/(4 pi eps0) in kJ mol^-1 nm e^-2: J m C^-2 -> kJ/mol nm e^-2.
inline constexpr double kCoulomb =
    kElementaryCharge * kElementaryCharge * kAvogadro / (4.0 * kPi * kEpsilon0SI) * 1e9 / 1e3;
// 1 kJ mol^-1 nm^-3 in bar.
inline constexpr double kPresFac = 1e3 * 1e27 / kAvogadro / 1e5;

}  // namespace halomd::units
