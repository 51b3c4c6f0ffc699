#include "engine/energy_file.h"

#include "core/units.h"

namespace halomd {
namespace {

// GROMACS's names of the listed interactions' terms (interaction_function's longname), in BondedTermIndex
// order.
constexpr const char* kBondedEdrNames[kNumBondedTerms] = {
    "Bond",  "G96Bond",     "Harmonic Pot.",  "Angle",         "G96Angle",       "Restr. Angles",
    "U-B",   "Proper Dih.", "Ryckaert-Bell.", "Improper Dih.", "Per. Imp. Dih.", "CMAP Dih.",
    "LJ-14", "Coulomb-14",  "Position Rest.", "Dih. Rest."};

constexpr const char* kAxes = "XYZ";

// Calls add(name, unit, value) for each term of `terms` in GROMACS's order, the values from `row`.
template <typename Add>
void for_each_term(const EnergyTerms& terms, const EnergyRow& row, Add&& add) {
  // The restraints come after the non-bonded terms, as in GROMACS's list.
  const int posres = static_cast<int>(BondedTermIndex::PosRes);
  const int dihres = static_cast<int>(BondedTermIndex::DihRestraint);
  for (int k = 0; k < kNumBondedTerms; ++k)
    if (terms.bonded[k] && k != posres && k != dihres) add(kBondedEdrNames[k], "kJ/mol", row.bonded[k]);
  add("LJ (SR)", "kJ/mol", row.lj_sr);
  if (terms.disp_corr) add("Disper. corr.", "kJ/mol", row.disp_corr);
  add("Coulomb (SR)", "kJ/mol", row.coulomb_sr);
  if (terms.pme) add("Coul. recip.", "kJ/mol", row.coul_recip);
  for (int k : {posres, dihres})
    if (terms.bonded[k]) add(kBondedEdrNames[k], "kJ/mol", row.bonded[k]);
  add("Potential", "kJ/mol", row.potential);
  if (terms.dynamics) {
    add("Kinetic En.", "kJ/mol", row.kinetic);
    add("Total Energy", "kJ/mol", row.total);
    if (terms.conserved) add("Conserved En.", "kJ/mol", row.conserved);
    add("Temperature", "K", row.temperature);
  }
  if (terms.disp_corr) add("Pres. DC", "bar", row.pres_dc);
  add("Pressure", "bar", row.pressure);
  if (terms.volume) {
    add("Box-X", "nm", row.box.x);
    add("Box-Y", "nm", row.box.y);
    add("Box-Z", "nm", row.box.z);
    add("Volume", "nm^3", row.volume);
    add("Density", "kg/m^3", row.density);
    const double pv = row.volume * terms.ref_p_mean / units::kPresFac;
    add("pV", "kJ/mol", pv);
    add("Enthalpy", "kJ/mol", row.total + pv);
  }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) add(std::string("Vir-") + kAxes[a] + kAxes[b], "kJ/mol", row.virial.m[a][b]);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      add(std::string("Pres-") + kAxes[a] + kAxes[b], "bar", row.pressure_tensor.m[a][b]);
  const Tensor& p = row.pressure_tensor;
  add("#Surf*SurfTen", "bar nm", (p.m[2][2] - 0.5 * (p.m[0][0] + p.m[1][1])) * row.box.z);
  if (terms.box_velocity)
    for (int d = 0; d < 3; ++d)
      add(std::string("Box-Vel-") + kAxes[d] + kAxes[d], "nm/ps", row.box_velocity[d]);
  const size_t groups = terms.temperature_groups.size();
  for (size_t g = 0; g < groups; ++g)
    add("T-" + terms.temperature_groups[g], "K",
        groups > 1 && g < row.group_temperature.size() ? row.group_temperature[g] : row.temperature);
}

}  // namespace

EnergyTerms energy_terms(const SimulationInputs& in) {
  const MdParams& mdp = in.mdp;
  EnergyTerms t;
  t.bonded = bonded_terms_present(in.top);
  t.dynamics = mdp.integrator != Integrator::Steep;
  t.conserved = mdp.integrator == Integrator::Md && (mdp.tcoupl != Tcoupl::No || mdp.pcoupl != Pcoupl::No);
  t.disp_corr = mdp.dispcorr != DispCorr::No;
  t.pme = mdp.coulombtype == CoulombType::Pme;
  // grompp turns pressure coupling off for minimisation.
  t.volume = t.dynamics && mdp.pcoupl != Pcoupl::No;
  const bool semi = mdp.pcoupltype == PcouplType::SemiIsotropic;
  t.ref_p_mean = semi ? (2.0 * mdp.ref_p[0] + mdp.ref_p[1]) / 3.0 : mdp.ref_p[0];
  t.box_velocity = t.dynamics && mdp.pcoupl == Pcoupl::ParrinelloRahman;
  const bool several = in.tc_group_names.size() > 1;
  if (!several || mdp.temperature_coupled()) t.temperature_groups = in.tc_group_names;
  if (several && mdp.temperature_coupled() && t.dynamics) t.csv_groups = mdp.tc_grps;
  return t;
}

std::vector<io::EnergyTermName> edr_names(const EnergyTerms& terms) {
  std::vector<io::EnergyTermName> names;
  for_each_term(terms, EnergyRow{}, [&](const std::string& name, const char* unit, double) {
    names.push_back({name, unit});
  });
  return names;
}

std::vector<double> edr_values(const EnergyTerms& terms, const EnergyRow& row) {
  std::vector<double> values;
  for_each_term(terms, row, [&](const std::string&, const char*, double v) { values.push_back(v); });
  return values;
}

}  // namespace halomd
