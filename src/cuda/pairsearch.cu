#include <string>
#include <type_traits>

#include "core/errors.h"
#include "cuda/device_util.cuh"
#include "cuda/pairsearch.h"

namespace halomd::cuda {
namespace {

constexpr int kBlock = 128;
// nm: the rounding room of a window clipped at partner_ext (float position times float inverse cell size).
constexpr float kExtSlack = 1e-3f;

__device__ inline int clamp_int(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// A double's bits mapped so that unsigned integer order is the doubles' order (0 lies below every double).
__device__ inline unsigned long long ordered_bits(double v) {
  const unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(v));
  return (b >> 63) ? ~b : (b | (1ull << 63));
}
__device__ inline double from_ordered_bits(unsigned long long o) {
  if (o == 0) return -INFINITY;
  return __longlong_as_double(static_cast<long long>((o >> 63) ? (o & ~(1ull << 63)) : ~o));
}

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

// Domain decomposition: SearchParams::partner_ext (zeroed before), a warp maximum then one atomic per warp
// and dimension.
__global__ void ns_partner_ext_kernel(SearchParams p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int zm = i < p.n ? p.zone_mask[i] : 7;
  for (int d = 0; d < 3; ++d) {
    unsigned long long o = 0;
    if (!((zm >> d) & 1)) {
      const double v = p.x[d][i];
      if (isfinite(v)) o = ordered_bits(v);
    }
    for (int s = 16; s > 0; s >>= 1) {
      const unsigned long long t = __shfl_xor_sync(0xffffffffu, o, s);
      o = t > o ? t : o;
    }
    if ((threadIdx.x & 31) == 0 && o != 0) atomicMax(&p.partner_ext[d], o);
  }
}

// Domain decomposition: the sorted rows by kind (SearchParams::rows), in two passes over blocks of
// kRowListBlock rows: the halo and the interior home rows per block, then each block's rows placed after the
// blocks before it (sums over at most n / kRowListBlock counts, ~30 at 30k local atoms), in ascending order
// within each kind: interior home rows, the other home rows, halo rows.
// Whether sorted row s is a halo row; *interior: an interior home row.
__device__ inline bool halo_row(const SearchParams& p, int s, bool* interior) {
  const bool halo = p.zone_mask_s[s] != 0;
  *interior = !halo && p.cell_interior && p.cell_interior[p.cell_s[s]] != 0;
  return halo;
}
__global__ void __launch_bounds__(kRowListBlock) ns_row_count_kernel(SearchParams p) {
  const int s = blockIdx.x * kRowListBlock + threadIdx.x;
  bool interior = false;
  const bool halo = s < p.n && halo_row(p, s, &interior);
  const int halo_n = __syncthreads_count(halo);
  const int interior_n = __syncthreads_count(s < p.n && interior);
  if (threadIdx.x == 0) {
    p.row_block_counts[2 * blockIdx.x] = halo_n;
    p.row_block_counts[2 * blockIdx.x + 1] = interior_n;
  }
}
__global__ void __launch_bounds__(kRowListBlock) ns_row_list_kernel(SearchParams p) {
  __shared__ int warp_halo[kRowListBlock / 32], warp_interior[kRowListBlock / 32];
  __shared__ int halo_before, interior_before, interior_all;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (warp == 0) {
    int h = 0, i = 0, all = 0;
    for (int b = lane; b < static_cast<int>(gridDim.x); b += 32) {
      const int ib = p.row_block_counts[2 * b + 1];
      all += ib;
      if (b < static_cast<int>(blockIdx.x)) {
        h += p.row_block_counts[2 * b];
        i += ib;
      }
    }
    for (int o = 16; o > 0; o >>= 1) {
      h += __shfl_xor_sync(0xffffffffu, h, o);
      i += __shfl_xor_sync(0xffffffffu, i, o);
      all += __shfl_xor_sync(0xffffffffu, all, o);
    }
    if (lane == 0) {
      halo_before = h;
      interior_before = i;
      interior_all = all;
      if (blockIdx.x == 0) p.st->interior_rows = all;
    }
  }
  const int s = blockIdx.x * kRowListBlock + threadIdx.x;
  const bool in = s < p.n;
  bool interior = false;
  const bool halo = in && halo_row(p, s, &interior);
  interior = in && interior;
  const unsigned hb = __ballot_sync(0xffffffffu, halo), ib = __ballot_sync(0xffffffffu, interior);
  if (lane == 0) {
    warp_halo[warp] = __popc(hb);
    warp_interior[warp] = __popc(ib);
  }
  __syncthreads();
  int halo_rank = halo_before, interior_rank = interior_before;  // rows of the kind before s
  for (int w = 0; w < warp; ++w) {
    halo_rank += warp_halo[w];
    interior_rank += warp_interior[w];
  }
  const unsigned below = (1u << lane) - 1u;
  halo_rank += __popc(hb & below);
  interior_rank += __popc(ib & below);
  if (!in) return;
  if (halo)
    p.rows[p.n_home + halo_rank] = s;
  else if (interior)
    p.rows[interior_rank] = s;
  else  // the home rows before s less the interior ones, after all interior rows
    p.rows[interior_all + (s - halo_rank - interior_rank)] = s;
}

// Exclusive scan of the cell counts into cell_start; zeroes the counts (and the halo flags) for the next
// search and the search statistics. One block per tile of kScanThreads x 8 cells, in one pass: each thread
// loads its 8 consecutive counts into registers (all loads before any store), the block scans the threads'
// sums, then thread 0 waits for the previous tile's running total (tiles are taken by ticket, in the order
// the blocks start, so the tile it waits for belongs to a block that runs), publishes its own, and each
// thread writes its 8 starts. Two tiles at 45k atoms (11k cells), 7 at 203k: against one block looping over
// the tiles, 24 -> ~6 us at 203k (bench/NOTES.md, twelfth session). The totals carry the search's epoch
// (ticket / tiles + 1) in their high half, so nothing needs resetting between searches.
constexpr int kScanThreads = 1024;
constexpr int kScanPer = 8;
static_assert(kScanThreads * kScanPer == kScanTile, "a tile is one block's cells");
__global__ void __launch_bounds__(kScanThreads) ns_scan_kernel(SearchParams p) {
  __shared__ int warp_sums[kScanThreads / 32];
  __shared__ int s_tile, s_offset;
  __shared__ unsigned s_epoch;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int tiles = gridDim.x;
  if (threadIdx.x == 0) {
    const unsigned long long ticket = atomicAdd(p.scan_ticket, 1ull);
    s_tile = static_cast<int>(ticket % tiles);
    s_epoch = static_cast<unsigned>(ticket / tiles) + 1u;
  }
  __syncthreads();
  const int tile = s_tile;
  if (tile == 0 && threadIdx.x == 0) {
    p.st->max_list_groups = 0;
    p.st->list_pairs = 0;
    p.st->skipped_rows = 0;
  }
  const int c0 = tile * kScanTile + static_cast<int>(threadIdx.x) * kScanPer;
  int v[kScanPer];
  const bool whole = c0 + kScanPer <= p.ncell;  // cell arrays are 256-byte aligned: int4 at every 8 cells
  if (whole) {
    const int4 a = reinterpret_cast<const int4*>(p.cell_count + c0)[0];
    const int4 b = reinterpret_cast<const int4*>(p.cell_count + c0)[1];
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
  } else {
#pragma unroll
    for (int k = 0; k < kScanPer; ++k) v[k] = c0 + k < p.ncell ? p.cell_count[c0 + k] : 0;
  }
  int sum = 0;
#pragma unroll
  for (int k = 0; k < kScanPer; ++k) sum += v[k];
  int s = sum;  // inclusive scan of the threads' sums within the warp
  for (int o = 1; o < 32; o <<= 1) {
    const int t = __shfl_up_sync(0xffffffffu, s, o);
    if (lane >= o) s += t;
  }
  if (lane == 31) warp_sums[warp] = s;
  __syncthreads();
  if (warp == 0) {
    int ws = warp_sums[lane];
    for (int o = 1; o < 32; o <<= 1) {
      const int t = __shfl_up_sync(0xffffffffu, ws, o);
      if (lane >= o) ws += t;
    }
    warp_sums[lane] = ws;
    const int tile_sum = __shfl_sync(0xffffffffu, ws, 31);
    if (lane == 0) {
      int before = 0;
      if (tile > 0) {
        const volatile unsigned long long* prev = p.scan_prefix + tile - 1;
        unsigned long long got;
        while (static_cast<unsigned>((got = *prev) >> 32) != s_epoch) {
        }
        before = static_cast<int>(got & 0xffffffffu);
      }
      const int total = before + tile_sum;
      atomicExch(p.scan_prefix + tile,
                 (static_cast<unsigned long long>(s_epoch) << 32) | static_cast<unsigned>(total));
      s_offset = before;
      if (tile == tiles - 1) p.cell_start[p.ncell] = total;
    }
  }
  __syncthreads();
  int start[kScanPer];
  start[0] = s_offset + (warp > 0 ? warp_sums[warp - 1] : 0) + s - sum;
#pragma unroll
  for (int k = 1; k < kScanPer; ++k) start[k] = start[k - 1] + v[k - 1];
  if (whole) {
    int4* cs = reinterpret_cast<int4*>(p.cell_start + c0);
    cs[0] = make_int4(start[0], start[1], start[2], start[3]);
    cs[1] = make_int4(start[4], start[5], start[6], start[7]);
    int4* cn = reinterpret_cast<int4*>(p.cell_count + c0);
    cn[0] = cn[1] = make_int4(0, 0, 0, 0);
    if (p.cell_halo) {
      int4* ch = reinterpret_cast<int4*>(p.cell_halo + c0);
      ch[0] = ch[1] = make_int4(0, 0, 0, 0);
    }
  } else {
#pragma unroll
    for (int k = 0; k < kScanPer; ++k)
      if (c0 + k < p.ncell) {
        p.cell_start[c0 + k] = start[k];
        p.cell_count[c0 + k] = 0;
        if (p.cell_halo) p.cell_halo[c0 + k] = 0;
      }
  }
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
  p.xq[s] = float_record(Vec3{p.x[0][i], p.x[1][i], p.x[2][i]}, p.img[i], p.len, p.qs[i]);
  p.type_s[s] = p.type[i];
  if (p.zone_mask_s) {
    p.zone_mask_s[s] = p.zone_mask[i];
    if (p.cell_halo && p.zone_mask[i] != 0) p.cell_halo[c] = 1;  // every writer stores the same value
  }
}

// Domain decomposition: a cell is interior when no cell within the search's reach of it (p.reach cells in
// each dimension, wrapping like the search) holds a halo atom. Three passes, one dimension each: `in` flags
// per cell -> `out` flags per cell, whether any cell within reach along dimension d is flagged. The last
// pass writes cell_interior and zeroes its scratch (cell_count, zero between searches).
__global__ void ns_interior_pass_kernel(SearchParams p, int d, const int* in, int* out) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= p.ncell) return;
  const int stride = d == 2 ? 1 : (d == 1 ? p.nc[2] : p.nc[1] * p.nc[2]);
  const int k = (c / stride) % p.nc[d];
  const int base = c - k * stride;
  int any = 0;
  for (int dk = -p.reach[d]; dk <= p.reach[d] && !any; ++dk)
    any = in[base + ((k + dk) % p.nc[d] + p.nc[d]) % p.nc[d] * stride];
  if (d > 0) {
    out[c] = any;
  } else {
    p.cell_interior[c] = any ? 0 : 1;
    p.cell_count[c] = 0;
  }
}

