// Every tolerance the tests use, with its reason (STYLE.md point 14).
#pragma once

namespace halomd::test {

// Step-0 LJ (SR), Coulomb (SR) and potential against GROMACS (gmx_d): the bound; PHYSICS.md measured
// GROMACS's own single-precision residue at 3e-6, a double-precision path lands well inside.
inline constexpr double kEnergyRelTol = 1e-5;
// Step-0 pressure against GROMACS, bar (the bound).
inline constexpr double kPressureAbsTol = 1.0;
// Kinetic energy at step 0 (averaged half steps): same integrator in double precision.
inline constexpr double kKineticRelTol = 1e-5;
// Mean total energy of a 500-step NVE run against GROMACS's (the bound: trajectories diverge, means
// agree).
inline constexpr double kNveMeanRelTol = 2e-4;
// Energy drift: within max(3x GROMACS's, 1e-4 relative per ps) (the bound).
inline constexpr double kDriftFactor = 3.0;
inline constexpr double kDriftRelPerPs = 1e-4;
// Conserved-energy drift of a v-rescale run, kJ/mol/ps per atom (the and BENCH.md's bound).
inline constexpr double kConservedDriftPerAtom = 0.005;
// Mean temperature within 1% of ref-t (the bound).
inline constexpr double kTemperatureRelTol = 0.01;
// Net force relative to the RMS force: fixed-point sums are exact, so only the per-pair rounding to 2^-32
// remains (N * 2^-32 absolute against forces of ~1e3).
inline constexpr double kNetForceRel = 1e-9;
// Translation invariance: energies of a shifted box, relative (double-precision rounding of the shift).
inline constexpr double kTranslationRelTol = 1e-10;

}  // namespace halomd::test
