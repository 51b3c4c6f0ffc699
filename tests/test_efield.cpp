// The applied electric field (electric-field-x, -y, -z) on the CPU against gmx_d
// (tests/make_efield_refdata.sh): a static field, a cos(omega t) field with a Gaussian pulse, and the static
// field on TIP4P's charged virtual sites, step by step in potential, total energy, temperature and pressure
// (GROMACS gives the field neither energy nor virial), on one domain and on three; input errors name the
// line.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

void expect_paths_like_gromacs(const std::string& args) {
  const auto ref = read_case_rows("efield/reference.txt");
  for (const auto& [name, system] : std::map<std::string, std::string>{
           {"static", "spce_1k5"}, {"alternating", "spce_1k5"}, {"tip4p", "vsite/tip4p"}}) {
    SCOPED_TRACE(name);
    const std::string out = make_temp_dir("efield_" + name);
    const std::string up = system == "spce_1k5" ? "../" : "../../";
    std::string log;
    ASSERT_EQ(
        run_halomd(system, up + "efield/" + name + ".mdp", {}, out + "/run", "--threads 2 " + args, &log), 0)
        << log;
    auto e = read_csv(out + "/run/energy.csv");
    expect_rows_like_gromacs(e, ref.at(name),
                             {{"potential", kPcouplPathRelTol},
                              {"total", kPcouplPathRelTol},
                              {"temperature", kPcouplPathRelTol},
                              {"pressure", kPressureAbsTol, false}});
  }
}

TEST(ElectricField, PathsMatchGromacsStepByStep) { expect_paths_like_gromacs(""); }

TEST(ElectricField, PathsOnDomainsMatchGromacs) { expect_paths_like_gromacs("--dd 3 1 1"); }

// The field is what moves the path: without it the same run's step-0 potential is gmx_d's, and 40 steps later
// its total energy is ~40 kJ/mol from the field's run (its potential ~24).
TEST(ElectricField, TheFieldDoesWork) {
  const auto ref = read_case_rows("efield/reference.txt");
  const std::string out = make_temp_dir("efield_off");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "../efield/static.mdp", {{"electric-field-x", "0 0 0 0"}}, out + "/off",
                       "", &log),
            0)
      << log;
  auto e = read_csv(out + "/off/energy.csv");
  const auto& r = ref.at("static");
  ASSERT_EQ(e["step"].size(), r.size());
  EXPECT_NEAR(e["potential"][0], r[0][1], kPcouplPathRelTol * std::fabs(r[0][1]));
  EXPECT_GT(std::fabs(e["total"].back() - r.back()[2]), 20.0);
  EXPECT_GT(std::fabs(e["potential"].back() - r.back()[1]), 10.0);
}

// The field's phase comes from the step's time: other thread counts, and a continuation from the checkpoint
// of step 20 (stopped at 25), give the uninterrupted run's bits; a continuation with another tinit is
// refused.
TEST(ElectricField, ThreadCountAndContinuationChangeNoBit) {
  const std::string out = expect_threads_and_continuation_change_no_bit(
      "spce_1k5", "../efield/alternating.mdp", {{"nstcheckpoint", "20"}}, 25, {"energy.csv", "confout.gro"});
  std::string log;
  EXPECT_EQ(run_halomd("spce_1k5", "../efield/alternating.mdp", {{"nstcheckpoint", "20"}, {"tinit", "1"}},
                       out + "/tinit", "--cpi " + out + "/part/state.cpt", &log),
            2);
  EXPECT_NE(log.find("tinit differs from the checkpoint's"), std::string::npos) << log;
}

// Each dimension takes four numbers, as grompp; steep and the GPUs refuse a field naming its line.
TEST(ElectricField, InputErrorsNameTheLine) {
  const std::string out = make_temp_dir("efield_errors");
  std::string log;
  EXPECT_EQ(
      run_halomd("spce_1k5", "../efield/static.mdp", {{"electric-field-x", "0.5"}}, out + "/one", "", &log),
      2);
  EXPECT_NE(log.find("one.mdp:"), std::string::npos) << log;
  EXPECT_NE(log.find("electric-field-x = 0.5: give E0 (V/nm), omega (1/ps), t0 (ps) and sigma (ps)"),
            std::string::npos)
      << log;
  EXPECT_EQ(run_halomd("spce_1k5", "../efield/static.mdp", {{"integrator", "steep"}}, out + "/em", "", &log),
            2);
  EXPECT_NE(log.find("electric-field with integrator = steep is not supported yet"), std::string::npos)
      << log;
#if HALOMD_HAVE_CUDA
  EXPECT_EQ(run_halomd("spce_1k5", "../efield/static.mdp", {}, out + "/gpu", "--backend cuda", &log), 2);
  EXPECT_NE(log.find("electric-field runs with --backend cpu so far"), std::string::npos) << log;
#endif
}

}  // namespace
}  // namespace halomd::test
