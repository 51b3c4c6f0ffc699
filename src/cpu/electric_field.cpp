#include "cpu/electric_field.h"

#include <cmath>

#include "core/units.h"

namespace halomd {

double electric_field(const ElectricFieldDim& field, double t) {
  if (field.sigma > 0.0) {
    const double dt = t - field.t0;
    return field.e0 * (std::cos(field.omega * dt) * std::exp(-dt * dt / (2.0 * field.sigma * field.sigma)));
  }
  return field.e0 * std::cos(field.omega * t);
}

void add_electric_field_forces(const MdParams& mdp, double t, const std::vector<double>& charge,
                               std::span<const int> global, std::vector<Vec3>& f) {
  if (!mdp.electric_field_on()) return;
  // GROMACS's FIELDFAC: V/nm times e to kJ/mol/nm (the Faraday constant over 1000).
  constexpr double kFieldFac = units::kElementaryCharge * units::kAvogadro / 1e3;
  Vec3 strength;
  for (int d = 0; d < 3; ++d) strength[d] = kFieldFac * electric_field(mdp.electric_field[d], t);
  for (size_t i = 0; i < f.size(); ++i) {
    const double q = charge[global.empty() ? i : static_cast<size_t>(global[i])];
    for (int d = 0; d < 3; ++d) f[i][d] += q * strength[d];
  }
}

}  // namespace halomd
