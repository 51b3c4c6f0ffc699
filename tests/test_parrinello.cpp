// pcoupl = Parrinello-Rahman (rectangular box, isotropic and semi-isotropic) on the CPU reference against
// GROMACS 2022 (gmx_d, tests/make_parrinello_refdata.sh). With deterministic thermostats (Nose-Hoover, or
// v-rescale at ref-t 0) both codes follow one path: step by step the total and conserved energy (the box's
// kinetic energy and P_ref V included), the pressure, the volume and the box, coupled every step and every
// fifth; threads and a continuation from a checkpoint (which carries the box velocity and the pressure the
// next coupling step reads) change no bit; the same paths on CPU domains (one GPU and GPU domains run it:
// test_cuda_run, test_cuda_dd_mpi).
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

void expect_path_like_gromacs(const std::string& mdp, const std::string& args = "") {
  SCOPED_TRACE(mdp + " " + args);
  const std::string out = make_temp_dir("parrinello");
  std::string log;
  ASSERT_EQ(
      run_halomd("spce_1k5", "../parrinello/" + mdp + ".mdp", {}, out + "/run", "--threads 2 " + args, &log),
      0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  const std::vector<std::string> rows = read_rows(data_path("parrinello/" + mdp + ".txt"));
  ASSERT_EQ(e["step"].size(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    std::istringstream w(rows[k]);
    double step, total, conserved, pressure, volume, box_x, box_z;
    w >> step >> total >> conserved >> pressure >> volume >> box_x >> box_z;
    SCOPED_TRACE(::testing::Message() << "step " << step);
    // gmx energy prints 6 decimals; the paths agree to ~1e-9 relative.
    EXPECT_NEAR(e["total"][k], total, kPcouplPathRelTol * std::fabs(total));
    EXPECT_NEAR(e["conserved"][k], conserved, kPcouplPathRelTol * std::fabs(conserved));
    EXPECT_NEAR(e["pressure"][k], pressure, 1e-3);
    EXPECT_NEAR(e["volume"][k], volume, 1e-6);
    EXPECT_NEAR(e["box_x"][k], box_x, 1e-6);
    EXPECT_NEAR(e["box_z"][k], box_z, 1e-6);
  }
  EXPECT_GT(std::fabs(e["volume"].back() - e["volume"].front()), 1e-3);
}

TEST(ParrinelloRahman, IsotropicFollowsGromacsPathEveryStepAndEveryFifth) {
  expect_path_like_gromacs("iso");
  expect_path_like_gromacs("iso_nst5");
}

TEST(ParrinelloRahman, SemiIsotropicAndWithVrescaleFollowGromacsPath) {
  expect_path_like_gromacs("semi");
  expect_path_like_gromacs("vrescale");
}

// On 3 domains, and on 3x3x1 (2 pulses in x and in y), the same paths.
TEST(ParrinelloRahman, DomainsFollowGromacsPath) {
  expect_path_like_gromacs("iso_nst5", "--dd 3 1 1");
  expect_path_like_gromacs("semi", "--dd 3 3 1");
}

TEST(ParrinelloRahman, ThreadCountAndContinuationChangeNoBit) {
  const std::map<std::string, std::string> set = {{"nsteps", "60"}, {"nstcheckpoint", "30"}};
  expect_threads_and_continuation_change_no_bit("spce_1k5", "../parrinello/iso_nst5.mdp", set, 33,
                                                {"energy.csv", "confout.gro"});
}

// What grompp 2022 accepts or refuses around it: without a thermostat it runs (NPH, no message); a
// continuation with another barostat or thermostat is refused (their state is the checkpoint's); position
// restraints with absolute references under pressure coupling are refused (grompp warns of artefacts, and
// refcoord-scaling = com is not in halomd yet); a tau-p below 20 nstpcouple dt runs with grompp's warning.
TEST(ParrinelloRahman, InputsAroundItAsGrompp) {
  const std::string out = make_temp_dir("parrinello_inputs");
  const std::string mdp = "../parrinello/vrescale.mdp";
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", mdp, {{"tcoupl", "no"}, {"nsteps", "5"}}, out + "/nph", "", &log), 0)
      << log;
  ASSERT_EQ(run_halomd("spce_1k5", mdp, {{"nsteps", "10"}, {"nstcheckpoint", "5"}}, out + "/a",
                       "--stop-at-step 7", &log),
            3)
      << log;
  EXPECT_EQ(run_halomd("spce_1k5", mdp, {{"nsteps", "10"}, {"pcoupl", "C-rescale"}}, out + "/a",
                       "--cpi " + out + "/a/state.cpt", &log),
            2);
  EXPECT_NE(log.find("pcoupl differs from the checkpoint's run"), std::string::npos) << log;
  EXPECT_EQ(run_halomd("posres", "step0.mdp",
                       {{"pcoupl", "Parrinello-Rahman"}, {"tau-p", "1"}, {"compressibility", "4.5e-5"}},
                       out + "/posres", "", &log),
            2);
  EXPECT_NE(log.find("position restraints with pressure coupling need refcoord-scaling = com"),
            std::string::npos)
      << log;
  ASSERT_EQ(run_halomd("spce_1k5", mdp, {{"tau-p", "0.2"}, {"nstpcouple", "10"}, {"nsteps", "2"}},
                       out + "/short", "", &log),
            0)
      << log;
  EXPECT_NE(log.find("tau-p (0.2) should be at least 20 times nstpcouple*dt"), std::string::npos) << log;
  // A zero compressibility keeps that direction (semi-isotropic z here, as grompp allows); all zero is
  // refused.
  ASSERT_EQ(run_halomd("spce_1k5", "../parrinello/semi.mdp",
                       {{"compressibility", "4.5e-5 0"}, {"nsteps", "20"}}, out + "/z0", "", &log),
            0)
      << log;
  auto z = read_csv(out + "/z0/energy.csv");
  EXPECT_EQ(z["box_z"].front(), z["box_z"].back());
  EXPECT_NE(z["box_x"].front(), z["box_x"].back());
  EXPECT_EQ(
      run_halomd("spce_1k5", "../parrinello/semi.mdp", {{"compressibility", "0 0"}}, out + "/z00", "", &log),
      2);
  EXPECT_NE(log.find("compressibility must be > 0 when using pressure coupling Parrinello-Rahman"),
            std::string::npos)
      << log;
}

}  // namespace
}  // namespace halomd::test
