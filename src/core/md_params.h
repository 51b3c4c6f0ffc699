// The run's configuration: every .mdp option halomd implements, with GROMACS's names and defaults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace halomd {

enum class CoulombType { ReactionField, CutOff, Pme };
enum class CoulombModifier { PotentialShift, None };
enum class VdwModifier { PotentialShift, None, ForceSwitch, PotentialSwitch };
enum class DispCorr { No, EnerPres, Ener };
// Berendsen last: a checkpoint records the thermostat and barostat by these numbers.
enum class Tcoupl { No, VRescale, NoseHoover, Berendsen };
// The steps per tau-t a thermostat wants for a proper integration (GROMACS's nstmin_berendsen_tcouple and
// nstmin_harmonic); 0 for V-rescale, which couples at any interval. grompp 2022 chooses nsttcouple = -1 and
// warns with these.
constexpr int tcouple_min_steps(Tcoupl t) {
  return t == Tcoupl::Berendsen ? 5 : t == Tcoupl::NoseHoover ? 20 : 0;
}
enum class CommMode { Linear, None };
enum class Annealing { No, Single, Periodic };
enum class Integrator { Md, Sd, Steep };
enum class Pcoupl { No, CRescale, ParrinelloRahman, Berendsen };
enum class PcouplType { Isotropic, SemiIsotropic };

// One dimension of an applied electric field (electric-field-x, -y, -z): E0 (V/nm), omega (1/ps), t0 and
// sigma (ps); E0 = 0: none.
struct ElectricFieldDim {
  double e0 = 0.0, omega = 0.0, t0 = 0.0, sigma = 0.0;
};

// A group option of the .mdp (tc-grps, comm-grps, energygrps) naming one group, which must hold every atom
// (checked against the topology when the run is set up: engine/setup.cpp). compressed-x-grps names groups
// of any atoms (MdParams::xtc_groups).
struct WholeSystemGroup {
  std::string option;  // as GROMACS names it
  std::string group;
  int line = 0;
};

