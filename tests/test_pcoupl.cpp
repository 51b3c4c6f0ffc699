// pcoupl = C-rescale on the CPU reference against GROMACS 2022 (gmx_d, tests/make_pcoupl_refdata.sh): the
// deterministic path (ref-t = 0: no thermostat or barostat noise) step by step, isotropic with reaction
// field and semi-isotropic with PME; the density of a 300 K run and its fluctuation; thread count and
// continuation (the box and the barostat's integral in the checkpoint) change no bit; refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "io/xtc.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

// The noiseless C-rescale paths (isotropic with reaction field, semi-isotropic with PME) against gmx_d's;
// `args` picks the executor.
void expect_paths_like_gromacs(const std::string& args) {
  const auto ref = read_pcoupl_paths();
  for (const char* name : {"iso_rf", "semi_pme"}) {
    SCOPED_TRACE(name);
    const std::string out = make_temp_dir(std::string("pcoupl_") + name);
    std::string log;
    ASSERT_EQ(run_halomd("spce_1k5", std::string("../pcoupl/") + name + ".mdp", {}, out + "/run",
                         "--threads 2 " + args, &log),
              0)
        << log;
    auto e = read_csv(out + "/run/energy.csv");
    const auto& r = ref.at(name);
    // gmx energy prints the box with 6 decimals.
    expect_rows_like_gromacs(e, r,
                             {{"potential", kPcouplPathRelTol},
                              {"conserved", kPcouplPathRelTol},
                              {"pressure", kPressureAbsTol, false},
                              {"volume", 2e-6},
                              {"box_x", 2e-6, false},
                              {"box_z", 2e-6, false}});
    // The box moved: semi-isotropic coupling moved z apart from x.
    EXPECT_LT(e["volume"].back(), e["volume"].front() - 0.01);
    if (std::string(name) == "semi_pme") {
      EXPECT_GT(std::fabs(e["box_z"].back() - e["box_x"].back()), 1e-3);
    }
  }
}

TEST(CRescale, DeterministicPathsMatchGromacsStepByStep) { expect_paths_like_gromacs(""); }

// On 3 domains (2 pulses each way in x): the home atoms scale as one domain's, the halo's periodic shifts
// follow the box, the next search re-plans in the new box.
TEST(CRescale, DeterministicPathsOnDomainsMatchGromacs) { expect_paths_like_gromacs("--dd 3 1 1"); }

// 20 ps at 300 K from the NVT box: the mean density from 5 ps on and its fluctuation as gmx_d's 50 ps give
// them. The bounds are statistical (tests/tolerances.h): a barostat that ignored the constraint virial would
// be far off, one without its noise term (Berendsen's) would fluctuate less than half as much.
TEST(CRescale, DensityAndItsFluctuationFollowGromacs) {
  const auto ref = read_reference(data_path("pcoupl/ensemble.txt"));
  const std::string out = make_temp_dir("pcoupl_ensemble");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "../pcoupl/ensemble.mdp", {{"nsteps", "10000"}}, out + "/run",
                       "--threads 2", &log),
            0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  expect_density_like_gromacs(e, ref);
}

TEST(CRescale, ThreadCountAndContinuationChangeNoBit) {
  const std::map<std::string, std::string> set = {
      {"nsteps", "60"},   {"ref-t", "300"},       {"ld-seed", "5"},        {"nstpcouple", "5"},
      {"nstenergy", "5"}, {"nstcalcenergy", "5"}, {"nstcheckpoint", "30"}, {"nstxout-compressed", "10"}};
  expect_threads_and_continuation_change_no_bit("spce_1k5", "../pcoupl/iso_rf.mdp", set, 45,
                                                {"energy.csv", "traj.xtc", "confout.gro"});
}

// A frame of a coupling step shows x(step) in box(step), as gmx mdrun writes it (the box scales after the
// step's outputs): every traj.xtc frame's box is energy.csv's box of its step (float's precision), with
// C-rescale coupling and writing at every step, and with Berendsen's barostat.
TEST(CRescale, FramesOfCouplingStepsHaveTheirStepsBox) {
  const std::string out = make_temp_dir("pcoupl_frames");
  std::string log;
  for (const auto& [name, mdp] :
       {std::pair{"crescale", "../pcoupl/iso_rf.mdp"}, {"berendsen", "../berendsen/npt_iso.mdp"}}) {
    SCOPED_TRACE(name);
    ASSERT_EQ(run_halomd("spce_1k5", mdp, {{"nstxout-compressed", "1"}, {"nsteps", "10"}}, out + "/" + name,
                         "--threads 2", &log),
              0)
        << log;
    auto e = read_csv(out + "/" + name + "/energy.csv");
    const std::vector<io::XtcFrame> frames = io::read_xtc(out + "/" + name + "/traj.xtc");
    ASSERT_EQ(frames.size(), e["step"].size());
    for (size_t k = 0; k < frames.size(); ++k) {
      EXPECT_EQ(static_cast<double>(frames[k].step), e["step"][k]);
      EXPECT_NEAR(frames[k].box.len.x, e["box_x"][k], 2e-7 * e["box_x"][k]) << "step " << frames[k].step;
      EXPECT_NEAR(frames[k].box.len.z, e["box_z"][k], 2e-7 * e["box_z"][k]) << "step " << frames[k].step;
    }
    EXPECT_NE(e["box_x"].front(), e["box_x"].back()) << "the box did not change";
  }
}

TEST(CRescale, WhatItDoesNotRunIsRefusedNamingTheLine) {
  const std::string out = make_temp_dir("pcoupl_refuse");
  std::string log;
  EXPECT_EQ(run_halomd("spce_1k5", "../pcoupl/iso_rf.mdp", {{"pcoupl", "MTTK"}}, out + "/pr", "", &log), 2);
  EXPECT_NE(
      log.find("pcoupl = MTTK is not supported (supported: no, C-rescale, Parrinello-Rahman, Berendsen)"),
      std::string::npos)
      << log;
  EXPECT_EQ(run_halomd("spce_1k5", "../pcoupl/iso_rf.mdp", {{"tcoupl", "no"}}, out + "/nt", "", &log), 2);
  EXPECT_NE(log.find("pcoupl = C-rescale needs temperature coupling"), std::string::npos) << log;
  EXPECT_EQ(
      run_halomd("spce_1k5", "../pcoupl/iso_rf.mdp",
                 {{"pcoupltype", "semiisotropic"}, {"compressibility", "4.5e-5"}}, out + "/semi", "", &log),
      2);
  EXPECT_NE(log.find("compressibility: pcoupltype = semiisotropic takes two values (xy and z)"),
            std::string::npos)
      << log;
  // Leftover pressure-coupling options are harmless with pcoupl = no.
  EXPECT_EQ(run_halomd("spce_1k5", "../pcoupl/iso_rf.mdp",
                       {{"pcoupl", "no"},
                        {"pcoupltype", "anisotropic"},
                        {"compressibility", "1 1 1 0 0 0"},
                        {"nsteps", "0"}},
                       out + "/off", "", &log),
            0)
      << log;
  // (One GPU and GPU domains run it, and Parrinello-Rahman: test_cuda_run, test_cuda_dd_mpi.)
}

}  // namespace
}  // namespace halomd::test
