// `halomd run --backend cuda` under mpirun: domains on GPUs with the GPU halo transports (one rank per
// domain; on a machine with one GPU the ranks share it, which needs the MPS daemon running, as
// bench/device_check.sh starts it). Energies against the single-GPU executor, bitwise identical trajectories
// across transports on the same grid, and the counted calls of a regular step. Needs a GPU and MPI (ctest
// label "gpu"); without a device every test reports SKIPPED.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "io/gro.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

#if HALOMD_HAVE_CUDA
#include "cuda/device_info.h"
#endif

namespace halomd::test {
namespace {

#if HALOMD_HAVE_CUDA

#define SKIP_WITHOUT_GPU_AND_MPI()                                                  \
  if (std::string(HALOMD_MPIEXEC).empty()) GTEST_SKIP() << "this build has no MPI"; \
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";                  \
  static_assert(true)

std::string mpirun(int ranks) {
  return "timeout 240 " + std::string(HALOMD_MPIEXEC) +
         " --oversubscribe --allow-run-as-root --bind-to none -n " + std::to_string(ranks) + " ";
}

std::vector<std::string> transports() {
#if HALOMD_HAVE_NVSHMEM
  return {"mpi_staged", "cuda_ipc", "nvshmem", "nvshmem_put"};
#else
  return {"mpi_staged", "cuda_ipc"};
#endif
}

// The output files of two runs, byte for byte (and not empty).
void expect_same_outputs(const std::string& a, const std::string& b,
                         std::initializer_list<const char*> files = {"energy.csv", "traj.xtc",
                                                                     "confout.gro"}) {
  for (const char* f : files) {
    const std::string ta = read_text(a + "/" + f);
    EXPECT_FALSE(ta.empty()) << a << "/" << f;
    EXPECT_EQ(ta, read_text(b + "/" + f)) << f << " differs between " << a << " and " << b;
  }
}

double rel(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-30); }

// One run of a bitwise comparison: the environment prefix (may be empty) and the transport.
struct TransportRun {
  std::string env, transport;
};

// Runs `sys` with `mdp` (`set` overriding options) on 4 ranks, 2x2x1, once per entry of `runs` (into
// out/run<k>_<transport>); each run's `files` equal the first run's byte for byte. A run of nvshmem or
// nvshmem_put whose environment is `counted_env` must make no host sync, no MPI wait and one launch per
// regular step; `check` (optional) adds checks of each run's run.json.
void expect_transports_give_the_same_bits(
    const std::string& out, const std::string& sys, const std::string& mdp,
    const std::map<std::string, std::string>& set, const std::vector<TransportRun>& runs,
    const std::string& counted_env, std::initializer_list<const char*> files,
    const std::function<void(const TransportRun&, const std::string& json)>& check = {}) {
  std::string first, log;
  for (size_t k = 0; k < runs.size(); ++k) {
    const TransportRun& run = runs[k];
    const std::string dir = out + "/run" + std::to_string(k) + "_" + run.transport;
    ASSERT_EQ(run_halomd_under(run.env + " " + mpirun(4), sys, mdp, set, dir,
                               "--backend cuda --transport " + run.transport + " --dd 2 2 1", &log),
              0)
        << run.env << " " << run.transport << ":\n"
        << log;
    const std::string json = read_text(dir + "/run.json");
    if (run.transport.starts_with("nvshmem") && run.env == counted_env) {
      EXPECT_EQ(json_number(json, "host_syncs_per_step"), 0.0) << run.transport << "\n" << json;
      EXPECT_EQ(json_number(json, "mpi_waits_per_step"), 0.0) << run.transport << "\n" << json;
      EXPECT_EQ(json_number(json, "launches_per_step"), 1.0) << run.transport << "\n" << json;
    }
    if (check) check(run, json);
    if (first.empty())
      first = dir;
    else
      expect_same_outputs(first, dir, files);
  }
}

// The last transport's run of expect_transports_give_the_same_bits (environment `env`, into out) against the
// same run killed before step `stop` after a checkpoint (set's nstcheckpoint) and continued from it:
// energy.csv bit for bit.
void expect_continuation_gives_the_same_energies(const std::string& out, const std::string& env,
                                                 const std::string& sys, const std::string& mdp,
                                                 const std::map<std::string, std::string>& set, int stop,
                                                 size_t runs) {
  const std::string args = "--backend cuda --transport " + transports().back() + " --dd 2 2 1";
  std::string log;
  EXPECT_NE(run_halomd_under(env + " " + mpirun(4), sys, mdp, set, out + "/part",
                             args + " --stop-at-step " + std::to_string(stop), &log),
            0);
  ASSERT_EQ(run_halomd_under(env + " " + mpirun(4), sys, mdp, set, out + "/part",
                             args + " --cpi " + out + "/part/state.cpt", &log),
            0)
      << log;
  expect_same_outputs(out + "/run" + std::to_string(runs - 1) + "_" + transports().back(), out + "/part",
                      {"energy.csv"});
}

// Every transport once, all with the environment `env`.
std::vector<TransportRun> each_transport(const std::string& env) {
  std::vector<TransportRun> runs;
  for (const std::string& t : transports()) runs.push_back({env, t});
  return runs;
}

// Step-0 energies of spce_9k (4.5 nm box) on 2 and 4 domains, against one GPU: the same pairs in float, but
// in other positions' frames and summed in other groups, so within the mixed-precision tolerance (the same
// bound as the CUDA executor against the CPU double path).
TEST(CudaDomains, StepZeroEnergiesEqualTheSingleGpuRun) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_energy");
  const std::map<std::string, std::string> set = {
      {"nsteps", "10"}, {"nstenergy", "1"}, {"nstcalcenergy", "1"}};
  std::string log;
  ASSERT_EQ(run_halomd("spce_9k", "nve.mdp", set, out + "/one", "--backend cuda", &log), 0) << log;
  auto ref = read_csv(out + "/one/energy.csv");
  // 2x1x1; 2x2x1; 4x1x1 has cells of 1.125 nm against a plan reach of rlist 1.1 + 2 skins + 2 margins: two
  // pulses with the default skin (0.45 nm), three with a skin of 0.6 nm, which the rule that the plan's
  // range stays below half the box lowers to 0.55 (the largest that fits, in 0.05 nm steps). 2x2x1
  // with 8 list lanes per atom and search cells of rlist/2 in z (the others rlist/8), 2x1x1 with 32 lanes
  // (ranks sharing a GPU get at most 8 otherwise, cuda_dd_executor.cpp kSharedGpuMaxLanes).
  const std::vector<std::pair<int, std::string>> grids = {
      {2, "2 1 1"}, {4, "2 2 1"}, {4, "4 1 1"}, {4, "4 1 1 skin"}};
  for (const auto& [ranks, spec] : grids) {
    const std::string grid = spec.substr(0, 5);
    const bool three_pulses = spec == "4 1 1 skin";
    const std::string dir = out + "/dd" + std::to_string(ranks) + "_" + grid.substr(0, 1) +
                            grid.substr(2, 1) + (three_pulses ? "_skin" : "");
    const std::string lanes = grid == "2 2 1"   ? "HALOMD_GPU_TPA=8 HALOMD_GPU_REACH_Z=2 "
                              : grid == "2 1 1" ? "HALOMD_GPU_TPA=32 "
                              : three_pulses    ? "HALOMD_DD_SKIN=0.6 "
                                                : "";
    ASSERT_EQ(run_halomd_under(lanes + mpirun(ranks), "spce_9k", "nve.mdp", set, dir,
                               "--backend cuda --transport mpi_staged --dd " + grid, &log),
              0)
        << log;
    auto e = read_csv(dir + "/energy.csv");
    ASSERT_EQ(e["step"].size(), ref["step"].size()) << grid;
    for (const char* term : {"lj_sr", "coulomb_sr", "potential"})
      EXPECT_LT(rel(e[term][0], ref[term][0]), kEnergyRelTol)
          << term << " on grid " << grid << ": " << e[term][0] << " vs one GPU " << ref[term][0];
    EXPECT_LT(rel(e["kinetic"][0], ref["kinetic"][0]), kKineticRelTol) << grid;
    // Ten steps later the trajectories differ only by float rounding.
    EXPECT_LT(rel(e["total"][10], ref["total"][10]), 1e-4) << grid;
    const std::string run_json = read_text(dir + "/run.json");
    if (grid == "2 2 1") EXPECT_EQ(json_number(run_json, "gpu_lanes_per_atom"), 8.0);
    if (grid == "2 1 1") EXPECT_EQ(json_number(run_json, "gpu_lanes_per_atom"), 32.0);
    if (grid == "4 1 1" && json_number(run_json, "ranks_per_gpu") > 1)  // the whole-GPU rule gives 32 here
      EXPECT_EQ(json_number(run_json, "gpu_lanes_per_atom"), 8.0) << run_json;
    if (grid == "4 1 1") {
      const std::string pulses = three_pulses ? "\"halo_pulses\": 3" : "\"halo_pulses\": 2";
      EXPECT_NE(read_text(dir + "/run.json").find(pulses), std::string::npos) << read_text(dir + "/run.json");
      if (three_pulses) {
        EXPECT_NEAR(json_number(read_text(dir + "/run.json"), "dd_skin_nm"), 0.55, 1e-9);
      }
    }
  }
}

