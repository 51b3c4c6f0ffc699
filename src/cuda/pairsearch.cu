#include "core/errors.h"
#include "cuda/device_util.cuh"
#include "cuda/pairsearch.h"

namespace halomd::cuda {
namespace {

constexpr int kBlock = 128;
constexpr int kUnroll = 4;  // candidates per search lane whose loads are in flight together

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
    if (idx < p.ncell) p.cell_count[idx] = 0;
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
}

// Distance from x to the slab [lo, lo + width] (0 inside).
__device__ inline float gap(float x, float lo, float width) {
  return fmaxf(0.f, fmaxf(lo - x, x - (lo + width)));
}

// Each atom has spa search lanes (adjacent in a warp); the warp walks one set of cell ranges for all its
// atoms: the union of the ranges that the sphere of radius rlist around each of them reaches (the atoms of a
// warp are consecutive in the sorted order, so nearly always of one cell). In each round the lanes of an
// atom test spa consecutive candidates; a ballot gives each accepted neighbour its slot in the atom's
// stream (candidate order, so the list is the same from run to run), and the stream is staged in shared
// memory (a ring per atom) and written out a row at a time. Stream position k goes to list lane k % tpa as
// its entry k / tpa, so a row of kListGroup * tpa entries is one group of every list lane of the atom: whole
// 32-byte groups, written side by side. A change of image shift puts tpa markers into the stream, one per
// list lane, and the end of the atom's stream is padded with markers that repeat the last shift, so all
// list lanes of an atom have the same number of groups.
__global__ void __launch_bounds__(kBlock, 8) ns_search_kernel(SearchParams p) {
  extern __shared__ int s_ring[];
  constexpr unsigned kAll = 0xffffffffu;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (((t & ~31) >> p.log2_spa) >= p.n) return;  // the whole warp is past the last atom
  const int lane = threadIdx.x & 31;
  const int spa = p.spa, tpa = p.tpa;
  const int s = t >> p.log2_spa;
  const int r = t & (spa - 1);
  const bool valid = s < p.n;
  const int a = lane >> p.log2_spa;  // the atom's place in the warp
  const unsigned atom_lanes = (spa == 32 ? kAll : (1u << spa) - 1u) << (a * spa);
  const unsigned lower_lanes = atom_lanes & ((1u << lane) - 1u);
  const int ring_mask = p.ring - 1;
  int* ring = s_ring + ((threadIdx.x >> 5) << p.log2_warp_ring) + a * p.ring;
  const int row = kListGroup * tpa;
  const int cap = p.cap_groups;

  float4 xi = make_float4(0.f, 0.f, 0.f, 0.f);
  int lo[3] = {1 << 30, 1 << 30, 1 << 30}, hi[3] = {-(1 << 30), -(1 << 30), -(1 << 30)};
  const int nc[3] = {p.nc[0], p.nc[1], p.nc[2]};
  int i = 0, eb = 0, ee = 0;
  if (valid) {
    xi = p.xq[s];
    const int c = p.cell_s[s];
    const int cc[3] = {c / (nc[1] * nc[2]), (c / nc[2]) % nc[1], c % nc[2]};
    const float xv[3] = {xi.x, xi.y, xi.z};
    // Unwrapped cell range within reach, never beyond kCellsPerRlist cells of its own.
    for (int d = 0; d < 3; ++d) {
      lo[d] = max(cc[d] - kCellsPerRlist, static_cast<int>(floorf((xv[d] - p.prune) / p.cell_size[d])));
      hi[d] = min(cc[d] + kCellsPerRlist, static_cast<int>(floorf((xv[d] + p.prune) / p.cell_size[d])));
    }
    i = p.atom_of[s];
    eb = p.excl_start[i];
    ee = p.excl_start[i + 1];
  }
  // Excluded atoms by sorted index, in registers (up to four; beyond that the slow path compares original
  // indices).
  const bool few_excl = ee - eb <= 4;
  int ex[4];
#pragma unroll
  for (int q = 0; q < 4; ++q) ex[q] = few_excl && q < ee - eb ? p.sorted_of[p.excl[eb + q]] : -1;
  int wlo[2], whi[2];
  for (int d = 0; d < 2; ++d) {
    wlo[d] = __reduce_min_sync(kAll, lo[d]);
    whi[d] = __reduce_max_sync(kAll, hi[d]);
  }

  int cur = kNoShift;  // the shift of the atom's stream
  int fill = 0;        // entries put into the stream
  int flushed = 0;     // entries written out (a multiple of row)
  int pairs = 0;       // neighbours this lane accepted
  // Writes the stream's complete rows: lane r of the atom writes half groups r, r + spa, ...
  auto flush = [&]() {
    while (fill - flushed >= row) {
      const int g = flushed / row;
      if (g < cap) {
        const int* src = ring + (flushed & ring_mask);
        for (int q = r; q < 2 * tpa; q += spa) {
          const int b = q >> 1, h = (q & 1) * 4;
          list_group(p.list, s * tpa + b, cap, g)[q & 1] = make_int4(
              src[h * tpa + b], src[(h + 1) * tpa + b], src[(h + 2) * tpa + b], src[(h + 3) * tpa + b]);
        }
      }
      flushed += row;
    }
  };

  for (int ux = wlo[0]; ux <= whi[0]; ++ux) {
    const int sx = ux < 0 ? -1 : (ux >= nc[0] ? 1 : 0);
    const float gx = gap(xi.x, ux * p.cell_size[0], p.cell_size[0]);
    const bool in_x = valid && ux >= lo[0] && ux <= hi[0] && gx * gx <= p.prune2;
    if (!__any_sync(kAll, in_x)) continue;
    for (int uy = wlo[1]; uy <= whi[1]; ++uy) {
      const int sy = uy < 0 ? -1 : (uy >= nc[1] ? 1 : 0);
      const float gy = gap(xi.y, uy * p.cell_size[1], p.cell_size[1]);
      int zlo = 1 << 30, zhi = -(1 << 30);
      if (in_x && uy >= lo[1] && uy <= hi[1] && gx * gx + gy * gy <= p.prune2) {
        // What the column's distance in x and y leaves of the reach in z (a lower bound on |dx|, |dy| of
        // its atoms, so no neighbour within rlist is cut).
        const float dz = sqrtf(fmaxf(0.f, p.prune2 - gx * gx - gy * gy));
        zlo = max(lo[2], static_cast<int>(floorf((xi.z - dz) / p.cell_size[2])));
        zhi = min(hi[2], static_cast<int>(floorf((xi.z + dz) / p.cell_size[2])));
      }
      zlo = __reduce_min_sync(kAll, zlo);
      zhi = __reduce_max_sync(kAll, zhi);
      const int column = ((ux - sx * nc[0]) * nc[1] + (uy - sy * nc[1])) * nc[2];
      for (int uz = zlo; uz <= zhi;) {
        const int sz = uz < 0 ? -1 : (uz >= nc[2] ? 1 : 0);
        const int uz_end = sz < 0 ? min(zhi, -1) : (sz == 0 ? min(zhi, nc[2] - 1) : zhi);
        const int b = p.cell_start[column + uz - sz * nc[2]];
        const int e = p.cell_start[column + uz_end - sz * nc[2] + 1];
        uz = uz_end + 1;
        const int code = (sx + 1) + 3 * (sy + 1) + 9 * (sz + 1);
        // The neighbour's image is x_j + S: compare x_i - S with x_j.
        const float xsx = xi.x - sx * p.lenf[0], xsy = xi.y - sy * p.lenf[1], xsz = xi.z - sz * p.lenf[2];
        for (int j0 = b; j0 < e; j0 += kUnroll * spa) {
          float4 xj[kUnroll];
#pragma unroll
          for (int u = 0; u < kUnroll; ++u) xj[u] = __ldg(p.xq + min(j0 + u * spa + r, e - 1));
#pragma unroll
          for (int u = 0; u < kUnroll; ++u) {
            if (j0 + u * spa >= e) break;  // the same for the whole warp
            const int j = j0 + u * spa + r;
            const float ddx = xsx - xj[u].x, ddy = xsy - xj[u].y, ddz = xsz - xj[u].z;
            const float r2 = ddx * ddx + ddy * ddy + ddz * ddz;
            // The atom itself lies within rlist only unshifted (rlist < L/2), so j == s needs no shift test.
            bool accept = valid && j < e && r2 < p.rlist2 && j != s;
            if (few_excl) {
              accept = accept && j != ex[0] && j != ex[1] && j != ex[2] && j != ex[3];
            } else if (accept) {
              const int oj = p.atom_of[j];
              for (int q = eb; q < ee; ++q) accept = accept && p.excl[q] != oj;
            }
            const unsigned votes = __ballot_sync(kAll, accept);
            const int count = __popc(votes & atom_lanes);
            if (count > 0 && code != cur) {  // a new shift: one marker for each list lane
              for (int q = r; q < tpa; q += spa) ring[(fill + q) & ring_mask] = -(code + 1);
              fill += tpa;
              cur = code;
            }
            if (accept) ring[(fill + __popc(votes & lower_lanes)) & ring_mask] = j;
            fill += count;
            pairs += accept;
          }
          __syncwarp();
          flush();
          __syncwarp();
        }
      }
    }
  }
  // Pad the last row with markers that change nothing.
  const int pad = (row - (fill & (row - 1))) & (row - 1);
  for (int q = r; q < pad; q += spa) ring[(fill + q) & ring_mask] = -(cur + 1);
  fill += pad;
  __syncwarp();
  flush();
  const int groups = valid ? flushed / row : 0;
  if (valid) {
    for (int q = r; q < tpa; q += spa) p.groups[s * tpa + q] = groups < cap ? groups : cap;
    if (r == 0 && groups > cap) flag_error(p.st, p.st->step, i, kErrListFull);
  }
  const int warp_max = __reduce_max_sync(kAll, groups);
  const unsigned warp_pairs = __reduce_add_sync(kAll, static_cast<unsigned>(pairs));
  if (lane == 0) {
    atomicMax(&p.st->max_list_groups, warp_max);
    atomicAdd(reinterpret_cast<unsigned long long*>(&p.st->list_pairs),
              static_cast<unsigned long long>(warp_pairs));
  }
}

}  // namespace

