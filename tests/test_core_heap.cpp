// core/heap.h: with halomd's malloc options, heap that prefault_heap faulted in serves later, larger
// allocations without page faults (what keeps a repartition's growing vectors off fresh pages).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <vector>

#include "core/heap.h"

namespace halomd {
namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// The page faults taken to allocate and write `mib` vectors of 1 MiB, all alive at once, then freed.
long faults_for(int mib) {
  const long before = minor_faults();
  {
    std::vector<std::vector<char>> v;
    for (int k = 0; k < mib; ++k) v.emplace_back(size_t{1} << 20, 1);
  }
  return minor_faults() - before;
}

TEST(Heap, PrefaultedHeapServesLaterGrowthWithoutFaults) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "AddressSanitizer's allocator ignores glibc's malloc options";
#endif
  keep_freed_memory();
  const long fresh = faults_for(48);  // the heap grows by 48 MiB: ~12k pages of 4 kB
  if (fresh < 1000) GTEST_SKIP() << "48 MiB of fresh heap took " << fresh << " faults (huge pages?)";
  EXPECT_LT(faults_for(48), fresh / 10) << "freed pages were not kept";
  // 128 MiB, more than the heap ever held: without the reserve the 80 MiB beyond the kept 48 would be fresh.
  prefault_heap(size_t{160} << 20, false);
  EXPECT_LT(faults_for(128), fresh / 10);
  // A reserve marked for huge pages serves the same way (with or without the kernel's huge pages).
  prefault_heap(size_t{320} << 20, true);
  EXPECT_LT(faults_for(256), fresh / 10);
}

}  // namespace
}  // namespace halomd
