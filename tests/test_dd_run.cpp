// `halomd run` decomposed with the local transport: a checkpoint continues bitwise on the same grid and
// within the reduction-order tolerance on other grids (or one domain); run.json reports the decomposition;
// grids that cannot work exit 2 with a clear message.
#include <gtest/gtest.h>

#include <cmath>

#include "io/checkpoint.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

// rlist 1.0 so that 2 domains fit a 2.5 nm edge (one pulse); fixed seeds so that checkpoints compare bitwise.
const std::map<std::string, std::string> kShort = {{"rlist", "1.0"},        {"nsteps", "60"},
                                                   {"nstenergy", "10"},     {"nstcalcenergy", "10"},
                                                   {"nstcheckpoint", "30"}, {"nstxout-compressed", "20"},
                                                   {"ld-seed", "11"},       {"gen-seed", "12"}};

TEST(DdRun, CheckpointContinuesBitwiseOnTheSameGridAndWithinToleranceOnOthers) {
  const std::string out = make_temp_dir("dd_restart");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", kShort, out + "/full", "--domains 8", &log), 0) << log;
  const std::string json = read_text(out + "/full/run.json");
  EXPECT_NE(json.find("\"dd\": [2, 2, 2]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"transport\": \"local\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"migrated_atoms\": "), std::string::npos) << json;
  EXPECT_EQ(json.find("\"migrated_atoms\": 0,"), std::string::npos) << "no atom migrated in 60 steps";

  // Interrupted before step 40: the checkpoint is the one of step 30 (a search step).
  EXPECT_NE(run_halomd("spce_1k5", "nve.mdp", kShort, out + "/part", "--domains 8 --stop-at-step 40", &log),
            0);
  const std::string cpt = out + "/part/state.cpt";
  std::string next = out + "/part";
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", kShort, out + "/on2", "--domains 2 --cpi " + cpt, &log), 0)
      << log;
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", kShort, out + "/on1", "--cpi " + cpt, &log), 0) << log;
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", kShort, next, "--domains 8 --cpi " + cpt, &log), 0) << log;
  for (const char* f : {"energy.csv", "traj.xtc", "confout.gro", "state.cpt"})
    EXPECT_EQ(read_text(out + "/full/" + f), read_text(next + "/" + f)) << f;
  EXPECT_LT(checkpoint_position_difference(out + "/full/state.cpt", out + "/on2/state.cpt"), kDdPositionTol);
  EXPECT_LT(checkpoint_position_difference(out + "/full/state.cpt", out + "/on1/state.cpt"), kDdPositionTol);
}

TEST(DdRun, GridsThatCannotWorkExit2WithAClearMessage) {
  const std::string out = make_temp_dir("dd_errors");
  std::string log;
  // nve.mdp's rlist 1.1 + 2 x 0.1 nm margin does not fit in two 1.25 nm cells with one pulse.
  EXPECT_EQ(run_halomd("spce_1k5", "nve.mdp", {}, out + "/a", "--dd 2 1 1", &log), 2) << log;
  EXPECT_NE(log.find("domain grid 2x1x1 cannot be used"), std::string::npos) << log;
  EXPECT_NE(log.find("needs 2 pulses in x"), std::string::npos) << log;
  EXPECT_EQ(run_halomd("spce_1k5", "nve.mdp", {}, out + "/b", "--domains 2", &log), 2) << log;
  EXPECT_NE(log.find("2 domains cannot be arranged"), std::string::npos) << log;
  EXPECT_EQ(run_halomd("spce_1k5", "nve.mdp", {}, out + "/c", "--domains 4 --dd 3 1 1", &log), 2) << log;
  EXPECT_NE(log.find("--dd 3x1x1 makes 3 domains, but the run has 4"), std::string::npos) << log;
  EXPECT_EQ(run_halomd("spce_1k5", "nve.mdp", {}, out + "/d", "--dd 3 0 1", &log), 2) << log;
  EXPECT_NE(log.find("--dd takes three domain counts of at least 1"), std::string::npos) << log;
  EXPECT_EQ(run_halomd("spce_1k5", "nve.mdp", {}, out + "/e", "--dd 3 1", &log), 2) << log;
}

}  // namespace
}  // namespace halomd::test