__device__ inline float xv_of(const float4& x, int d) { return d == 0 ? x.x : (d == 1 ? x.y : x.z); }

// Distance from x to the slab [lo, lo + width] (0 inside).
__device__ inline float gap(float x, float lo, float width) {
  return fmaxf(0.f, fmaxf(lo - x, x - (lo + width)));
}

// Along one dimension: the periodic shift (-1, 0, 1) of unwrapped cell u, and the end of the run of cells
// from u that share it, within [., hi].
__device__ inline int shift_of(int u, int nc) { return u < 0 ? -1 : (u >= nc ? 1 : 0); }
__device__ inline int run_end(int u, int hi, int nc) {
  const int sh = shift_of(u, nc);
  return sh < 0 ? min(hi, -1) : (sh == 0 ? min(hi, nc - 1) : hi);
}

// The first cell of the (x, y) column of unwrapped cells (ux, uy), whose periodic shifts are sx, sy.
__device__ inline int column_base(int ux, int uy, int sx, int sy, const int (&nc)[3]) {
  return ((ux - sx * nc[0]) * nc[1] + (uy - sy * nc[1])) * nc[2];
}

// The unwrapped z cells within [lo, hi] of a column at distance (gx, gy) in x and y from z's atom: what that
// distance leaves of the reach in z (a lower bound on the atoms' |dx|, |dy|, so no neighbour within rlist
// is cut).
__device__ inline int2 reach_z(float z, float gx, float gy, const SearchParams& p, int lo, int hi) {
  const float dz = sqrtf(fmaxf(0.f, p.prune2 - gx * gx - gy * gy));
  return make_int2(max(lo, static_cast<int>(floorf((z - dz) * p.inv_cell_size[2]))),
                   min(hi, static_cast<int>(floorf((z + dz) * p.inv_cell_size[2]))));
}

