// ener.edr's terms: which GROMACS 2022 writes for a run (mdebin's choice), with its names, units and order,
// and their values from a step's energy row, so that gmx energy reads halomd's energies as gmx mdrun's.
#pragma once

#include <string>
#include <vector>

#include "engine/energies.h"
#include "engine/setup.h"
#include "io/edr.h"

namespace halomd {

struct EnergyTerms {
  BondedTermMask bonded{};
  bool dynamics = true;   // md or sd: kinetic and total energy, temperature (not for steep)
  bool conserved = true;  // md with a thermostat or a barostat (GROMACS writes none for sd or NVE)
  bool disp_corr = false;
  bool pme = false;
  bool volume = false;        // pressure coupling: the box, volume, density, pV and enthalpy
  double ref_p_mean = 0.0;    // bar: pV = V ref-p's trace / 3
  bool box_velocity = false;  // Parrinello-Rahman: Box-Vel-XX, -YY, -ZZ
  // T-<group> for each tc-grps group as GROMACS spells it ("rest" without tc-grps); none where several
  // groups are not temperature-coupled (halomd then has the whole system's temperature only).
  std::vector<std::string> temperature_groups;
  // energy.csv's group columns: the tc-grps names as the .mdp has them, with several coupled groups.
  std::vector<std::string> csv_groups;
};

EnergyTerms energy_terms(const SimulationInputs& in);

std::vector<io::EnergyTermName> edr_names(const EnergyTerms& terms);
std::vector<double> edr_values(const EnergyTerms& terms, const EnergyRow& row);

}  // namespace halomd
