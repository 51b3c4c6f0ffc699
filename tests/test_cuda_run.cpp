// Whole runs with --backend cuda: NVE energy drift, bitwise repeatability, bitwise continuation, blow-ups
// that name step and atom with the outputs intact, and the counted calls of run.json. Needs a GPU (ctest
// label "gpu"); without one every test reports SKIPPED.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "io/trr.h"
#include "io/xtc.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

#if HALOMD_HAVE_CUDA
#include "cuda/device_info.h"
#endif

namespace halomd::test {
namespace {

#if HALOMD_HAVE_CUDA

const std::string kCuda = "--backend cuda";

const std::map<std::string, std::string> kShortVrescale = {
    {"nsteps", "200"},       {"nstenergy", "10"}, {"nstcalcenergy", "10"}, {"nstxout-compressed", "20"},
    {"nstcheckpoint", "50"}, {"ld-seed", "4242"}};

// The number after "key": in run.json.
#define SKIP_WITHOUT_GPU() \
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device"

TEST(CudaRun, NveEnergyDriftOver10000StepsIsSmall) {
  SKIP_WITHOUT_GPU();
  const auto ref = read_reference(data_path("spce_9k/reference.txt"));
  const std::string out = make_temp_dir("cuda_nve");
  std::string log;
  ASSERT_EQ(
      run_halomd("spce_9k", "nve.mdp", {{"nsteps", "10000"}, {"nstcalcenergy", "10"}, {"nstenergy", "10"}},
                 out + "/run", kCuda, &log),
      0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  ASSERT_EQ(e["step"].size(), 1001u);
  // From step 10 on: the first SETTLE step absorbs the rounding of the 3-decimal .gro (tests/data/README.md).
  const std::vector<double> t(e["time_ps"].begin() + 1, e["time_ps"].end());
  const std::vector<double> tot(e["total"].begin() + 1, e["total"].end());
  const double drift = linear_slope(t, tot) / ref.at("atoms");
  EXPECT_LT(std::fabs(drift), kGpuNveDriftPerAtom) << "drift " << drift << " kJ/mol/ps per atom";
  EXPECT_LT(std::fabs(mean(tot) - ref.at("nve_total_mean")) / std::fabs(ref.at("nve_total_mean")),
            kNveMeanRelTol)
      << mean(tot) << " vs GROMACS " << ref.at("nve_total_mean");
  std::printf("GPU NVE drift %.3g kJ/mol/ps per atom, mean total %.3f kJ/mol\n", drift, mean(tot));
}

TEST(CudaRun, SameRunTwiceIsBitwiseIdentical) {
  SKIP_WITHOUT_GPU();
  const std::string out = make_temp_dir("cuda_repeat");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/a", kCuda, &log), 0) << log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/b", kCuda, &log), 0) << log;
  EXPECT_EQ(read_text(out + "/a/energy.csv"), read_text(out + "/b/energy.csv"));
  EXPECT_EQ(read_text(out + "/a/traj.xtc"), read_text(out + "/b/traj.xtc"));
  EXPECT_EQ(read_text(out + "/a/confout.gro"), read_text(out + "/b/confout.gro"));
}

TEST(CudaRun, ContinuationIntoSameFolderIsBitwiseIdentical) {
  SKIP_WITHOUT_GPU();
  const std::string out = make_temp_dir("cuda_restart");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/full", kCuda, &log), 0) << log;
  // The interrupted run dies before step 130; its last checkpoint is at step 100 (an NS step, nstlist 10).
  EXPECT_NE(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/part",
                       kCuda + " --stop-at-step 130", &log),
            0);
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kShortVrescale, out + "/part",
                       kCuda + " --cpi " + out + "/part/state.cpt", &log),
            0)
      << log;
  EXPECT_EQ(read_text(out + "/full/energy.csv"), read_text(out + "/part/energy.csv"));
  EXPECT_EQ(read_text(out + "/full/traj.xtc"), read_text(out + "/part/traj.xtc"));
  EXPECT_EQ(read_text(out + "/full/confout.gro"), read_text(out + "/part/confout.gro"));
}

// coulombtype = PME on one GPU: the same run twice, a continuation and the mesh overlapping the pair kernel
// (HALOMD_GPU_PME_OVERLAP=1) give the same bits (the charge grid is summed in fixed point), regular steps
// stay one graph launch without host syncs, and a 10,000-step NVE run keeps its energy.
TEST(CudaRun, PmeRunsAreBitwiseRepeatableAndConserveEnergy) {
  SKIP_WITHOUT_GPU();
  const std::string out = make_temp_dir("cuda_pme");
  std::map<std::string, std::string> set = kShortVrescale;
  set["coulombtype"] = "PME";
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", set, out + "/a", kCuda, &log), 0) << log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", set, out + "/b", kCuda, &log), 0) << log;
  EXPECT_NE(run_halomd("spce_1k5", "vrescale.mdp", set, out + "/part", kCuda + " --stop-at-step 130", &log),
            0);
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", set, out + "/part",
                       kCuda + " --cpi " + out + "/part/state.cpt", &log),
            0)
      << log;
  // The mesh on its own stream beside the pair kernel: the same kernels in the same dependency order.
  ASSERT_EQ(run_halomd_under("HALOMD_GPU_PME_OVERLAP=1 ", "spce_1k5", "vrescale.mdp", set, out + "/overlap",
                             kCuda, &log),
            0)
      << log;
  for (const char* f : {"energy.csv", "traj.xtc", "confout.gro"}) {
    EXPECT_EQ(read_text(out + "/a/" + f), read_text(out + "/b/" + f)) << f;
    EXPECT_EQ(read_text(out + "/a/" + f), read_text(out + "/part/" + f)) << f;
    EXPECT_EQ(read_text(out + "/a/" + f), read_text(out + "/overlap/" + f)) << f;
  }
  auto e = read_csv(out + "/a/energy.csv");
  ASSERT_FALSE(e["coul_recip"].empty());
  EXPECT_GT(e["coul_recip"][0], 10.0);
  ASSERT_EQ(
      run_halomd("spce_1k5", "vrescale.mdp", {{"nsteps", "400"}, {"ld-seed", "1"}, {"coulombtype", "PME"}},
                 out + "/counters", kCuda, &log),
      0)
      << log;
  const std::string json = read_text(out + "/counters/run.json");
  EXPECT_GT(json_number(json, "regular_steps"), 300.0) << json;
  EXPECT_EQ(json_number(json, "host_syncs_per_step"), 0.0) << json;
  EXPECT_EQ(json_number(json, "launches_per_step"), 1.0) << json;

  ASSERT_EQ(run_halomd("spce_9k", "../pme/nve.mdp",
                       {{"nsteps", "10000"}, {"nstcalcenergy", "10"}, {"nstenergy", "10"}}, out + "/nve",
                       kCuda, &log),
            0)
      << log;
  auto n = read_csv(out + "/nve/energy.csv");
  const std::vector<double> t(n["time_ps"].begin() + 1, n["time_ps"].end());
  const std::vector<double> tot(n["total"].begin() + 1, n["total"].end());
  const double drift = linear_slope(t, tot) / 8916.0;
  EXPECT_LT(std::fabs(drift), kGpuNveDriftPerAtom) << "drift " << drift << " kJ/mol/ps per atom";
  std::printf("GPU PME NVE drift %.3g kJ/mol/ps per atom\n", drift);
}

