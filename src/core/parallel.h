// Host loops over a domain's atoms on several OpenMP threads, with results that do not depend on the thread
// count: a loop is cut into contiguous chunks fixed by its length and the thread count, each chunk writes
// only its own elements, and compactions place each chunk's output after the chunks before it. A
// repartition's host work is such loops over memory a run has not touched for a window of steps
// (bench/NOTES.md, fifteenth and nineteenth sessions).
#pragma once

#include <algorithm>
#include <cstdint>

namespace halomd {

// Iterations a chunk gets at least: below that, waking another thread costs more than it saves.
constexpr int64_t kMinChunk = 2048;

// How many chunks a loop of n iterations is cut into with `threads` threads.
inline int chunk_count(int64_t n, int threads) {
  return static_cast<int>(std::clamp<int64_t>(n / kMinChunk, 1, std::max(threads, 1)));
}

// Calls body(begin, end, k) for chunk k = 0 .. chunks - 1 of [0, n), [n k / chunks, n (k + 1) / chunks), each
// chunk on its own OpenMP thread (in the calling thread when chunks is 1). The body must not throw: an
// exception cannot leave an OpenMP region (record the failure and throw after the loop).
template <class Body>
void for_chunks(int64_t n, int chunks, Body&& body) {
  if (chunks <= 1) {
    body(int64_t{0}, n, 0);
    return;
  }
#pragma omp parallel for num_threads(chunks) schedule(static, 1)
  for (int k = 0; k < chunks; ++k) body(n * k / chunks, n * (k + 1) / chunks, k);
}

// body(i) for every i in [0, n), on up to `threads` threads (for_chunks).
template <class Body>
void parallel_for(int64_t n, int threads, Body&& body) {
  for_chunks(n, chunk_count(n, threads), [&body](int64_t begin, int64_t end, int) {
    for (int64_t i = begin; i < end; ++i) body(i);
  });
}

}  // namespace halomd