// The most (x, y) columns of cells around an atom that its search may visit: p.reach[0] and p.reach[1] on
// each side.
__host__ __device__ inline int columns(const SearchParams& p) {
  return (2 * p.reach[0] + 1) * (2 * p.reach[1] + 1);
}

// The search: one warp per atom, all of its work warp-uniform. The 32 lanes tabulate the atom's column
// ranges (b, e) (the cells within reach that the sphere of radius rlist + margin touches: columns pruned by
// their distance in x and y, each column's z range by what remains; the cells of one x-y column are
// consecutive in the sorted order, so a column's z range is one range of atoms, or two where it wraps
// through the box in z), cut into chunks of 16 consecutive candidates, then test four chunks of one
// periodic shift at a time, whatever ranges they come from (two loads in flight per lane); the accepted ones
// take consecutive places in the atom's stream of entries (ballots and prefix counts: candidate order), and
// place P goes to list lane P % L (L = tpa list lanes) as its entry P / L, so the list lanes of an atom are
// equal to within one entry and a list lane's neighbours at one group lie close together in the sorted order.
// A change of periodic shift puts one marker in every list lane (L places). Entries are staged per warp in
// shared memory and written kFlushPlaces places (whole groups of every list lane) at a time. Against the
// search of the fourth session (spa lanes per atom, each filling its own list lanes a group at a time), same
// H200 call: 125 -> 97 us at 9k atoms, 362 -> 332 at 45k, 1,451 -> 1,367 at 203k, and the non-bonded kernel
// 13-21% faster on these lists (bench/NOTES.md, 2026-12-03 fifth session).
constexpr int kWarpsPerBlock = kBlock / 32;
constexpr int kFlushPlaces = kListGroup * 32;       // a multiple of 8 L for every L <= 32
constexpr int kWarpStage = kFlushPlaces + 64 + 32;  // plus one round of candidates and a marker per lane
constexpr int kWarpSink = kWarpStage;               // then one word per lane that rejected candidates go to
constexpr int kChunk = 16;                          // candidates per chunk: a quarter warp