// The solvated peptide (listed interactions, PME, SETTLE water) on one GPU: 400 NVE steps of 0.5 fs against
// GROMACS's mean total energy and drift (tests/data/bonded/solvated/nve_reference.txt, as the CPU's
// test_bonded), the same bits twice and through a checkpoint, and one graph launch per regular step.
TEST(CudaRun, ListedInteractionsAndLincsNveRunsMatchGromacsAndRepeatBitwise) {
  SKIP_WITHOUT_GPU();
  const auto ref = read_reference(data_path("bonded/solvated/nve_reference.txt"));
  const std::string out = make_temp_dir("cuda_listed");
  std::string log;
  ASSERT_EQ(run_halomd("bonded/solvated", "nve.mdp", {}, out + "/a", kCuda, &log), 0) << log;
  auto e = read_csv(out + "/a/energy.csv");
  ASSERT_TRUE(e.count("proper_dih") && e.count("lj14")) << "no listed terms in energy.csv";
  expect_nve_like_gromacs(e, ref);
  ASSERT_EQ(run_halomd("bonded/solvated", "nve.mdp", {}, out + "/b", kCuda, &log), 0) << log;
  // Killed before step 130 after a checkpoint at 100, then continued from it.
  const std::map<std::string, std::string> cpt = {{"nstcheckpoint", "100"}};
  EXPECT_NE(run_halomd("bonded/solvated", "nve.mdp", cpt, out + "/part", kCuda + " --stop-at-step 130", &log),
            0);
  ASSERT_EQ(run_halomd("bonded/solvated", "nve.mdp", cpt, out + "/part",
                       kCuda + " --cpi " + out + "/part/state.cpt", &log),
            0)
      << log;
  for (const char* f : {"energy.csv", "confout.gro"}) {
    EXPECT_EQ(read_text(out + "/a/" + f), read_text(out + "/b/" + f)) << f;
    EXPECT_EQ(read_text(out + "/a/" + f), read_text(out + "/part/" + f)) << f;
  }
  ASSERT_EQ(run_halomd("bonded/solvated", "nve.mdp", {{"nstcalcenergy", "100"}, {"nstenergy", "100"}},
                       out + "/counters", kCuda, &log),
            0)
      << log;
  const std::string json = read_text(out + "/counters/run.json");
  EXPECT_EQ(json_number(json, "host_syncs_per_step"), 0.0) << json;
  EXPECT_EQ(json_number(json, "launches_per_step"), 1.0) << json;

  // With constraints = h-bonds and 2 fs steps (LINCS in the update kernel): 500 NVE steps against GROMACS's
  // (hbonds_nve_reference.txt, as test_bonded's CPU run), the same bits twice.
  const auto ref_h = read_reference(data_path("bonded/solvated/hbonds_nve_reference.txt"));
  ASSERT_EQ(run_halomd("bonded/solvated", "hbonds_nve.mdp", {}, out + "/ha", kCuda, &log), 0) << log;
  ASSERT_EQ(run_halomd("bonded/solvated", "hbonds_nve.mdp", {}, out + "/hb", kCuda, &log), 0) << log;
  auto h = read_csv(out + "/ha/energy.csv");
  expect_nve_like_gromacs(h, ref_h);
  EXPECT_EQ(read_text(out + "/ha/energy.csv"), read_text(out + "/hb/energy.csv"));
  EXPECT_EQ(read_text(out + "/ha/confout.gro"), read_text(out + "/hb/confout.gro"));
}

// CHARMM's CMAP on one GPU (cpu/cmap.h run by the listed kernel on the device's grids): the charmm27
// peptide's 200-step NVE path of CMAP Dih. and the total energy against gmx_d's (tests/data/cmap/nve.txt, as
// test_bonded's CPU run) within the float pair forces' drift, and with vdw-modifier = Force-switch
// (CHARMM36's LJ) the same run as the CPU's within the same bound.
TEST(CudaRun, CmapNvePathFollowsGromacs) {
  SKIP_WITHOUT_GPU();
  const std::string out = make_temp_dir("cuda_cmap");
  std::string log;
  ASSERT_EQ(run_halomd("cmap", "nve.mdp", {}, out + "/run", kCuda, &log), 0) << log;
  auto e = read_csv(out + "/run/energy.csv");
  const auto rows = read_number_rows(data_path("cmap/nve.txt"));  // step, CMAP Dih., total
  ASSERT_EQ(e["step"].size(), rows.size());
  double worst_cmap = 0.0, worst_total = 0.0;
  for (size_t k = 0; k < rows.size(); ++k) {
    worst_cmap = std::max(worst_cmap, std::fabs(e["cmap_dih"][k] - rows[k].at(1)));
    worst_total = std::max(worst_total, std::fabs(e["total"][k] - rows[k].at(2)));
  }
  std::printf("GPU CMAP path: worst CMAP Dih. %.3g, total %.3g kJ/mol off gmx_d\n", worst_cmap, worst_total);
  EXPECT_LT(worst_cmap, kGpuCmapPathAbsTol);
  EXPECT_LT(worst_total, kGpuCmapPathAbsTol);
  EXPECT_GT(std::fabs(e["cmap_dih"].back() - e["cmap_dih"].front()), 1.0);  // the backbone moved

  const std::map<std::string, std::string> fsw = {{"vdw-modifier", "Force-switch"}, {"rvdw-switch", "0.8"}};
  ASSERT_EQ(run_halomd("cmap", "nve.mdp", fsw, out + "/fsw_gpu", kCuda, &log), 0) << log;
  ASSERT_EQ(run_halomd("cmap", "nve.mdp", fsw, out + "/fsw_cpu", "--backend cpu", &log), 0) << log;
  auto g = read_csv(out + "/fsw_gpu/energy.csv"), c = read_csv(out + "/fsw_cpu/energy.csv");
  ASSERT_EQ(g["total"].size(), c["total"].size());
  for (size_t k = 0; k < c["total"].size(); ++k) {
    EXPECT_NEAR(g["lj_sr"][k], c["lj_sr"][k], kGpuCmapPathAbsTol) << "row " << k;
    EXPECT_NEAR(g["total"][k], c["total"][k], kGpuCmapPathAbsTol) << "row " << k;
  }
}

