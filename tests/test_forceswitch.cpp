// vdw-modifier = Force-switch (CHARMM36's Lennard-Jones) and Potential-switch on the CPU reference against
// GROMACS 2022 (gmx_d, tests/make_forceswitch_refdata.sh): SPC/E water with reaction field and the switch
// from 0.8 and from 0.6 nm to rvdw 1.0, with DispCorr = no and EnerPres (the switched potential integrated
// into the correction): step-0 LJ (SR), Coulomb (SR), Disper. corr., potential and pressure, and the rlist
// grompp calculates for a 1x1 list (the switched potential's third derivative at the cut-off); what is not
// run is refused naming the line. Domains run the same pair function (cpu/pair_interaction.h).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

std::map<std::string, double> terms_of(const std::string& c) {
  return read_case_terms(data_path("forceswitch/reference.txt"), c);
}

TEST(ForceSwitch, Step0EnergiesPressureAndRlistMatchGromacs) {
  for (const char* c : {"fsw0.8", "fsw0.6", "fsw0.8_dc", "psw0.8", "psw0.8_dc", "psw0.6_dc"}) {
    SCOPED_TRACE(c);
    const auto ref = terms_of(c);
    const std::string out = make_temp_dir("forceswitch");
    std::string log;
    ASSERT_EQ(run_halomd("spce_1k5", std::string("../forceswitch/") + c + ".mdp", {}, out + "/run",
                         "--threads 2", &log),
              0)
        << log;
    auto e = read_csv(out + "/run/energy.csv");
    EXPECT_NEAR(e["lj_sr"][0], ref.at("LJ_(SR)"), kEnergyRelTol * std::fabs(ref.at("LJ_(SR)")) + 1e-6);
    EXPECT_NEAR(e["coulomb_sr"][0], ref.at("Coulomb_(SR)"), 1e-8 * std::fabs(ref.at("Coulomb_(SR)")) + 1e-6);
    EXPECT_NEAR(e["potential"][0], ref.at("Potential"), 1e-8 * std::fabs(ref.at("Potential")) + 1e-6);
    EXPECT_NEAR(e["pressure"][0], ref.at("Pressure"), 1e-3);
    if (ref.count("Disper._corr.")) {
      ASSERT_TRUE(e.count("disp_corr"));
      EXPECT_NEAR(e["disp_corr"][0], ref.at("Disper._corr."),
                  1e-8 * std::fabs(ref.at("Disper._corr.")) + 1e-6);
    }
    EXPECT_NEAR(json_number(read_text(out + "/run/run.json"), "rlist_nm"), ref.at("rlist_1x1"), 5e-4);
  }
}

// Where LJ decides the buffer (the LJ fluid, CHARMM's 1.0/1.2 nm, nstlist 40, tolerance 1e-4), halomd's rlist
// is grompp's (whose estimate takes the switch's third derivative in its own form: verlet_buffer.cpp).
TEST(ForceSwitch, VerletBufferOfAnLjFluidIsGromppsRlist) {
  const std::string out = make_temp_dir("forceswitch_lj");
  std::string log;
  ASSERT_EQ(run_halomd("lj_fluid", "../forceswitch/lj_fsw.mdp", {}, out + "/run", "", &log), 0) << log;
  EXPECT_NEAR(json_number(read_text(out + "/run/run.json"), "rlist_nm"), terms_of("lj_fsw").at("rlist_1x1"),
              5e-4);
  // Potential-switch: the potential times the switch's third derivative.
  ASSERT_EQ(run_halomd("lj_fluid", "../forceswitch/lj_psw.mdp", {}, out + "/psw", "", &log), 0) << log;
  EXPECT_NEAR(json_number(read_text(out + "/psw/run.json"), "rlist_nm"), terms_of("lj_psw").at("rlist_1x1"),
              5e-4);
  EXPECT_NE(terms_of("lj_psw").at("rlist_1x1"), terms_of("lj_fsw").at("rlist_1x1"));
}

TEST(ForceSwitch, WhatIsNotRunYetIsRefusedNamingTheLine) {
  const std::string out = make_temp_dir("forceswitch_refuse");
  std::string log;
  EXPECT_EQ(
      run_halomd("spce_1k5", "../forceswitch/fsw0.8_dc.mdp", {{"rvdw-switch", "0"}}, out + "/dc", "", &log),
      2);
  EXPECT_NE(log.find("rvdw-switch can not be zero with DispCorr"), std::string::npos) << log;
  EXPECT_EQ(
      run_halomd("spce_1k5", "../forceswitch/fsw0.8.mdp", {{"rvdw-switch", "1.0"}}, out + "/sw", "", &log),
      2);
  EXPECT_NE(log.find("rvdw-switch must be at least 0 and below rvdw"), std::string::npos) << log;
  // (One GPU and GPU domains run both switches: test_cuda_executor, test_cuda_dd_mpi.)
}

}  // namespace
}  // namespace halomd::test
