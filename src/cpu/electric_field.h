// GROMACS's applied electric field (electric-field-x, -y, -z: E0 omega t0 sigma each) on the CPU executors.
#pragma once

#include <span>
#include <vector>

#include "core/md_params.h"
#include "core/vec3.h"

namespace halomd {

// The field along one dimension at time t (V/nm), as GROMACS 2022's ElectricField: E0 cos(omega (t - t0))
// exp(-(t - t0)^2 / (2 sigma^2)) for a pulse (sigma > 0), else E0 cos(omega t).
double electric_field(const ElectricFieldDim& field, double t);

// Adds each atom's q E(t) (kJ/mol/nm; atom i of the arrays is global[i], or i where `global` is empty) to f.
// Called before the virtual sites' forces are spread, so that a site's share goes to its atoms with the
// spreading's virial of non-linear sites, as GROMACS spreads its forceWithVirial buffer; no other virial and
// no energy (GROMACS counts none for this non-conservative force). Nothing without a field.
void add_electric_field_forces(const MdParams& mdp, double t, const std::vector<double>& charge,
                               std::span<const int> global, std::vector<Vec3>& f);

}  // namespace halomd
