// The process heap's pages: kept once faulted in. Fresh pages cost ~2.5 us each to fault in on the GPU
// machine's virtual machines (an MPI exchange of 560 kB took 857 us from fresh buffers against 140 us from
// used ones there; bench/NOTES.md, fifteenth session), and a repartition of a domain builds ~10 MB of
// vectors.
#pragma once

#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace halomd {

// Freed memory stays with the process for the next allocation. Without this, glibc maps large blocks anew
// and returns the heap's top to the system. Called first thing by halomd's main.
inline void keep_freed_memory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // blocks below 32 MiB come from the heap (its largest setting)
  mallopt(M_TRIM_THRESHOLD, 1 << 30);   // and the heap keeps up to 1 GiB free at its top
  mallopt(M_TOP_PAD, 16 << 20);
}

// Faults in `bytes` of heap and frees them again: after keep_freed_memory() the pages stay with the process,
// so the next allocations up to about that size take no page faults. The repartitions of a run's domains
// grow their vectors window after window, and each growth otherwise took fresh pages (~140-320 faults per
// repartition at 45k atoms on 4 GPU domains; bench/NOTES.md, nineteenth session). huge_pages: the reserve
// is first marked for transparent huge pages (madvise; where the kernel's setting allows them), so that
// what is later allocated in it costs fewer TLB misses; whether that pays is the GPU machine's to say (the
// same NOTES section).
inline void prefault_heap(size_t bytes, bool huge_pages) {
  constexpr size_t kBlock = size_t{16} << 20;  // below the mmap threshold: from the heap, one after another
  constexpr size_t kPage = 4096, kHuge = size_t{2} << 20;
  std::vector<char*> blocks;
  for (size_t done = 0; done < bytes; done += kBlock) {
    char* p = static_cast<char*>(malloc(kBlock));
    if (p == nullptr) break;
    blocks.push_back(p);
  }
  if (blocks.empty()) return;
  if (huge_pages) {
    const auto [lo, hi] = std::minmax_element(blocks.begin(), blocks.end());
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(*lo) + kHuge - 1) / kHuge * kHuge;
    const uintptr_t end = (reinterpret_cast<uintptr_t>(*hi) + kBlock) / kHuge * kHuge;
    // Advice only: a kernel without transparent huge pages refuses it, and 4 kB pages serve as before. The
    // blocks may not be contiguous; advice over a gap of unmapped memory fails with ENOMEM after applying
    // to what is mapped.
    if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
  for (char* p : blocks) {
    volatile char* c = p;  // stores the compiler may not drop
    for (size_t at = 0; at < kBlock; at += kPage) c[at] = 0;
  }
  for (char* p : blocks) free(p);
}

}  // namespace halomd