// kMinBlocks: blocks per multiprocessor the register budget allows (8: 64 registers; HALOMD_GPU_SEARCH_BLOCKS
// picks 12 or 16 to measure more warps in flight against spilled registers).
template <int kMinBlocks>
__global__ void __launch_bounds__(kBlock, kMinBlocks) ns_warp_search_kernel(SearchParams p) {
  __shared__ int s_stage[kWarpsPerBlock][kWarpStage + 32];
  __shared__ int s_chunks[kWarpsPerBlock][kSearchChunkCap];
  extern __shared__ int4 s_table[];  // per warp, two ranges per column (b, e, shift code)
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int s = blockIdx.x * kWarpsPerBlock + warp;
  if (s >= p.n) return;  // whole warps leave: no warp-wide call below sees a partial warp
  const int L = p.tpa;
  if (p.partner_ext) {
    // A halo atom beyond rlist (with prune's rounding slack) of every atom it may pair with: an empty row.
    const int zm = p.zone_mask_s[s], a = p.atom_of[s];
    double g2 = 0.0;
    for (int d = 0; d < 3; ++d) {
      if (!((zm >> d) & 1)) continue;
      const double g = p.x[d][a] - from_ordered_bits(p.partner_ext[d]);
      if (g > 0.0) g2 += g * g;
    }
    // (A NaN coordinate adds nothing here; such a row could not accept a pair anyway.)
    if (zm != 0 && g2 >= static_cast<double>(p.prune2)) {
      for (int k = lane; k < L; k += 32) p.groups[s * L + k] = 0;
      if (lane == 0) atomicAdd(&p.st->skipped_rows, 1);
      return;
    }
  }
  // Loaded first: three dependent loads whose latency the range table's construction then hides.
  const int i = p.atom_of[s];
  const int eb = p.excl_start[i], nex = p.excl_start[i + 1] - eb;
  const bool few_excl = nex <= 4;
  // The sorted places of the excluded atoms, then the atom's own, then -1. (The atom itself is only ever
  // reached without a periodic shift: a shifted image of it lies a box length away, beyond rlist < L/2; in a
  // decomposed dimension L is the domain's search box, wider than 2 rlist.)
  int ex[5];
#pragma unroll
  for (int q = 0; q < 5; ++q) ex[q] = few_excl && q < nex ? p.sorted_of[p.excl[eb + q]] : (q == nex ? s : -1);
  const int zm_i = p.zone_mask_s ? p.zone_mask_s[s] : 0;
  const int log2_l = __ffs(L) - 1;  // L is a power of 2
  const int nc[3] = {p.nc[0], p.nc[1], p.nc[2]};
  const float4 xi = p.xq[s];
  const int c = p.cell_s[s];
  // The cell's coordinates: c / nc[2] and its quotient by nc[1] in double, exact for any grid (the quotient's
  // fraction is at least 1 / (2 nc), far above the rounding), and a few instructions against ~20 for each
  // integer division by a variable.
  const int cxy = static_cast<int>((c + 0.5) * p.inv_nc[2]), cx = static_cast<int>((cxy + 0.5) * p.inv_nc[1]);
  const int cc[3] = {cx, cxy - cx * nc[1], c - cxy * nc[2]};
  int lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = max(cc[d] - p.reach[d], static_cast<int>(floorf((xv_of(xi, d) - p.prune) * p.inv_cell_size[d])));
    hi[d] = min(cc[d] + p.reach[d], static_cast<int>(floorf((xv_of(xi, d) + p.prune) * p.inv_cell_size[d])));
  }
  // A halo row's partners all have zone offset 0 where its own is not, so they lie at or below partner_ext
  // there: the cells above it hold none, and the window ends at the cell of partner_ext (plus a rounding
  // slack; the decomposed dimensions are not periodic in the search box, so the cell is floor(x / size)),
  // or is empty (hi = lo - 1).
  // The same pairs in the same order, so the same list (bench/NOTES.md, thirteenth session).
  if (p.partner_ext && zm_i != 0) {
    for (int d = 0; d < 3; ++d) {
      if (!((zm_i >> d) & 1)) continue;
      const float ext = static_cast<float>(from_ordered_bits(p.partner_ext[d]));
      hi[d] = max(lo[d] - 1, min(hi[d], static_cast<int>(floorf((ext + kExtSlack) * p.inv_cell_size[d]))));
    }
  }
  // Widths clamped at 0: a runaway position (a blow-up, which the update kernel reports) gives an empty
  // window, never more than columns(p) columns (2 columns(p) ranges).
  const int wy = max(0, hi[1] - lo[1] + 1), ncolumns = max(0, hi[0] - lo[0] + 1) * wy;
  // The window's cells along x and y fall into runs by periodic shift (-1, 0, +1): run r starts at
  // lo + run_first(r) and has run_count(r) cells.
  const int3 cnt_x = run_counts(lo[0], hi[0], nc[0]), cnt_y = run_counts(lo[1], hi[1], nc[1]);
  // The atom's ranges of candidates, in the order the search visits them: by z run (at most two: the window
  // spans at most 2 reach + 1 z cells, and a periodic z has at least 2 reach cells as rlist < L/2), then x
  // run, then y run (so that one periodic shift's ranges are consecutive and a list lane gets one marker per
  // shift), then x, then y. A column's two z parts (b, e, shift code) take their places in that order; the
  // non-empty ones are packed to the front, nranges of them (below: in registers or through shared memory).
  int4* ranges = s_table + warp * 2 * columns(p);
  const int z0_end = run_end(lo[2], hi[2], nc[2]);  // the z cells of the first shift; the rest the other
  const int sz0 = shift_of(lo[2], nc[2]), sz1 = shift_of(z0_end + 1, nc[2]);
  // The two z parts (b, e, shift code) of the window's column (lo_x + ox, lo_y + oy), in x run rx and y run
  // ry (b = e = 0 where the column or the part lies beyond the sphere).
  auto column_ranges = [&](int ox, int oy, int rx, int ry, int4& v0, int4& v1) {
    const int ux = lo[0] + ox, uy = lo[1] + oy;
    const int code_xy = rx + 3 * ry;
    v0 = make_int4(0, 0, code_xy + 9 * (sz0 + 1), 0);
    v1 = make_int4(0, 0, code_xy + 9 * (sz1 + 1), 0);
    const float gx = gap(xi.x, ux * p.cell_size[0], p.cell_size[0]);
    const float gy = gap(xi.y, uy * p.cell_size[1], p.cell_size[1]);
    if (gx * gx + gy * gy <= p.prune2) {
      const int column = column_base(ux, uy, rx - 1, ry - 1, nc);
      const int2 z = reach_z(xi.z, gx, gy, p, lo[2], hi[2]);
      const int a1 = min(z.y, z0_end), b0 = max(z.x, z0_end + 1);
      if (z.x <= a1) {
        v0.x = p.cell_start[column + z.x - sz0 * nc[2]];
        v0.y = p.cell_start[column + a1 - sz0 * nc[2] + 1];
      }
      if (b0 <= z.y) {
        v1.x = p.cell_start[column + b0 - sz1 * nc[2]];
        v1.y = p.cell_start[column + z.y - sz1 * nc[2] + 1];
      }
    }
  };
  // The ranges are cut into chunks of kChunk consecutive candidates (a range's last chunk may be shorter),
  // numbered in the table's order; each range's first chunk number goes into .w. A round tests four
  // consecutive chunks of one periodic shift (a quarter warp each, two per candidate slot), whatever
  // ranges they belong to. A range holds ~45 candidates, and rounds of 64 of one range left ~40% of the
  // places empty; in chunks an atom takes ~30% fewer rounds, and the search ~4% less time (bench/NOTES.md,
  // eleventh session: most of a round's cost is not in its candidate tests).
  // The chunk table holds chunks [k0, k0 + cap) of the atom (cap = kSearchChunkCap but in tests; most atoms
  // have ~85 chunks, so one filling), each as (first candidate << 5 | candidates).
  int* chunks = s_chunks[warp];
  const int cap = p.chunk_cap;
  int k0 = 0;
  const unsigned below = (1u << lane) - 1u;
  // The table's chunks of range rg (its first chunk rg.w) that fall in [from, from + cap).
  auto fill_range = [&](const int4& rg, int from) {
    const int c = (rg.y - rg.x + kChunk - 1) / kChunk;
    const int end = min(rg.w + c, from + cap);
    for (int k = max(rg.w, from); k < end; ++k) {
      const int first = rg.x + (k - rg.w) * kChunk;
      chunks[k - from] = (first << 5) | min(kChunk, rg.y - first);
    }
  };
  int nranges = 0, total_chunks = 0;
  // Fills the table with chunks [from, from + cap) of the ranges in shared memory.
  auto fill = [&](int from) {
    __syncwarp();
    for (int r = lane; r < nranges; r += 32) fill_range(ranges[r], from);
    __syncwarp();
    k0 = from;
  };
  if (ncolumns <= 32) {
    // One column per lane, lane = the column's place in the search's order (the inverse of column_place),
    // so the ranges are packed, counted and numbered in registers: ballots for their places in the table
    // (first parts, then second parts, as below), warp scans for their first chunks, and the table's first
    // filling straight from them (bench/NOTES.md, twelfth session: ~5% of the search's instructions).
    int4 v0 = make_int4(0, 0, 0, 0), v1 = v0;
    if (lane < ncolumns) {
      const int rx = (lane >= cnt_x.x * wy) + (lane >= (cnt_x.x + cnt_x.y) * wy);
      const int fx = run_first(cnt_x, rx), a = run_count(cnt_x, rx);
      const int q = lane - fx * wy;
      const int ry = (q >= a * cnt_y.x) + (q >= a * (cnt_y.x + cnt_y.y));
      const int fy = run_first(cnt_y, ry), b = run_count(cnt_y, ry);
      const int r = q - a * fy;
      // r / b in float: exact, as (r + 0.5) / b lies at least 0.5 / b > 0.05 from any integer.
      const int dx = static_cast<int>((static_cast<float>(r) + 0.5f) * __frcp_rn(static_cast<float>(b)));
      column_ranges(fx + dx, fy + r - dx * b, rx, ry, v0, v1);
    }
    const bool keep0 = v0.y > v0.x, keep1 = v1.y > v1.x;
    const unsigned kept0 = __ballot_sync(0xffffffffu, keep0), kept1 = __ballot_sync(0xffffffffu, keep1);
    const int n0 = __popc(kept0);
    nranges = n0 + __popc(kept1);
    const int c0 = (v0.y - v0.x + kChunk - 1) / kChunk, c1 = (v1.y - v1.x + kChunk - 1) / kChunk;
    int incl0 = c0, incl1 = c1;
    for (int o = 1; o < 32; o <<= 1) {
      const int t0 = __shfl_up_sync(0xffffffffu, incl0, o), t1 = __shfl_up_sync(0xffffffffu, incl1, o);
      if (lane >= o) incl0 += t0, incl1 += t1;
    }
    const int total0 = __shfl_sync(0xffffffffu, incl0, 31);
    total_chunks = total0 + __shfl_sync(0xffffffffu, incl1, 31);
    v0.w = incl0 - c0;
    v1.w = total0 + incl1 - c1;
    if (keep0) {
      ranges[__popc(kept0 & below)] = v0;
      fill_range(v0, 0);
    }
    if (keep1) {
      ranges[n0 + __popc(kept1 & below)] = v1;
      fill_range(v1, 0);
    }
    __syncwarp();
  } else {
    // Wider windows (HALOMD_GPU_REACH_XY 3 or 4): the columns in the lanes' order, each written at its
    // place, then the empty ranges dropped, the chunks counted and the table filled from shared memory.
    // col / wy in float: exact, as (col + 0.5) / wy lies at least 0.5 / wy > 0.05 from any integer.
    const float inv_wy = 1.f / static_cast<float>(max(wy, 1));
    for (int col = lane; col < ncolumns; col += 32) {
      const int ox = static_cast<int>((static_cast<float>(col) + 0.5f) * inv_wy), oy = col - ox * wy;
      const int rx = shift_of(lo[0] + ox, nc[0]) + 1, ry = shift_of(lo[1] + oy, nc[1]) + 1;
      const int place = column_place(ox, oy, rx, ry, cnt_x, cnt_y);
      int4 v0, v1;
      column_ranges(ox, oy, rx, ry, v0, v1);
      ranges[place] = v0;
      ranges[ncolumns + place] = v1;
    }
    __syncwarp();
    for (int r0 = 0; r0 < 2 * ncolumns; r0 += 32) {
      const int4 v = r0 + lane < 2 * ncolumns ? ranges[r0 + lane] : make_int4(0, 0, 0, 0);
      const bool keep = v.y > v.x;
      const unsigned kept = __ballot_sync(0xffffffffu, keep);
      __syncwarp();  // every lane has read its entry before any is overwritten (a kept entry only moves down)
      if (keep) ranges[nranges + __popc(kept & below)] = v;
      nranges += __popc(kept);
      __syncwarp();
    }
    for (int r0 = 0; r0 < nranges; r0 += 32) {
      const int r = r0 + lane;
      const int c = r < nranges ? (ranges[r].y - ranges[r].x + kChunk - 1) / kChunk : 0;
      int incl = c;
      for (int o = 1; o < 32; o <<= 1) {
        const int t = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += t;
      }
      if (r < nranges) ranges[r].w = total_chunks + incl - c;
      total_chunks += __shfl_sync(0xffffffffu, incl, 31);
    }
    fill(0);
  }

  int* stage = s_stage[warp];
  const int group_places = kListGroup * L;
  static_assert(kListGroup == 8, "places / group_places below is a shift by log2_l + 3");
  const int log2_group_places = log2_l + 3;
  const int lane0 = s * L;  // the atom's first list lane
  int base = 0;             // places written before the stage
  int staged = 0;           // places in the stage
  int markers = 0;          // places taken by markers (shift changes, the end's padding)
  int code_now = kNoShift;
  // Writes the first `places` places of the stage (whole rounds of groups, one group per list lane each)
  // and moves the rest to the stage's front.
  auto write = [&](int places) {
    __syncwarp();
    const int g0 = base >> log2_group_places;
    for (int w = lane; w < places / 4; w += 32) {  // word w: round w / 2L, list lane (w / 2) % L, half w % 2
      const int round = w >> (log2_l + 1), k = (w >> 1) & (L - 1), h = w & 1;
      const int e0 = round * group_places + 4 * h * L + k;
      if (g0 + round < p.cap_groups) {
        int4* dst = list_group(p.list, lane0 + k, p.cap_groups, g0 + round) + h;
        *dst = make_int4(stage[e0], stage[e0 + L], stage[e0 + 2 * L], stage[e0 + 3 * L]);
      }
    }
    // At most 95: kFlushPlaces - 1 staged, then a round's 32 markers and 64 entries, less kFlushPlaces.
    const int rest = staged - places;
    int moved[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) moved[q] = lane + 32 * q < rest ? stage[places + lane + 32 * q] : 0;
    __syncwarp();
#pragma unroll
    for (int q = 0; q < 4; ++q)
      if (lane + 32 * q < rest) stage[lane + 32 * q] = moved[q];
    __syncwarp();
    base += places;
    staged = rest;
  };
  // The general test (more than four exclusions): the exclusion list searched per candidate in range.
  auto accept = [&](int j, float xsx, float xsy, float xsz, int code) {
    const float4 xj = p.xq[j];
    const float ddx = xsx - xj.x, ddy = xsy - xj.y, ddz = xsz - xj.z;
    bool take = ddx * ddx + ddy * ddy + ddz * ddz < p.rlist2;
    take = take && !(j == s && code == kNoShift);
    if (take && zm_i != 0) take = (zm_i & p.zone_mask_s[j]) == 0;
    if (take) {
      const int oj = p.atom_of[j];
      for (int q = eb; q < eb + nex; ++q) take = take && p.excl[q] != oj;
    }
    return take;
  };
  // The common case as straight-line code: at most four exclusions, decided once per atom, so the warp's
  // rounds take one branch-free path; `slots` (3: at most two exclusions, every atom of a 3-site water; 5: at
  // most four) is how many of ex[] to compare, the atom's own place included; `zones` whether the atom is a
  // halo atom of domain decomposition, which pairs only with atoms of no zone it belongs to. j is a candidate
  // and xj its position (a lane past its chunk's candidates, or in a chunk past the shift's, has the chunk's
  // first candidate and `valid` false).
  auto accept_simple = [&](auto slots, auto zones, int j, const float4& xj, bool valid, float xsx, float xsy,
                           float xsz) {
    constexpr int kSlots = decltype(slots)::value;
    const float ddx = xsx - xj.x, ddy = xsy - xj.y, ddz = xsz - xj.z;
    bool in = ddx * ddx + ddy * ddy + ddz * ddz < p.rlist2;
    if constexpr (decltype(zones)::value) in = in & ((zm_i & __ldg(p.zone_mask_s + j)) == 0);
    bool excluded = false;
#pragma unroll
    for (int q = 0; q < kSlots; ++q) excluded = excluded || j == ex[q];
    return valid & in & !excluded;
  };
  // The rounds over the atom's chunks, one copy per kind of test (`slots` 0: the general one). The ranges of
  // one periodic shift are consecutive in the table, and a round never mixes shifts (the shifted position
  // and the marker are per shift). Quarter q of the warp tests chunk k + q for candidate slot a and chunk
  // k + 2 + q for slot b, so the candidates keep the table's order (the ballots place slot a's lanes, then
  // slot b's). A shift's rounds of four whole chunks run in a loop with no other test (the table holds
  // them: refilled between loops); its last round, of one to three chunks, reads the chunks past the
  // shift's as its last and takes none of them. (Against one loop with these tests in every round: ~90 ->
  // ~70 instructions a round, bench/NOTES.md, twelfth session.)
  auto visit = [&](auto slots, auto zones) {
    constexpr int kSlots = decltype(slots)::value;
    const int o = lane & (kChunk - 1), qa = lane / kChunk, qb = 2 + lane / kChunk;
    // One round from chunk k: `whole` when chunks k .. k + 3 are all the shift's (k + 4 <= k_end).
    auto round = [&](auto whole, int k, int k_end, float xsx, float xsy, float xsz, int code) {
      int ca, cb;
      bool va, vb;
      if constexpr (decltype(whole)::value) {
        ca = chunks[k - k0 + qa];
        cb = chunks[k - k0 + qb];
        va = o < (ca & 31);
        vb = o < (cb & 31);
      } else {
        ca = chunks[min(k + qa, k_end - 1) - k0];
        cb = chunks[min(k + qb, k_end - 1) - k0];
        va = k + qa < k_end && o < (ca & 31);
        vb = k + qb < k_end && o < (cb & 31);
      }
      // A lane past its chunk's candidates tests the chunk's first (an index in range) and takes none.
      const int ja = (ca >> 5) + (va ? o : 0), jb = (cb >> 5) + (vb ? o : 0);
      bool ta, tb;
      if constexpr (kSlots > 0) {
        const float4 xa = __ldg(p.xq + ja), xb = __ldg(p.xq + jb);  // both loads in flight
        ta = accept_simple(slots, zones, ja, xa, va, xsx, xsy, xsz);
        tb = accept_simple(slots, zones, jb, xb, vb, xsx, xsy, xsz);
      } else {
        ta = va && accept(ja, xsx, xsy, xsz, code);
        tb = vb && accept(jb, xsx, xsy, xsz, code);
      }
      const unsigned ma = __ballot_sync(0xffffffffu, ta), mb = __ballot_sync(0xffffffffu, tb);
      if ((ma | mb) == 0) return;  // (so the stage is written only after a round that takes a candidate)
      const int na = __popc(ma);
      // Every lane stores (a rejected candidate into its own sink word): no branch around the stores.
      const int sink = kWarpSink + lane;
      stage[ta ? staged + __popc(ma & below) : sink] = ja;
      stage[tb ? staged + na + __popc(mb & below) : sink] = jb;
      staged += na + __popc(mb);
      if (staged >= kFlushPlaces) write(kFlushPlaces);
    };
    for (int r0 = 0; r0 < nranges;) {
      const int code = ranges[r0].z;
      int r1 = r0 + 1;  // the end of this shift's ranges: the first of another shift, 32 ranges at a time
      for (;;) {
        const int r = r1 + lane;
        const unsigned other = __ballot_sync(0xffffffffu, r >= nranges || ranges[r].z != code);
        if (other) {
          r1 += __ffs(other) - 1;
          break;
        }
        r1 += 32;
      }
      const int k_end = r1 < nranges ? ranges[r1].w : total_chunks;
      const float xsx = xi.x - static_cast<float>(code % 3 - 1) * p.lenf[0];
      const float xsy = xi.y - static_cast<float>((code / 3) % 3 - 1) * p.lenf[1];
      const float xsz = xi.z - static_cast<float>(code / 9 - 1) * p.lenf[2];
      // A new shift's marker goes in every list lane first, and is taken back at the shift's end if none of
      // its candidates was taken (the stage cannot have been written since: see round). It fits: before it
      // the stage holds fewer than kFlushPlaces places.
      const int code_before = code_now;
      const bool marker = code != code_now;
      if (marker) {
        if (lane < L) stage[staged + lane] = -(code + 1);
        staged += L;
        markers += L;
        code_now = code;
      }
      const int places_after_marker = base + staged;
      int k = ranges[r0].w;
      while (k + 4 <= k_end) {
        if (k + 4 > k0 + cap) fill(k);
        const int last = min(k_end, k0 + cap) - 4;  // the last first chunk of a whole round in the table
        for (; k <= last; k += 4) round(std::true_type{}, k, k_end, xsx, xsy, xsz, code);
      }
      if (k < k_end) {
        if (k + 4 > k0 + cap) fill(k);
        round(std::false_type{}, k, k_end, xsx, xsy, xsz, code);
      }
      if (marker && base + staged == places_after_marker) {
        staged -= L;
        markers -= L;
        code_now = code_before;
        __syncwarp();  // the next shift's places may fall where other lanes wrote this marker
      }
      r0 = r1;
    }
  };
  // Which copy of the rounds (numbers of this switch, not HALOMD_TEST_SEARCH_PATH's): 0 the general test, 1
  // three slots, 2 five, 3 and 4 the same with the zone test (a halo row).
  int path = few_excl ? (nex <= 2 ? 1 : 2) + (zm_i != 0 ? 2 : 0) : 0;
  // Tests take another copy that also holds for the atom, to compare the lists (HALOMD_TEST_SEARCH_PATH).
  if (p.test_path == 1)
    path = 0;
  else if (p.test_path == 2 && (path == 1 || path == 3))
    ++path;
  using Zones = std::true_type;
  using NoZones = std::false_type;
  switch (path) {
    case 0:
      visit(std::integral_constant<int, 0>{}, NoZones{});
      break;
    case 1:
      visit(std::integral_constant<int, 3>{}, NoZones{});
      break;
    case 2:
      visit(std::integral_constant<int, 5>{}, NoZones{});
      break;
    case 3:
      visit(std::integral_constant<int, 3>{}, Zones{});
      break;
    default:
      visit(std::integral_constant<int, 5>{}, Zones{});
      break;
  }
  // Pads the last round of groups with markers that change nothing, and writes what is staged.
  const int pad = (group_places - (staged & (group_places - 1))) & (group_places - 1);
  __syncwarp();
  for (int k = lane; k < pad; k += 32) stage[staged + k] = -(code_now + 1);
  staged += pad;
  markers += pad;
  write(staged);
  const int groups = base >> log2_group_places;
  const int pairs = base - markers;
  for (int k = lane; k < L; k += 32) p.groups[lane0 + k] = min(groups, p.cap_groups);
  if (lane == 0) {
    if (groups > p.cap_groups) flag_error(p.st, p.st->step, i, kErrListFull);
    atomicMax(&p.st->max_list_groups, groups);
    atomicAdd(reinterpret_cast<unsigned long long*>(&p.st->list_pairs),
              static_cast<unsigned long long>(pairs));
  }
}

}  // namespace

