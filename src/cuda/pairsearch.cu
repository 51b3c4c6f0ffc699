#include "cuda/device_util.cuh"
#include "cuda/pairsearch.h"

namespace halomd::cuda {
namespace {

constexpr int kBlock = 128;

__device__ inline int clamp_int(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Periodic image and cell of each atom (original order); counts atoms per cell. Non-finite or runaway
// positions (a blow-up, reported by the update kernel) are clamped so that nothing is indexed out of range.
__global__ void ns_assign_kernel(SearchParams p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  int k[3], c[3];
  for (int d = 0; d < 3; ++d) {
    double xv = p.x[d][i];
    if (!isfinite(xv)) xv = 0.0;
    const double kd = fmin(fmax(floor(xv / p.len[d]), -1e9), 1e9);
    k[d] = static_cast<int>(kd);
    const double w = xv - kd * p.len[d];
    c[d] = clamp_int(static_cast<int>(fmin(fmax(w * p.cells_per_nm[d], 0.0), 1e9)), 0, p.nc[d] - 1);
  }
  p.img[i] = make_int4(k[0], k[1], k[2], 0);
  const int cell = (c[0] * p.nc[1] + c[1]) * p.nc[2] + c[2];
  p.cell_of[i] = cell;
  p.slot[i] = atomicAdd(&p.cell_count[cell], 1);
}

// Exclusive scan of the cell counts into cell_start (one block of 1024 threads); zeroes the counts for the
// next search and the search statistics.
__global__ void ns_scan_kernel(SearchParams p) {
  __shared__ int warp_sums[32];
  __shared__ int carry;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  if (threadIdx.x == 0) {
    carry = 0;
    p.st->max_list_groups = 0;
    p.st->list_pairs = 0;
  }
  __syncthreads();
  for (int base = 0; base < p.ncell; base += blockDim.x) {
    const int idx = base + threadIdx.x;
    const int v = idx < p.ncell ? p.cell_count[idx] : 0;
    if (idx < p.ncell) {
      p.cell_count[idx] = 0;
      if (p.cell_halo) p.cell_halo[idx] = 0;
    }
    int s = v;  // inclusive scan within the warp
    for (int o = 1; o < 32; o <<= 1) {
      const int t = __shfl_up_sync(0xffffffffu, s, o);
      if (lane >= o) s += t;
    }
    if (lane == 31) warp_sums[warp] = s;
    __syncthreads();
    if (warp == 0) {
      int ws = lane < nwarps ? warp_sums[lane] : 0;
      for (int o = 1; o < 32; o <<= 1) {
        const int t = __shfl_up_sync(0xffffffffu, ws, o);
        if (lane >= o) ws += t;
      }
      warp_sums[lane] = ws;
    }
    __syncthreads();
    const int exclusive = carry + (warp > 0 ? warp_sums[warp - 1] : 0) + s - v;
    if (idx < p.ncell) p.cell_start[idx] = exclusive;
    __syncthreads();
    if (threadIdx.x == blockDim.x - 1) carry = exclusive + v;
    __syncthreads();
  }
  if (threadIdx.x == 0) p.cell_start[p.ncell] = carry;
}

__global__ void ns_scatter_kernel(SearchParams p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  p.order_tmp[p.cell_start[p.cell_of[i]] + p.slot[i]] = i;
}

// The sorted position of each atom: its cell's start plus the number of atoms of the cell with a smaller
// index (the atomic slots above are in no fixed order). Fills the sorted arrays.
__global__ void ns_rank_kernel(SearchParams p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  const int c = p.cell_of[i];
  const int b = p.cell_start[c], e = p.cell_start[c + 1];
  int rank = 0;
  for (int q = b; q < e; ++q) rank += p.order_tmp[q] < i;
  const int s = b + rank;
  p.sorted_of[i] = s;
  p.atom_of[s] = i;
  p.cell_s[s] = c;
  const int4 k = p.img[i];
  p.xq[s] = make_float4(static_cast<float>(p.x[0][i] - k.x * p.len[0]),
                        static_cast<float>(p.x[1][i] - k.y * p.len[1]),
                        static_cast<float>(p.x[2][i] - k.z * p.len[2]), p.qs[i]);
  p.type_s[s] = p.type[i];
  if (p.zone_mask_s) {
    p.zone_mask_s[s] = p.zone_mask[i];
    if (p.cell_halo && p.zone_mask[i] != 0) p.cell_halo[c] = 1;  // every writer stores the same value
  }
}

// Domain decomposition: a cell is interior when no cell within kCellsPerRlist of it (the cells the search
// visits for its atoms, wrapping like the search) holds a halo atom.
__global__ void ns_interior_kernel(SearchParams p) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= p.ncell) return;
  const int cz = c % p.nc[2], cy = (c / p.nc[2]) % p.nc[1], cx = c / (p.nc[2] * p.nc[1]);
  constexpr int r = kCellsPerRlist;
  bool interior = true;
  for (int dx = -r; dx <= r && interior; ++dx)
    for (int dy = -r; dy <= r && interior; ++dy)
      for (int dz = -r; dz <= r; ++dz) {
        const int ux = (cx + dx + p.nc[0]) % p.nc[0], uy = (cy + dy + p.nc[1]) % p.nc[1],
                  uz = (cz + dz + p.nc[2]) % p.nc[2];
        if (p.cell_halo[(ux * p.nc[1] + uy) * p.nc[2] + uz]) {
          interior = false;
          break;
        }
      }
  p.cell_interior[c] = interior ? 1 : 0;
}

// Distance from x to the slab [lo, lo + width] (0 inside).
__device__ inline float gap(float x, float lo, float width) {
  return fmaxf(0.f, fmaxf(lo - x, x - (lo + width)));
}

// Appends a lane's entries in registers and writes them a whole group (32 bytes) at a time.
struct ListWriter {
  int* list;
  int t, cap;
  int4 a = {0, 0, 0, 0}, b = {0, 0, 0, 0};
  int n = 0;        // entries in the pending group
  int written = 0;  // groups written (or that would have been, past the capacity)

