// Several temperature-coupling groups (tc-grps = Protein Non-Protein) on the CPU reference against GROMACS
// 2022 (gmx_d, tests/make_tcgroups_refdata.sh): each group's degrees of freedom as grompp counts them, and
// with ref-t = 0 (no thermostat noise) the path of two v-rescale thermostats with different tau-t step by
// step, total and conserved energy and each group's temperature; threads and continuation change no bit; bad
// groups are refused naming the line.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

const char* const kSystem = "bonded/solvated";
const char* const kMdp = "../../tcgroups/two_groups.mdp";

TEST(TcGroups, DegreesOfFreedomAndTheNoiselessPathMatchGromacs) {
  const std::string out = make_temp_dir("tcgroups_path");
  std::string log;
  ASSERT_EQ(run_halomd(kSystem, kMdp, {}, out + "/run", "--threads 2", &log), 0) << log;
  // grompp prints each group's degrees of freedom with 2 decimals.
  const std::string json = read_text(out + "/run/run.json");
  for (const std::string& row : read_rows(data_path("tcgroups/ndf.txt"))) {
    std::istringstream w(row);
    std::string name;
    double ndf = 0;
    w >> name >> ndf;
    const std::string key = "\"" + std::string(name == "non-Protein" ? "Non-Protein" : name) + "\": ";
    const size_t at = json.find(key);
    ASSERT_NE(at, std::string::npos) << key << json;
    EXPECT_NEAR(std::stod(json.substr(at + key.size())), ndf, 0.005) << name;
  }
  auto e = read_csv(out + "/run/energy.csv");
  const std::vector<std::string> rows = read_rows(data_path("tcgroups/reference.txt"));
  ASSERT_EQ(e["step"].size(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    std::istringstream w(rows[k]);
    double step, total, conserved, tp, tn;
    w >> step >> total >> conserved >> tp >> tn;
    SCOPED_TRACE(::testing::Message() << "step " << step);
    EXPECT_NEAR(e["total"][k], total, kPcouplPathRelTol * std::fabs(total));
    EXPECT_NEAR(e["conserved"][k], conserved, kPcouplPathRelTol * std::fabs(conserved));
    // gmx energy prints 6 decimals; the paths agree to ~1e-8 relative.
    EXPECT_NEAR(e["t_Protein"][k], tp, kPcouplPathRelTol * tp + 1e-6);
    EXPECT_NEAR(e["t_Non-Protein"][k], tn, kPcouplPathRelTol * tn + 1e-6);
  }
  // The thermostats took out different fractions: tau-t 0.1 and 0.2 ps.
  EXPECT_LT(e["t_Protein"].back() / e["t_Protein"].front(),
            e["t_Non-Protein"].back() / e["t_Non-Protein"].front());
}

TEST(TcGroups, ThreadCountAndContinuationChangeNoBit) {
  const std::map<std::string, std::string> set = {
      {"nsteps", "40"},   {"ref-t", "300 310"},   {"ld-seed", "3"},        {"nsttcouple", "5"},
      {"nstenergy", "5"}, {"nstcalcenergy", "5"}, {"nstcheckpoint", "20"}, {"nstxout-compressed", "10"}};
  expect_threads_and_continuation_change_no_bit(kSystem, kMdp, set, 25,
                                                {"energy.csv", "traj.xtc", "confout.gro"});
}

TEST(TcGroups, BadGroupsAreRefusedNamingTheLine) {
  const std::string out = make_temp_dir("tcgroups_refuse");
  std::string log;
  const std::pair<std::map<std::string, std::string>, std::string> cases[] = {
      {{{"tc-grps", "Protein Lipids"}}, "tc-grps: no group 'Lipids'"},
      {{{"tc-grps", "Protein System"}}, "tc-grps: atom 1 is in both Protein and System"},
      {{{"tc-grps", "Protein SOL"}, {"tau-t", "0.1 0.1"}}, ""},  // SOL is every non-protein atom here: fine
      {{{"tc-grps", "Protein Water"}, {"tau-t", "0.1"}}, "tau-t has 1 values for the 2 groups of tc-grps"},
      // Without a thermostat the groups couple nothing: one group, whatever tau-t and ref-t say.
      {{{"tcoupl", "no"}, {"ref-t", "0"}}, ""},
  };
  for (size_t k = 0; k < std::size(cases); ++k) {
    const std::string& error = cases[k].second;
    SCOPED_TRACE(error);
    std::map<std::string, std::string> s = cases[k].first;
    s["nsteps"] = "0";
    const int rc = run_halomd(kSystem, kMdp, s, out + "/r" + std::to_string(k), "", &log);
    if (error.empty()) {
      EXPECT_EQ(rc, 0) << log;
    } else {
      EXPECT_EQ(rc, 2) << log;
      EXPECT_NE(log.find(error), std::string::npos) << log;
    }
  }
  EXPECT_EQ(run_halomd(kSystem, kMdp, {}, out + "/dd", "--domains 2", &log), 2);
}

}  // namespace
}  // namespace halomd::test