// Martini-style topologies on one GPU (tests/make_martini_refdata.sh): harmonic bonds without exclusions
// ([ bonds ] 6) and restricted bending ([ angles ] 10) run in the listed kernel as on the CPU
// (cpu/listed_term.h); gmx_d's 40-step NVE path of 20 fs steps within the GPU's float error, every listed
// term included.
TEST(CudaRun, MartiniNvePathFollowsGromacs) {
  SKIP_WITHOUT_GPU();
  std::vector<RowColumn> columns =
      relative_columns({"bond", "harmonic_pot", "g96angle", "restricted_angles", "proper_dih", "lj_sr",
                        "coulomb_sr", "potential", "total"},
                       kGpuPathsEnergyRelTol);
  columns.push_back({"pressure", kGpuPressureAbsTol, false});
  expect_run_like_gromacs("martini", "nve.mdp", kCuda, "martini/reference.txt", columns);
}

// [ dihedral_restraints ] on one GPU (tests/make_dihres_refdata.sh: the solvated peptide, six restraints,
// PME): gmx_d's 40-step NVE path within the GPU's float error, Dih. Rest. included.
TEST(CudaRun, DihedralRestraintsFollowGromacs) {
  SKIP_WITHOUT_GPU();
  expect_run_like_gromacs(
      "dihres", "nve.mdp", kCuda, "dihres/reference.txt",
      relative_columns({"dih_rest", "proper_dih", "potential", "total"}, kGpuPathsEnergyRelTol));
}

// [ virtual_sitesn ] runs on the CPU only: the GPU refuses it, naming the site.
TEST(CudaRun, VirtualSitesNAreRefusedNamingTheSite) {
  SKIP_WITHOUT_GPU();
  const std::string out = make_temp_dir("cuda_vsiten");
  std::string log;
  EXPECT_EQ(run_halomd("vsiten", "nve.mdp", {}, out + "/run", kCuda, &log), 2) << log;
  EXPECT_NE(log.find("virtual site 7 is a [ virtual_sitesn ] site, which runs with --backend cpu only"),
            std::string::npos)
      << log;
}

// Several tc-grps on one GPU (Protein Non-Protein, tau-t 0.1 and 0.2 ps, ref-t 0 0: the thermostats take
// energy out without noise; h-bonds by LINCS, PME): 20 steps against gmx_d's path (tcgroups/reference.txt,
// as test_tcgroups' CPU run) within the GPU's float error; a continuation from a checkpoint at step 10
// (which carries each group's KE(n - 1/2)) gives the uninterrupted run's bits.
TEST(CudaRun, SeveralTcGroupsFollowGromacsNoiselessPathAndContinueBitwise) {
  SKIP_WITHOUT_GPU();
  const char* const sys = "bonded/solvated";
  const char* const mdp = "../../tcgroups/two_groups.mdp";
  const std::string out = make_temp_dir("cuda_tcgroups");
  std::string log;
  ASSERT_EQ(run_halomd(sys, mdp, {}, out + "/a", kCuda, &log), 0) << log;
  auto e = read_csv(out + "/a/energy.csv");
  expect_tc_path_like_gromacs(e, "tcgroups/reference.txt", "t_Protein", "t_Non-Protein",
                              kGpuPathsEnergyRelTol, kGpuThermostatRelTol);
  // Killed before step 13 after a checkpoint at 10.
  const std::map<std::string, std::string> noisy = {
      {"ref-t", "300 310"}, {"ld-seed", "3"}, {"nsttcouple", "5"}, {"nstcheckpoint", "10"}};
  expect_threads_and_continuation_change_no_bit(sys, mdp, noisy, 13, {"energy.csv", "confout.gro"}, kCuda);
}

// Fully frozen atoms on one GPU (freezegrps, tests/make_freeze_refdata.sh): the whole peptide (its group
// without degrees of freedom, the constraints between its atoms left out) and atoms 1-60 of it (constraints
// between frozen and free atoms), the frozen atoms out of the centre of mass, removed every step: gmx_d's
// paths within the GPU's float error, and the frozen atoms' lines of confout.gro those of the CPU run (their
// positions where the start's constraining left them, their velocities 0).
TEST(CudaRun, FrozenAtomsFollowGromacs) {
  SKIP_WITHOUT_GPU();
  const char* const sys = "bonded/solvated";
  const std::string out = make_temp_dir("cuda_freeze");
  const std::string ndx = " -n " + data_path("tcgroups/index.ndx");
  for (const auto& [name, args, frozen] :
       {std::tuple{std::string("full"), std::string(), 132}, std::tuple{std::string("index"), ndx, 60}}) {
    SCOPED_TRACE(name);
    const std::string mdp = "../../freeze/" + name + ".mdp";
    std::string log;
    ASSERT_EQ(run_halomd(sys, mdp, {}, out + "/gpu_" + name, kCuda + args, &log), 0) << log;
    auto e = read_csv(out + "/gpu_" + name + "/energy.csv");
    expect_group_rows_like_gromacs(e, "freeze/reference_" + name + ".txt", "t_Protein", "t_Non-Protein",
                                   kGpuPathsEnergyRelTol, kGpuThermostatRelTol, 1e-6);
    ASSERT_EQ(run_halomd(sys, mdp, {}, out + "/cpu_" + name, args, &log), 0) << log;
    const std::vector<std::string> gpu = read_rows(out + "/gpu_" + name + "/confout.gro"),
                                   cpu = read_rows(out + "/cpu_" + name + "/confout.gro");
    ASSERT_EQ(gpu.size(), cpu.size());
    for (int a = 0; a < frozen; ++a) EXPECT_EQ(gpu[2 + a], cpu[2 + a]) << "atom " << a + 1;
  }
}

