// integrator = steep (energy minimisation) against GROMACS 2022 (gmx_d, tests/make_em_refdata.sh): the same
// accepted states with the same energies and pressures, and the same final Fmax, its atom and Fnorm, for
// SETTLE water with PME, a flexible peptide with reaction field, and a solvated peptide with LINCS and
// SETTLE; convergence at emtol, the files it writes, and what it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "io/gro.h"
#include "io/trr.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

struct Case {
  const char* name;
  const char* system;
  const char* mdp;  // relative to the system's folder
};
const Case kCases[] = {{"water", "spce_1k5", "../em/water.mdp"},
                       {"peptide", "bonded/amber99sb-ildn", "../../em/peptide.mdp"},
                       {"solvated", "bonded/solvated", "../../em/solvated.mdp"}};

// A number out of run.json's flat members.
TEST(Steep, AcceptedStatesEnergiesAndFinalForcesMatchGromacs) {
  std::map<std::string, std::vector<std::vector<double>>> ref;  // step, potential, pressure per case
  for (const std::string& row : read_rows(data_path("em/reference.txt"))) {
    std::istringstream w(row);
    std::string name;
    double step, pot, pres;
    w >> name >> step >> pot >> pres;
    ref[name].push_back({step, pot, pres});
  }
  std::map<std::string, std::vector<double>> final;  // steps, fmax, atom, fnorm
  for (const std::string& row : read_rows(data_path("em/final.txt"))) {
    std::istringstream w(row);
    std::string name;
    double steps, fmax, atom, fnorm;
    w >> name >> steps >> fmax >> atom >> fnorm;
    final[name] = {steps, fmax, atom, fnorm};
  }
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::string out = make_temp_dir(std::string("em_") + c.name);
    std::string log;
    ASSERT_EQ(run_halomd(c.system, c.mdp, {}, out + "/run", "--threads 2", &log), 0) << log;
    auto e = read_csv(out + "/run/energy.csv");
    const auto& r = ref.at(c.name);
    ASSERT_EQ(e["step"].size(), r.size()) << "accepted states";
    for (size_t k = 0; k < r.size(); ++k) {
      EXPECT_EQ(e["step"][k], r[k][0]) << "row " << k;
      // The paths agree step by step; SETTLE's rounding makes the water's drift apart by ~2e-7 over 50 steps.
      EXPECT_NEAR(e["potential"][k], r[k][1], kMinimizationEnergyRelTol * std::fabs(r[k][1]))
          << "step " << r[k][0];
      EXPECT_NEAR(e["pressure"][k], r[k][2], kPressureAbsTol) << "step " << r[k][0];
    }
    const std::string json = read_text(out + "/run/run.json");
    const auto& f = final.at(c.name);
    EXPECT_EQ(json_number(json, "steps"), f[0]);
    EXPECT_NEAR(json_number(json, "fmax"), f[1], kMinimizationForceRelTol * f[1]);
    EXPECT_EQ(json_number(json, "fmax_atom"), f[2]);
    EXPECT_NEAR(json_number(json, "fnorm"), f[3], kMinimizationForceRelTol * f[3]);
    EXPECT_NE(log.find("Steepest Descents did not converge to Fmax < 10 in 51 steps"), std::string::npos)
        << log;
    // confout.gro: the lowest-energy positions, no velocities; traj.trr ends with them at the last step.
    const io::GroFile conf = io::read_gro(out + "/run/confout.gro");
    EXPECT_FALSE(conf.has_velocities());
    const auto frames = io::read_trr(out + "/run/traj.trr");
    ASSERT_FALSE(frames.empty());
    EXPECT_EQ(frames.back().step, static_cast<int64_t>(f[0]));
  }
}

TEST(Steep, StopsAtEmtolAndTakesNoStepLimit) {
  const std::string out = make_temp_dir("em_converge");
  std::string log;
  // Fmax of the relaxed peptide is far below 1e5: converged at the first evaluation.
  ASSERT_EQ(run_halomd("bonded/amber99sb-ildn", "../../em/peptide.mdp", {{"emtol", "1e5"}, {"nsteps", "-1"}},
                       out + "/run", "", &log),
            0)
      << log;
  EXPECT_NE(log.find("Steepest Descents converged to Fmax < 100000 in 1 steps"), std::string::npos) << log;
  EXPECT_NE(read_text(out + "/run/run.json").find("\"converged\": true"), std::string::npos);
  EXPECT_EQ(read_csv(out + "/run/energy.csv")["step"].size(), 1u);
}

TEST(Steep, RefusesWhatItDoesNotRun) {
  const std::string out = make_temp_dir("em_refuse");
  std::string log;
  EXPECT_EQ(run_halomd("spce_1k5", "../em/water.mdp", {}, out + "/dd", "--domains 2", &log), 2);
  EXPECT_NE(log.find("integrator = steep runs with --backend cpu and one domain"), std::string::npos) << log;
  EXPECT_EQ(run_halomd("spce_1k5", "../em/water.mdp", {}, out + "/gpu", "--backend cuda", &log), 2);
  EXPECT_NE(log.find("integrator = steep runs with --backend cpu and one domain"), std::string::npos) << log;
}

}  // namespace
}  // namespace halomd::test