  __device__ void push(int v) {
    a.x = n == 0 ? v : a.x;
    a.y = n == 1 ? v : a.y;
    a.z = n == 2 ? v : a.z;
    a.w = n == 3 ? v : a.w;
    b.x = n == 4 ? v : b.x;
    b.y = n == 5 ? v : b.y;
    b.z = n == 6 ? v : b.z;
    b.w = n == 7 ? v : b.w;
    if (++n == kListGroup) {
      if (written < cap) {
        int4* g = list_group(list, t, cap, written);
        g[0] = a;
        g[1] = b;
      }
      ++written;
      n = 0;
    }
  }
};

// Each lane of an atom takes every tpa-th candidate (dealt across ranges, so the lanes get equal shares) of
// the cells that the sphere of radius rlist around the atom can reach, four candidates' loads at a time, and
// writes its own list, with a marker wherever its image shift changes. The cells of one (x, y) column are
// consecutive in the sorted order, so a column is one or two contiguous ranges of atoms (two where it wraps
// around the box in z).
__global__ void __launch_bounds__(kBlock, 1) ns_search_kernel(SearchParams p) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = t >> p.log2_tpa;
  const int r = t & (p.tpa - 1);
  int groups = 0, pairs = 0;
  if (s < p.n) {
    const float4 xi = p.xq[s];
    const int nc[3] = {p.nc[0], p.nc[1], p.nc[2]};
    const int c = p.cell_s[s];
    const int cc[3] = {c / (nc[1] * nc[2]), (c / nc[2]) % nc[1], c % nc[2]};
    const float xv[3] = {xi.x, xi.y, xi.z};
    int lo[3], hi[3];  // unwrapped cell range within reach, never beyond kCellsPerRlist cells of its own
    for (int d = 0; d < 3; ++d) {
      lo[d] = max(cc[d] - kCellsPerRlist, static_cast<int>(floorf((xv[d] - p.prune) / p.cell_size[d])));
      hi[d] = min(cc[d] + kCellsPerRlist, static_cast<int>(floorf((xv[d] + p.prune) / p.cell_size[d])));
    }
    // Excluded atoms by sorted index, in registers (up to four; beyond that the slow path compares original
    // indices).
    const int i = p.atom_of[s];
    const int eb = p.excl_start[i], ee = p.excl_start[i + 1];
    const bool few_excl = ee - eb <= 4;
    int ex[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) ex[q] = few_excl && q < ee - eb ? p.sorted_of[p.excl[eb + q]] : -1;
    const int tpa = p.tpa;
    // Domain decomposition: halo atoms (mask not 0) pair only with atoms whose zone is 0 wherever theirs
    // is not; home atoms pair with every local atom.
    const int zm_i = p.zone_mask_s ? p.zone_mask_s[s] : 0;
    ListWriter w{p.list, t, p.cap_groups};
    int cur = kNoShift;
    int cand = 0;
    for (int ux = lo[0]; ux <= hi[0]; ++ux) {
      const int sx = ux < 0 ? -1 : (ux >= nc[0] ? 1 : 0);
      const float gx = gap(xi.x, ux * p.cell_size[0], p.cell_size[0]);
      if (gx * gx > p.prune2) continue;
      for (int uy = lo[1]; uy <= hi[1]; ++uy) {
        const int sy = uy < 0 ? -1 : (uy >= nc[1] ? 1 : 0);
        const float gy = gap(xi.y, uy * p.cell_size[1], p.cell_size[1]);
        if (gx * gx + gy * gy > p.prune2) continue;
        const int column = ((ux - sx * nc[0]) * nc[1] + (uy - sy * nc[1])) * nc[2];
        // What the column's distance in x and y leaves of the reach in z (a lower bound on |dx|, |dy| of
        // its atoms, so no neighbour within rlist is cut).
        const float dz = sqrtf(fmaxf(0.f, p.prune2 - gx * gx - gy * gy));
        const int zlo = max(lo[2], static_cast<int>(floorf((xi.z - dz) / p.cell_size[2])));
        const int zhi = min(hi[2], static_cast<int>(floorf((xi.z + dz) / p.cell_size[2])));
        for (int uz = zlo; uz <= zhi;) {
          const int sz = uz < 0 ? -1 : (uz >= nc[2] ? 1 : 0);
          const int uz_end = sz < 0 ? min(zhi, -1) : (sz == 0 ? min(zhi, nc[2] - 1) : zhi);
          const int b = p.cell_start[column + uz - sz * nc[2]];
          const int e = p.cell_start[column + uz_end - sz * nc[2] + 1];
          uz = uz_end + 1;
          const int code = (sx + 1) + 3 * (sy + 1) + 9 * (sz + 1);
          // The neighbour's image is x_j + S: compare x_i - S with x_j.
          const float xsx = xi.x - sx * p.lenf[0], xsy = xi.y - sy * p.lenf[1], xsz = xi.z - sz * p.lenf[2];
          const int first = b + ((r - cand) & (tpa - 1));
          cand += e - b;
          for (int j0 = first; j0 < e; j0 += 4 * tpa) {
            float4 xj[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) xj[u] = p.xq[min(j0 + u * tpa, e - 1)];
#pragma unroll
            for (int u = 0; u < 4; ++u) {
              const int j = j0 + u * tpa;
              if (j >= e) break;
              const float ddx = xsx - xj[u].x, ddy = xsy - xj[u].y, ddz = xsz - xj[u].z;
              const float r2 = ddx * ddx + ddy * ddy + ddz * ddz;
              if (!(r2 < p.rlist2)) continue;
              if (j == s && code == kNoShift) continue;
              if (zm_i != 0 && (zm_i & p.zone_mask_s[j]) != 0) continue;
              if (few_excl) {
                if (j == ex[0] || j == ex[1] || j == ex[2] || j == ex[3]) continue;
              } else {
                const int oj = p.atom_of[j];
                bool excluded = false;
                for (int q = eb; q < ee; ++q) excluded |= p.excl[q] == oj;
                if (excluded) continue;
              }
              if (code != cur) {
                w.push(-(code + 1));
                cur = code;
              }
              w.push(j);
              ++pairs;
            }
          }
        }
      }
    }
    while (w.n > 0) w.push(-(cur + 1));  // pad the last group with markers that change nothing
    groups = w.written;
    p.groups[t] = groups < w.cap ? groups : w.cap;
    if (groups > w.cap) flag_error(p.st, p.st->step, i, kErrListFull);
  }
  const int warp_max = __reduce_max_sync(0xffffffffu, groups);
  const unsigned warp_pairs = __reduce_add_sync(0xffffffffu, static_cast<unsigned>(pairs));
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&p.st->max_list_groups, warp_max);
    atomicAdd(reinterpret_cast<unsigned long long*>(&p.st->list_pairs),
              static_cast<unsigned long long>(warp_pairs));
  }
}

}  // namespace

void launch_pair_search(gpu::GpuCalls& calls, const SearchParams& p) {
  const int atom_blocks = (p.n + kBlock - 1) / kBlock;
  const long long lanes = static_cast<long long>(p.n) * p.tpa;
  const int lane_blocks = static_cast<int>((lanes + kBlock - 1) / kBlock);
  calls.launch("ns_assign_kernel", ns_assign_kernel, atom_blocks, kBlock, 0, p);
  calls.launch("ns_scan_kernel", ns_scan_kernel, 1, 1024, 0, p);
  calls.launch("ns_scatter_kernel", ns_scatter_kernel, atom_blocks, kBlock, 0, p);
  calls.launch("ns_rank_kernel", ns_rank_kernel, atom_blocks, kBlock, 0, p);
  if (p.cell_interior)
    calls.launch("ns_interior_kernel", ns_interior_kernel, (p.ncell + kBlock - 1) / kBlock, kBlock, 0, p);
  calls.launch("ns_search_kernel", ns_search_kernel, lane_blocks, kBlock, 0, p);
}

}  // namespace halomd::cuda