// The domains' pair lists hold every pair within rlist once (the eighth-shell rule), so their counts add up
// to the single GPU's, up to pairs at rlist that float rounding in the domains' frames moves across it.
// With the default skin the halo holds atoms far beyond any partner, whose rows the search skips: the same
// run without skipping (HALOMD_GPU_SKIP_HALO_ROWS=0) must list exactly the same pairs, and rows must have
// been skipped. 2x2x1 has halo-halo pairs (x and y zones); 4x1x1 two pulses.
TEST(CudaDomains, TheDomainsListTheSingleGpuPairs) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_pairs");
  const std::map<std::string, std::string> set = {
      {"nsteps", "0"}, {"nstenergy", "1"}, {"nstcalcenergy", "1"}};
  std::string log;
  ASSERT_EQ(run_halomd("spce_9k", "nve.mdp", set, out + "/one", "--backend cuda", &log), 0) << log;
  const double one = json_number(read_text(out + "/one/run.json"), "pairs_in_list");
  ASSERT_GT(one, 1e6);
  for (const auto& [ranks, grid] : std::vector<std::pair<int, std::string>>{{4, "2 2 1"}, {4, "4 1 1"}}) {
    const std::string dir = out + "/dd_" + grid.substr(0, 1) + grid.substr(2, 1);
    ASSERT_EQ(run_halomd_under(mpirun(ranks), "spce_9k", "nve.mdp", set, dir,
                               "--backend cuda --transport mpi_staged --dd " + grid, &log),
              0)
        << log;
    const std::string json = read_text(dir + "/run.json");
    const double all = json_number(json, "pairs_in_list_all_domains");
    EXPECT_NEAR(all, one, 1e-5 * one) << grid;
    EXPECT_GT(json_number(json, "halo_rows_skipped_all_domains"), 0.0) << grid;
    ASSERT_EQ(run_halomd_under("HALOMD_GPU_SKIP_HALO_ROWS=0 " + mpirun(ranks), "spce_9k", "nve.mdp", set,
                               dir + "_all_rows", "--backend cuda --transport mpi_staged --dd " + grid, &log),
              0)
        << log;
    const std::string json_all = read_text(dir + "_all_rows/run.json");
    EXPECT_EQ(json_number(json_all, "pairs_in_list_all_domains"), all) << grid;
    EXPECT_EQ(json_number(json_all, "halo_rows_skipped_all_domains"), 0.0) << grid;
  }
}

// Every transport moves the same bytes with the same arithmetic (comm/gpu/gpu_halo_device.cuh) and sums
// integers, so a v-rescale run gives bitwise the same files on the same grid, whichever carries the halo,
// and however a step's non-bonded passes are split and ordered around the halos (HALOMD_DD_OVERLAP 0, 1
// and 2: the host-orchestrated transports run 1 by default, the device-initiated ones 2). A last set on 4
// domains builds the next plan ahead from every search's positions after the first check and puts it in at
// the next search (HALOMD_DD_AHEAD, HALOMD_DD_AHEAD_SEARCHES): that too must not depend on the transport or
// on when each rank's thread finishes.
TEST(CudaDomains, EveryTransportGivesBitwiseTheSameTrajectory) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_bitwise");
  const std::map<std::string, std::string> set = {
      {"nsteps", "60"},  {"nstenergy", "10"},     {"nstcalcenergy", "10"}, {"nstxout-compressed", "20"},
      {"nstcomm", "10"}, {"tcoupl", "v-rescale"}, {"tc-grps", "System"},   {"tau-t", "0.1"},
      {"ref-t", "300"},  {"ld-seed", "11"}};
  std::string log;
  // Sets: 4 and 2 domains with the default settings and their variants, 4 with plans built ahead, and 4
  // with direct halo pulses (x, y and xy: every pulse sends home atoms only, so the update packs and
  // releases all of them; the forces come back in another grouping, so the bits differ from the chained
  // pulses' while every transport still gives the same).
  for (const std::string spec : {"4 2 2 1", "2 2 1 1", "4 2 2 1 ahead", "4 2 2 1 direct"}) {
    const int ranks = spec[0] - '0';
    const std::string grid = spec.substr(2, 5);
    const bool ahead = spec.find("ahead") != std::string::npos;
    const bool direct = spec.find("direct") != std::string::npos;
    std::string first;
    std::vector<std::pair<std::string, std::string>> runs;  // (environment, transport)
    for (const std::string& t : transports())
      runs.emplace_back(ahead    ? "HALOMD_DD_AHEAD=0.01 HALOMD_DD_AHEAD_SEARCHES=1"
                        : direct ? "HALOMD_DD_DIRECT=1"
                                 : "",
                        t);
    // Direct pulses where the exchange kernel packs them (HALOMD_HALO_PREPACK=0: every pulse sent before the
    // first wait, in the kernel) and with the interior rows beside the halo.
    if (direct && transports().back() == "nvshmem_put") {
      runs.emplace_back("HALOMD_DD_DIRECT=1 HALOMD_HALO_PREPACK=0", "nvshmem");
      runs.emplace_back("HALOMD_DD_DIRECT=1 HALOMD_DD_OVERLAP=3", "nvshmem");
    }
    if (!ahead && !direct) {
      runs.emplace_back("HALOMD_DD_OVERLAP=0", transports().back());
      runs.emplace_back("HALOMD_DD_OVERLAP=2", transports().front());
      runs.emplace_back("HALOMD_DD_OVERLAP=1", transports().back());
      // With nvshmem where there is one: its update also releases pulses.
      runs.emplace_back("HALOMD_DD_OVERLAP=3",
                        transports().size() > 2 ? transports()[2] : transports().back());
      // The nvshmem transports' home atoms packed by the update kernel (HaloPrepackDev) or, as here, by the
      // exchange kernel.
      if (transports().back() == "nvshmem_put") {
        runs.emplace_back("HALOMD_HALO_PREPACK=0", "nvshmem");
        runs.emplace_back("HALOMD_HALO_PREPACK=1", "nvshmem");  // the update packs, the exchange signals
        // Every peer treated as on another GPU: the system-scope releases, fences and acquires that GPUs of
        // one node need (the update's packing and releases included), on the one GPU.
        runs.emplace_back("HALOMD_HALO_SYSTEM_FENCES=1", "nvshmem");
      }
    }
    for (const auto& [env, t] : runs) {
      std::string dir = out + "/" + t + std::to_string(ranks);
      const bool unpacked = env.find("HALOMD_HALO_PREPACK=0") != std::string::npos;
      if (ahead) {
        dir += "_ahead";
      } else if (direct) {
        dir += unpacked                                     ? "_direct_exchange_packs"
               : env.find("OVERLAP=3") != std::string::npos ? "_direct_overlap3"
                                                            : "_direct";
      } else if (unpacked) {
        dir += "_exchange_packs";
      } else if (env.find("HALOMD_HALO_PREPACK=1") != std::string::npos) {
        dir += "_exchange_signals";
      } else if (env.find("HALOMD_HALO_SYSTEM_FENCES=1") != std::string::npos) {
        dir += "_system_scope";
      } else if (!env.empty()) {
        dir += "_overlap";
        dir += env.back();
      }
      ASSERT_EQ(run_halomd_under(env + " " + mpirun(ranks), "spce_9k", "nve.mdp", set, dir,
                                 "--backend cuda --transport " + t + " --dd " + grid, &log),
                0)
          << env << " " << t << ":\n"
          << log;
      const std::string json = read_text(dir + "/run.json");
      EXPECT_EQ(json_number(json, "committed") >= 2.0, ahead) << t << " " << env << "\n" << json;
      EXPECT_EQ(json.find("\"halo_direct\": true") != std::string::npos, direct) << t << " " << env << json;
      EXPECT_EQ(json_number(json, "halo_pulses"), direct ? 3.0 : ranks == 4 ? 2.0 : 1.0) << t << " " << env;
      // Every exchange after an update finds its home atoms packed (60 steps: ~59 exchanges, fewer those
      // right after a repartition, whose update packed for the plan before).
      // With nvshmem (not nvshmem_put, whose peers are never mapped) by default the update also releases
      // the pulses that forward nothing (pulse 0 on these grids).
      const double prepacked = json_number(json, "halo_prepacked_exchanges"),
                   released = json_number(json, "halo_released_exchanges");
      if (t.rfind("nvshmem", 0) == 0 && !unpacked) {
        EXPECT_GE(prepacked, 40.0) << t << " " << env << "\n" << json;
      } else {
        EXPECT_EQ(prepacked, 0.0) << t << " " << env << "\n" << json;
      }
      if (t == "nvshmem" && env.find("HALOMD_HALO_PREPACK") == std::string::npos) {
        EXPECT_GE(released, 40.0) << t << " " << env << "\n" << json;
      } else {
        EXPECT_EQ(released, 0.0) << t << " " << env << "\n" << json;
      }
      // The nvshmem transports treat the peers on other GPUs (ranks less those sharing this one), or every
      // peer when told to; the host-orchestrated ones report none.
      const bool system_scope = env.find("HALOMD_HALO_SYSTEM_FENCES=1") != std::string::npos;
      const double other_gpus =
          t.rfind("nvshmem", 0) != 0
              ? 0.0
              : (system_scope ? ranks - 1.0 : ranks - json_number(json, "ranks_per_gpu"));
      EXPECT_EQ(json_number(json, "halo_peers_on_other_gpus"), other_gpus) << t << " " << env << "\n" << json;
      if (first.empty()) {
        first = dir;
        continue;
      }
      expect_same_outputs(first, dir);
    }
  }
}