void launch_pair_search(gpu::GpuCalls& calls, const SearchParams& p) {
  if (p.n >= (1 << 26))  // a chunk of the search packs a sorted atom index into 26 bits
    throw RuntimeError(
        -1, -1,
        "the GPU pair search handles at most 67,108,863 atoms per GPU (domain), got " + std::to_string(p.n));
  const int atom_blocks = (p.n + kBlock - 1) / kBlock;
  calls.launch("ns_assign_kernel", ns_assign_kernel, atom_blocks, kBlock, 0, p);
  if (p.partner_ext && p.zone_mask) {
    calls.memset_async(p.partner_ext, 0, 3 * sizeof(unsigned long long));
    calls.launch("ns_partner_ext_kernel", ns_partner_ext_kernel, atom_blocks, kBlock, 0, p);
  }
  // Always scan_tiles(ncell) blocks: the tickets since the grid's set-up must come in whole launches of that
  // many, or a tile would wait for an epoch its predecessor never publishes.
  calls.launch("ns_scan_kernel", ns_scan_kernel, scan_tiles(p.ncell), kScanThreads, 0, p);
  calls.launch("ns_scatter_kernel", ns_scatter_kernel, atom_blocks, kBlock, 0, p);
  calls.launch("ns_rank_kernel", ns_rank_kernel, atom_blocks, kBlock, 0, p);
  if (p.cell_interior) {
    const int cell_blocks = (p.ncell + kBlock - 1) / kBlock;
    calls.launch("ns_interior_pass_kernel", ns_interior_pass_kernel, cell_blocks, kBlock, 0, p, 2,
                 static_cast<const int*>(p.cell_halo), p.cell_count);
    calls.launch("ns_interior_pass_kernel", ns_interior_pass_kernel, cell_blocks, kBlock, 0, p, 1,
                 static_cast<const int*>(p.cell_count), p.cell_halo);
    calls.launch("ns_interior_pass_kernel", ns_interior_pass_kernel, cell_blocks, kBlock, 0, p, 0,
                 static_cast<const int*>(p.cell_halo), p.cell_count);
  }
  if (p.rows) {  // after the cells' classes, which split the home rows
    const int row_blocks = (p.n + kRowListBlock - 1) / kRowListBlock;
    calls.launch("ns_row_count_kernel", ns_row_count_kernel, row_blocks, kRowListBlock, 0, p);
    calls.launch("ns_row_list_kernel", ns_row_list_kernel, row_blocks, kRowListBlock, 0, p);
  }
  const int blocks = (p.n + kWarpsPerBlock - 1) / kWarpsPerBlock;
  const size_t table = sizeof(int4) * 2 * columns(p) * kWarpsPerBlock;
  if (p.search_blocks == 16)
    calls.launch("ns_warp_search_kernel", ns_warp_search_kernel<16>, blocks, kBlock, table, p);
  else if (p.search_blocks == 12)
    calls.launch("ns_warp_search_kernel", ns_warp_search_kernel<12>, blocks, kBlock, table, p);
  else
    calls.launch("ns_warp_search_kernel", ns_warp_search_kernel<8>, blocks, kBlock, table, p);
}

}  // namespace halomd::cuda
