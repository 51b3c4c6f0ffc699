// Tests of the .mdp reader: the options halomd implements, names compared as GROMACS does, options accepted
// at their default, refusal by name of everything else with file:line, and the settings derived as grompp
// does.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/errors.h"
#include "io/mdp.h"
#include "support/test_support.h"

namespace halomd::io {
namespace {

std::string write_text(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

// A complete water run, every implemented option given once.
const char* const kWaterMdp = R"(; SPC/E water, NVT
title                    = water test
define                   = -DFLEXIBLE -DPOSRES_FC=500
include                  = -I../top -I/opt/ff
integrator               = md
dt                       = 0.002
nsteps                   = 50000
tinit                    = 10.0
cutoff-scheme            = Verlet
nstlist                  = 20
verlet-buffer-tolerance  = -1
rlist                    = 1.2
coulombtype              = Reaction-Field
coulomb-modifier         = Potential-shift
rcoulomb                 = 1.1
epsilon-r                = 1.5
epsilon-rf               = 62
vdwtype                  = Cut-off
vdw-modifier             = None
rvdw                     = 1.1
rvdw-switch              = 0.9   ; no effect
DispCorr                 = Ener
tcoupl                   = V-rescale
tc-grps                  = System
tau-t                    = 0.5
ref-t                    = 310
nsttcouple               = 5
comm-mode                = None
nstcomm                  = 50
comm-grps                = System
pbc                      = xyz
gen-vel                  = yes
gen-temp                 = 280
gen-seed                 = 1234
ld-seed                  = 99
continuation             = no
constraints              = h-bonds
nstcalcenergy            = 50
nstenergy                = 500
nstxout-compressed       = 250
compressed-x-precision   = 100
compressed-x-grps        = System
nstlog                   = 2000
nstcheckpoint            = 10000
pcoupl                   = no
nstxout                  = 0
free-energy              = no
energygrps               =
fourierspacing           = 0.12
lincs-order              = 4
)";

TEST(Mdp, FullWaterFileParsesToItsParams) {
  const std::string dir = test::make_temp_dir("mdp_full");
  const MdParams p = read_mdp(write_text(dir, "run.mdp", kWaterMdp));
  EXPECT_EQ(p.define, "-DFLEXIBLE -DPOSRES_FC=500");
  EXPECT_EQ(p.include, "-I../top -I/opt/ff");
  EXPECT_DOUBLE_EQ(p.dt, 0.002);
  EXPECT_EQ(p.nsteps, 50000);
  EXPECT_DOUBLE_EQ(p.tinit, 10.0);
  EXPECT_EQ(p.nstlist, 20);
  EXPECT_DOUBLE_EQ(p.verlet_buffer_tolerance, -1.0);
  EXPECT_DOUBLE_EQ(p.rlist, 1.2);
  EXPECT_TRUE(p.rlist_set);
  EXPECT_EQ(p.coulombtype, CoulombType::ReactionField);
  EXPECT_DOUBLE_EQ(p.rcoulomb, 1.1);
  EXPECT_DOUBLE_EQ(p.epsilon_r, 1.5);
  EXPECT_DOUBLE_EQ(p.epsilon_rf, 62.0);
  EXPECT_EQ(p.vdw_modifier, VdwModifier::None);
  EXPECT_DOUBLE_EQ(p.rvdw, 1.1);
  EXPECT_EQ(p.dispcorr, DispCorr::Ener);
  EXPECT_EQ(p.tcoupl, Tcoupl::VRescale);
  EXPECT_DOUBLE_EQ(p.tau_t, 0.5);
  EXPECT_DOUBLE_EQ(p.ref_t, 310.0);
  EXPECT_EQ(p.nsttcouple, 5);
  EXPECT_EQ(p.comm_mode, CommMode::None);
  EXPECT_EQ(p.nstcomm, 50);
  EXPECT_TRUE(p.gen_vel);
  EXPECT_DOUBLE_EQ(p.gen_temp, 280.0);
  EXPECT_EQ(p.gen_seed, 1234);
  EXPECT_EQ(p.ld_seed, 99);
  EXPECT_FALSE(p.continuation);
  EXPECT_EQ(p.nstcalcenergy, 50);
  EXPECT_EQ(p.nstenergy, 500);
  EXPECT_EQ(p.nstxout_compressed, 250);
  EXPECT_DOUBLE_EQ(p.compressed_x_precision, 100.0);
  EXPECT_EQ(p.nstlog, 2000);
  EXPECT_EQ(p.nstcheckpoint, 10000);
}

TEST(Mdp, EmptyFileGivesGromacsDefaults) {
  const std::string dir = test::make_temp_dir("mdp_empty");
  const MdParams p = read_mdp(write_text(dir, "empty.mdp", "; nothing\n\n   \n"));
  EXPECT_DOUBLE_EQ(p.dt, 0.001);
  EXPECT_EQ(p.nsteps, 0);
  EXPECT_EQ(p.nstlist, 10);
  EXPECT_FALSE(p.rlist_set);
  EXPECT_EQ(p.coulombtype, CoulombType::CutOff);
  EXPECT_EQ(p.vdw_modifier, VdwModifier::PotentialShift);
  EXPECT_EQ(p.tcoupl, Tcoupl::No);
  EXPECT_EQ(p.comm_mode, CommMode::Linear);
  EXPECT_EQ(p.nstcomm, 100);
  EXPECT_EQ(p.nstcalcenergy, 100);
  EXPECT_EQ(p.nstenergy, 1000);
  EXPECT_EQ(p.gen_seed, -1);
  EXPECT_EQ(p.ld_seed, -1);
}

TEST(Mdp, ReadsTheReferenceRunFiles) {
  const MdParams p = read_mdp(test::data_path("spce_1k5/vrescale.mdp"));
  EXPECT_DOUBLE_EQ(p.dt, 0.002);
  EXPECT_EQ(p.nsteps, 20000);
  EXPECT_TRUE(p.continuation);
  EXPECT_DOUBLE_EQ(p.rlist, 1.1);
  EXPECT_EQ(p.coulombtype, CoulombType::ReactionField);
  EXPECT_DOUBLE_EQ(p.epsilon_rf, 0.0);
  EXPECT_EQ(p.dispcorr, DispCorr::EnerPres);
  EXPECT_EQ(p.tcoupl, Tcoupl::VRescale);
  EXPECT_EQ(p.nsttcouple, 10);  // gmx grompp 2022 writes 10 into the .tpr for this file
  const MdParams lj = read_mdp(test::data_path("lj_fluid/step0.mdp"));
  EXPECT_EQ(lj.coulombtype, CoulombType::CutOff);
  EXPECT_EQ(lj.vdw_modifier, VdwModifier::None);
  EXPECT_EQ(lj.nstcalcenergy, 1);
}

TEST(Mdp, KeysCompareLikeGromacsAndOldNamesWork) {
  const std::string dir = test::make_temp_dir("mdp_keys");
  const MdParams p = read_mdp(write_text(dir, "k.mdp",
                                         "NSTXTCOUT = 20\n"
                                         "xtc_precision = 500\n"
                                         "Unconstrained_Start = YES\n"
                                         "vdw_type = CUT-OFF\n"
                                         "Coulomb_Type = reaction_field\n"
                                         "dispcorr = enerpres\n"
                                         "TCOUPL = v_rescale\n"
                                         "TC_GRPS = system\n"
                                         "Tau_T = 0.2\n"
                                         "ref_t = 298\n"
                                         "Nst_Calc_Energy = 10\n"
                                         "nstenergy=20\n"));
  EXPECT_EQ(p.nstxout_compressed, 20);
  EXPECT_DOUBLE_EQ(p.compressed_x_precision, 500.0);
  EXPECT_TRUE(p.continuation);
  EXPECT_EQ(p.coulombtype, CoulombType::ReactionField);
  EXPECT_EQ(p.dispcorr, DispCorr::EnerPres);
  EXPECT_EQ(p.tcoupl, Tcoupl::VRescale);
  EXPECT_DOUBLE_EQ(p.tau_t, 0.2);
  EXPECT_EQ(p.nstcalcenergy, 10);
  EXPECT_EQ(p.nstenergy, 20);
}

TEST(Mdp, AKeyGivenTwiceIsAnError) {
  const std::string dir = test::make_temp_dir("mdp_dup");
  std::string path = write_text(dir, "d.mdp", "dt = 0.002\nnsteps = 10\n\nDT = 0.001\n");
  EXPECT_EQ(error_of([&] { read_mdp(path); }),
            path + ":4: option 'DT' is given twice (first as 'dt' on line 1)");
  path = write_text(dir, "d2.mdp", "nstxout-compressed = 10\nnstxtcout = 10\n");
  EXPECT_EQ(error_of([&] { read_mdp(path); }),
            path + ":2: option 'nstxtcout' is given twice (first as 'nstxout-compressed' on line 1)");
}

TEST(Mdp, AnEmptyValueLeavesTheDefault) {
  const std::string dir = test::make_temp_dir("mdp_emptyvalue");
  const MdParams p =
      read_mdp(write_text(dir, "e.mdp", "define =\ntc-grps =   ; none\nfreezegrps =\nnstlog = 7\n"));
  EXPECT_EQ(p.define, "");
  EXPECT_EQ(p.nstlog, 7);
}

// freezedim: grompp reads each value's first letter, in either case.
TEST(Mdp, ReadsFreezeGroups) {
  const std::string dir = test::make_temp_dir("mdp_freeze");
  const MdParams p =
      read_mdp(write_text(dir, "f.mdp", "freezegrps = Protein SOL\nfreezedim = Y n yes N no Yes\n"));
  EXPECT_EQ(p.freeze_grps, (std::vector<std::string>{"Protein", "SOL"}));
  EXPECT_EQ(p.freeze_grps_line, 1);
  EXPECT_EQ(p.freeze_dims, (std::vector<bool>{true, false, true, false, false, true}));
}

TEST(Mdp, SettingsDerivedAsGrompp) {
  const std::string dir = test::make_temp_dir("mdp_derived");
  const std::string base = "tcoupl = V-rescale\ntc-grps = System\ntau-t = 0.003\nref-t = 300\ndt = 0.002\n";
  // nsttcouple = -1 is 10 for V-rescale whatever tau-t is (gmx grompp 2022.5 writes 10 even for tau-t 0.003).
  MdParams p = read_mdp(write_text(dir, "a.mdp", base));
  EXPECT_EQ(p.nsttcouple, 10);
  // nstcomm below nstcalcenergy is kept: grompp 2022 only notes it.
  p = read_mdp(write_text(dir, "b.mdp", base + "nstcomm = 10\nnstcalcenergy = 100\n"));
  EXPECT_EQ(p.nstcomm, 10);
  EXPECT_EQ(p.comm_mode, CommMode::Linear);
  // nstcomm = 0 turns centre-of-mass motion removal off.
  p = read_mdp(write_text(dir, "c.mdp", base + "nstcomm = 0\n"));
  EXPECT_EQ(p.comm_mode, CommMode::None);
  // Energies written more often than computed: nstcalcenergy is lowered to nstenergy.
  p = read_mdp(write_text(dir, "d.mdp", base + "nstenergy = 10\nnstcalcenergy = 100\n"));
  EXPECT_EQ(p.nstcalcenergy, 10);
  EXPECT_EQ(p.nstenergy, 10);
  // With a positive buffer tolerance rlist may be below the cut-off (it is then chosen at setup).
  p = read_mdp(write_text(dir, "e.mdp", "rlist = 0.5\nverlet-buffer-tolerance = 0.005\n"));
  EXPECT_TRUE(p.rlist_set);
  // Both zero: no check of multiples.
  p = read_mdp(write_text(dir, "f.mdp", "nstcalcenergy = 0\nnstenergy = 0\n"));
  EXPECT_EQ(p.nstcalcenergy, 0);
}

TEST(Mdp, ReadsPmeOptions) {
  const std::string dir = test::make_temp_dir("mdp_pme");
  const MdParams p = read_mdp(write_text(dir, "pme.mdp",
                                         "coulombtype = pme\nfourierspacing = 0.1\nfourier-nz = 30\n"
                                         "pme-order = 6\newald-rtol = 1e-6\newald-geometry = 3d\n"
                                         "epsilon-surface = 0\n"));
  EXPECT_EQ(p.coulombtype, CoulombType::Pme);
  EXPECT_EQ(p.coulombtype_line, 1);
  EXPECT_DOUBLE_EQ(p.fourier_spacing, 0.1);
  EXPECT_EQ(p.fourier_n[0], 0);
  EXPECT_EQ(p.fourier_n[2], 30);
  EXPECT_EQ(p.pme_order, 6);
  EXPECT_DOUBLE_EQ(p.ewald_rtol, 1e-6);
  // Without PME, GROMACS ignores the Ewald geometry options.
  EXPECT_NO_THROW(read_mdp(write_text(dir, "rf.mdp", "ewald-geometry = 3dc\nepsilon-surface = 80\n")));
  // GROMACS's defaults.
  const MdParams d = read_mdp(write_text(dir, "default.mdp", "coulombtype = PME\n"));
  EXPECT_DOUBLE_EQ(d.fourier_spacing, 0.12);
  EXPECT_EQ(d.pme_order, 4);
  EXPECT_DOUBLE_EQ(d.ewald_rtol, 1e-5);
}

// What grompp 2022 ignores as obsolete (older tutorials' ns_type = grid, optimize_fft = yes, ...) is
// ignored here too, under either spelling; verlet-buffer-drift is verlet-buffer-tolerance's old name.
TEST(Mdp, IgnoresWhatGromppIgnoresAsObsolete) {
  const std::string dir = test::make_temp_dir("mdp_obsolete");
  const MdParams p =
      read_mdp(write_text(dir, "old.mdp",
                          "ns_type = grid\noptimize_fft = yes\ndomain-decomposition = no\n"
                          "rlistlong = 1.2\ngb_algorithm = Still\nsa-algorithm = Ace-approximation\n"
                          "adress_type = off\nnstdihreout = 0\nverlet-buffer-drift = 0.003\n"));
  EXPECT_DOUBLE_EQ(p.verlet_buffer_tolerance, 0.003);
}

// One refusal: the .mdp text and the message after "path:".
struct Refusal {
  std::string text;
  std::string error;
};

TEST(Mdp, EveryRefusalNamesFileLineAndOption) {
  const std::string dir = test::make_temp_dir("mdp_refuse");
  const std::vector<Refusal> cases = {
      {"dt = 0.002\nfoo = 1\n", "2: unknown option 'foo'"},
      {"\n\n\n\n\n\ncoulombtype = Ewald\n",
       "7: coulombtype = Ewald is not supported (supported: Reaction-Field, Cut-off, PME)"},
      {"coulombtype = PME\npme-order = 2\n", "2: pme-order must be between 3 and 12, got 2"},
      {"coulombtype = PME\nfourier-ny = 5\n",
       "2: fourier-ny = 5 is too small: PME needs at least 2 (pme-order - 1) = 6 grid points per dimension"},
      {"coulombtype = PME\newald-rtol = 0\n", "2: ewald-rtol must be between 0 and 1, got 0"},
      {"coulombtype = PME\nfourierspacing = 0\n",
       "2: fourierspacing must be positive unless fourier-nx, -ny and -nz are all set"},
      {"coulombtype = PME\newald-geometry = 3dc\n",
       "2: ewald-geometry = 3dc is not supported with coulombtype = PME (supported: 3d)"},
      {"coulombtype = PME\nepsilon-surface = 1\n",
       "2: epsilon-surface = 1 is not supported with coulombtype = PME (supported: 0)"},
      {"coulombtype = PME\nrvdw = 0.9\nrcoulomb = 1.0\n",
       "3: rvdw (0.9) must equal rcoulomb (1): halomd has no PME with rcoulomb > rvdw"},
      {"integrator = bd\n", "1: integrator = bd is not supported (supported: md, sd, steep)"},
      {"integrator = sd\n",
       "1: integrator = sd needs tc-grps (expected tc-grps = System, or another group of every atom, and one "
       "tau-t and ref-t)"},
      {"cutoff-scheme = group\n", "1: cutoff-scheme = group is not supported (supported: Verlet)"},
      {"vdwtype = Switch\n", "1: vdwtype = Switch is not supported (supported: Cut-off)"},
      {"vdw-modifier = Exact-cutoff\n",
       "1: vdw-modifier = Exact-cutoff is not supported (supported: Potential-shift, Potential-shift-Verlet, "
       "None, Force-switch, Potential-switch)"},
      {"vdw-modifier = Potential-switch\nrvdw-switch = 0\nDispCorr = EnerPres\n",
       "2: rvdw-switch can not be zero with DispCorr and vdw-modifier = Potential-switch"},
      {"vdw-modifier = Force-switch\nrvdw-switch = 1.2\n",
       "2: rvdw-switch must be at least 0 and below rvdw with vdw-modifier = Force-switch"},
      {"coulomb-modifier = Potential-switch\n",
       "1: coulomb-modifier = Potential-switch is not supported (supported: Potential-shift, "
       "Potential-shift-Verlet, "
       "None)"},
      {"DispCorr = AllEnerPres\n",
       "1: DispCorr = AllEnerPres is not supported (supported: no, EnerPres, Ener)"},
      {"tcoupl = Andersen\n",
       "1: tcoupl = Andersen is not supported (supported: no, V-rescale, Nose-Hoover, Berendsen)"},
      {"nstfout = -1\n", "1: nstfout must not be negative (0 means never)"},
      {"tcoupl = V-rescale\ntc-grps = Protein SOL\ntau-t = 0.1\nref-t = 300 300\n",
       "3: tau-t has 1 values for the 2 groups of tc-grps (expected one per group)"},
      {"ref-t = 300 -1\n", "1: ref-t must not be negative"},
      {"comm-mode = Angular\n", "1: comm-mode = Angular is not supported (supported: Linear, None)"},
      {"pbc = xy\n", "1: pbc = xy is not supported (supported: xyz)"},
      {"constraints = h-angles\n",
       "1: constraints = h-angles is not supported (supported: none, h-bonds, all-bonds)"},
      {"gen-vel = maybe\n", "1: gen-vel = maybe is not supported (supported: no, yes)"},
      {"pcoupl = MTTK\n",
       "1: pcoupl = MTTK is not supported (supported: no, C-rescale, Parrinello-Rahman, Berendsen)"},
      {"free-energy = yes\n", "1: free-energy = yes is not supported (halomd accepts only free-energy = no)"},
      {"implicit-solvent = GBSA\n",
       "1: implicit-solvent = GBSA is not supported (halomd accepts only implicit-solvent = no)"},
      {"acc-grps = Protein\n",
       "1: acc-grps = Protein is not supported (halomd accepts only an empty acc-grps)"},
      {"freezegrps = Protein\n",
       "1: freezedim has 0 values for the 1 groups of freezegrps (expected Y or N for x, y and z of each "
       "group)"},
      {"acc-grps = SOL\n", "1: acc-grps = SOL is not supported (halomd accepts only an empty acc-grps)"},
      {"dt = abc\n", "1: dt = abc: expected a number"},
      {"nsteps = 1.5\n", "1: nsteps = 1.5: expected an integer"},
      {"just some words\n", "1: expected 'option = value', got 'just some words'"},
      {" = 5\n", "1: expected 'option = value', the option name is missing"},
      {"dt = 0\n", "1: dt must be positive, got 0"},
      {"nsteps = -1\n", "1: nsteps = -1 (run forever) is not supported: expected nsteps >= 0"},
      {"nstlist = 0\n", "1: nstlist must be at least 1, got 0"},
      {"rcoulomb = 1.0\nrvdw = 1.2\n",
       "2: rvdw (1.2) must equal rcoulomb (1) with reaction-field or cut-off electrostatics and the Verlet "
       "scheme"},
      {"verlet-buffer-tolerance = -1\nrlist = 0.9\n",
       "2: with verlet-buffer-tolerance = -1, rlist (0.9) must be at least max(rvdw, rcoulomb) = 1"},
      {"verlet-buffer-tolerance = 0\n",
       "1: verlet-buffer-tolerance = 0 is not allowed: expected a positive tolerance, or -1 to use rlist"},
      {"tcoupl = V-rescale\ntc-grps = System\ntau-t = 0\nref-t = 300\n",
       "3: tau-t must be positive with tcoupl = V-rescale"},
      {"tcoupl = V-rescale\ntau-t = 0.1\nref-t = 300\n",
       "1: tcoupl = V-rescale needs tc-grps (expected tc-grps = System, or another group of every atom, and "
       "one "
       "tau-t and ref-t)"},
      {"nstcalcenergy = 100\nnstenergy = 150\n",
       "2: nstenergy (150) must be a multiple of nstcalcenergy (100)"},
      {"nstcomm = -100\n", "1: nstcomm must not be negative (use comm-mode to choose the mode)"},
      {"epsilon-r = 0\n", "1: epsilon-r must be positive (0, meaning infinity, is not supported)"},
      {"nsttcouple = 0\n", "1: nsttcouple must be positive, or -1 for the default"},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    const std::string path = write_text(dir, "r" + std::to_string(k) + ".mdp", cases[k].text);
    EXPECT_EQ(error_of([&] { read_mdp(path); }), path + ":" + cases[k].error) << "case " << k;
  }
  EXPECT_EQ(error_of([&] { read_mdp(dir + "/none.mdp"); }), dir + "/none.mdp: cannot open the .mdp file");
}

// What gmx grompp 2022 writes back (-po mdout.mdp: every option, most at their default) reads as the input.
TEST(Mdp, AcceptsGromppsOwnOutputOfTheWaterRun) {
  if (test::run_command("command -v gmx") != 0) GTEST_SKIP() << "gmx not installed";
  const std::string dir = test::make_temp_dir("mdp_mdout");
  std::string log;
  const std::string cmd = "cd " + dir + " && gmx -quiet grompp -f " +
                          test::data_path("spce_1k5/vrescale.mdp") + " -c " +
                          test::data_path("spce_1k5/conf.gro") + " -p " +
                          test::data_path("spce_1k5/topol.top") + " -po mdout.mdp -o run.tpr";
  ASSERT_EQ(test::run_command(cmd, &log), 0) << log;
  const MdParams in = read_mdp(test::data_path("spce_1k5/vrescale.mdp"));
  const MdParams out = read_mdp(dir + "/mdout.mdp");
  EXPECT_DOUBLE_EQ(out.dt, in.dt);
  EXPECT_EQ(out.nsteps, in.nsteps);
  EXPECT_DOUBLE_EQ(out.rlist, in.rlist);
  EXPECT_EQ(out.coulombtype, in.coulombtype);
  EXPECT_EQ(out.vdw_modifier, in.vdw_modifier);
  EXPECT_EQ(out.dispcorr, in.dispcorr);
  EXPECT_EQ(out.tcoupl, in.tcoupl);
  EXPECT_DOUBLE_EQ(out.tau_t, in.tau_t);
  EXPECT_EQ(out.nsttcouple, in.nsttcouple);
  EXPECT_EQ(out.nstcalcenergy, in.nstcalcenergy);
  EXPECT_EQ(out.continuation, in.continuation);
}

// nsttcouple = -1: what gmx grompp 2022 writes into the .tpr, around where it stops taking 10 (a shortest
// tau-t of 10 dt) and for each thermostat's own minimum of steps per tau-t, with three dt and, on the
// solvated peptide, two groups (the shorter tau-t decides).
TEST(Mdp, NsttcoupleDefaultIsGromppsChoice) {
  if (test::run_command("command -v gmx") != 0) GTEST_SKIP() << "gmx not installed";
  const std::string dir = test::make_temp_dir("mdp_nsttcouple");
  struct Case {
    const char* tcoupl;
    double dt;
    const char* taus;  // one value: tc-grps = System; two: Protein Non-Protein
  };
  const Case cases[] = {
      {"berendsen", 0.002, "0.021"},       {"berendsen", 0.002, "0.02"},    {"berendsen", 0.002, "0.015"},
      {"berendsen", 0.004, "0.04"},        {"berendsen", 0.004, "0.039"},   {"berendsen", 0.001, "0.01"},
      {"berendsen", 0.002, "0.5 0.02"},    {"nose-hoover", 0.002, "0.021"}, {"nose-hoover", 0.002, "0.02"},
      {"nose-hoover", 0.001, "0.5 0.008"}, {"v-rescale", 0.002, "0.005"},   {"v-rescale", 0.004, "0.1 0.01"}};
  for (const Case& c : cases) {
    const bool two = std::string(c.taus).find(' ') != std::string::npos;
    const std::string mdp = write_text(
        dir, "t.mdp",
        std::string("integrator = md\nnsteps = 0\ncutoff-scheme = Verlet\ncoulombtype = reaction-field\n"
                    "rcoulomb = 0.9\nrvdw = 0.9\ndt = ") +
            std::to_string(c.dt) + "\ntcoupl = " + c.tcoupl +
            "\ntc-grps = " + (two ? "Protein Non-Protein" : "System") + "\ntau-t = " + c.taus +
            "\nref-t = " + (two ? "300 300" : "300") + "\n");
    const std::string system = two ? "bonded/solvated/" : "spce_1k5/";
    std::string log;
    const std::string cmd = "cd " + dir + " && GMX_MAXBACKUP=-1 gmx -quiet grompp -maxwarn 10 -f t.mdp -c " +
                            test::data_path(system + "conf.gro") + " -p " +
                            test::data_path(system + "topol.top") +
                            " -o t.tpr && gmx -quiet dump -s t.tpr 2> /dev/null | grep -E '^ +nsttcouple'";
    ASSERT_EQ(test::run_command(cmd, &log), 0) << log;
    const int grompp = std::stoi(log.substr(log.rfind('=') + 1));
    EXPECT_EQ(read_mdp(mdp).nsttcouple, grompp) << c.tcoupl << " dt " << c.dt << " tau-t " << c.taus;
  }
}

}  // namespace
}  // namespace halomd::io
