// The pair search on the GPU, every nstlist steps: atoms are binned into a grid of cells of at least
// rlist / reach (SearchParams::reach, per dimension), sorted by cell (and by atom index within a cell, so the
// order is deterministic), and one warp per atom collects its neighbours within rlist from the cells around
// it that the sphere of radius rlist reaches, grouped by periodic shift, dealing them to the atom's tpa list
// lanes one entry at a time (so the lanes end within one entry of each other, then padded to whole groups).
#pragma once

#include "core/host_device.h"
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

// The cell scan's tiles (blocks) for a grid of ncell cells.
constexpr int kScanTile = 8192;
// Rows per block of the kernels that list the sorted rows by kind (SearchParams::rows).
inline constexpr int kRowListBlock = 1024;
inline int scan_tiles(int ncell) { return (ncell + kScanTile - 1) / kScanTile; }

// The shift code of no shift.
constexpr int kNoShift = 13;

// The chunks of candidates a warp's table in the search holds (SearchParams::chunk_cap at most).
constexpr int kSearchChunkCap = 128;

// The search visits an atom's window of unwrapped cells [lo, hi] per dimension grouped by periodic shift, so
// that one shift's neighbours are consecutive (one marker per shift and list lane). run_counts: how many
// cells of [lo, hi] have shift -1, 0 and +1 (x, y, z); run r (shift r - 1) starts at run_first among them.
HALOMD_HOST_DEVICE inline int3 run_counts(int lo, int hi, int nc) {
  const int below = hi < -1 ? hi : -1, top = hi < nc - 1 ? hi : nc - 1;
  const int start = lo > 0 ? lo : 0, past = lo > nc ? lo : nc;
  int3 c;
  c.x = below - lo + 1 > 0 ? below - lo + 1 : 0;
  c.y = top - start + 1 > 0 ? top - start + 1 : 0;
  c.z = hi - past + 1 > 0 ? hi - past + 1 : 0;
  return c;
}
HALOMD_HOST_DEVICE inline int run_count(const int3& c, int r) { return r == 0 ? c.x : (r == 1 ? c.y : c.z); }
HALOMD_HOST_DEVICE inline int run_first(const int3& c, int r) {
  return r == 0 ? 0 : (r == 1 ? c.x : c.x + c.y);
}

// The place of x-y column (lo_x + ox, lo_y + oy), in x run rx and y run ry, in the order of the search: by x
// run, then y run, then x, then y; cx, cy: run_counts of the window in x and y.
HALOMD_HOST_DEVICE inline int column_place(int ox, int oy, int rx, int ry, const int3& cx, const int3& cy) {
  const int wy = cy.x + cy.y + cy.z, fx = run_first(cx, rx), fy = run_first(cy, ry);
  return fx * wy + run_count(cx, rx) * fy + (ox - fx) * run_count(cy, ry) + (oy - fy);
}

#if defined(__CUDACC__)
__device__ inline int4* list_group(int* list, int t, int cap_groups, int g) {
  return reinterpret_cast<int4*>(list + ((static_cast<size_t>(t >> 5) * cap_groups + g) * 32 + (t & 31)) *
                                            kListGroup);
}
#endif

}  // namespace halomd::cuda
