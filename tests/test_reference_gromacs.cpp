// halomd's CPU reference against GROMACS 2022 (gmx_d) on the systems tests/make_refdata.sh generated.
#include <gtest/gtest.h>

#include <cmath>

#include "cpu/dispersion_correction.h"
#include "cpu/nonbonded.h"
#include "cpu/pairlist.h"
#include "engine/setup.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

class WaterReference : public ::testing::TestWithParam<std::string> {};

double rel_diff(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

TEST_P(WaterReference, Step0EnergiesAndPressureMatchGromacs) {
  const std::string sys = GetParam();
  const auto ref = read_reference(data_path(sys + "/reference.txt"));
  const std::string out = make_temp_dir(sys + "_step0");
  std::string log;
  ASSERT_EQ(run_halomd(sys, "nve.mdp", {{"nsteps", "0"}}, out + "/run", "--threads 2", &log), 0) << log;
  auto e = read_csv(out + "/run/energy.csv");
  ASSERT_EQ(e["step"].size(), 1u);
  EXPECT_LT(rel_diff(e["lj_sr"][0], ref.at("lj_sr")), kEnergyRelTol)
      << e["lj_sr"][0] << " vs " << ref.at("lj_sr");
  EXPECT_LT(rel_diff(e["coulomb_sr"][0], ref.at("coulomb_sr")), kEnergyRelTol)
      << e["coulomb_sr"][0] << " vs " << ref.at("coulomb_sr");
  EXPECT_LT(rel_diff(e["disp_corr"][0], ref.at("disp_corr")), kEnergyRelTol)
      << e["disp_corr"][0] << " vs " << ref.at("disp_corr");
  EXPECT_LT(rel_diff(e["potential"][0], ref.at("potential")), kEnergyRelTol)
      << e["potential"][0] << " vs " << ref.at("potential");
  EXPECT_LT(rel_diff(e["kinetic"][0], ref.at("kinetic0")), kKineticRelTol)
      << e["kinetic"][0] << " vs " << ref.at("kinetic0");
  EXPECT_LT(rel_diff(e["temperature"][0], ref.at("temperature0")), kKineticRelTol);
  EXPECT_NEAR(e["pressure"][0], ref.at("pressure0"), kPressureAbsTol);
}

TEST_P(WaterReference, NveRunMatchesGromacsMeanAndDrift) {
  const std::string sys = GetParam();
  const auto ref = read_reference(data_path(sys + "/reference.txt"));
  const std::string out = make_temp_dir(sys + "_nve");
  std::string log;
  ASSERT_EQ(run_halomd(sys, "nve.mdp", {}, out + "/run", "--threads 2", &log), 0) << log;
  auto e = read_csv(out + "/run/energy.csv");
  expect_nve_like_gromacs(e, ref);
  // Without a thermostat the conserved energy is the total energy.
  for (size_t i = 0; i < e["total"].size(); ++i) ASSERT_EQ(e["total"][i], e["conserved"][i]);
}

INSTANTIATE_TEST_SUITE_P(Spce, WaterReference, ::testing::Values("spce_1k5", "spce_9k"));

TEST(LjFluidReference, Step0EnergyAndVirialMatchGromacs) {
  const auto ref = read_reference(data_path("lj_fluid/reference.txt"));
  const std::string out = make_temp_dir("lj_step0");
  std::string log;
  ASSERT_EQ(run_halomd("lj_fluid", "step0.mdp", {}, out + "/run", "", &log), 0) << log;
  auto e = read_csv(out + "/run/energy.csv");
  ASSERT_GE(e["step"].size(), 1u);
  EXPECT_LT(rel_diff(e["lj_sr"][0], ref.at("lj_sr")), kEnergyRelTol)
      << e["lj_sr"][0] << " vs " << ref.at("lj_sr");
  EXPECT_EQ(e["coulomb_sr"][0], 0.0);
  EXPECT_LT(rel_diff(e["disp_corr"][0], ref.at("disp_corr")), kEnergyRelTol);
  EXPECT_LT(rel_diff(e["kinetic"][0], ref.at("kinetic0")), kKineticRelTol);
  // The virial enters only through the pressure: P = 2/(3V) (KE - Xi).
  EXPECT_NEAR(e["pressure"][0], ref.at("pressure0"), kPressureAbsTol);
}

TEST(LjFluidReference, VirialTensorMatchesGromacs) {
  const auto ref = read_reference(data_path("lj_fluid/reference.txt"));
  RunOptions opt;
  opt.conf = data_path("lj_fluid/conf.gro");
  opt.top = data_path("lj_fluid/topol.top");
  opt.mdp = data_path("lj_fluid/step0.mdp");
  SimulationInputs in = load_inputs(opt);
  PairList list;
  build_pair_list(in.gro.x, in.gro.box, in.mdp.rlist, in.top, 2, list);
  NonbondedCpu nb(in.top, in.mdp, 2);
  std::vector<Vec3> f(in.top.num_atoms());
  NonbondedEnergies e;
  nb.compute(list, in.gro.x, in.gro.box, true, 0, f, e);
  const double dc = DispersionCorrection(in.top, in.mdp).virial_diagonal(in.gro.box);
  const char* keys[3] = {"vir_xx0", "vir_yy0", "vir_zz0"};
  for (int d = 0; d < 3; ++d)
    EXPECT_LT(rel_diff(e.virial.m[d][d] + dc, ref.at(keys[d])), kEnergyRelTol)
        << keys[d] << ": " << e.virial.m[d][d] + dc << " vs " << ref.at(keys[d]);
}

}  // namespace
}  // namespace halomd::test
