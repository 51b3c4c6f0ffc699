// The process heap's pages: kept once faulted in. Fresh pages cost ~2.5 us each to fault in on the GPU
// machine's virtual machines (an MPI exchange of 560 kB took 857 us from fresh buffers against 140 us from
// used ones there; bench/NOTES.md, fifteenth session), and a repartition of a domain builds ~10 MB of
// vectors.
#pragma once

#include <malloc.h>

#include <cstddef>
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
// repartition at 45k atoms on 4 GPU domains; bench/NOTES.md, nineteenth session).
inline void prefault_heap(size_t bytes) {
  constexpr size_t kBlock = size_t{8} << 20;  // below the mmap threshold: from the heap
  constexpr size_t kPage = 4096;
  std::vector<void*> blocks;
  for (size_t done = 0; done < bytes; done += kBlock) {
    void* p = malloc(kBlock);
    if (p == nullptr) break;
    volatile char* c = static_cast<char*>(p);  // stores the compiler may not drop
    for (size_t at = 0; at < kBlock; at += kPage) c[at] = 0;
    blocks.push_back(p);
  }
  for (void* p : blocks) free(p);
}

}  // namespace halomd