struct MdParams {
  // Preprocessor options for the .top, as GROMACS's define and include (-DNAME[=VALUE] ..., -Idir ...).
  std::string define;
  std::string include;
  // Integration (integrator = steep: energy minimisation, nsteps trial steps at most; sd: leap-frog
  // stochastic dynamics, each tc-grps group with its tau-t as inverse friction and its ref-t; tcoupl is then
  // no)
  Integrator integrator = Integrator::Md;
  int integrator_line = 0;
  bool temperature_coupled() const { return tcoupl != Tcoupl::No || integrator == Integrator::Sd; }
  double emtol = 10.0;   // kJ/mol/nm: steep stops when the largest force is below it
  double emstep = 0.01;  // nm: steep's first step length
  double dt = 0.001;     // ps
  int64_t nsteps = 0;    // total steps (a continued run runs up to this)
  double tinit = 0.0;    // ps
  // Neighbour search
  int nstlist = 10;
  double rlist = 1.0;                      // nm; derived when verlet_buffer_tolerance > 0
  double verlet_buffer_tolerance = 0.005;  // kJ/mol/ps per atom; -1: use rlist as given
  bool rlist_set = false;                  // rlist appeared in the .mdp
  // Electrostatics
  CoulombType coulombtype = CoulombType::CutOff;
  double rcoulomb = 1.0;  // nm
  double epsilon_r = 1.0;
  double epsilon_rf = 0.0;  // 0 means infinity
  // Plain cut-off and PME (reaction field is always shifted in GROMACS's Verlet scheme).
  CoulombModifier coulomb_modifier = CoulombModifier::PotentialShift;
  std::vector<WholeSystemGroup> groups;  // group options given (each one group: the whole system)
  int coulombtype_line = 0;  // the .mdp line that set coulombtype (0: default), for backend-dependent errors
  // PME (coulombtype = PME): smooth particle-mesh Ewald with GROMACS's grid choice and B-spline order.
  double fourier_spacing = 0.12;  // nm, the largest grid spacing when fourier_n leaves a dimension at 0
  int fourier_n[3] = {0, 0, 0};   // fourier-nx, -ny, -nz; 0: from fourier_spacing
  int pme_order = 4;              // B-spline interpolation order
  double ewald_rtol = 1e-5;       // erfc(beta rcoulomb): sets the Ewald splitting coefficient beta
  // Van der Waals
  VdwModifier vdw_modifier = VdwModifier::PotentialShift;
  int vdw_modifier_line = 0;
  double rvdw = 1.0;         // nm
  double rvdw_switch = 0.0;  // nm: where vdw-modifier = Force-switch starts
  DispCorr dispcorr = DispCorr::No;
  // Temperature coupling (one group: System)
  Tcoupl tcoupl = Tcoupl::No;
  int tcoupl_line = 0;
  double tau_t = 0.1;    // ps, the first group's
  double ref_t = 300.0;  // K, the first group's
  // tc-grps with a tau-t and ref-t each: one group holding every atom, or several that share the atoms out
  // (e.g. Protein Non-Protein), each with its own v-rescale thermostat (CPU reference, one domain).
  std::vector<std::string> tc_grps;
  // comm-grps: the groups whose centre-of-mass motion is removed each on its own (empty: the whole system;
  // atoms in none of them keep theirs, as GROMACS's rest group).
  std::vector<std::string> comm_grps;
  int comm_grps_line = 0;
  // Applied electric field (cpu/electric_field.h), per dimension; the first line of one that is on.
  ElectricFieldDim electric_field[3];
  int electric_field_line = 0;
  bool electric_field_on() const {
    return electric_field[0].e0 != 0.0 || electric_field[1].e0 != 0.0 || electric_field[2].e0 != 0.0;
  }
  // freezegrps: groups of atoms that do not move along the dimensions freezedim marks (x, y, z per group).
  std::vector<std::string> freeze_grps;
  int freeze_grps_line = 0;
  std::vector<bool> freeze_dims;
  int freezedim_line = 0;
  // energygrps with several groups: checked as grompp checks them; halomd writes the whole system's terms
  // only (a note says so).
  std::vector<std::string> energygrps;
  int energygrps_line = 0;
  std::vector<double> tau_ts, ref_ts;
  // Simulated annealing (GROMACS's annealing, annealing-npoints, -time, -temp): per tc-grps group (empty:
  // none), and each group's points (ps, K); the group's ref-t then follows them (cpu/coupling.h).
  std::vector<Annealing> annealing;
  std::vector<int> anneal_npoints;
  std::vector<std::vector<double>> anneal_times, anneal_temps;
  int annealing_line = 0;
  bool annealed() const {
    for (Annealing a : annealing)
      if (a != Annealing::No) return true;
    return false;
  }
  int tc_grps_line = 0;
  int nsttcouple = -1;  // -1: chosen as GROMACS does (see mdp.cpp)
  // Centre-of-mass motion removal
  CommMode comm_mode = CommMode::Linear;
  int nstcomm = 100;
  // Start
  bool gen_vel = false;
  double gen_temp = 300.0;  // K
  int64_t gen_seed = -1;    // -1: chosen at start (gen-vel = yes only) and recorded in the checkpoint
  bool continuation = false;
  // constraints: which [ bonds ] grompp turns into constraints (none, h-bonds, all-bonds), run by LINCS
  // (water's SETTLE is separate).
  enum class Constraints { None, HBonds, AllBonds } constraints = Constraints::None;
  int constraints_line = 0;
  bool constraint_shake = false;  // constraint-algorithm = shake: refused where there are LINCS constraints
  int constraint_algorithm_line = 0;
  int lincs_order = 4;            // terms of LINCS's matrix expansion
  int lincs_iter = 1;             // corrections for rotational lengthening
  double lincs_warnangle = 30.0;  // degrees a constraint may rotate in one step before it is a blow-up
  // Thermostat random stream (GROMACS ld-seed); -1: chosen at start and recorded.
  int64_t ld_seed = -1;
  // Pressure coupling (C-rescale, Bernetti and Bussi 2020, as GROMACS 2022): isotropic, or semi-isotropic
  // with xy and z coupled apart ([0] and [1] of compressibility and ref_p).
  Pcoupl pcoupl = Pcoupl::No;
  int pcoupl_line = 0;
  PcouplType pcoupltype = PcouplType::Isotropic;
  // refcoord-scaling (0 no, 1 all, 2 com): how position restraints' references follow the box; halomd runs
  // no (GROMACS's default: absolute references).
  int refcoord_scaling = 0;
  int refcoord_scaling_line = 0;
  double tau_p = 1.0;                  // ps
  double compressibility[2] = {0, 0};  // 1/bar
  double ref_p[2] = {1.0, 1.0};        // bar
  int nstpcouple = -1;                 // -1: GROMACS's choice (10, fewer when tau_p is short)
  // Output
  int nstcalcenergy = 100;
  int nstenergy = 1000;
  int nstxout_compressed = 0;
  int nstxout = 0;       // traj.trr: x every nstxout steps (0: never)
  int nstvout = 0;       // traj.trr: v(step - dt/2) every nstvout steps
  int nstfout = 0;       // traj.trr: the forces at x(step) every nstfout steps
  int nstfout_line = 0;  // the .mdp line that set nstfout, for backend-dependent errors
  double compressed_x_precision = 1000.0;
  // compressed-x-grps: the groups whose atoms traj.xtc holds (empty: every atom), and its line.
  std::vector<std::string> xtc_groups;
  int xtc_groups_line = 0;
  int nstlog = 1000;
  int64_t nstcheckpoint = 0;  // halomd option: steps between checkpoints; 0 = only at the end
};

}  // namespace halomd