// comm-grps on one GPU (the centre of mass of each group removed every step, deferred to the next update as
// the whole system's is; the extended update kernel): Protein and Non-Protein each on its own, and the
// protein alone with the water keeping its motion (GROMACS's rest group), against gmx_d's paths
// (tcgroups/reference_comm*.txt, as test_tcgroups' CPU runs) within the GPU's float error. Those paths hardly
// see the removal on the GPU (without it, or removing the whole system's centre of mass each step, they stay
// within 2e-4 in temperature), so each group's centre-of-mass velocity is checked in confout.gro, after the
// last step's removal (pending on the device, applied by the save): below 1e-4 nm/ps (~1e-2 without it), and
// with comm_rest the water's drift is the CPU run's. With noise, a continuation from a checkpoint (which
// applies each group's pending removal to the velocities) gives the uninterrupted run's bits.
TEST(CudaRun, CommGroupsFollowGromacsAndContinueBitwise) {
  SKIP_WITHOUT_GPU();
  const char* const sys = "bonded/solvated";
  const std::string out = make_temp_dir("cuda_comm");
  std::string log;
  for (const std::string name : {"comm_groups", "comm_rest"}) {
    SCOPED_TRACE(name);
    ASSERT_EQ(run_halomd(sys, "../../tcgroups/" + name + ".mdp", {}, out + "/" + name, kCuda, &log), 0)
        << log;
    expect_comm_run_like_gromacs(out + "/" + name, name, kGpuPathsEnergyRelTol, kGpuThermostatRelTol);
  }
  // Killed before step 13 after a checkpoint at 10.
  const std::map<std::string, std::string> noisy = {
      {"ref-t", "300 310"}, {"ld-seed", "3"}, {"nsttcouple", "5"}, {"nstcomm", "1"}, {"nstcheckpoint", "10"}};
  expect_threads_and_continuation_change_no_bit(sys, "../../tcgroups/comm_groups.mdp", noisy, 13,
                                                {"energy.csv", "confout.gro"}, kCuda);
}

// tcoupl = Nose-Hoover on one GPU (xi and vxi on the device, coupled by cpu/nose_hoover.h in the groups'
// kernel, GROMACS's general leap-frog in the update): SPC/E water coupled every step and every fifth step and
// the solvated peptide with two groups and h-bonds against gmx_d's noiseless paths (tests/data/nosehoover, as
// test_nosehoover's CPU runs) within the GPU's float error; a checkpoint between two couplings and one at a
// coupling step (xi and vxi as they were before it) each continue to the uninterrupted run's bits.
TEST(CudaRun, NoseHooverFollowsGromacsPathAndContinuesBitwise) {
  SKIP_WITHOUT_GPU();
  const std::string out = make_temp_dir("cuda_nosehoover");
  std::string log;
  const std::vector<std::string> water = {"total", "conserved", "temperature"};
  const std::vector<std::string> groups = {"total", "conserved", "t_Protein", "t_Non-Protein"};
  for (const auto& [sys, name, columns] :
       {std::tuple{"spce_1k5", "water", water}, std::tuple{"spce_1k5", "water_nst5", water},
        std::tuple{"bonded/solvated", "two_groups", groups}}) {
    SCOPED_TRACE(name);
    const std::string up = std::string(sys).find('/') == std::string::npos ? "../" : "../../";
    ASSERT_EQ(run_halomd(sys, up + "nosehoover/" + name + ".mdp", {}, out + "/" + name, kCuda, &log), 0)
        << log;
    auto e = read_csv(out + "/" + name + "/energy.csv");
    const std::vector<std::string> rows = read_rows(data_path(std::string("nosehoover/") + name + ".txt"));
    ASSERT_EQ(e["step"].size(), rows.size());
    for (size_t k = 0; k < rows.size(); ++k) {
      std::istringstream w(rows[k]);
      double step = 0;
      w >> step;
      for (const std::string& c : columns) {
        double ref = 0;
        w >> ref;
        const bool temperature = c.rfind("t", 0) == 0 && c != "total";
        EXPECT_NEAR(e[c][k], ref,
                    (temperature ? kGpuThermostatRelTol : kGpuPathsEnergyRelTol) * std::fabs(ref))
            << c << " at step " << step;
      }
    }
  }
  const std::map<std::string, std::string> set = {{"nsteps", "30"}};
  const std::string mdp = "../nosehoover/water_nst5.mdp";
  ASSERT_EQ(run_halomd("spce_1k5", mdp, set, out + "/whole", kCuda, &log), 0) << log;
  for (const char* cpt : {"10", "11"}) {  // water_nst5 couples at steps 1, 6, 11, ...; killed before 13
    std::map<std::string, std::string> with_cpt = set;
    with_cpt["nstcheckpoint"] = cpt;
    const std::string part = out + "/part" + cpt;
    EXPECT_NE(run_halomd("spce_1k5", mdp, with_cpt, part, kCuda + " --stop-at-step 13", &log), 0);
    ASSERT_EQ(run_halomd("spce_1k5", mdp, with_cpt, part, kCuda + " --cpi " + part + "/state.cpt", &log), 0)
        << log;
    for (const char* f : {"energy.csv", "confout.gro"})
      EXPECT_EQ(read_text(out + "/whole/" + f), read_text(part + "/" + f)) << f << " checkpoint at " << cpt;
  }
}

