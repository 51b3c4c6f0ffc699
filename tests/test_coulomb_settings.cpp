// Coulomb settings beyond reaction field with epsilon-r = 1, against GROMACS 2022 (gmx_d): plain cut-off with
// and without coulomb-modifier = Potential-shift, epsilon-r != 1 with plain cut-off and reaction field. The
// step-0 energies of tests/data/spce_1k5 come from tests/make_coulomb_refdata.sh (tests/data/coulomb).
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

struct Case {
  std::string name, coulombtype, modifier, epsilon_r, epsilon_rf;
  double lj_sr = 0.0, coulomb_sr = 0.0;
};

std::vector<Case> read_cases() {
  std::vector<Case> cases;
  for (const std::string& row : read_rows(data_path("coulomb/reference.txt"))) {
    std::istringstream words(row);
    Case c;
    words >> c.name >> c.coulombtype >> c.modifier >> c.epsilon_r >> c.epsilon_rf >> c.lj_sr >> c.coulomb_sr;
    cases.push_back(c);
  }
  return cases;
}

TEST(CoulombSettings, Step0EnergiesMatchGromacs) {
  const std::vector<Case> cases = read_cases();
  ASSERT_EQ(cases.size(), 6u);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string out = make_temp_dir("coulomb_" + c.name);
    std::string log;
    ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp",
                         {{"nsteps", "0"},
                          {"coulombtype", c.coulombtype},
                          {"coulomb-modifier", c.modifier},
                          {"epsilon-r", c.epsilon_r},
                          {"epsilon-rf", c.epsilon_rf}},
                         out + "/run", "", &log),
              0)
        << log;
    auto e = read_csv(out + "/run/energy.csv");
    ASSERT_EQ(e["step"].size(), 1u);
    EXPECT_LT(std::fabs(e["coulomb_sr"][0] - c.coulomb_sr), kEnergyRelTol * std::fabs(c.coulomb_sr))
        << e["coulomb_sr"][0] << " vs " << c.coulomb_sr;
    EXPECT_LT(std::fabs(e["lj_sr"][0] - c.lj_sr), kEnergyRelTol * std::fabs(c.lj_sr));
  }
}

}  // namespace
}  // namespace halomd::test
