// Every tolerance the tests use, with its reason (STYLE.md point 14).
#pragma once

namespace halomd::test {

// Step-0 LJ (SR), Coulomb (SR) and potential against GROMACS (gmx_d): the bound; PHYSICS.md measured
// GROMACS's own single-precision residue at 3e-6, a double-precision path lands well inside.
inline constexpr double kEnergyRelTol = 1e-5;
// PME's step-0 energies against gmx_d (both double; they agree to ~1e-9): 1e-8 relative, plus what the two
// files print (energy.csv 10 significant digits, gmx energy 6 decimals): 2e-5 kJ/mol. A misplaced shift on
// the excluded pairs (~0.4 kJ/mol on spce_1k5) is far outside.
inline constexpr double kPmeEnergyRelTol = 1e-8;
inline constexpr double kPrintedEnergyAbsTol = 2e-5;
// Forces that gmx dump prints with 6 significant digits (%12.5e): half a unit in the last digit is 5e-6 of
// the value.
inline constexpr double kPrintedForceRelTol = 1e-5;
// Steepest descent against gmx_d, step by step over 50 trial steps: the same accepted states; SETTLE's
// roundings let the potential drift apart by ~2e-7 relative on spce_1k5 (1e-8 without SETTLE), the final
// forces by ~1e-6 of Fmax.
inline constexpr double kMinimizationEnergyRelTol = 1e-6;
inline constexpr double kMinimizationForceRelTol = 2e-5;
// C-rescale's deterministic path (ref-t = 0) against gmx_d over 20 steps: the energies agree to ~1e-9
// relative; 1e-6 leaves room for the chaos of 20 steps, far below a mis-scaled step (~1e-4).
inline constexpr double kPcouplPathRelTol = 1e-6;
// The density of a 15 ps C-rescale window against gmx_d's 45 ps (kg/m^3): 15 ps windows of one run differ by
// up to ~10 (seen in both codes), 45 ps means of different seeds by ~5 (996.7 and 995.4 for gmx_d and halomd
// with one seed, 998.4 and 1006.7 with another). A pressure error of 100 bar moves it by only 4.5, so this
// catches gross errors (a missing constraint virial: thousands of bar), not subtle ones.
inline constexpr double kDensityMeanAbsTol = 20.0;
// Its standard deviation within this factor of gmx_d's (~15 independent samples: ~20% noise).
inline constexpr double kDensitySdFactor = 1.6;
// Step-0 pressure against GROMACS, bar (the bound).
inline constexpr double kPressureAbsTol = 1.0;
// ener.edr's terms against gmx_d's ener.edr of the same inputs: stored as floats (6e-8 relative) from double
// paths that agree to ~1e-8; with PME the virial's elements differ by up to ~5e-6 of its diagonal (its mesh
// part, summed otherwise), so virial elements are held to 1e-5 of the diagonal's mean and pressures (bar) to
// 0.05 bar (seen: 0.01 at -2250 bar).
inline constexpr double kEdrRelTol = 1e-6;
inline constexpr double kEdrVirialRelTol = 1e-5;
inline constexpr double kEdrPressureAbsTol = 5e-2;
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
// Domain decomposition against one domain, step-0 energies and virial, relative (the bound): the
// same pairs, but in other i/j roles and per-atom groupings (each rounded to 2^-28 kJ/mol) and with
// coordinates shifted into the domains' frames; measured differences are ~1e-13.
inline constexpr double kDdEnergyRelTol = 1e-10;
// The same comparison read back from energy.csv, which prints 10 significant digits: half a unit of the last
// digit is up to 5e-10 relative, twice over for two files.
inline constexpr double kDdCsvEnergyRelTol = 1e-9;
// Positions after 200 NVE steps (and after a continuation on another number of domains) against one
// domain, nm (the bound): forces differ by 2^-32 kJ/mol/nm roundings, which the dynamics amplify
// but not to anywhere near this within 0.4 ps.
inline constexpr double kDdPositionTol = 1e-8;

// CUDA executor (mixed precision: float positions in the box and float pair forces, double update) against
// the CPU double path at step 0. Float positions carry L 2^-24 ~ 3e-7 nm of rounding; with force constants
// up to ~1e5 kJ/mol/nm^2 that is ~0.03 kJ/mol/nm on an atom against RMS forces ~1e3, and float pair sums add
// ~1e-6 relative: RMS error 1e-4 and worst atom 2e-3 of the RMS force leave a margin of a few.
inline constexpr double kGpuForceRmsRel = 1e-4;
inline constexpr double kGpuForceMaxRel = 2e-3;
// Step-0 virial diagonal (pairs and SETTLE), relative per component: the constraint virial follows the
// float forces (~1e-5 relative) and is several times the total; 1e-3 leaves a margin of ten.
inline constexpr double kGpuVirialRelTol = 1e-3;
// Positions after one step, nm: a force error dF moves an atom by dF dt^2 / m ~ 1e-7 nm, SETTLE included.
inline constexpr double kGpuStepPositionAbsTol = 1e-5;
// The cluster-pair path against the atom-pair path after 25 NVE steps (50 fs), positions in nm and the
// potential relative: both sum float pair forces (differently grouped, ~1e-6 relative apart), which moves
// atoms by ~1e-7 nm a step; a pair missed or a wrong image after a search moves atoms by 1e-3 nm and more.
inline constexpr double kGpuPathsPositionAbsTol = 1e-4;
inline constexpr double kGpuPathsEnergyRelTol = 1e-5;
// The thermostat integral after the first coupling step against the CPU's, relative: the same random
// numbers, drawn from kinetic energies that differ by the float forces (~1e-6).
inline constexpr double kGpuThermostatRelTol = 1e-3;
// Pressure-coupling paths on one GPU (spce_1k5, 20-60 steps) against gmx_d's: the pressure in bar and the box
// edges in nm. Float pair forces put the virial ~1e-6 relative off (a pressure some 0.1 bar off, where the
// pressure swings by hundreds of bar a step); the box moves by ~5e-5 nm a step, so a coupling that skipped a
// step, used the wrong step's pressure or the wrong compressibility is off by 1e-5 nm and more within the
// path; gmx energy prints the box with 6 decimals.
inline constexpr double kGpuPressureAbsTol = 1.0;
inline constexpr double kGpuBoxAbsTol = 3e-6;
// Energy drift of a 10,000-step NVE run on the GPU, kJ/mol/ps per atom (the bound; GROMACS's mixed
// precision shows 2e-4 to 7e-4 on such water).
inline constexpr double kGpuNveDriftPerAtom = 5e-4;
// A 200-step NVE path of the CMAP peptide in vacuum (~390 kJ/mol total, 1 fs) on one GPU against gmx_d's, or
// the CPU's, in kJ/mol: float pair forces part the paths by ~1e-3 kJ/mol; a wrong CMAP or switch force by
// more than 1 kJ/mol.
inline constexpr double kGpuCmapPathAbsTol = 0.02;

}  // namespace halomd::test
