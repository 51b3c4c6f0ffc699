// Properties of whole runs: bitwise restart, v-rescale statistics and drift, reproducibility, thread
// invariance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "io/ndx.h"
#include "io/xtc.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

const std::map<std::string, std::string> kShortVrescale = {
    {"nsteps", "200"},       {"nstenergy", "10"}, {"nstcalcenergy", "10"}, {"nstxout-compressed", "20"},
    {"nstcheckpoint", "50"}, {"ld-seed", "4242"}};

TEST(Restart, ContinuationIntoSameFolderIsBitwiseIdentical) {
  const std::string out = make_temp_dir("restart");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/full", "--threads 2", &log), 0)
      << log;
  // The interrupted run dies before step 130; its last checkpoint is at step 100 and rows 100..120 must go.
  EXPECT_NE(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/part", "--stop-at-step 130", &log),
            0);
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/part",
                       "--threads 2 --cpi " + out + "/part/state.cpt", &log),
            0)
      << log;
  EXPECT_EQ(read_text(out + "/full/energy.csv"), read_text(out + "/part/energy.csv"));
  EXPECT_EQ(read_text(out + "/full/traj.xtc"), read_text(out + "/part/traj.xtc"));
  EXPECT_EQ(read_text(out + "/full/confout.gro"), read_text(out + "/part/confout.gro"));
}

// A checkpoint between energy steps (step 60 of energies every 50, at a search step): the continuation writes
// no extra row at its first step, so energy.csv is the uninterrupted run's.
TEST(Restart, CheckpointBetweenEnergyStepsContinuesIntoTheSameEnergyRows) {
  const std::string out = make_temp_dir("restart_between");
  std::map<std::string, std::string> set = kShortVrescale;
  set["nsteps"] = "120";
  set["nstenergy"] = "50";
  set["nstcalcenergy"] = "50";
  set["nstcheckpoint"] = "60";
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", set, out + "/full", "--threads 2", &log), 0) << log;
  EXPECT_NE(run_halomd("spce_1k5", "vrescale.mdp", set, out + "/part", "--stop-at-step 70", &log), 0);
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", set, out + "/part",
                       "--threads 2 --cpi " + out + "/part/state.cpt", &log),
            0)
      << log;
  const std::string full = read_text(out + "/full/energy.csv");
  EXPECT_EQ(std::count(full.begin(), full.end(), '\n'),
            5);  // the header, steps 0, 50, 100 and 120 (the last)
  EXPECT_EQ(full, read_text(out + "/part/energy.csv"));
  EXPECT_EQ(read_text(out + "/full/confout.gro"), read_text(out + "/part/confout.gro"));
}

TEST(Restart, ContinuationIntoNewFolderStartsNewFiles) {
  const std::string out = make_temp_dir("restart_new");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/full", "", &log), 0) << log;
  EXPECT_NE(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/part", "--stop-at-step 130", &log),
            0);
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/next",
                       "--cpi " + out + "/part/state.cpt", &log),
            0)
      << log;
  auto full = read_csv(out + "/full/energy.csv");
  auto next = read_csv(out + "/next/energy.csv");
  ASSERT_FALSE(next["step"].empty());
  EXPECT_EQ(next["step"].front(), 100.0);
  const size_t offset = full["step"].size() - next["step"].size();
  for (size_t i = 0; i < next["step"].size(); ++i) {
    EXPECT_EQ(next["step"][i], full["step"][offset + i]);
    EXPECT_EQ(next["conserved"][i], full["conserved"][offset + i]);
  }
}

TEST(Restart, RefusesFolderWithResults) {
  const std::string out = make_temp_dir("refuse");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", {{"nsteps", "2"}}, out + "/run", "", &log), 0) << log;
  const std::string before = read_text(out + "/run/energy.csv");
  EXPECT_EQ(run_halomd("spce_1k5", "nve.mdp", {{"nsteps", "2"}}, out + "/run", "", &log), 2);
  EXPECT_NE(log.find("already holds results"), std::string::npos) << log;
  EXPECT_EQ(read_text(out + "/run/energy.csv"), before);
}

