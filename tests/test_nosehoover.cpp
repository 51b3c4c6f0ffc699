// Nose-Hoover temperature coupling (tcoupl = Nose-Hoover, leap-frog, no chains) on the CPU reference against
// GROMACS 2022 (gmx_d, tests/make_nosehoover_refdata.sh). The thermostat has no noise, so both follow one
// path: SPC/E water coupled every step and every 5 steps (GROMACS's friction times nsttcouple), and the
// solvated peptide with two groups and h-bonds, step by step the total and conserved energy and each group's
// temperature, also on 4 domains; threads and a continuation from a checkpoint (which carries xi and vxi)
// change no bit (one GPU and GPU domains run it: test_cuda_run, test_cuda_dd_mpi).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

// halomd's run of <mdp> (in tests/data/nosehoover) on <system> against <case>.txt, column by column: energy
// columns relative, temperatures within `t_tol` K.
void expect_path_like_gromacs(const std::string& system, const std::string& mdp,
                              const std::vector<std::string>& columns, const std::string& args = "") {
  SCOPED_TRACE(mdp);
  const std::string out = make_temp_dir("nosehoover");
  std::string log;
  ASSERT_EQ(run_halomd(system,
                       "../" + std::string(system.find('/') == std::string::npos ? "" : "../") +
                           "nosehoover/" + mdp + ".mdp",
                       {}, out + "/run", "--threads 2 " + args, &log),
            0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  const std::vector<std::string> rows = read_rows(data_path("nosehoover/" + mdp + ".txt"));
  ASSERT_EQ(e["step"].size(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    std::istringstream w(rows[k]);
    double step = 0;
    w >> step;
    SCOPED_TRACE(::testing::Message() << "step " << step);
    for (const std::string& c : columns) {
      double ref = 0;
      w >> ref;
      ASSERT_TRUE(e.count(c)) << c;
      // gmx energy prints 6 decimals; the paths agree to ~1e-8 relative.
      EXPECT_NEAR(e[c][k], ref, kPcouplPathRelTol * std::fabs(ref) + 1e-6) << c;
    }
  }
}

TEST(NoseHoover, WaterFollowsGromacsPathCoupledEveryStepAndEveryFifth) {
  expect_path_like_gromacs("spce_1k5", "water", {"total", "conserved", "temperature"});
  expect_path_like_gromacs("spce_1k5", "water_nst5", {"total", "conserved", "temperature"});
}

TEST(NoseHoover, TwoGroupsOnTheSolvatedPeptideFollowGromacsPath) {
  expect_path_like_gromacs("bonded/solvated", "two_groups",
                           {"total", "conserved", "t_Protein", "t_Non-Protein"});
}

// On 4 domains of update groups (the CPU decomposition): the same path, the groups' kinetic energies summed
// over domains in fixed point; threads and a continuation (xi and vxi from the checkpoint) change no bit.
TEST(NoseHoover, TwoGroupsOnDomainsFollowGromacsPath) {
  expect_path_like_gromacs("bonded/solvated", "two_groups",
                           {"total", "conserved", "t_Protein", "t_Non-Protein"}, "--domains 4");
  expect_threads_and_continuation_change_no_bit("bonded/solvated", "../../nosehoover/two_groups.mdp",
                                                {{"nsteps", "30"}, {"nstcheckpoint", "15"}}, 17,
                                                {"energy.csv", "confout.gro"}, "--domains 4");
}

TEST(NoseHoover, ThreadCountAndContinuationChangeNoBit) {
  const std::map<std::string, std::string> set = {{"nsteps", "60"}, {"nstcheckpoint", "30"}};
  expect_threads_and_continuation_change_no_bit("spce_1k5", "../nosehoover/water_nst5.mdp", set, 33,
                                                {"energy.csv", "confout.gro"});
}

}  // namespace
}  // namespace halomd::test
