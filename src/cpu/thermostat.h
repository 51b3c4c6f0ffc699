// The v-rescale thermostat (Bussi, Donadio, Parrinello, J. Chem. Phys. 126, 014101, 2007) as GROMACS applies
// it to leap-frog: one scaling factor per coupling step for the single group System.
#pragma once

#include <cstdint>

namespace halomd {

// New kinetic energy drawn from the canonical-sampling stochastic equation (the paper's eq. A7):
// kinetic, ref_kinetic in kJ/mol; tau_steps = tau_t / (coupling interval); ndf degrees of freedom.
double vrescale_resample_kinetic(double kinetic, double ref_kinetic, double ndf, double tau_steps,
                                 uint64_t seed, int64_t step);

}  // namespace halomd