TEST(Restart, RefusesAnEnergyCsvWithOtherColumnsAndLeavesItAsItWas) {
  const std::string out = make_temp_dir("restart_columns");
  std::string log;
  EXPECT_NE(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/part", "--stop-at-step 130", &log),
            0);
  // As an older halomd wrote it: no coul_recip column.
  std::string csv = read_text(out + "/part/energy.csv");
  const size_t at = csv.find(",coul_recip");
  ASSERT_NE(at, std::string::npos);
  csv.erase(at, std::string(",coul_recip").size());
  {
    std::ofstream f(out + "/part/energy.csv", std::ios::binary | std::ios::trunc);
    f << csv;
  }
  EXPECT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/part",
                       "--cpi " + out + "/part/state.cpt", &log),
            2);
  EXPECT_NE(log.find("energy.csv:1: has other columns"), std::string::npos) << log;
  EXPECT_EQ(read_text(out + "/part/energy.csv"), csv);
}

// compressed-x-grps (GROMACS's xtc group): traj.xtc holds that group's atoms only, ascending, each exactly as
// the whole system's traj.xtc has it, and the run is otherwise the same (energy.csv byte for byte); a default
// group (Protein: the solvated peptide's first 132 atoms) and an index group (-n). Several groups write their
// atoms together (gmx mdrun with Protein SOL writes all 7359), an atom in two of them is an error naming the
// line (grompp's), as is a group that does not exist.
TEST(Outputs, CompressedXGroupWritesItsAtomsOnly) {
  const std::string out = make_temp_dir("xtc_group");
  const char* const sys = "bonded/solvated";
  const std::string ndx = data_path("tcgroups/index.ndx");
  const std::map<std::string, std::string> base = {
      {"nsteps", "10"}, {"nstxout-compressed", "5"}, {"nstenergy", "5"}, {"nstcalcenergy", "5"}};
  std::string log;
  ASSERT_EQ(run_halomd(sys, "nve.mdp", base, out + "/all", "--threads 2", &log), 0) << log;
  const std::vector<io::XtcFrame> all = io::read_xtc(out + "/all/traj.xtc");
  ASSERT_EQ(all.size(), 3u);
  std::vector<int> protein(132), first_half;
  for (int a = 0; a < 132; ++a) protein[a] = a;
  for (const io::IndexGroup& g : io::read_ndx(ndx))
    if (g.name == "First_half") first_half = g.atoms;
  ASSERT_FALSE(first_half.empty());
  std::sort(first_half.begin(), first_half.end());
  for (const auto& [group, args, atoms] : {std::tuple{std::string("Protein"), std::string(), protein},
                                           {std::string("First_half"), "-n " + ndx, first_half}}) {
    SCOPED_TRACE(group);
    auto set = base;
    set["compressed-x-grps"] = group;
    ASSERT_EQ(run_halomd(sys, "nve.mdp", set, out + "/" + group, "--threads 2 " + args, &log), 0) << log;
    EXPECT_EQ(read_text(out + "/all/energy.csv"), read_text(out + "/" + group + "/energy.csv"));
    const std::vector<io::XtcFrame> part = io::read_xtc(out + "/" + group + "/traj.xtc");
    ASSERT_EQ(part.size(), all.size());
    for (size_t f = 0; f < part.size(); ++f) {
      EXPECT_EQ(part[f].step, all[f].step);
      ASSERT_EQ(part[f].x.size(), atoms.size());
      for (size_t k = 0; k < atoms.size(); ++k)
        ASSERT_EQ(part[f].x[k], all[f].x[atoms[k]]) << "frame " << f << " atom " << atoms[k] + 1;
    }
  }
  auto two = base;
  two["compressed-x-grps"] = "SOL Protein";
  ASSERT_EQ(run_halomd(sys, "nve.mdp", two, out + "/two", "--threads 2", &log), 0) << log;
  EXPECT_EQ(read_text(out + "/all/traj.xtc"), read_text(out + "/two/traj.xtc"));
  two["compressed-x-grps"] = "Protein System";
  EXPECT_EQ(run_halomd(sys, "nve.mdp", two, out + "/both", "", &log), 2);
  EXPECT_NE(log.find("both.mdp:"), std::string::npos) << log;
  EXPECT_NE(log.find("compressed-x-grps: atom 1 is in both Protein and System"), std::string::npos) << log;
  auto none = base;
  none["compressed-x-grps"] = "Lipids";
  EXPECT_EQ(run_halomd(sys, "nve.mdp", none, out + "/none", "", &log), 2);
  EXPECT_NE(log.find("compressed-x-grps: no group 'Lipids'"), std::string::npos) << log;
}