// traj.trr from one GPU: the frames of the CPU run, and at step 0 its forces within the GPU's float error.
TEST(CudaRun, TrrFramesAndForcesMatchTheCpuRun) {
  SKIP_WITHOUT_GPU();
  const std::map<std::string, std::string> set = {
      {"nsteps", "20"}, {"nstxout", "10"}, {"nstvout", "10"}, {"nstfout", "5"}, {"nstenergy", "10"}};
  const std::string out = make_temp_dir("cuda_trr");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/gpu", kCuda, &log), 0) << log;
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/cpu", "", &log), 0) << log;
  const std::vector<io::TrrFrame> g = io::read_trr(out + "/gpu/traj.trr"),
                                  c = io::read_trr(out + "/cpu/traj.trr");
  ASSERT_EQ(g.size(), c.size());
  for (size_t k = 0; k < g.size(); ++k) {
    EXPECT_EQ(g[k].step, c[k].step);
    EXPECT_EQ(g[k].x.size(), c[k].x.size());
    EXPECT_EQ(g[k].v.size(), c[k].v.size());
    EXPECT_EQ(g[k].f.size(), c[k].f.size());
  }
  ASSERT_FALSE(g.empty());
  ASSERT_FALSE(g[0].f.empty());
  // Every force frame (step 0 runs kernel by kernel, steps 5 and 15 inside graphs), and x and v at step 0,
  // against the CPU; after a few steps the trajectories part by the float forces (~1e-7 nm a step).
  auto rel = [](const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
    double ref = 0.0, err = 0.0;
    for (size_t i = 0; i < b.size(); ++i) {
      ref += norm2(b[i]);
      err += norm2(a[i] - b[i]);
    }
    return std::sqrt(err / ref);
  };
  for (size_t k = 0; k < g.size(); ++k) {
    if (!g[k].f.empty()) {
      EXPECT_LT(rel(g[k].f, c[k].f), 10 * kGpuForceRmsRel) << "step " << g[k].step;
    }
  }
  EXPECT_LT(rel(g[0].f, c[0].f), kGpuForceRmsRel);
  EXPECT_LT(rel(g[0].x, c[0].x), 1e-7);
  EXPECT_LT(rel(g[0].v, c[0].v), 1e-7);
}

TEST(CudaRun, OverlappingAtomsStopAtStep0NamingTheAtom) {
  SKIP_WITHOUT_GPU();
  const std::string dir = make_temp_dir("cuda_blowup");
  // The second water's oxygen 0.02 nm from the first's (as test_cli.cpp does for the CPU).
  std::ifstream in(data_path("spce_1k5/conf.gro"));
  std::ofstream conf(dir + "/conf.gro");
  std::string line, first_o;
  for (int n = 0; std::getline(in, line); ++n) {
    if (n == 2) first_o = line;
    if (n == 5) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%8.3f", std::stod(first_o.substr(20, 8)) + 0.02);
      line = line.substr(0, 20) + buf + first_o.substr(28, 16) + line.substr(44);
    }
    conf << line << "\n";
  }
  conf.close();
  write_mdp_with(data_path("spce_1k5/nve.mdp"), dir + "/run.mdp",
                 {{"nsteps", "50"}, {"nstxout-compressed", "1"}, {"nstenergy", "1"}});
  std::string log;
  EXPECT_EQ(
      run_command(std::string(HALOMD_BIN) + " run -c " + dir + "/conf.gro -p " +
                      data_path("spce_1k5/topol.top") + " -f " + dir + "/run.mdp -o " + dir + "/out " + kCuda,
                  &log),
      3);
  EXPECT_NE(log.find("step 0: "), std::string::npos) << log;
  EXPECT_TRUE(log.find("atom 1:") != std::string::npos || log.find("atom 4:") != std::string::npos) << log;
  EXPECT_EQ(log.find("nan"), std::string::npos) << log;
}

TEST(CudaRun, TooLongTimeStepStopsNamingStepAndAtomWithOutputsReadable) {
  SKIP_WITHOUT_GPU();
  const std::string dir = make_temp_dir("cuda_dt");
  std::string log;
  EXPECT_EQ(run_halomd("spce_1k5", "nve.mdp",
                       {{"nsteps", "500"}, {"dt", "0.012"}, {"nstxout-compressed", "1"}, {"nstenergy", "1"}},
                       dir + "/out", kCuda, &log),
            3);
  EXPECT_NE(log.find("step "), std::string::npos) << log;
  EXPECT_NE(log.find("atom "), std::string::npos) << log;
  const std::string csv = read_text(dir + "/out/energy.csv");
  EXPECT_EQ(csv.find("nan"), std::string::npos);
  auto rows = read_csv(dir + "/out/energy.csv");
  for (const auto& [name, col] : rows) EXPECT_EQ(col.size(), rows["step"].size()) << name;
  EXPECT_EQ(io::read_xtc(dir + "/out/traj.xtc").size(), rows["step"].size());
}

TEST(CudaRun, RegularStepsMakeNoHostSyncAndOneLaunch) {
  SKIP_WITHOUT_GPU();
  const std::string out = make_temp_dir("cuda_counters");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", {{"nsteps", "400"}, {"ld-seed", "1"}}, out + "/run", kCuda,
                       &log),
            0)
      << log;
  const std::string json = read_text(out + "/run/run.json");
  EXPECT_GT(json_number(json, "regular_steps"), 300.0) << json;
  EXPECT_EQ(json_number(json, "host_syncs_per_step"), 0.0) << json;
  EXPECT_EQ(json_number(json, "launches_per_step"), 1.0) << json;
  EXPECT_GT(json_number(json, "ns_step_us"), 0.0) << json;
  EXPECT_NE(json.find("\"backend\": \"cuda\""), std::string::npos) << json;
}

