// tcoupl = berendsen and pcoupl = berendsen (GROMACS 2022's weak coupling, deterministic) on the CPU against
// gmx_d (tests/make_berendsen_refdata.sh): step by step, the thermostat alone heating spce_1k5, with
// simulated annealing of its reference (single and periodic), with the barostat isotropic (reaction field)
// and semi-isotropic (PME), on one domain and on three; the solvated peptide's two tc-grps; thread count and
// continuation change no bit; grompp's warnings; annealing's input errors.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

// The spce_1k5 cases against gmx_d's paths; `args` picks the executor.
void expect_paths_like_gromacs(const std::string& args, const std::vector<const char*>& cases) {
  // reference.txt: per case its rows of step, potential, conserved, temperature, pressure and, with pressure
  // coupling, volume, box_x, box_z.
  const auto ref = read_case_rows("berendsen/reference.txt");
  for (const char* name : cases) {
    SCOPED_TRACE(name);
    const std::string out = make_temp_dir(std::string("berendsen_") + name);
    std::string log;
    ASSERT_EQ(run_halomd("spce_1k5", std::string("../berendsen/") + name + ".mdp", {}, out + "/run",
                         "--threads 2 " + args, &log),
              0)
        << log;
    EXPECT_NE(log.find("the Berendsen thermostat does not generate the correct kinetic energy distribution"),
              std::string::npos)
        << log;
    auto e = read_csv(out + "/run/energy.csv");
    // gmx energy prints the box with 6 decimals.
    expect_rows_like_gromacs(e, ref.at(name),
                             {{"potential", kPcouplPathRelTol},
                              {"conserved", kPcouplPathRelTol},
                              {"temperature", kPcouplPathRelTol},
                              {"pressure", kPressureAbsTol, false},
                              {"volume", 2e-6},
                              {"box_x", 2e-6, false},
                              {"box_z", 2e-6, false}});
    // The thermostat heated the water towards 350 K (annealing: 400 K); the barostats moved the box
    // (semi-isotropic: z apart).
    if (!std::string(name).starts_with("npt")) {
      EXPECT_GT(e["temperature"].back(), e["temperature"].front() + 10.0);
    } else {
      EXPECT_GT(std::fabs(e["volume"].back() - e["volume"].front()), 1e-3);
      if (std::string(name) == "npt_semi_pme")
        EXPECT_GT(
            std::fabs((e["box_z"].back() - e["box_z"].front()) - (e["box_x"].back() - e["box_x"].front())),
            1e-5);
    }
  }
}

TEST(Berendsen, PathsMatchGromacsStepByStep) {
  expect_paths_like_gromacs("", {"nvt", "anneal_single", "anneal_periodic", "npt_iso", "npt_semi_pme"});
}

// On 3 domains (2 pulses each way in x): the plan reboxed at each coupling step, re-planned at the next
// search; the annealed thermostat's factor from the kinetic energy summed over the domains.
TEST(Berendsen, PathsOnDomainsMatchGromacs) {
  expect_paths_like_gromacs("--dd 3 1 1", {"anneal_periodic", "npt_semi_pme"});
}

// Simulated annealing's inputs as grompp checks them: each error names the line; Nose-Hoover, SD and the GPUs
// (without a device too, in a CUDA build) are refused.
TEST(Berendsen, AnnealingInputErrorsNameTheLine) {
  const std::string out = make_temp_dir("anneal_errors");
  const char* const mdp = "../berendsen/anneal_single.mdp";
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
      {{{"annealing", "single single"}}, "annealing has 2 values for the 1 groups of tc-grps"},
      {{{"annealing", "sometimes"}}, "annealing = sometimes: each group's is no, single or periodic"},
      {{{"annealing-npoints", "1"}, {"annealing-time", "0"}, {"annealing-temp", "300"}},
       "annealing-npoints: give at least a start and an end point"},
      {{{"annealing-time", "0"}}, "annealing-time has 1 values, annealing-npoints asks for 2"},
      {{{"annealing-time", "0.01 0.02"}}, "annealing-time: a group's first time point is after tinit"},
      {{{"annealing-time", "0 -1"}}, "annealing-time: time points out of order"},
      {{{"annealing-temp", "300 -5"}}, "annealing-temp: a negative temperature"},
      {{{"tcoupl", "nose-hoover"}}, "annealing is supported with tcoupl = V-rescale or Berendsen"},
  };
  std::string log;
  for (size_t k = 0; k < cases.size(); ++k) {
    const std::string dir = out + "/c" + std::to_string(k);
    EXPECT_EQ(run_halomd("spce_1k5", mdp, cases[k].first, dir, "", &log), 2) << cases[k].second;
    EXPECT_NE(log.find("c" + std::to_string(k) + ".mdp:"), std::string::npos) << log;
    EXPECT_NE(log.find(cases[k].second), std::string::npos) << log;
  }
#if HALOMD_HAVE_CUDA
  EXPECT_EQ(run_halomd("spce_1k5", mdp, {}, out + "/gpu", "--backend cuda", &log), 2);
  EXPECT_NE(log.find("annealing runs with --backend cpu so far"), std::string::npos) << log;
#endif
  // Periodic annealing with a v-rescale thermostat runs (its noise is halomd's own: no path to compare).
  EXPECT_EQ(run_halomd("spce_1k5", "../berendsen/anneal_periodic.mdp",
                       {{"tcoupl", "v-rescale"}, {"nsteps", "5"}}, out + "/vrescale", "", &log),
            0)
      << log;
}

// The solvated peptide's Protein and Non-Protein, each with its Berendsen thermostat (tau-t 0.1 and 0.2 ps,
// ref-t 300 and 310 K, h-bonds by LINCS, PME): every step's total and conserved energy and each group's
// temperature as gmx_d's.
TEST(Berendsen, TwoGroupsMatchGromacs) {
  const std::string out = make_temp_dir("berendsen_groups");
  std::string log;
  ASSERT_EQ(
      run_halomd("bonded/solvated", "../../berendsen/two_groups.mdp", {}, out + "/run", "--threads 2", &log),
      0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  expect_group_rows_like_gromacs(e, "berendsen/reference_groups.txt", "t_Protein", "t_Non-Protein",
                                 kPcouplPathRelTol, kPcouplPathRelTol, 1e-6);
  // The thermostats did work on the system (~200 kJ/mol): the conserved energy's integral moved.
  EXPECT_GT(std::fabs((e["conserved"].back() - e["total"].back()) - (e["conserved"][0] - e["total"][0])),
            50.0);
}

// The thermostat's and the barostat's integrals (the conserved energy's shares) and the box go into the
// checkpoint: a continuation gives the same bits, as do other thread counts.
TEST(Berendsen, ThreadCountAndContinuationChangeNoBit) {
  expect_threads_and_continuation_change_no_bit("spce_1k5", "../berendsen/npt_iso.mdp",
                                                {{"nstcheckpoint", "20"}}, 25, {"energy.csv", "confout.gro"});
}

}  // namespace
}  // namespace halomd::test