// gen-vel as grompp's maxwell_speed: gen-temp over 3 degrees of freedom per atom, so that after the start's
// constraining (SETTLE takes a third of rigid water's motion) the temperature is ~gen-temp, as gmx_d's step 0
// (306 K for spce_1k5 at 300 K, seed 7). halomd used to scale to gen-temp over the constrained degrees of
// freedom before constraining, and started at ~204 K. 1,500 waters: ~11 K of spread; 5 seeds.
TEST(Outputs, GeneratedVelocitiesStartAtGenTempAfterTheConstraints) {
  const std::string out = make_temp_dir("genvel");
  for (int seed = 1; seed <= 5; ++seed) {
    std::string log;
    const std::string dir = out + "/s" + std::to_string(seed);
    ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp",
                         {{"gen-vel", "yes"},
                          {"gen-temp", "300"},
                          {"gen-seed", std::to_string(seed)},
                          {"continuation", "no"},
                          {"nsteps", "0"}},
                         dir, "", &log),
              0)
        << log;
    EXPECT_NEAR(read_csv(dir + "/energy.csv")["temperature"][0], 300.0, 35.0) << "seed " << seed;
  }
}

TEST(Vrescale, SameSeedSameTrajectoryAndThreadCountDoesNotMatter) {
  const std::string out = make_temp_dir("seed");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/a", "--threads 1", &log), 0)
      << log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/b", "--threads 2", &log), 0)
      << log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/c", "--threads 3", &log), 0)
      << log;
  EXPECT_EQ(read_text(out + "/a/energy.csv"), read_text(out + "/b/energy.csv"));
  EXPECT_EQ(read_text(out + "/a/confout.gro"), read_text(out + "/c/confout.gro"));
  // The checkpoints too: nothing in them may depend on the run but its trajectory and seeds (a seed for
  // velocities that were not generated is not drawn).
  EXPECT_EQ(read_text(out + "/a/state.cpt"), read_text(out + "/b/state.cpt"));
  auto other = kShortVrescale;
  other["ld-seed"] = "4243";
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", other, out + "/d", "--threads 2", &log), 0) << log;
  EXPECT_NE(read_text(out + "/a/energy.csv"), read_text(out + "/d/energy.csv"));
}

TEST(Vrescale, LongRunTemperatureAndConservedDrift) {
  const auto ref = read_reference(data_path("spce_1k5/reference.txt"));
  const std::string out = make_temp_dir("vrescale_long");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", {{"ld-seed", "7"}}, out + "/run", "--threads 2", &log), 0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  ASSERT_GE(e["step"].size(), 200u);
  EXPECT_NEAR(mean(e["temperature"]), 300.0, kTemperatureRelTol * 300.0);
  const double drift = linear_slope(e["time_ps"], e["conserved"]) / ref.at("atoms");
  EXPECT_LT(std::fabs(drift), kConservedDriftPerAtom) << "conserved drift " << drift << " kJ/mol/ps/atom";
}

}  // namespace
}  // namespace halomd::test