// The noiseless C-rescale paths of test_pcoupl (isotropic with reaction field, semi-isotropic with PME,
// spce_1k5, every step's energies and box) against gmx_d's, on one GPU. `under` prefixes the command (an
// environment), `set` overrides .mdp options. Returns the isotropic run's run.json.
std::string expect_crescale_paths_like_gromacs(const std::string& under,
                                               const std::map<std::string, std::string>& set,
                                               const std::string& tag) {
  const auto ref = read_pcoupl_paths();
  std::string json;
  for (const char* name : {"iso_rf", "semi_pme"}) {
    SCOPED_TRACE(std::string(name) + " " + tag);
    const std::string out = make_temp_dir(std::string("cuda_pcoupl_") + name + tag);
    std::string log;
    EXPECT_EQ(run_halomd_under(under, "spce_1k5", std::string("../pcoupl/") + name + ".mdp", set,
                               out + "/run", kCuda, &log),
              0)
        << log;
    auto e = read_csv(out + "/run/energy.csv");
    const auto& r = ref.at(name);
    EXPECT_EQ(e["step"].size(), r.size());
    if (e["step"].size() != r.size()) continue;
    for (size_t k = 0; k < r.size(); ++k) {
      SCOPED_TRACE(::testing::Message() << "step " << r[k][0]);
      EXPECT_NEAR(e["potential"][k], r[k][1], kGpuPathsEnergyRelTol * std::fabs(r[k][1]));
      EXPECT_NEAR(e["conserved"][k], r[k][2], kGpuPathsEnergyRelTol * std::fabs(r[k][2]));
      EXPECT_NEAR(e["pressure"][k], r[k][3], kGpuPressureAbsTol);
      EXPECT_NEAR(e["box_x"][k], r[k][5], kGpuBoxAbsTol);
      EXPECT_NEAR(e["box_z"][k], r[k][6], kGpuBoxAbsTol);
    }
    EXPECT_LT(e["volume"].back(), e["volume"].front() - 0.01);
    double dp = 0.0, dbox = 0.0;
    for (size_t k = 0; k < r.size(); ++k) {
      dbox = std::max({dbox, std::fabs(e["box_x"][k] - r[k][5]), std::fabs(e["box_z"][k] - r[k][6])});
      dp = std::max(dp, std::fabs(e["pressure"][k] - r[k][3]));
    }
    std::printf("GPU pcoupl path %s%s: pressure %.3g bar, box %.3g nm\n", name, tag.c_str(), dp, dbox);
    if (json.empty()) json = read_text(out + "/run/run.json");
  }
  return json;
}

// The three numbers of run.json's "gpu_grid".
std::vector<int> gpu_grid(const std::string& json) {
  const size_t at = json.find("\"gpu_grid\": [");
  if (at == std::string::npos) return {};
  std::istringstream w(json.substr(at + 13));
  std::vector<int> nc(3);
  char sep = 0;
  w >> nc[0] >> sep >> nc[1] >> sep >> nc[2];
  return nc;
}

// C-rescale on one GPU: the atoms and velocities scaled on the device, the box into every kernel's arguments
// (pair search grid, non-bonded images, PME's reciprocal box), the graphs recorded again.
TEST(CudaRun, CRescaleFollowsGromacsPathsAndContinuesBitwise) {
  SKIP_WITHOUT_GPU();
  (void)expect_crescale_paths_like_gromacs("", {}, "");
  // A grid whose z cells are exactly rlist / 11 wide at the start (rlist a hair under 1.1, which changes no
  // pair within the cut-offs): the first shrink of the box takes a cell off, the pair list is sized again for
  // the wider cells, and the paths are the same.
  const std::string json =
      expect_crescale_paths_like_gromacs("HALOMD_GPU_REACH_Z=11 ", {{"rlist", "1.0999999"}}, "_regrid");
  EXPECT_EQ(gpu_grid(json), (std::vector<int>{4, 4, 24})) << json;

  // With noise (ref-t 300): a continuation from a checkpoint gives the same bits (the box is the
  // checkpoint's, the barostat's integral too).
  const std::map<std::string, std::string> set = {
      {"nsteps", "60"},   {"ref-t", "300"},       {"ld-seed", "5"},        {"nstpcouple", "5"},
      {"nstenergy", "5"}, {"nstcalcenergy", "5"}, {"nstcheckpoint", "30"}, {"nstxout-compressed", "10"}};
  expect_threads_and_continuation_change_no_bit("spce_1k5", "../pcoupl/iso_rf.mdp", set, 45,
                                                {"energy.csv", "traj.xtc", "confout.gro"}, kCuda);

  // Regular steps stay one graph launch without host waits; only the coupling steps (energy steps) wait.
  const std::string out = make_temp_dir("cuda_pcoupl_counters");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "../pcoupl/ensemble.mdp", {{"nsteps", "400"}}, out + "/run", kCuda, &log),
            0)
      << log;
  const std::string counters = read_text(out + "/run/run.json");
  EXPECT_GT(json_number(counters, "regular_steps"), 300.0) << counters;
  EXPECT_EQ(json_number(counters, "host_syncs_per_step"), 0.0) << counters;
  EXPECT_EQ(json_number(counters, "launches_per_step"), 1.0) << counters;
}

// tcoupl = berendsen and pcoupl = berendsen on one GPU (the factor computed where v-rescale's is drawn, the
// positions scaled without the velocities): test_berendsen's gmx_d paths on spce_1k5 (the thermostat alone,
// isotropic with reaction field, semi-isotropic with PME) within the GPU's float error, and the solvated
// peptide's two groups; a continuation gives the same bits.
TEST(CudaRun, BerendsenFollowsGromacsPathsAndContinuesBitwise) {
  SKIP_WITHOUT_GPU();
  const auto ref = read_case_rows("berendsen/reference.txt");
  const std::string out = make_temp_dir("cuda_berendsen");
  std::string log;
  for (const char* name : {"nvt", "npt_iso", "npt_semi_pme"}) {
    SCOPED_TRACE(name);
    ASSERT_EQ(run_halomd("spce_1k5", std::string("../berendsen/") + name + ".mdp", {}, out + "/" + name,
                         kCuda, &log),
              0)
        << log;
    auto e = read_csv(out + "/" + name + "/energy.csv");
    const auto& r = ref.at(name);
    ASSERT_EQ(e["step"].size(), r.size());
    for (size_t k = 0; k < r.size(); ++k) {
      SCOPED_TRACE(::testing::Message() << "step " << r[k][0]);
      EXPECT_NEAR(e["potential"][k], r[k][1], kGpuPathsEnergyRelTol * std::fabs(r[k][1]));
      EXPECT_NEAR(e["conserved"][k], r[k][2], kGpuPathsEnergyRelTol * std::fabs(r[k][2]));
      EXPECT_NEAR(e["temperature"][k], r[k][3], kGpuThermostatRelTol * r[k][3]);
      EXPECT_NEAR(e["pressure"][k], r[k][4], kGpuPressureAbsTol);
      if (r[k].size() < 8) continue;
      EXPECT_NEAR(e["box_x"][k], r[k][6], kGpuBoxAbsTol);
      EXPECT_NEAR(e["box_z"][k], r[k][7], kGpuBoxAbsTol);
    }
  }
  ASSERT_EQ(run_halomd("bonded/solvated", "../../berendsen/two_groups.mdp", {}, out + "/groups", kCuda, &log),
            0)
      << log;
  auto g = read_csv(out + "/groups/energy.csv");
  expect_group_rows_like_gromacs(g, "berendsen/reference_groups.txt", "t_Protein", "t_Non-Protein",
                                 kGpuPathsEnergyRelTol, kGpuThermostatRelTol);
  expect_threads_and_continuation_change_no_bit("spce_1k5", "../berendsen/npt_iso.mdp",
                                                {{"nstcheckpoint", "20"}}, 25, {"energy.csv", "confout.gro"},
                                                kCuda);
}

