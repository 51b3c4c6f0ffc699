// integrator = sd (GROMACS 2022's leap-frog stochastic dynamics) on the CPU against gmx_d
// (tests/make_sd_refdata.sh): with ref-t = 0 only the friction acts, so the paths are GROMACS's step by step
// (SPC/E water with SETTLE, the solvated peptide with LINCS and two groups; one domain and several); at 300 K
// the mean temperature and its fluctuation agree with gmx_d's run; threads, domains and a continuation draw
// the same numbers; what is not supported is refused naming the line.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <sstream>

#include "core/units.h"
#include "cpu/sd.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

// halomd's run of sd/<mdp> on <system> against gmx_d's path <case>.txt (step total T...), the temperature
// columns `t_cols` of energy.csv in the file's order.
void expect_friction_path(const std::string& system, const std::string& name,
                          const std::vector<std::string>& t_cols, const std::string& args) {
  SCOPED_TRACE(name + " " + args);
  const std::string out = make_temp_dir("sd_path");
  std::string log;
  ASSERT_EQ(run_halomd(system,
                       "../" + std::string(system.find('/') == std::string::npos ? "" : "../") + "sd/" +
                           name + ".mdp",
                       {}, out + "/run", "--threads 2 " + args, &log),
            0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  const std::vector<std::string> rows = read_rows(data_path("sd/" + name + ".txt"));
  ASSERT_EQ(e["step"].size(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    std::istringstream w(rows[k]);
    double step = 0, total = 0;
    w >> step >> total;
    SCOPED_TRACE(::testing::Message() << "step " << step);
    EXPECT_NEAR(e["total"][k], total, 1e-8 * std::fabs(total) + kPrintedEnergyAbsTol);
    for (const std::string& c : t_cols) {
      double t = 0;
      w >> t;
      EXPECT_NEAR(e[c][k], t, 1e-4) << c;
    }
  }
  EXPECT_LT(e["total"].back(), e["total"].front() - 10.0);  // the friction took energy out
}

TEST(StochasticDynamics, FrictionPathsMatchGromacsOnOneDomainAndSeveral) {
  expect_friction_path("spce_1k5", "water", {"temperature"}, "");
  expect_friction_path("spce_1k5", "water", {"temperature"}, "--dd 3 1 1");
  expect_friction_path("bonded/solvated", "peptide", {"t_Protein", "t_Non-Protein"}, "");
  expect_friction_path("bonded/solvated", "peptide", {"t_Protein", "t_Non-Protein"}, "--domains 4");
}

// 300 K, tau-t 0.5 ps, from 5 ps on: the mean temperature within 3 K of gmx_d's 20 ps (and of ref-t), its
// standard deviation within 25%; a thermostat-free run would drift, a friction without noise cool.
TEST(StochasticDynamics, TemperatureAndItsFluctuationFollowGromacs) {
  const auto ref = read_reference(data_path("sd/hot.txt"));
  const std::string out = make_temp_dir("sd_hot");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "../sd/hot.mdp", {{"nsteps", "6000"}}, out + "/run", "--threads 2", &log),
            0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  std::vector<double> t;
  for (size_t k = 0; k < e["step"].size(); ++k)
    if (e["step"][k] >= 2500) t.push_back(e["temperature"][k]);
  ASSERT_GT(t.size(), 300u);
  const double mean = std::accumulate(t.begin(), t.end(), 0.0) / t.size();
  double var = 0.0;
  for (double x : t) var += (x - mean) * (x - mean);
  const double sd = std::sqrt(var / (t.size() - 1));
  EXPECT_NEAR(mean, ref.at("t_mean"), 3.0);
  EXPECT_NEAR(mean, 300.0, 3.0);
  EXPECT_NEAR(sd, ref.at("t_std"), 0.25 * ref.at("t_std"));
}

// The noise is a function of (ld-seed, step, atom): threads and a continuation change no bit, and 3 domains
// draw the same numbers as one (the same path to rounding).
TEST(StochasticDynamics, ThreadsDomainsAndContinuationDrawTheSameNumbers) {
  const std::map<std::string, std::string> set = {
      {"nsteps", "60"}, {"nstcheckpoint", "30"}, {"nstenergy", "10"}, {"nstcalcenergy", "10"}};
  const std::string out = expect_threads_and_continuation_change_no_bit("spce_1k5", "../sd/hot.mdp", set, 33,
                                                                        {"energy.csv", "confout.gro"});
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "../sd/hot.mdp", set, out + "/dd", "--dd 3 1 1", &log), 0) << log;
  auto a = read_csv(out + "/one/energy.csv"), b = read_csv(out + "/dd/energy.csv");
  ASSERT_EQ(a["total"].size(), b["total"].size());
  for (size_t k = 0; k < a["total"].size(); ++k)
    EXPECT_NEAR(b["total"][k], a["total"][k], 1e-8 * std::fabs(a["total"][k])) << "row " << k;
  // Another seed draws other numbers.
  ASSERT_EQ(
      run_halomd("spce_1k5", "../sd/hot.mdp", {{"nsteps", "60"}, {"ld-seed", "18"}}, out + "/seed", "", &log),
      0);
  EXPECT_NE(read_text(out + "/seed/confout.gro"), read_text(out + "/one/confout.gro"));
}

