// GROMACS's applied electric field (electric-field-x, -y, -z: E0 omega t0 sigma each) on the CPU executors.
#pragma once

#include <span>
#include <vector>

#include "core/box.h"
#include "core/md_params.h"
#include "core/topology.h"
#include "core/vec3.h"

namespace halomd {

// The field along one dimension at time t (V/nm), as GROMACS 2022's ElectricField: E0 cos(omega (t - t0))
// exp(-(t - t0)^2 / (2 sigma^2)) for a pulse (sigma > 0), else E0 cos(omega t).
double electric_field(const ElectricFieldDim& field, double t);

// Adds each atom's q E(t) (kJ/mol/nm; atom i of the arrays is global[i], or i where `global` is empty) to f,
// a virtual site's onto its constructing atoms (`vsites` in the arrays' indices, positions x). No virial and
// no energy: GROMACS counts none for this non-conservative force. Nothing without a field.
void add_electric_field_forces(const MdParams& mdp, double t, const Topology& top,
                               std::span<const int> global, const std::vector<VirtualSite>& vsites,
                               const std::vector<Vec3>& x, const Box& box, std::vector<Vec3>& f);

}  // namespace halomd
