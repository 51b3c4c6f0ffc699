// NVSHMEM between MPI ranks (`halomd devices --check-nvshmem`): every rank sends to the next through
// put-with-signal and through direct stores into the peer's symmetric memory, the receiver waits for the
// signal on the device and checks every value. Needs a GPU, MPI and NVSHMEM in the build (ctest label "gpu");
// ranks that share one GPU need the MPS daemon running (bench/device_check.sh starts it).
#include <gtest/gtest.h>

#include <string>

#include "cuda/device_info.h"
#include "support/test_support.h"

namespace halomd {
namespace {

#if HALOMD_HAVE_NVSHMEM
int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
#endif

TEST(Nvshmem, RingOfPutWithSignalAndDirectStoresDeliversEveryValue) {
#if !HALOMD_HAVE_NVSHMEM
  GTEST_SKIP() << "this build has no NVSHMEM";
#else
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  std::string log;
  const std::string cmd = "timeout 120 " + std::string(HALOMD_MPIEXEC) +
                          " --oversubscribe --allow-run-as-root --bind-to none -n 2 " + HALOMD_BIN +
                          " devices --check-nvshmem 2>&1";
  const int rc = test::run_command(cmd, &log);
  ASSERT_EQ(rc, 0) << log;
  EXPECT_EQ(count(log, "by nvshmemx_putmem_signal_nbi_block correct"), 2) << log;
  EXPECT_EQ(count(log, "by direct stores + signal correct"), 2) << log;
#endif
}

}  // namespace
}  // namespace halomd
