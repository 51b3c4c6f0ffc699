// One row of energy.csv: GROMACS's energy terms at one step, in kJ/mol, K and bar.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/bonded_terms.h"
#include "core/vec3.h"

namespace halomd {

struct EnergyRow {
  int64_t step = 0;
  double time_ps = 0.0;
  BondedTermValues bonded{};  // written for the terms the topology has
  double lj_sr = 0.0;
  double coulomb_sr = 0.0;
  double coul_recip = 0.0;  // 0 without PME
  double disp_corr = 0.0;
  double potential = 0.0;
  double kinetic = 0.0;  // average of the two half-step kinetic energies (leap-frog, as GROMACS reports)
  double total = 0.0;
  double conserved = 0.0;  // total + energy the thermostat took out
  double temperature = 0.0;
  double pressure = 0.0;                  // bar, scalar (trace/3)
  Vec3 box;                               // nm, the box the step's energies were computed in
  double volume = 0.0;                    // nm^3
  double density = 0.0;                   // kg/m^3
  std::vector<double> group_temperature;  // K, per tc-grps group with several groups
  Tensor pressure_tensor;                 // bar
  Tensor virial;                          // kJ/mol, the dispersion correction's included
  double pres_dc = 0.0;                   // bar: the dispersion correction's share of the pressure
  Vec3 box_velocity;                      // nm/ps: Parrinello-Rahman's, at the step's end
};

// energy.csv's header: step, time, the listed interactions' terms the topology has (GROMACS's order), then
// the rest; with pressure coupling, the box, volume and density; with several tc-grps, each group's
// temperature (t_<group>) last.
inline std::string energy_csv_header(const BondedTermMask& bonded, bool volume,
                                     const std::vector<std::string>& temperature_groups = {}) {
  std::string h = "step,time_ps,";
  for (int k = 0; k < kNumBondedTerms; ++k)
    if (bonded[k]) h += std::string(kBondedCsvNames[k]) + ",";
  h += "lj_sr,coulomb_sr,coul_recip,disp_corr,potential,kinetic,total,conserved,temperature,pressure";
  if (volume) h += ",box_x,box_y,box_z,volume,density";
  for (const std::string& g : temperature_groups) h += ",t_" + g;
  return h;
}

}  // namespace halomd