// coulombtype = PME on GPU domains: each domain spreads its home atoms' charges, the charge grid is summed
// over the domains (GpuHaloTransport::sum_grid, 64-bit fixed point: one domain's grid), and every domain
// transforms it and gathers its home atoms' mesh forces. Step-0 energies of spce_9k on 2x1x1, 2x2x1 and
// 4x1x1 (two pulses) against one GPU within the mixed-precision tolerance (Coul. recip. from the same grid up
// to the domains' frames); then, with v-rescale, every transport gives the same bits on 2x2x1, nvshmem also
// with system-scope fences (the grid sum's release and acquire as between GPUs) and with the halo before the
// rows (overlap 0), and nvshmem's regular steps stay one launch without host syncs or MPI waits.
TEST(CudaDomains, PmeOnDomainsFollowsTheSingleGpuAndEveryTransportGivesTheSameBits) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_pme");
  std::string log;
  {
    const std::map<std::string, std::string> set = {
        {"nsteps", "20"}, {"nstenergy", "1"}, {"nstcalcenergy", "1"}, {"coulombtype", "PME"}};
    ASSERT_EQ(run_halomd("spce_9k", "nve.mdp", set, out + "/one", "--backend cuda", &log), 0) << log;
    auto ref = read_csv(out + "/one/energy.csv");
    ASSERT_GT(ref["coul_recip"][0], 100.0);  // the mesh is on (spce_9k: ~786 kJ/mol)
    for (const auto& [ranks, grid] :
         std::vector<std::pair<int, std::string>>{{2, "2 1 1"}, {4, "2 2 1"}, {4, "4 1 1"}}) {
      const std::string dir = out + "/dd" + grid.substr(0, 1) + grid.substr(2, 1);
      ASSERT_EQ(run_halomd_under(mpirun(ranks), "spce_9k", "nve.mdp", set, dir,
                                 "--backend cuda --transport mpi_staged --dd " + grid, &log),
                0)
          << log;
      auto e = read_csv(dir + "/energy.csv");
      ASSERT_EQ(e["step"].size(), ref["step"].size()) << grid;
      for (const char* term : {"lj_sr", "coulomb_sr", "coul_recip", "potential"})
        EXPECT_LT(rel(e[term][0], ref[term][0]), kEnergyRelTol)
            << term << " on grid " << grid << ": " << e[term][0] << " vs one GPU " << ref[term][0];
      EXPECT_LT(rel(e["pressure"][0], ref["pressure"][0]), 1e-3) << grid;
      // KE(0) averages the half steps around step 0, so it holds the step-0 forces, mesh forces included.
      EXPECT_LT(rel(e["kinetic"][0], ref["kinetic"][0]), kKineticRelTol) << grid;
      for (size_t k = 1; k < e["step"].size(); ++k)  // then only float rounding apart
        EXPECT_LT(rel(e["potential"][k], ref["potential"][k]), 2e-5) << grid << " step " << e["step"][k];
      EXPECT_LT(rel(e["total"][20], ref["total"][20]), 1e-4) << grid;
    }
  }
  const std::map<std::string, std::string> set = {
      {"nsteps", "60"},  {"nstenergy", "10"},     {"nstcalcenergy", "10"}, {"nstxout-compressed", "20"},
      {"nstcomm", "10"}, {"tcoupl", "v-rescale"}, {"tc-grps", "System"},   {"tau-t", "0.1"},
      {"ref-t", "300"},  {"ld-seed", "11"},       {"coulombtype", "PME"}};
  // The skin check of step 30 fails in every run: a repartition there gives the mesh a new home count and
  // charges, and the graphs are recorded again.
  const std::string repartition = "HALOMD_TEST_FAIL_SKIN_CHECK_AT=30 ";
  std::vector<TransportRun> runs = each_transport(repartition);
  if (transports().back() == "nvshmem_put") {
    runs.push_back({repartition + "HALOMD_HALO_SYSTEM_FENCES=1", "nvshmem"});
    runs.push_back({repartition + "HALOMD_DD_OVERLAP=0", "nvshmem"});
    // The other form of the grid sum (every grid to every PE, summed in 64 bits; the default is slabs:
    // a reduce-scatter, then an all-gather in float): the same float grid.
    runs.push_back({repartition + "HALOMD_GRID_SUM=all", "nvshmem"});
    runs.push_back({repartition + "HALOMD_GRID_SUM=all", "nvshmem_put"});
  }
  expect_transports_give_the_same_bits(
      out, "spce_9k", "nve.mdp", set, runs, repartition, {"energy.csv", "traj.xtc", "confout.gro"},
      [](const TransportRun& run, const std::string& json) {
        EXPECT_GE(json_number(json, "repartitions"), 2.0) << run.transport << " " << run.env << "\n" << json;
        const std::string form = run.transport.starts_with("nvshmem")
                                     ? (run.env.find("=all") != std::string::npos ? "all" : "slabs")
                                     : "host";
        EXPECT_NE(json.find("\"pme_grid_sum\": \"" + form + "\""), std::string::npos)
            << run.transport << " " << run.env << json;
      });
}

// The solvated peptide (amber99sb-ildn: bonds, angles, dihedrals and 1-4 pairs, hydrogen bonds by LINCS,
// TIP3P by SETTLE; 7,359 atoms in a 4.2 nm box) on GPU domains: update groups, each listed interaction and
// excluded pair computed by the one domain that the eighth-shell rule names (the run stops when the counts
// over the domains are not the topology's), their forces on halo atoms sent home with the force halo, LINCS
// in the update on each domain's home groups. Step-0 energies term by term against one GPU on 2x1x1 and
// 2x2x1, with PME and with reaction field (whose exclusion correction covers the excluded pairs between
// groups), and every step's potential within float rounding; then, with v-rescale and a repartition forced
// at step 30 (new local interactions and constraints, graphs recorded again), bitwise the same trajectory
// on every transport, and nvshmem's regular steps with no host sync and one launch.
TEST(CudaDomains, ListedInteractionsAndLincsOnDomainsFollowTheSingleGpu) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_listed");
  const std::string sys = "bonded/solvated", mdp = "hbonds_nve.mdp";
  std::string log;
  for (const std::string coulomb : {"PME", "Reaction-field"}) {
    const std::map<std::string, std::string> set = {
        {"nsteps", "20"}, {"nstenergy", "1"}, {"nstcalcenergy", "1"}, {"coulombtype", coulomb}};
    const std::string one = out + "/one_" + coulomb.substr(0, 3);
    ASSERT_EQ(run_halomd(sys, mdp, set, one, "--backend cuda", &log), 0) << log;
    auto ref = read_csv(one + "/energy.csv");
    ASSERT_GT(std::fabs(ref["proper_dih"][0]), 1.0) << "no listed terms in energy.csv";
    for (const auto& [ranks, grid] : std::vector<std::pair<int, std::string>>{{2, "2 1 1"}, {4, "2 2 1"}}) {
      const std::string dir = out + "/" + coulomb.substr(0, 3) + grid.substr(0, 1) + grid.substr(2, 1);
      ASSERT_EQ(run_halomd_under(mpirun(ranks), sys, mdp, set, dir,
                                 "--backend cuda --transport mpi_staged --dd " + grid, &log),
                0)
          << coulomb << " " << grid << ":\n"
          << log;
      auto e = read_csv(dir + "/energy.csv");
      ASSERT_EQ(e["step"].size(), ref["step"].size()) << grid;
      // The listed terms in double from the same positions (halo atoms shifted by box lengths).
      for (const char* term : {"bond", "angle", "proper_dih", "per_imp_dih", "lj14", "coulomb14"})
        EXPECT_NEAR(e[term][0], ref[term][0], 1e-6 * std::max(1.0, std::fabs(ref[term][0])))
            << term << ", " << coulomb << " on grid " << grid;
      std::vector<const char*> terms = {"lj_sr", "coulomb_sr", "potential"};
      if (coulomb == "PME") terms.push_back("coul_recip");
      for (const char* term : terms)
        EXPECT_LT(rel(e[term][0], ref[term][0]), kEnergyRelTol)
            << term << ", " << coulomb << " on grid " << grid << ": " << e[term][0] << " vs one GPU "
            << ref[term][0];
      // The pressure is a small difference of large terms (~3,500 bar each here), 4.7 bar with PME: float
      // rounding of the positions in the domains' frames moves it by 0.004-0.013 bar (H100,
      // 2026-12-05; 2.7e-3 relative on 2x2x1 with PME); one listed term or excluded pair lost or counted
      // twice moves it by bars.
      EXPECT_NEAR(e["pressure"][0], ref["pressure"][0], 0.1) << coulomb << " " << grid;
      std::cout << coulomb << " on " << grid << ": step-0 pressure " << e["pressure"][0] << " bar, one GPU "
                << ref["pressure"][0] << "\n";
      // KE(0) averages the half steps around step 0: the step-0 forces, listed and constraint ones included.
      EXPECT_LT(rel(e["kinetic"][0], ref["kinetic"][0]), kKineticRelTol) << coulomb << " " << grid;
      for (size_t k = 1; k < e["step"].size(); ++k)
        EXPECT_LT(rel(e["potential"][k], ref["potential"][k]), 2e-5)
            << coulomb << " " << grid << " step " << e["step"][k];
      EXPECT_LT(rel(e["total"][20], ref["total"][20]), 1e-4) << coulomb << " " << grid;
    }
  }
  const std::map<std::string, std::string> set = {
      {"nsteps", "60"},  {"nstenergy", "10"},     {"nstcalcenergy", "10"}, {"nstxout-compressed", "20"},
      {"nstcomm", "10"}, {"tcoupl", "v-rescale"}, {"tc-grps", "System"},   {"tau-t", "0.1"},
      {"ref-t", "300"},  {"ld-seed", "11"}};
  const std::string repartition = "HALOMD_TEST_FAIL_SKIN_CHECK_AT=30 ";
  std::vector<TransportRun> runs = each_transport(repartition);
  if (transports().back() == "nvshmem_put") runs.push_back({repartition + "HALOMD_DD_OVERLAP=0", "nvshmem"});
  expect_transports_give_the_same_bits(
      out, sys, mdp, set, runs, repartition, {"energy.csv", "traj.xtc", "confout.gro"},
      [](const TransportRun& run, const std::string& json) {
        EXPECT_GE(json_number(json, "repartitions"), 2.0) << run.transport << " " << run.env << "\n" << json;
      });
}