// Each group's noise has its own temperature: from rest, with unit masses and ref-t 100 and 400 K, the kicks'
// variance per dimension is kB ref-t (1 - em^2) in each group (20,000 atoms, within 3%), friction alone for
// ref-t 0 (a third group), and the numbers depend on the seed, step and atom only.
TEST(StochasticDynamics, EachGroupsNoiseHasItsTemperature) {
  MdParams mdp;
  mdp.integrator = Integrator::Sd;
  mdp.dt = 0.002;
  mdp.tau_ts = {0.5, 1.0, 0.5};
  mdp.ref_ts = {100.0, 400.0, 0.0};
  const StochasticDynamics sd(mdp, 3, 12345);
  const int n = 30000;
  std::vector<Vec3> v(n), x(n);
  std::vector<double> inv_mass(n, 1.0);
  std::vector<int> group(n);
  for (int i = 0; i < n; ++i) group[i] = i % 3;
  sd.friction_and_noise(7, v, inv_mass, &group, {}, mdp.dt, x, 2);
  double sum2[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) sum2[group[i]] += norm2(v[i]);
  for (int g = 0; g < 2; ++g) {
    const double em = std::exp(-mdp.dt / mdp.tau_ts[g]);
    const double expect = units::kBoltzmann * mdp.ref_ts[g] * (1.0 - em * em);
    EXPECT_NEAR(sum2[g] / (3.0 * (n / 3)), expect, 0.03 * expect) << "group " << g;  // per component
  }
  EXPECT_EQ(sum2[2], 0.0);
  // The same call again draws the same numbers; another step others.
  std::vector<Vec3> v2(n), v3(n), x2(n);
  sd.friction_and_noise(7, v2, inv_mass, &group, {}, mdp.dt, x2, 1);
  sd.friction_and_noise(8, v3, inv_mass, &group, {}, mdp.dt, x2, 1);
  EXPECT_EQ(v2[1].x, v[1].x);
  EXPECT_NE(v3[1].x, v[1].x);
}

TEST(StochasticDynamics, WhatItDoesNotRunIsRefusedNamingTheLine) {
  const std::string out = make_temp_dir("sd_refuse");
  std::string log;
  EXPECT_EQ(run_halomd("spce_1k5", "../sd/water.mdp", {{"tau-t", "0"}}, out + "/tau", "", &log), 2);
  EXPECT_NE(log.find("tau-t must be positive with integrator = sd"), std::string::npos) << log;
  EXPECT_EQ(
      run_halomd(
          "spce_1k5", "../sd/water.mdp",
          {{"pcoupl", "Parrinello-Rahman"}, {"tau-p", "2"}, {"compressibility", "4.5e-5"}, {"ref-p", "1"}},
          out + "/pr", "", &log),
      2);
  EXPECT_NE(log.find("pcoupl = Parrinello-Rahman with integrator = sd is not supported"), std::string::npos)
      << log;
  EXPECT_EQ(run_halomd("spce_1k5", "../sd/water.mdp", {}, out + "/gpu", "--backend cuda", &log), 2);
  EXPECT_NE(log.find("integrator = sd runs with --backend cpu"), std::string::npos) << log;
  // A thermostat is set to no with a note, as grompp does.
  EXPECT_EQ(run_halomd("spce_1k5", "../sd/water.mdp", {{"tcoupl", "v-rescale"}, {"nsteps", "2"}}, out + "/tc",
                       "", &log),
            0)
      << log;
  EXPECT_NE(log.find("tcoupl is set to no: integrator = sd couples the temperature itself"),
            std::string::npos)
      << log;
}

}  // namespace
}  // namespace halomd::test