// 20 ps at 300 K, as test_pcoupl's CPU run: the mean density from 5 ps on and its fluctuation as gmx_d's.
TEST(CudaRun, CRescaleDensityAndItsFluctuationFollowGromacs) {
  SKIP_WITHOUT_GPU();
  const auto ref = read_reference(data_path("pcoupl/ensemble.txt"));
  const std::string out = make_temp_dir("cuda_pcoupl_ensemble");
  std::string log;
  ASSERT_EQ(
      run_halomd("spce_1k5", "../pcoupl/ensemble.mdp", {{"nsteps", "10000"}}, out + "/run", kCuda, &log), 0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  expect_density_like_gromacs(e, ref);
}

// A Parrinello-Rahman path of test_parrinello (spce_1k5, gmx_d's rows every step) on one GPU: `set` overrides
// .mdp options; energy.csv's rows are compared with the reference's at their steps. Prints the largest
// deviations (the tolerances' margins).
void expect_parrinello_path_like_gromacs(const std::string& mdp,
                                         const std::map<std::string, std::string>& set,
                                         const std::string& tag) {
  SCOPED_TRACE(mdp + tag);
  const std::string out = make_temp_dir("cuda_parrinello_" + mdp + tag);
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "../parrinello/" + mdp + ".mdp", set, out + "/run", kCuda, &log), 0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  std::map<long, std::vector<double>> ref;
  for (const std::vector<double>& row : read_number_rows(data_path("parrinello/" + mdp + ".txt")))
    ref[std::lround(row.at(0))] = std::vector<double>(row.begin() + 1, row.end());
  ASSERT_GT(e["step"].size(), 5u);
  double dp = 0.0, dbox = 0.0, de = 0.0;
  for (size_t k = 0; k < e["step"].size(); ++k) {
    const long step = std::lround(e["step"][k]);
    SCOPED_TRACE(::testing::Message() << "step " << step);
    ASSERT_TRUE(ref.count(step));
    const std::vector<double>& r = ref.at(step);  // total conserved pressure volume box_x box_z
    EXPECT_NEAR(e["total"][k], r[0], kGpuPathsEnergyRelTol * std::fabs(r[0]));
    EXPECT_NEAR(e["conserved"][k], r[1], kGpuPathsEnergyRelTol * std::fabs(r[1]));
    EXPECT_NEAR(e["pressure"][k], r[2], kGpuPressureAbsTol);
    EXPECT_NEAR(e["box_x"][k], r[4], kGpuBoxAbsTol);
    EXPECT_NEAR(e["box_z"][k], r[5], kGpuBoxAbsTol);
    de = std::max(de, std::fabs(e["conserved"][k] - r[1]) / std::fabs(r[1]));
    dp = std::max(dp, std::fabs(e["pressure"][k] - r[2]));
    dbox = std::max({dbox, std::fabs(e["box_x"][k] - r[4]), std::fabs(e["box_z"][k] - r[5])});
  }
  EXPECT_GT(std::fabs(e["volume"].back() - e["volume"].front()), 1e-3);
  std::printf("GPU pcoupl path %s%s: conserved %.2g relative, pressure %.3g bar, box %.3g nm\n", mdp.c_str(),
              tag.c_str(), de, dp, dbox);
}

// Parrinello-Rahman on one GPU (test_parrinello's paths: Nose-Hoover or noiseless v-rescale, isotropic and
// semi-isotropic, coupled every step and every fifth): the coupling step's velocity term in the update, the
// positions scaled after it. The paths have energies (and so kernel-by-kernel steps) at every step and a
// search at every step; the every-fifth path again with a search every 10 steps and energies every 5th, so
// that graph steps run from the positions the scaling wrote. A continuation from a checkpoint gives the same
// bits.
TEST(CudaRun, ParrinelloRahmanFollowsGromacsPathsAndContinuesBitwise) {
  SKIP_WITHOUT_GPU();
  for (const char* mdp : {"iso", "iso_nst5", "semi", "vrescale"})
    expect_parrinello_path_like_gromacs(mdp, {}, "");
  const std::map<std::string, std::string> graphs = {
      {"nstlist", "10"}, {"nstenergy", "5"}, {"nstcalcenergy", "5"}};
  expect_parrinello_path_like_gromacs("iso_nst5", graphs, "_graphs");
  std::map<std::string, std::string> set = graphs;
  set["nsteps"] = "60";
  set["nstcheckpoint"] = "30";
  expect_threads_and_continuation_change_no_bit("spce_1k5", "../parrinello/iso_nst5.mdp", set, 33,
                                                {"energy.csv", "confout.gro"}, kCuda);
}