// Several tc-grps on GPU domains (Protein Non-Protein on the solvated peptide, h-bonds by LINCS, PME): each
// group's kinetic energy summed over the domains on the device with the step's other sums, each group's
// KE(n - 1/2) before an energy step or a checkpoint too. Noiseless (ref-t 0 0, coupling every step), 2x2x1
// follows gmx_d's 20-step path as one GPU does (tcgroups/reference.txt); with noise and coupling every fifth
// step (steps that do not sum over domains in between) and a repartition forced at step 30, bitwise the same
// trajectory on every transport, and a continuation from the checkpoint at step 20 (each group's KE(n - 1/2)
// from the domains) gives the uninterrupted run's bits.
TEST(CudaDomains, SeveralTcGroupsOnDomainsFollowGromacsAndEveryTransportGivesTheSameBits) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_tcgroups");
  const char* const sys = "bonded/solvated";
  const char* const mdp = "../../tcgroups/two_groups.mdp";
  std::string log;
  ASSERT_EQ(run_halomd_under(mpirun(4), sys, mdp, {}, out + "/path",
                             "--backend cuda --transport mpi_staged --dd 2 2 1", &log),
            0)
      << log;
  auto e = read_csv(out + "/path/energy.csv");
  expect_tc_path_like_gromacs(e, "tcgroups/reference.txt", "t_Protein", "t_Non-Protein",
                              kGpuPathsEnergyRelTol, kGpuThermostatRelTol);
  const std::map<std::string, std::string> noisy = {
      {"ref-t", "300 310"}, {"ld-seed", "3"},        {"nsttcouple", "5"},    {"nsteps", "60"},
      {"nstenergy", "10"},  {"nstcalcenergy", "10"}, {"nstcheckpoint", "20"}};
  const std::string repartition = "HALOMD_TEST_FAIL_SKIN_CHECK_AT=30 ";
  expect_transports_give_the_same_bits(
      out, sys, mdp, noisy, each_transport(repartition), repartition, {"energy.csv", "confout.gro"},
      [](const TransportRun& run, const std::string& json) {
        EXPECT_GE(json_number(json, "repartitions"), 2.0) << run.transport << "\n" << json;
      });
  EXPECT_GT(read_csv(out + "/run0_" + transports()[0] + "/energy.csv")["t_Protein"].back(), 100.0)
      << "the thermostats did not heat the groups";
  // Killed before step 27 after the checkpoint at 20, then continued from it.
  expect_continuation_gives_the_same_energies(out, repartition, sys, mdp, noisy, 27, transports().size());
}

// Fully frozen atoms on GPU domains (freezegrps, tests/make_freeze_refdata.sh): atoms 1-60 of the peptide
// frozen, h-bond constraints between frozen and free atoms (those between two frozen ones left out), the
// frozen atoms out of the centre of mass, removed every step. 2x2x1 follows gmx_d's path as the CPU does, and
// the frozen atoms' lines of confout.gro are the CPU run's (their positions the start's constraining left).
TEST(CudaDomains, FrozenAtomsOnDomainsFollowGromacs) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_freeze");
  const char* const sys = "bonded/solvated";
  const char* const mdp = "../../freeze/index.mdp";
  const std::string ndx = " -n " + data_path("tcgroups/index.ndx");
  std::string log;
  ASSERT_EQ(run_halomd_under(mpirun(4), sys, mdp, {}, out + "/gpu",
                             "--backend cuda --transport mpi_staged --dd 2 2 1" + ndx, &log),
            0)
      << log;
  auto e = read_csv(out + "/gpu/energy.csv");
  expect_group_rows_like_gromacs(e, "freeze/reference_index.txt", "t_Protein", "t_Non-Protein",
                                 kGpuPathsEnergyRelTol, kGpuThermostatRelTol, 1e-6);
  ASSERT_EQ(run_halomd(sys, mdp, {}, out + "/cpu", ndx, &log), 0) << log;
  const std::vector<std::string> gpu = read_rows(out + "/gpu/confout.gro"),
                                 cpu = read_rows(out + "/cpu/confout.gro");
  ASSERT_EQ(gpu.size(), cpu.size());
  for (int a = 0; a < 60; ++a) EXPECT_EQ(gpu[2 + a], cpu[2 + a]) << "atom " << a + 1;
}

// comm-grps on GPU domains: each group's momentum summed over the domains on the device with the step's other
// sums. The solvated peptide on 2x2x1 with Protein and Non-Protein each on its own, and with the protein
// alone, against gmx_d's paths (tcgroups/reference_comm*.txt) within the GPU's float error; with noise and
// nstcomm 5, bitwise the same on every transport through a forced repartition (nvshmem's regular steps still
// one launch without host waits), and a continuation from a checkpoint the uninterrupted run's energies bit
// for bit.
TEST(CudaDomains, CommGroupsOnDomainsFollowGromacsAndEveryTransportGivesTheSameBits) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_comm");
  const char* const sys = "bonded/solvated";
  std::string log;
  for (const std::string name : {"comm_groups", "comm_rest"}) {
    SCOPED_TRACE(name);
    ASSERT_EQ(run_halomd_under(mpirun(4), sys, "../../tcgroups/" + name + ".mdp", {}, out + "/" + name,
                               "--backend cuda --transport mpi_staged --dd 2 2 1", &log),
              0)
        << log;
    // The paths hardly see the removal: each group's centre of mass at rest in confout.gro too.
    expect_comm_run_like_gromacs(out + "/" + name, name, kGpuPathsEnergyRelTol, kGpuThermostatRelTol);
  }
  // nstcomm 1: the checkpoint at 20 has a removal pending (applied by the save, per group).
  const char* const mdp = "../../tcgroups/comm_groups.mdp";
  const std::map<std::string, std::string> noisy = {
      {"ref-t", "300 310"}, {"ld-seed", "3"},    {"nsttcouple", "5"},     {"nstcomm", "1"},
      {"nsteps", "60"},     {"nstenergy", "10"}, {"nstcalcenergy", "10"}, {"nstcheckpoint", "20"}};
  const std::string repartition = "HALOMD_TEST_FAIL_SKIN_CHECK_AT=30 ";
  expect_transports_give_the_same_bits(
      out, sys, mdp, noisy, each_transport(repartition), repartition, {"energy.csv", "confout.gro"},
      [](const TransportRun& run, const std::string& json) {  // the groups re-laid out at a repartition
        EXPECT_GE(json_number(json, "repartitions"), 2.0) << run.transport << "\n" << json;
      });
  // Killed before step 27 after the checkpoint at 20, then continued from it.
  expect_continuation_gives_the_same_energies(out, repartition, sys, mdp, noisy, 27, transports().size());
}

// Every energy row of a GPU-domain run (e) against one GPU's run of the same input (ref): the potential and
// the conserved energy within kGpuPathsEnergyRelTol relative, the temperature within kGpuThermostatRelTol,
// the pressure within kGpuPressureAbsTol and, with pressure coupling, the box within kGpuBoxAbsTol (one GPU's
// bounds against gmx_d).
void expect_energy_rows_like_one_gpu(std::map<std::string, std::vector<double>>& e,
                                     std::map<std::string, std::vector<double>>& ref) {
  ASSERT_EQ(e["step"].size(), ref["step"].size());
  for (size_t k = 0; k < e["step"].size(); ++k) {
    SCOPED_TRACE(::testing::Message() << "step " << e["step"][k]);
    EXPECT_NEAR(e["potential"][k], ref["potential"][k],
                kGpuPathsEnergyRelTol * std::fabs(ref["potential"][k]));
    EXPECT_NEAR(e["conserved"][k], ref["conserved"][k],
                kGpuPathsEnergyRelTol * std::fabs(ref["conserved"][k]));
    EXPECT_NEAR(e["temperature"][k], ref["temperature"][k], kGpuThermostatRelTol * ref["temperature"][k]);
    EXPECT_NEAR(e["pressure"][k], ref["pressure"][k], kGpuPressureAbsTol);
    if (ref.count("box_x") == 0) continue;  // energy.csv has the box with pressure coupling only
    ASSERT_EQ(e["box_x"].size(), ref["box_x"].size());
    EXPECT_NEAR(e["box_x"][k], ref["box_x"][k], kGpuBoxAbsTol);
    EXPECT_NEAR(e["box_z"][k], ref["box_z"][k], kGpuBoxAbsTol);
  }
}

// sys with mdp + set on one GPU (out/one) and on 2x2x1 with mpi_staged (out/dd): every energy row of the
// domains as one GPU's (expect_energy_rows_like_one_gpu); the domains' rows into dd.
void expect_domains_like_one_gpu(const std::string& out, const std::string& sys, const std::string& mdp,
                                 const std::map<std::string, std::string>& set,
                                 std::map<std::string, std::vector<double>>& dd) {
  std::string log;
  ASSERT_EQ(run_halomd(sys, mdp, set, out + "/one", "--backend cuda", &log), 0) << log;
  ASSERT_EQ(run_halomd_under(mpirun(4), sys, mdp, set, out + "/dd",
                             "--backend cuda --transport mpi_staged --dd 2 2 1", &log),
            0)
      << log;
  auto one = read_csv(out + "/one/energy.csv");
  dd = read_csv(out + "/dd/energy.csv");
  expect_energy_rows_like_one_gpu(dd, one);
}

