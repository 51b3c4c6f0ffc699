// The pair search on the GPU, every nstlist steps: atoms are binned into a grid of cells of at least
// rlist / reach (SearchParams::reach, per dimension), sorted by cell (and by atom index within a cell, so the
// order is deterministic), and one warp per atom collects its neighbours within rlist from the cells around
// it that the sphere of radius rlist reaches, grouped by periodic shift, dealing them to the atom's tpa list
// lanes one entry at a time (so the lanes end within one entry of each other, then padded to whole groups).
#pragma once

#include "cuda/device_data.h"
#include "gpu/gpu_calls.h"

namespace halomd::cuda {

// Lane t (atom t / tpa, tpa lanes per atom) holds groups[t] groups of kListGroup entries; group g is at
// list + (((t / 32) * cap_groups + g) * 32 + t % 32) * kListGroup, so a warp reads one group of all its
// lanes as 1 KiB in a row. An entry is either a sorted atom index j >= 0 or a marker -(code + 1) that sets
// the image shift of the entries after it (every lane starts with no shift): code = (sx + 1) + 3 (sy + 1) +
// 9 (sz + 1), and the neighbour then sits at x_j + (sx Lx, sy Ly, sz Lz); the last group is padded with
// markers that repeat the current shift. Excluded pairs and the atom itself are left out.
void launch_pair_search(gpu::GpuCalls& calls, const SearchParams& p);

// The shift code of no shift.
constexpr int kNoShift = 13;

#if defined(__CUDACC__)
__device__ inline int4* list_group(int* list, int t, int cap_groups, int g) {
  return reinterpret_cast<int4*>(list + ((static_cast<size_t>(t >> 5) * cap_groups + g) * 32 + (t & 31)) *
                                            kListGroup);
}
#endif

}  // namespace halomd::cuda