// TIP4P and TIP5P water (oplsaa.ff; test_vsite's systems, gmx_d 2022 by tests/make_vsite_refdata.sh) on one
// GPU: the sites' forces spread onto their atoms and the sites placed again after each update. Step 0 with
// PME and with reaction field, every term within the GPU's float error of gmx_d's, and the pressure; a
// 100-step NVE path (a search every step); the same run with a search every 10 steps (graph steps from the
// sites' float records) continues bitwise from a checkpoint and makes one launch per regular step.
TEST(CudaRun, VirtualSitesFollowGromacs) {
  SKIP_WITHOUT_GPU();
  for (const char* model : {"tip4p", "tip5p"}) {
    for (const auto& [mdp, which] :
         {std::pair<std::string, std::string>{"step0.mdp", model},
          std::pair<std::string, std::string>{"step0_rf.mdp", std::string(model) + "_rf"}}) {
      SCOPED_TRACE(std::string(model) + " " + mdp);
      const auto ref = read_case_terms(data_path(std::string("vsite/") + model + "/reference.txt"), which);
      ASSERT_GT(ref.size(), 5u);
      const std::string out = make_temp_dir(std::string("cuda_vsite_") + model);
      std::string log;
      ASSERT_EQ(run_halomd(std::string("vsite/") + model, mdp, {}, out + "/run", kCuda, &log), 0) << log;
      auto e = read_csv(out + "/run/energy.csv");
      const std::pair<const char*, const char*> terms[] = {{"LJ_(SR)", "lj_sr"},
                                                           {"Coulomb_(SR)", "coulomb_sr"},
                                                           {"Coul._recip.", "coul_recip"},
                                                           {"Potential", "potential"},
                                                           {"Kinetic_En.", "kinetic"}};
      for (const auto& [gmx, csv] : terms) {
        if (!ref.count(gmx)) continue;
        ASSERT_TRUE(e.count(csv)) << csv;
        EXPECT_NEAR(e[csv][0], ref.at(gmx),
                    kGpuPathsEnergyRelTol * std::fabs(ref.at(gmx)) + kPrintedEnergyAbsTol)
            << gmx;
      }
      EXPECT_NEAR(e["pressure"][0], ref.at("Pressure"), kGpuPressureAbsTol);
    }
    SCOPED_TRACE(model);
    const std::string out = make_temp_dir(std::string("cuda_vsite_nve_") + model);
    std::string log;
    ASSERT_EQ(run_halomd(std::string("vsite/") + model, "nve.mdp", {}, out + "/run", kCuda, &log), 0) << log;
    auto e = read_csv(out + "/run/energy.csv");
    // step, total, pressure
    const auto rows = read_number_rows(data_path(std::string("vsite/") + model + "/nve.txt"));
    ASSERT_EQ(e["step"].size(), rows.size());
    double de = 0.0, dp = 0.0;
    for (size_t k = 0; k < rows.size(); ++k) {
      const double total = rows[k].at(1), pressure = rows[k].at(2);
      SCOPED_TRACE(::testing::Message() << "step " << rows[k].at(0));
      EXPECT_NEAR(e["total"][k], total, kGpuPathsEnergyRelTol * std::fabs(total));
      EXPECT_NEAR(e["pressure"][k], pressure, kGpuPressureAbsTol);
      de = std::max(de, std::fabs(e["total"][k] - total) / std::fabs(total));
      dp = std::max(dp, std::fabs(e["pressure"][k] - pressure));
    }
    std::printf("GPU vsite NVE path %s: total %.2g relative, pressure %.3g bar off gmx_d\n", model, de, dp);

    // A search every 10 steps (the pair kernel reads the sites' float records the construction wrote) against
    // the CPU on the same input: energies and pressure every 10 steps, and in traj.trr the sites' forces
    // (zero once spread, as the CPU's) and velocities (their displacement over dt).
    const std::map<std::string, std::string> graphs = {{"nstlist", "10"},   {"nsteps", "40"},
                                                       {"nstenergy", "10"}, {"nstcalcenergy", "10"},
                                                       {"nstvout", "20"},   {"nstfout", "20"}};
    ASSERT_EQ(run_halomd(std::string("vsite/") + model, "nve.mdp", graphs, out + "/gpu10", kCuda, &log), 0)
        << log;
    ASSERT_EQ(run_halomd(std::string("vsite/") + model, "nve.mdp", graphs, out + "/cpu10", "", &log), 0)
        << log;
    auto g10 = read_csv(out + "/gpu10/energy.csv"), c10 = read_csv(out + "/cpu10/energy.csv");
    ASSERT_EQ(g10["step"].size(), c10["step"].size());
    for (size_t k = 0; k < c10["step"].size(); ++k) {
      EXPECT_NEAR(g10["total"][k], c10["total"][k], kGpuPathsEnergyRelTol * std::fabs(c10["total"][k]));
      EXPECT_NEAR(g10["pressure"][k], c10["pressure"][k], kGpuPressureAbsTol);
    }
    const std::vector<io::TrrFrame> gt = io::read_trr(out + "/gpu10/traj.trr"),
                                    ct = io::read_trr(out + "/cpu10/traj.trr");
    ASSERT_EQ(gt.size(), ct.size());
    ASSERT_EQ(gt.size(), 3u);
    size_t sites = 0;
    double worst_v = 0.0;
    for (size_t k = 0; k < gt.size(); ++k) {
      ASSERT_EQ(gt[k].f.size(), ct[k].f.size());
      ASSERT_EQ(gt[k].v.size(), ct[k].v.size());
      for (size_t i = 0; i < ct[k].f.size(); ++i) {
        if (!(ct[k].f[i] == Vec3{})) continue;  // the CPU's sites, whose forces it zeroed
        ++sites;
        EXPECT_EQ(gt[k].f[i], Vec3{}) << "site " << i << " at step " << gt[k].step;
        if (k > 0) worst_v = std::max(worst_v, std::sqrt(norm2(gt[k].v[i] - ct[k].v[i])));
      }
    }
    EXPECT_GT(sites, 3 * 100u);
    // Float forces part the paths by ~1e-6 nm in 40 steps (~1e-3 nm/ps over dt); a site left unplaced or
    // without its velocity is off by its speed, ~0.5 nm/ps.
    EXPECT_LT(worst_v, 0.02) << model;

    const std::map<std::string, std::string> set = {
        {"nstlist", "10"}, {"nsteps", "60"}, {"nstcheckpoint", "30"}, {"nstxout-compressed", "10"}};
    const std::string dir = expect_threads_and_continuation_change_no_bit(
        std::string("vsite/") + model, "nve.mdp", set, 33, {"energy.csv", "traj.xtc", "confout.gro"}, kCuda);
    const std::string json = read_text(dir + "/one/run.json");
    EXPECT_GT(json_number(json, "regular_steps"), 20.0) << json;
    EXPECT_EQ(json_number(json, "host_syncs_per_step"), 0.0) << json;
    EXPECT_EQ(json_number(json, "launches_per_step"), 1.0) << json;
  }
}

#else

TEST(CudaRun, NotBuilt) { GTEST_SKIP() << "this build has no CUDA executor"; }

#endif

}  // namespace
}  // namespace halomd::test