// C-rescale on GPU domains (spce_9k with test_pcoupl's noiseless settings: isotropic with reaction field,
// coupling every step; semi-isotropic with PME, every second step): after a coupling step the home atoms are
// scaled on the device and the plan is reboxed in place (no repartition: run.json's box_rescales counts
// them), or, with HALOMD_DD_PCOUPL_REPARTITION=1, the domains repartition in the new box. Either way 2x2x1
// follows one GPU's path: every step's potential and conserved energy within 1e-5 relative, the box within
// 3e-6 nm, the pressure within 1 bar (the bounds of one GPU against gmx_d). With noise and coupling every
// fifth step, the same bits on every transport, nvshmem's regular steps still one launch without host waits,
// and a continuation from a checkpoint the uninterrupted run's energies bit for bit.
TEST(CudaDomains, CRescaleOnDomainsFollowsTheSingleGpuAndEveryTransportGivesTheSameBits) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_pcoupl");
  std::string log;
  for (const auto& [name, repartition] :
       {std::pair{"iso_rf", false}, {"iso_rf", true}, {"semi_pme", false}}) {
    SCOPED_TRACE(std::string(name) + (repartition ? " repartitioning" : " reboxed"));
    const std::string mdp = "../pcoupl/" + std::string(name) + ".mdp";
    const std::string one = out + "/one_" + name, dd = out + "/dd_" + name + (repartition ? "_rep" : "");
    if (!repartition) {
      ASSERT_EQ(run_halomd("spce_9k", mdp, {}, one, "--backend cuda", &log), 0) << log;
    }
    ASSERT_EQ(
        run_halomd_under(std::string(repartition ? "HALOMD_DD_PCOUPL_REPARTITION=1 " : "") + mpirun(4),
                         "spce_9k", mdp, {}, dd, "--backend cuda --transport mpi_staged --dd 2 2 1", &log),
        0)
        << log;
    auto ref = read_csv(one + "/energy.csv"), e = read_csv(dd + "/energy.csv");
    expect_energy_rows_like_one_gpu(e, ref);
    EXPECT_GT(std::fabs(e["volume"].back() - e["volume"].front()), 0.01) << "the box did not change";
    const std::string json = read_text(dd + "/run.json");
    if (repartition) {
      EXPECT_GE(json_number(json, "repartitions"), 10.0) << json;  // one after each coupling step
      EXPECT_EQ(json_number(json, "box_rescales"), 0.0) << json;
    } else {
      // Every coupling step reboxed the plan, but where a cell count of the search grid changed.
      EXPECT_GE(json_number(json, "box_rescales"), 8.0) << json;
      EXPECT_LT(json_number(json, "repartitions"), json_number(json, "box_rescales")) << json;
    }
  }
  const std::map<std::string, std::string> noisy = {{"nsteps", "40"},
                                                    {"ref-t", "300"},
                                                    {"ld-seed", "5"},
                                                    {"nstpcouple", "5"},
                                                    {"nstenergy", "5"},
                                                    {"nstcalcenergy", "5"},
                                                    {"nstxout-compressed", "10"},
                                                    {"nstcheckpoint", "20"}};
  expect_transports_give_the_same_bits(out, "spce_9k", "../pcoupl/iso_rf.mdp", noisy, each_transport(""), "",
                                       {"energy.csv", "traj.xtc", "confout.gro"});
  // Killed before step 27 after the checkpoint at 20 (the box, the barostat's integral and, for the search
  // grid, the box-derived search lengths as the uninterrupted run has them), then continued from it.
  expect_continuation_gives_the_same_energies(out, "", "spce_9k", "../pcoupl/iso_rf.mdp", noisy, 27,
                                              transports().size());
}

// tcoupl = berendsen and pcoupl = berendsen on GPU domains (the factor on v-rescale's schedule, the
// positions scaled without the velocities and the plan reboxed in place): spce_9k on 2x2x1 with
// test_berendsen's isotropic settings against one GPU, row by row; coupled every fifth step with graph steps
// between, bitwise the same on every transport, nvshmem's regular steps one launch without host waits.
TEST(CudaDomains, BerendsenOnDomainsFollowsTheSingleGpuAndEveryTransportGivesTheSameBits) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_berendsen");
  const std::string mdp = "../berendsen/npt_iso.mdp";
  std::map<std::string, std::vector<double>> e;
  expect_domains_like_one_gpu(out, "spce_9k", mdp, {{"nstlist", "10"}}, e);
  EXPECT_GT(std::fabs(e["volume"].back() - e["volume"].front()), 1e-3) << "the box did not change";
  const std::map<std::string, std::string> graphs = {
      {"nsteps", "40"},    {"nstlist", "10"},   {"nstcalcenergy", "5"}, {"nstenergy", "5"},
      {"nstpcouple", "5"}, {"nsttcouple", "5"}, {"nstcheckpoint", "20"}};
  expect_transports_give_the_same_bits(out, "spce_9k", mdp, graphs, each_transport(""), "",
                                       {"energy.csv", "confout.gro"});
}

// The LJ switches on GPU domains (CHARMM36's force-switch, and potential-switch; rvdw-switch 0.8 nm): the
// listed passes take the switched LJ as one GPU's kernels do. spce_9k on 2x2x1 against one GPU, with reaction
// field and (force-switch) with PME: step-0 LJ and potential within the mixed-precision tolerance, every
// step's potential within float rounding; force-switch bitwise the same on every transport, and nvshmem's
// regular steps one launch without host waits.
TEST(CudaDomains, LjSwitchesOnDomainsFollowTheSingleGpu) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_ljswitch");
  std::string log;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Force-switch", "Reaction-Field"}, {"Potential-switch", "Reaction-Field"}, {"Force-switch", "PME"}};
  for (const auto& [vdw, coulomb] : cases) {
    SCOPED_TRACE(vdw + " " + coulomb);
    const std::map<std::string, std::string> set = {{"nsteps", "20"},       {"nstenergy", "1"},
                                                    {"nstcalcenergy", "1"}, {"vdw-modifier", vdw},
                                                    {"rvdw-switch", "0.8"}, {"coulombtype", coulomb}};
    const std::string tag = vdw.substr(0, 1) + coulomb.substr(0, 1);
    ASSERT_EQ(run_halomd("spce_9k", "nve.mdp", set, out + "/one" + tag, "--backend cuda", &log), 0) << log;
    ASSERT_EQ(run_halomd_under(mpirun(4), "spce_9k", "nve.mdp", set, out + "/dd" + tag,
                               "--backend cuda --transport mpi_staged --dd 2 2 1", &log),
              0)
        << log;
    auto ref = read_csv(out + "/one" + tag + "/energy.csv"), e = read_csv(out + "/dd" + tag + "/energy.csv");
    ASSERT_EQ(e["step"].size(), ref["step"].size());
    for (const char* term : {"lj_sr", "coulomb_sr", "potential"})
      EXPECT_LT(rel(e[term][0], ref[term][0]), kEnergyRelTol)
          << term << ": " << e[term][0] << " vs " << ref[term][0];
    EXPECT_LT(rel(e["kinetic"][0], ref["kinetic"][0]), kKineticRelTol);
    for (size_t k = 1; k < e["step"].size(); ++k)
      EXPECT_LT(rel(e["potential"][k], ref["potential"][k]), 2e-5) << "step " << e["step"][k];
  }
  // The switch is on: force-switch's LJ differs from the potential-shift run's.
  const std::map<std::string, std::string> shift = {{"nsteps", "0"}};
  ASSERT_EQ(run_halomd("spce_9k", "nve.mdp", shift, out + "/shift", "--backend cuda", &log), 0) << log;
  EXPECT_GT(std::fabs(read_csv(out + "/shift/energy.csv")["lj_sr"][0] -
                      read_csv(out + "/oneFR/energy.csv")["lj_sr"][0]),
            1.0);
  const std::map<std::string, std::string> fsw = {{"nsteps", "30"},        {"vdw-modifier", "Force-switch"},
                                                  {"rvdw-switch", "0.8"},  {"nstxout-compressed", "10"},
                                                  {"nstcalcenergy", "10"}, {"nstenergy", "10"}};
  expect_transports_give_the_same_bits(out, "spce_9k", "nve.mdp", fsw, each_transport(""), "",
                                       {"energy.csv", "traj.xtc", "confout.gro"});
}