void set_search_lanes(SearchParams& p, int spa) {
  if (spa <= 0) spa = p.tpa >= 8 ? p.tpa : (4 * p.tpa < 8 ? 4 * p.tpa : 8);
  if (spa > 32 || (spa & (spa - 1)) != 0 || 2 * spa < p.tpa)
    throw InputError("", 0,
                     "search lanes per atom must be 1, 2, 4, ..., 32 and at least half the lanes per atom");
  p.spa = spa;
  p.log2_spa = 0;
  while ((1 << p.log2_spa) < spa) ++p.log2_spa;
  // The ring holds what a row leaves unwritten (< row) plus one pass of kUnroll rounds (each at most spa
  // entries) and one set of markers.
  const int row = kListGroup * p.tpa;
  p.ring = 2 * row;
  while (p.ring < row + kUnroll * spa + p.tpa) p.ring *= 2;
  p.log2_warp_ring = 0;
  while ((1 << p.log2_warp_ring) < p.ring * (32 / spa)) ++p.log2_warp_ring;
}

void launch_pair_search(gpu::GpuCalls& calls, const SearchParams& p) {
  const int atom_blocks = (p.n + kBlock - 1) / kBlock;
  const long long lanes = static_cast<long long>(p.n) * p.spa;
  const int lane_blocks = static_cast<int>((lanes + kBlock - 1) / kBlock);
  const size_t ring_bytes = sizeof(int) * (kBlock / 32) * (static_cast<size_t>(1) << p.log2_warp_ring);
  calls.launch("ns_assign_kernel", ns_assign_kernel, atom_blocks, kBlock, 0, p);
  calls.launch("ns_scan_kernel", ns_scan_kernel, 1, 1024, 0, p);
  calls.launch("ns_scatter_kernel", ns_scatter_kernel, atom_blocks, kBlock, 0, p);
  calls.launch("ns_rank_kernel", ns_rank_kernel, atom_blocks, kBlock, 0, p);
  calls.launch("ns_search_kernel", ns_search_kernel, lane_blocks, kBlock, ring_bytes, p);
}

}  // namespace halomd::cuda
