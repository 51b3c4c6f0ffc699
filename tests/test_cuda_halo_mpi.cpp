// The GPU halo transports between MPI ranks (`halomd devices --check-halo NAME`, comm/gpu/gpu_halo_check.h):
// on grids of 2 and 4 ranks (one and two pulses per dimension), every rank's halo coordinates, returned
// forces and sums must equal the in-process reference bit for bit; and a rank that stops taking part must
// make its peers stop with an error naming the pulse and the rank, within the timeout, instead of hanging.
// Needs a GPU and MPI (ctest label "gpu"); ranks that share one GPU want the MPS daemon running
// (bench/device_halo_staged.sh starts it).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#if HALOMD_HAVE_CUDA
#include "cuda/device_info.h"
#endif
#include "support/test_support.h"

#ifndef HALOMD_HAVE_NVSHMEM
#define HALOMD_HAVE_NVSHMEM 0
#endif

namespace halomd {
namespace {

// Every GPU halo transport; those this build lacks are skipped (reported, not silently passed).
const std::vector<std::string> kTransports = {"mpi_staged", "cuda_ipc", "nvshmem", "nvshmem_put"};

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string mpirun(int ranks) {
  return std::string(HALOMD_MPIEXEC) + " --oversubscribe --allow-run-as-root --bind-to none -n " +
         std::to_string(ranks) + " " + HALOMD_BIN + " devices --check-halo ";
}

class GpuHalo : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
#if HALOMD_HAVE_CUDA && HALOMD_HAVE_MPI
    if (GetParam().starts_with("nvshmem") && !HALOMD_HAVE_NVSHMEM)
      GTEST_SKIP() << "this build has no NVSHMEM";
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
#else
    GTEST_SKIP() << "the GPU halo transports need a build with CUDA and MPI";
#endif
  }
  // Runs the check on `ranks` ranks with the extra arguments; every rank must report an exact exchange.
  void expect_exact(int ranks, const std::string& args, const std::string& env = "") {
    std::string log;
    const int rc = test::run_command(env + " timeout 120 " + mpirun(ranks) + GetParam() + " " + args, &log);
    ASSERT_EQ(rc, 0) << log;
    EXPECT_EQ(count(log, "halo coordinates equal the reference exchange"), ranks) << log;
    EXPECT_EQ(count(log, "PME grid sums exact"), ranks) << log;
    if (!env.empty()) EXPECT_EQ(count(log, ": 3 pulses,"), ranks) << log;  // the 2x2x1 direct plan below
  }
};

TEST_P(GpuHalo, TwoRanksExchangeExactly) { expect_exact(2, ""); }

// nvshmem's two forms of the PME grid sum on 4 ranks: slabs (the default: reduce-scatter, then an all-gather
// in float) and all (every grid to every PE, summed in place); the host-orchestrated transports keep their
// in-place sum whatever the setting.
TEST_P(GpuHalo, FourRanksSumTheGridBothWaysExactly) {
  for (const std::string form : {"slabs", "all"}) {
    std::string log;
    const int rc = test::run_command(
        "HALOMD_GRID_SUM=" + form + " timeout 120 " + mpirun(4) + GetParam() + " --dd 2 2 1", &log);
    ASSERT_EQ(rc, 0) << form << "\n" << log;
    EXPECT_EQ(count(log, "halo coordinates equal the reference exchange"), 4) << log;
    const bool slabs = GetParam().starts_with("nvshmem") && form == "slabs";
    EXPECT_EQ(count(log, slabs ? "exact (bits, slabs, in float)" : "exact (bits, in place)"), 4)
        << form << "\n"
        << log;
  }
}

TEST_P(GpuHalo, FourRanksOnATwoByTwoGridExchangeExactly) { expect_exact(4, "--dd 2 2 1"); }

TEST_P(GpuHalo, FourRanksInARowExchangeTwoPulsesExactly) { expect_exact(4, "--dd 4 1 1"); }

// Direct pulses (domdec/halo_plan.h): x, y and the diagonal xy straight from its owner; none forwards, so the
// nvshmem kernels send all three before they wait (ConfigDev::independent).
TEST_P(GpuHalo, FourRanksOnATwoByTwoGridExchangeDirectPulsesExactly) {
  expect_exact(4, "--dd 2 2 1", "HALOMD_DD_DIRECT=1");
}

TEST_P(GpuHalo, AStalledRankStopsItsPeerWithinTheTimeout) {
  std::string log;
  const auto start = std::chrono::steady_clock::now();
  const int rc = test::run_command(
      "HALOMD_HALO_TIMEOUT_MS=2000 HALOMD_HALO_CHECK_STALL_RANK=1 timeout 90 " + mpirun(2) + GetParam(),
      &log);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(rc, 0) << log;
  EXPECT_NE(rc, 124) << "still running after 90 s:\n" << log;
  EXPECT_LT(seconds, 40.0) << log;
  // Rank 0 waits for rank 1, which stalled before its first coordinate pulse of round 1.
  EXPECT_NE(log.find(GetParam() + ": the "), std::string::npos) << log;
  EXPECT_NE(log.find(" from rank 1 did not arrive within 2000 ms"), std::string::npos) << log;
}

INSTANTIATE_TEST_SUITE_P(Transports, GpuHalo, testing::ValuesIn(kTransports),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace halomd