// tcoupl = Nose-Hoover on GPU domains: the step before each coupling sums each group's KE over the domains on
// the device, and every domain integrates the same xi and vxi from it. The solvated peptide with two groups
// and h-bonds on 2x2x1 against gmx_d's noiseless path (tests/data/nosehoover, one GPU's bounds); SPC/E water
// coupled every fifth step, with graph steps between, against one GPU; that run bitwise the same on every
// transport through a forced repartition, nvshmem's regular steps one launch without host waits, and a
// continuation from a checkpoint (xi and vxi in it) the uninterrupted run's energies bit for bit.
TEST(CudaDomains, NoseHooverOnDomainsFollowsGromacsAndEveryTransportGivesTheSameBits) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_nosehoover");
  std::string log;
  ASSERT_EQ(run_halomd_under(mpirun(4), "bonded/solvated", "../../nosehoover/two_groups.mdp", {},
                             out + "/path", "--backend cuda --transport mpi_staged --dd 2 2 1", &log),
            0)
      << log;
  auto e = read_csv(out + "/path/energy.csv");
  expect_group_rows_like_gromacs(e, "nosehoover/two_groups.txt", "t_Protein", "t_Non-Protein",
                                 kGpuPathsEnergyRelTol, kGpuThermostatRelTol);
  EXPECT_GT(e["t_Protein"].back() - e["t_Protein"].front(), 50.0)
      << "the thermostat did not heat the protein";

  const std::string mdp = "../nosehoover/water_nst5.mdp";
  const std::map<std::string, std::string> graphs = {{"nsteps", "60"},        {"nstlist", "10"},
                                                     {"nstcalcenergy", "10"}, {"nstenergy", "10"},
                                                     {"nstcheckpoint", "20"}, {"nstxout-compressed", "10"}};
  // The first 30 steps against one GPU (float paths part slowly: one GPU's bounds hold this far; 300 K
  // heated towards 350 K by ~10 K).
  std::map<std::string, std::string> short_run = graphs;
  short_run["nsteps"] = "30";
  std::map<std::string, std::vector<double>> dd;
  expect_domains_like_one_gpu(out, "spce_9k", mdp, short_run, dd);
  EXPECT_GT(dd["temperature"].back() - dd["temperature"].front(), 5.0) << "the thermostat did not heat";
  const std::string repartition = "HALOMD_TEST_FAIL_SKIN_CHECK_AT=30 ";
  expect_transports_give_the_same_bits(
      out, "spce_9k", mdp, graphs, each_transport(repartition), repartition,
      {"energy.csv", "traj.xtc", "confout.gro"}, [](const TransportRun& run, const std::string& json) {
        EXPECT_GE(json_number(json, "repartitions"), 2.0) << run.transport << "\n" << json;
      });
  // Killed before step 27 after the checkpoint at 20 (between the couplings of steps 16 and 21), continued.
  expect_continuation_gives_the_same_energies(out, repartition, "spce_9k", mdp, graphs, 27,
                                              transports().size());
}

// pcoupl = Parrinello-Rahman on GPU domains (Nose-Hoover, test_parrinello's paths): a coupling step runs
// kernel by kernel with its velocity term in the update's arguments, and after it the home atoms' positions
// are scaled and the plan is reboxed in place (scale() in cuda_dd_executor.cpp). spce_9k on 2x2x1, isotropic
// and semi-isotropic, coupled every step, against one GPU (every row's energies, pressure and box); coupled
// every fifth step with graph steps between, bitwise the same on every transport, nvshmem's regular steps one
// launch without host waits, and a continuation from a checkpoint the uninterrupted run's energies bit for
// bit.
TEST(CudaDomains, ParrinelloRahmanOnDomainsFollowsTheSingleGpuAndEveryTransportGivesTheSameBits) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_parrinello");
  std::string log;
  for (const std::string name : {"iso", "semi"}) {
    SCOPED_TRACE(name);
    const std::string mdp = "../parrinello/" + name + ".mdp";
    const std::map<std::string, std::string> set = {{"nsteps", "40"}};
    ASSERT_EQ(run_halomd("spce_9k", mdp, set, out + "/one_" + name, "--backend cuda", &log), 0) << log;
    ASSERT_EQ(run_halomd_under(mpirun(4), "spce_9k", mdp, set, out + "/dd_" + name,
                               "--backend cuda --transport mpi_staged --dd 2 2 1", &log),
              0)
        << log;
    auto ref = read_csv(out + "/one_" + name + "/energy.csv"),
         e = read_csv(out + "/dd_" + name + "/energy.csv");
    expect_energy_rows_like_one_gpu(e, ref);
    // The box shrinks from -750 bar: by ~5e-3 nm in 40 steps, far beyond the box's bound.
    EXPECT_GT(e["box_x"].front() - e["box_x"].back(), 300 * kGpuBoxAbsTol) << "the box did not change";
    const std::string json = read_text(out + "/dd_" + name + "/run.json");
    // Each coupling step reboxed the plan in place (but where a cell count of the search grid changed).
    EXPECT_GE(json_number(json, "box_rescales"), 20.0) << json;
    EXPECT_LT(json_number(json, "repartitions"), json_number(json, "box_rescales")) << json;
  }
  const std::map<std::string, std::string> graphs = {{"nsteps", "40"},        {"nstlist", "10"},
                                                     {"nstcalcenergy", "5"},  {"nstenergy", "5"},
                                                     {"nstcheckpoint", "20"}, {"nstxout-compressed", "10"}};
  const std::string mdp = "../parrinello/iso_nst5.mdp";
  expect_transports_give_the_same_bits(out, "spce_9k", mdp, graphs, each_transport(""), "",
                                       {"energy.csv", "traj.xtc", "confout.gro"});
  // Killed before step 27 after the checkpoint at 20 (the box velocity and the pressure that the coupling of
  // step 21 reads), then continued from it.
  expect_continuation_gives_the_same_energies(out, "", "spce_9k", mdp, graphs, 27, transports().size());
}

// Virtual sites on GPU domains (TIP4P and TIP5P: test_vsite's 3 nm boxes replicated 2x2x1 by halomd genconf,
// 14,544 and 18,180 atoms): each domain spreads its home sites' forces, what the force halo brought back
// included, onto their atoms (home too: one update group) and places the sites again after the update. On
// 2x2x1 against one GPU: step 0 with PME and with reaction field (each term within the mixed-precision
// tolerance, the pressure), and 20 steps of NVE with reaction field (every step's potential within float
// rounding). TIP4P bitwise the same on every transport through a forced repartition (the exchange packs the
// sites: no prepacking by the update), nvshmem's regular steps one launch without host waits, and a
// continuation from a checkpoint the uninterrupted run's energies bit for bit.
TEST(CudaDomains, VirtualSitesOnDomainsFollowTheSingleGpuAndEveryTransportGivesTheSameBits) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_vsite");
  std::string log;
  for (const std::string model : {"tip4p", "tip5p"}) {
    SCOPED_TRACE(model);
    const std::string sys = out + "/" + model;  // absolute: data_path takes it as it is
    std::filesystem::create_directories(sys);
    const std::string from = data_path("vsite/" + model);
    ASSERT_EQ(run_command(std::string(HALOMD_BIN) + " genconf -c " + from + "/conf.gro -p " + from +
                              "/topol.top --nbox 2 2 1 -o " + sys + "/big",
                          &log),
              0)
        << log;
    std::filesystem::rename(sys + "/big.gro", sys + "/conf.gro");
    std::filesystem::rename(sys + "/big.top", sys + "/topol.top");
    for (const char* mdp : {"step0.mdp", "step0_rf.mdp", "nve.mdp"})
      std::filesystem::copy_file(from + "/" + mdp, sys + "/" + mdp);
    const std::map<std::string, std::string> path = {
        {"nsteps", "20"}, {"nstcalcenergy", "1"}, {"nstenergy", "1"}};
    for (const auto& [mdp, set] :
         {std::pair<std::string, std::map<std::string, std::string>>{"step0.mdp", {}},
          {"step0_rf.mdp", {}},
          {"nve.mdp", path}}) {
      SCOPED_TRACE(mdp);
      const std::string tag = model + "_" + mdp;
      ASSERT_EQ(run_halomd(sys, mdp, set, out + "/one_" + tag, "--backend cuda", &log), 0) << log;
      ASSERT_EQ(run_halomd_under(mpirun(4), sys, mdp, set, out + "/dd_" + tag,
                                 "--backend cuda --transport mpi_staged --dd 2 2 1", &log),
                0)
          << log;
      auto ref = read_csv(out + "/one_" + tag + "/energy.csv"),
           e = read_csv(out + "/dd_" + tag + "/energy.csv");
      ASSERT_EQ(e["step"].size(), ref["step"].size());
      for (const char* term : {"lj_sr", "coulomb_sr", "coul_recip", "potential"})
        EXPECT_LT(rel(e[term][0], ref[term][0]), kEnergyRelTol)
            << term << ": " << e[term][0] << " vs one GPU " << ref[term][0];
      EXPECT_LT(rel(e["kinetic"][0], ref["kinetic"][0]), kKineticRelTol);
      EXPECT_NEAR(e["pressure"][0], ref["pressure"][0], kGpuPressureAbsTol);
      for (size_t k = 1; k < e["step"].size(); ++k)
        EXPECT_LT(rel(e["potential"][k], ref["potential"][k]), 2e-5) << "step " << e["step"][k];
    }
  }
  const std::string sys = out + "/tip4p";
  const std::map<std::string, std::string> graphs = {{"nsteps", "30"},        {"nstlist", "10"},
                                                     {"nstcalcenergy", "10"}, {"nstenergy", "10"},
                                                     {"nstcheckpoint", "20"}, {"nstxout-compressed", "10"}};
  const std::string repartition = "HALOMD_TEST_FAIL_SKIN_CHECK_AT=20 ";
  expect_transports_give_the_same_bits(out, sys, "nve.mdp", graphs, each_transport(repartition), repartition,
                                       {"energy.csv", "traj.xtc", "confout.gro"});
  expect_continuation_gives_the_same_energies(out, repartition, sys, "nve.mdp", graphs, 27,
                                              transports().size());
}

