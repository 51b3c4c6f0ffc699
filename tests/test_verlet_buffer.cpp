// halomd's Verlet buffer against GROMACS 2022: for each case of tests/data/verlet_buffer (written by
// tests/make_verlet_refdata.sh), the rlist grompp calculated for a 1x1 atom pair-list and the temperature it
// used must come out of load_inputs exactly (the estimate lands on a 0.001 nm grid).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "engine/run_options.h"
#include "engine/setup.h"
#include "engine/verlet_buffer.h"
#include "support/test_support.h"

namespace halomd {
namespace {

struct Case {
  std::string name, system;
  double rlist = 0.0, temperature = 0.0;
};

std::vector<Case> read_cases() {
  std::vector<Case> cases;
  for (const std::string& row : test::read_rows(test::data_path("verlet_buffer/reference.txt"))) {
    std::istringstream words(row);
    Case c;
    words >> c.name >> c.system >> c.rlist >> c.temperature;
    cases.push_back(c);
  }
  return cases;
}

SimulationInputs inputs_of(const Case& c) {
  RunOptions opt;
  opt.conf = test::data_path(c.system + "/conf.gro");
  opt.top = test::data_path(c.system + "/topol.top");
  opt.mdp = test::data_path("verlet_buffer/" + c.name + ".mdp");
  return load_inputs(opt);
}

TEST(VerletBuffer, RlistAndTemperatureMatchGrompp) {
  const std::vector<Case> cases = read_cases();
  ASSERT_GE(cases.size(), 20u);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const SimulationInputs in = inputs_of(c);
    const double temp = verlet_buffer_temperature(in.mdp, in.top, in.gro, in.ndf);
    // grompp prints the temperature with %g (6 significant digits).
    EXPECT_NEAR(temp, c.temperature, 1e-5 * c.temperature + 1e-12);
    EXPECT_NEAR(in.mdp.rlist, c.rlist, 1e-9);
  }
}

// The estimate is a drift bound: more buffer, less drift; at grompp's rlist the drift is within the tolerance
// and one grid step less exceeds it (or the buffer is already 0). Cases without any displacement (nstlist 1,
// 0 K) have no drift at all.
TEST(VerletBuffer, DriftFallsWithTheBufferAndBracketsTheTolerance) {
  int bracketed = 0;
  for (const Case& c : read_cases()) {
    SCOPED_TRACE(c.name);
    const SimulationInputs in = inputs_of(c);
    const MdParams& p = in.mdp;
    const double temp = verlet_buffer_temperature(p, in.top, in.gro, in.ndf);
    auto drift = [&](double rl) {
      return verlet_buffer_drift(p, in.top, in.gro.box, temp, p.nstlist, p.nstlist - 1, rl);
    };
    const double rc = std::max(p.rvdw, p.rcoulomb);
    if (p.nstlist == 1 || temp == 0.0) {
      EXPECT_EQ(drift(rc), 0.0);
      continue;
    }
    EXPECT_LE(drift(p.rlist), p.verlet_buffer_tolerance);
    if (p.rlist > rc + 1e-9) {
      EXPECT_GT(drift(p.rlist - 0.001), p.verlet_buffer_tolerance);
      ++bracketed;
    }
    EXPECT_GT(drift(rc + 0.01), drift(rc + 0.05));
    EXPECT_GT(drift(rc + 0.05), drift(rc + 0.1));
  }
  EXPECT_GE(bracketed, 15);
}

}  // namespace
}  // namespace halomd