// A GPU-only search step without energies of a device-initiated transport is one graph launch
// (HALOMD_DD_SEARCH_GRAPH, default 1; one in eight of them still runs kernel by kernel, its phases timed),
// recorded again after each repartition: the same kernels as kernel by kernel, so the same bits. Searches
// every 10 steps, energies every 30 and the centre of mass removed every 20 (coupling every 15 sums only at
// steps that are energy steps here): of the GPU-only searches 10-110, 30, 60 and 90 have energies, 20, 40,
// 80 and 100 sum over domains at their end and 50, 70 and 110 do not, so both of the search step's graphs
// run (10 runs kernel by kernel, its phases timed). The skin check of step 50 is made to fail: with
// speculative checks (the default) step 50's search, a graph, is rolled back at step 60 and repartitioned;
// with waiting ones (HALOMD_DD_SPECULATE=0) it repartitions at once. Either way the graphs are recorded
// again for the new plan.
TEST(CudaDomains, GpuOnlySearchStepsAsGraphsGiveTheBitsOfKernelByKernel) {
  SKIP_WITHOUT_GPU_AND_MPI();
#if !HALOMD_HAVE_NVSHMEM
  GTEST_SKIP() << "this build has no NVSHMEM";
#else
  const std::string out = make_temp_dir("cuda_dd_search_graph");
  const std::map<std::string, std::string> set = {
      {"nsteps", "120"},       {"nstenergy", "30"},   {"nstcalcenergy", "30"}, {"nstxout-compressed", "40"},
      {"tcoupl", "v-rescale"}, {"tc-grps", "System"}, {"tau-t", "0.1"},        {"ref-t", "300"},
      {"nsttcouple", "15"},    {"nstcomm", "20"},     {"ld-seed", "11"}};
  std::string log;
  for (const std::string t : {"nvshmem", "nvshmem_put"}) {
    std::string first;
    double launches_speculative = -1.0;
    for (const std::string variant : {"HALOMD_DD_SEARCH_GRAPH=0", "", "HALOMD_DD_SPECULATE=0"}) {
      const std::string env = variant + " HALOMD_TEST_FAIL_SKIN_CHECK_AT=50";
      const std::string dir = out + "/" + t +
                              (variant.empty()                             ? "_graph"
                               : variant.find("SPEC") != std::string::npos ? "_graph_waiting"
                                                                           : "_kernels");
      ASSERT_EQ(run_halomd_under(env + " " + mpirun(4), "spce_9k", "nve.mdp", set, dir,
                                 "--backend cuda --transport " + t + " --dd 2 2 1", &log),
                0)
          << env << " " << t << ":\n"
          << log;
      const std::string json = read_text(dir + "/run.json");
      const double graphs = json_number(json, "gpu_only_search_graph_launches");
      EXPECT_GE(json_number(json, "repartitions"), 2.0) << t << " " << env << "\n" << json;
      if (variant.find("SEARCH_GRAPH=0") != std::string::npos) {
        EXPECT_EQ(graphs, 0.0) << t << " " << env << "\n" << json;
        EXPECT_EQ(json_number(json, "search_graph_recordings"), 0.0) << t << " " << env << "\n" << json;
      } else {
        // Graphs before step 50 (20, 40) and after the repartition there (70 and later); energy steps and
        // the first of each count of eight kernel by kernel.
        EXPECT_GE(graphs, 4.0) << t << " " << env << "\n" << json;
        EXPECT_LT(graphs, json_number(json, "gpu_only_searches")) << t << " " << env << "\n" << json;
        // Both graphs recorded before the repartition at 50 or 60 and again after it.
        EXPECT_GE(json_number(json, "search_graph_recordings"), 3.0) << t << " " << env << "\n" << json;
        // The rolled-back launch of step 50 is not counted: the same launches as waiting for every check.
        if (variant.empty()) {
          launches_speculative = graphs;
        } else {
          EXPECT_EQ(graphs, launches_speculative) << t << " " << env << "\n" << json;
        }
      }
      if (first.empty()) {
        first = dir;
        continue;
      }
      expect_same_outputs(first, dir);
    }
  }
#endif
}

// A search that finds the atoms within the skin's drift since the last repartition (domdec/drift.h) keeps
// the plan and rebuilds only the pair list, on the GPU (cuda_dd_executor.cpp). The plan then still holds
// every pair within rlist, so the energies are those of repartitioning at every search
// (HALOMD_DD_SKIN=0): the same pairs, in other domains' frames, so equal up to float rounding. Energies
// are compared between searches too (nstenergy 5 with nstlist 10), where a pair missed beyond the cut-off
// at a search would have come within it; and some kept plan must have seen an atom move further than the
// skin, which only the drift rule allows.
TEST(CudaDomains, APlanKeptWithinTheSkinGivesTheEnergiesOfRepartitioningAtEverySearch) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_skin");
  const std::map<std::string, std::string> set = {
      {"nsteps", "100"}, {"nstenergy", "5"}, {"nstcalcenergy", "5"}, {"nstlist", "10"}};
  std::string log;
  for (const char* skin : {"0", "0.15"}) {
    ASSERT_EQ(run_halomd_under(std::string("HALOMD_DD_AHEAD=0 HALOMD_DD_SKIN=") + skin + " " + mpirun(4),
                               "spce_9k", "nve.mdp", set, out + "/skin" + skin,
                               "--backend cuda --transport mpi_staged --dd 2 2 1", &log),
              0)
        << log;
  }
  // Plans built ahead from the positions of one search and put in at the next: they too hold every pair.
  // The commit of step 50 is made to fail its displacement check (HALOMD_TEST_FAIL_SKIN_CHECK_AT): that
  // search repartitions from the atoms' present state instead.
  ASSERT_EQ(run_halomd_under("HALOMD_DD_AHEAD=0.01 HALOMD_DD_AHEAD_SEARCHES=1 HALOMD_DD_SKIN=0.25 "
                             "HALOMD_TEST_FAIL_SKIN_CHECK_AT=50 " +
                                 mpirun(4),
                             "spce_9k", "nve.mdp", set, out + "/ahead",
                             "--backend cuda --transport mpi_staged --dd 2 2 1", &log),
            0)
      << log;
  const std::string kept = read_text(out + "/skin0.15/run.json"), every = read_text(out + "/skin0/run.json");
  EXPECT_EQ(json_number(every, "gpu_only_searches"), 0.0) << every;
  EXPECT_GE(json_number(every, "repartitions"), 10.0) << every;
  const std::string ahead = read_text(out + "/ahead/run.json");
  for (const std::string& json : {kept, ahead}) {
    EXPECT_EQ(json_number(json, "gpu_only_searches") + json_number(json, "repartitions"),
              json_number(every, "repartitions"))
        << json;
  }
  EXPECT_LE(json_number(kept, "max_drift_kept_nm"), 0.15) << kept;
  EXPECT_LE(json_number(ahead, "max_drift_kept_nm"), 0.25) << ahead;
  EXPECT_GT(json_number(kept, "gpu_only_searches"), 0.0) << kept;
  EXPECT_GT(json_number(kept, "max_displacement_kept_nm"), 0.15) << kept;
  EXPECT_EQ(json_number(kept, "committed"), 0.0) << kept;
  EXPECT_GE(json_number(ahead, "committed"), 2.0) << ahead;
  EXPECT_GE(json_number(ahead, "dropped"), 1.0) << ahead;
  auto b = read_csv(out + "/skin0/energy.csv");
  for (const char* run : {"/skin0.15", "/ahead"}) {
    auto a = read_csv(out + run + "/energy.csv");
    ASSERT_EQ(a["step"].size(), b["step"].size()) << run;
    for (size_t k = 0; k < a["step"].size(); ++k)
      for (const char* term : {"potential", "total"})
        EXPECT_LT(rel(a[term][k], b[term][k]), 1e-5) << run << ": " << term << " at step " << a["step"][k];
  }
}

// A run continued from a checkpoint (written at a search step) is the run that went through, bitwise: the
// continuation repartitions at its first step, and so does the uninterrupted run after it saved the
// checkpoint, in the same search box (its size no longer follows the molecule margin at load, which made the
// restart step's Coulomb energy differ by ~1e-8 relative until 218bb92; bitwise with reaction field and PME
// on an H100 on 2026-12-05). The tolerances below say how far apart a broken continuation is.
TEST(CudaDomains, ContinuationFromACheckpointFollowsTheUninterruptedRun) {
  SKIP_WITHOUT_GPU_AND_MPI();
  // With reaction field and with PME (whose grid sum and mesh stream a continuation starts afresh).
  for (const std::string coulomb : {"Reaction-Field", "PME"}) {
    SCOPED_TRACE(coulomb);
    const std::string out = make_temp_dir("cuda_dd_restart_" + coulomb);
    const std::map<std::string, std::string> set = {{"nsteps", "200"},       {"nstenergy", "10"},
                                                    {"nstcalcenergy", "10"}, {"nstxout-compressed", "20"},
                                                    {"nstcheckpoint", "50"}, {"tcoupl", "v-rescale"},
                                                    {"tc-grps", "System"},   {"tau-t", "0.1"},
                                                    {"ref-t", "300"},        {"ld-seed", "5"},
                                                    {"coulombtype", coulomb}};
    const std::string args = "--backend cuda --transport " + transports().back() + " --dd 2 2 1";
    std::string log;
    ASSERT_EQ(run_halomd_under(mpirun(4), "spce_9k", "nve.mdp", set, out + "/full", args, &log), 0) << log;
    // The interrupted run dies before step 130; its last checkpoint is at step 100 (a search step).
    EXPECT_NE(run_halomd_under(mpirun(4), "spce_9k", "nve.mdp", set, out + "/part",
                               args + " --stop-at-step 130", &log),
              0);
    ASSERT_EQ(run_halomd_under(mpirun(4), "spce_9k", "nve.mdp", set, out + "/part",
                               args + " --cpi " + out + "/part/state.cpt", &log),
              0)
        << log;
    const std::string json = read_text(out + "/full/run.json");
    EXPECT_GT(json_number(json, "gpu_only_searches"), 0.0)
        << "the plan was never kept: the test shows nothing\n"
        << json;
    auto a = read_csv(out + "/full/energy.csv"), b = read_csv(out + "/part/energy.csv");
    ASSERT_EQ(a["step"], b["step"]);
    for (size_t k = 0; k < a["step"].size(); ++k) {
      for (const char* term : {"potential", "kinetic", "conserved"})
        EXPECT_LT(rel(b[term][k], a[term][k]), 1e-6) << term << " at step " << a["step"][k];
      if (a["step"][k] < 100) {  // before the checkpoint: the same run
        EXPECT_EQ(b["potential"][k], a["potential"][k]) << "step " << a["step"][k];
      }
    }
    EXPECT_EQ(read_text(out + "/full/traj.xtc").size(), read_text(out + "/part/traj.xtc").size());
    const io::GroFile ga = io::read_gro(out + "/full/confout.gro"),
                      gb = io::read_gro(out + "/part/confout.gro");
    ASSERT_EQ(ga.x.size(), gb.x.size());
    double dx = 0.0;  // minimum image: a molecule on a face may be put in the box on either side
    for (size_t i = 0; i < ga.x.size(); ++i) {
      Vec3 d = ga.x[i] - gb.x[i];
      for (int k = 0; k < 3; ++k) d[k] -= ga.box.len[k] * std::round(d[k] / ga.box.len[k]);
      dx = std::max(dx, std::sqrt(norm2(d)));
    }
    EXPECT_LT(dx, 2e-3) << "largest position difference after 100 continued steps (nm)";
    expect_same_outputs(out + "/full", out + "/part", {"energy.csv", "traj.xtc"});
  }
}

// The counters of ../shared/BENCH.md on regular steps, with v-rescale on: nvshmem needs no host sync, no
// MPI wait and one launch (the step's CUDA graph, reductions included); mpi_staged waits on the host.
TEST(CudaDomains, NvshmemRegularStepsNeedNoHostSyncNoMpiWaitAndOneLaunch) {
  SKIP_WITHOUT_GPU_AND_MPI();
#if !HALOMD_HAVE_NVSHMEM
  GTEST_SKIP() << "this build has no NVSHMEM";
#else
  const std::string out = make_temp_dir("cuda_dd_counters");
  const std::map<std::string, std::string> set = {
      {"nsteps", "200"},     {"nstenergy", "100"}, {"nstcalcenergy", "100"}, {"tcoupl", "v-rescale"},
      {"tc-grps", "System"}, {"tau-t", "0.1"},     {"ref-t", "300"},         {"nsttcouple", "10"}};
  std::string log;
  for (const std::string t : {"nvshmem", "nvshmem_put", "mpi_staged"}) {
    ASSERT_EQ(run_halomd_under(mpirun(4), "spce_9k", "nve.mdp", set, out + "/" + t,
                               "--backend cuda --transport " + t + " --dd 2 2 1", &log),
              0)
        << log;
    const std::string json = read_text(out + "/" + t + "/run.json");
    if (t == "mpi_staged") {
      EXPECT_GT(json_number(json, "host_syncs_per_step"), 0.0) << json;
      EXPECT_GT(json_number(json, "mpi_waits_per_step"), 0.0) << json;
      continue;
    }
    EXPECT_EQ(json_number(json, "host_syncs_per_step"), 0.0) << t << "\n" << json;
    EXPECT_EQ(json_number(json, "mpi_waits_per_step"), 0.0) << t << "\n" << json;
    EXPECT_EQ(json_number(json, "launches_per_step"), 1.0) << t << "\n" << json;
    EXPECT_GT(json_number(json, "halo_bytes_per_step"), 0.0) << t << "\n" << json;
  }
#endif
}

// With a device-initiated transport a search need not wait for its skin check (HALOMD_DD_SPECULATE): it
// goes ahead as if the plan held, and when the check, read later, finds an atom beyond the skin, every rank
// rolls back to that search and repartitions there. Either way the trajectory is that of waiting for every
// check, bitwise (state.cpt holds x and v in full precision). The small skin makes both outcomes happen at
// searches; the check of step 20 is made to fail (HALOMD_TEST_FAIL_SKIN_CHECK_AT, in both runs), and as step
// 20 is no energy step, its speculation is settled by the frame of step 25: a rollback outside a search.
TEST(CudaDomains, SpeculativeSkinChecksGiveTheTrajectoryOfWaitingOnes) {
  SKIP_WITHOUT_GPU_AND_MPI();
#if !HALOMD_HAVE_NVSHMEM
  GTEST_SKIP() << "this build has no NVSHMEM";
#else
  const std::string out = make_temp_dir("cuda_dd_speculate");
  const std::map<std::string, std::string> set = {
      {"nsteps", "200"},       {"nstenergy", "15"},   {"nstcalcenergy", "5"}, {"nstxout-compressed", "25"},
      {"tcoupl", "v-rescale"}, {"tc-grps", "System"}, {"tau-t", "0.1"},       {"ref-t", "300"},
      {"nsttcouple", "10"},    {"ld-seed", "5"},      {"gen-seed", "6"}};
  std::string log;
  // Twice: as is, and with plans built ahead (started once a check finds an atom beyond 0.3 of the skin, put
  // in at the next search unless a failed check repartitions first, which drops them; with this skin, two
  // searches later was too late for every one of them).
  for (const std::string ahead : {"", "HALOMD_DD_AHEAD=0.3 HALOMD_DD_AHEAD_SEARCHES=1 "}) {
    const std::string tag = ahead.empty() ? "" : "_ahead";
    for (const char* spec : {"0", "1"}) {
      ASSERT_EQ(run_halomd_under(ahead + "HALOMD_DD_SKIN=0.15 HALOMD_TEST_FAIL_SKIN_CHECK_AT=20 " +
                                     "HALOMD_DD_SPECULATE=" + spec + " " + mpirun(4),
                                 "spce_9k", "nve.mdp", set, out + "/spec" + spec + tag,
                                 "--backend cuda --transport nvshmem --dd 2 2 1", &log),
                0)
          << log;
    }
    const std::string wait = read_text(out + "/spec0" + tag + "/run.json"),
                      spec = read_text(out + "/spec1" + tag + "/run.json");
    EXPECT_EQ(json_number(wait, "speculative_checks"), 0.0) << wait;
    // The forced failure at step 20 is settled by the frame of step 25 in either set; the default set also
    // has checks that fail by themselves (plans ahead keep their references closer).
    EXPECT_GT(json_number(spec, "rollbacks"), ahead.empty() ? 1.0 : 0.0) << spec;
    EXPECT_GT(json_number(spec, "rollbacks_outside_searches"), 0.0) << spec;
    EXPECT_GT(json_number(spec, "speculative_checks"), json_number(spec, "rollbacks")) << spec;
    if (!ahead.empty()) {
      EXPECT_GE(json_number(spec, "committed"), 1.0) << spec;
      EXPECT_GE(json_number(spec, "dropped"), 1.0) << spec;
    }
    EXPECT_EQ(json_number(spec, "repartitions"), json_number(wait, "repartitions")) << spec << wait;
    EXPECT_EQ(json_number(spec, "gpu_only_searches"), json_number(wait, "gpu_only_searches")) << spec << wait;
    EXPECT_EQ(json_number(spec, "committed"), json_number(wait, "committed")) << spec << wait;
    expect_same_outputs(out + "/spec0" + tag, out + "/spec1" + tag,
                        {"energy.csv", "traj.xtc", "confout.gro", "state.cpt"});
  }
#endif
}

// The host and the update kernel each decide whether a step sums over domains (the same formula, since the
// host enqueues the reduction and the end of the step only for such steps). Made to disagree at one step
// (HALOMD_TEST_FLIP_REDUCE_AT), the run stops naming that step, on the first and the last transport (a
// device-initiated one where NVSHMEM is built), instead of going on with a step counter that skipped or
// repeated a step.
TEST(CudaDomains, AHostAndDeviceDisagreementOnSummingOverDomainsStopsTheRun) {
  SKIP_WITHOUT_GPU_AND_MPI();
  const std::string out = make_temp_dir("cuda_dd_reduce_guard");
  const std::map<std::string, std::string> set = {
      {"nsteps", "40"},      {"nstenergy", "20"}, {"nstcalcenergy", "20"}, {"tcoupl", "v-rescale"},
      {"tc-grps", "System"}, {"tau-t", "0.1"},    {"ref-t", "300"},        {"nsttcouple", "10"}};
  std::string log;
  for (const std::string& t : {transports().front(), transports().back()}) {
    EXPECT_NE(run_halomd_under("HALOMD_TEST_FLIP_REDUCE_AT=13 " + mpirun(4), "spce_9k", "nve.mdp", set,
                               out + "/" + t, "--backend cuda --transport " + t + " --dd 2 2 1", &log),
              0)
        << log;
    EXPECT_NE(log.find("step 13"), std::string::npos) << t << ":\n" << log;
    EXPECT_NE(log.find("disagree on whether this step sums over domains"), std::string::npos) << t << ":\n"
                                                                                              << log;
  }
}

#else
TEST(CudaDomains, NeedsCuda) { GTEST_SKIP() << "this build has no CUDA backend"; }
#endif

}  // namespace
}  // namespace halomd::test
