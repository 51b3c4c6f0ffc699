#include "cuda/cluster_build.h"
#include "cuda/device_util.cuh"

namespace halomd::cuda {
namespace {

constexpr int kC = 8, kS = 8, kSuper = 64;             // ClusterPairList's cluster, super-cluster sizes
constexpr double kEmptyLo = 1e300, kEmptyHi = -1e300;  // cpu/cluster_pairlist.cpp's empty bounds

// The keys are computed with _rn intrinsics so that no multiply and add fuse: the host reference computes
// them without fused operations.
using P = ClusterBuildParams;

__device__ int cell_index(const P& p, int d, double v, int cells) {
  const double f = __dmul_rn(__ddiv_rn(__dsub_rn(v, p.lo[d]), p.len[d]), static_cast<double>(cells));
  return min(max(static_cast<int>(f), 0), cells - 1);
}

__global__ void wrap_count_kernel(P p) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= p.n) return;
  double w[3];
  for (int d = 0; d < 3; ++d) {
    const double x = p.x[d][a];
    w[d] = __dsub_rn(x, __dmul_rn(p.L[d], floor(__dmul_rn(x, p.inv[d]))));
    p.w[d][a] = w[d];
  }
  const int cx = cell_index(p, 0, w[0], p.ncx), cy = cell_index(p, 1, w[1], p.ncy);
  const int cell = (cx * p.ncy + cy) * p.nz + cell_index(p, 2, w[2], p.nz);
  p.cell_of[a] = cell;
  atomicAdd(&p.cell_count[cell], 1);
}

__global__ void cell_scan_kernel(P p) {
  block_scan(
      p.ncol * p.nz, [&](int c) { return p.cell_count[c]; }, p.cell_start);
}

__global__ void place_kernel(P p) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= p.n) return;
  const int c = p.cell_of[a];
  p.cell_atoms[p.cell_start[c] + atomicAdd(&p.cell_fill[c], 1)] = a;
}

// Each cell's few atoms by index (insertion sort): with the cells in column then z order, a column's atoms
// are then in the host's order (z cell, index).
__global__ void cell_sort_kernel(P p) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= p.ncol * p.nz) return;
  int* a = p.cell_atoms + p.cell_start[c];
  const int m = p.cell_start[c + 1] - p.cell_start[c];
  for (int i = 1; i < m; ++i) {
    const int v = a[i];
    int k = i - 1;
    for (; k >= 0 && a[k] > v; --k) a[k + 1] = a[k];
    a[k + 1] = v;
  }
}

__device__ int column_count(const P& p, int c) {
  return p.cell_start[(c + 1) * p.nz] - p.cell_start[c * p.nz];
}

__global__ void column_scan_kernel(P p) {
  block_scan(
      p.ncol, [&](int c) { return (column_count(p, c) + kSuper - 1) / kSuper * kSuper; }, p.col_slot_start);
  if (threadIdx.x == 0 && p.col_slot_start[p.ncol] > p.max_super * kSuper) atomicOr(p.overflow, 1);
}

__global__ void scatter_kernel(P p) {
  const int c = blockIdx.x;
  const int first = p.col_slot_start[c], padded = p.col_slot_start[c + 1] - first, m = column_count(p, c);
  if (p.col_slot_start[p.ncol] > p.max_super * kSuper) return;
  for (int i = threadIdx.x; i < padded; i += blockDim.x)
    p.slot_atom[first + i] = i < m ? p.cell_atoms[p.cell_start[c * p.nz] + i] : -1;
}

__device__ int num_super(const P& p) { return min(p.col_slot_start[p.ncol] / kSuper, p.max_super); }

// A block of 64 per super-cluster: the 2x2x2 split (rank by x in 64, by y in each 32, by z in each 16; ties
// by atom index; padding last), then the boxes of its clusters and of itself.
__global__ void split_kernel(P p) {
  const int sc = blockIdx.x, t = threadIdx.x;
  if (sc >= num_super(p)) return;
  __shared__ double s_key[kSuper];
  __shared__ int s_tie[kSuper], s_at[kSuper];
  const int a = p.slot_atom[sc * kSuper + t];
  int pos = t;
  for (int level = 0; level < 3; ++level) {
    const int size = kSuper >> level;
    const double key = a < 0 ? 0.0 : p.w[level][a];
    const int tie = a < 0 ? (1 << 30) + t : a;  // padding after every atom, in any order among itself
    __syncthreads();
    s_key[pos] = key;
    s_tie[pos] = tie;
    __syncthreads();
    const int g0 = pos / size * size;
    int r = 0;
    for (int k = g0; k < g0 + size; ++k) {
      const bool pad_k = s_tie[k] >= (1 << 30), pad = a < 0;
      const bool before =
          pad_k == pad ? (pad ? s_tie[k] < tie : (s_key[k] < key || (s_key[k] == key && s_tie[k] < tie)))
                       : pad;  // an atom comes before any padding
      r += before ? 1 : 0;
    }
    pos = g0 + r;
  }
  __syncthreads();
  s_at[pos] = a;
  p.slot_atom[sc * kSuper + pos] = a;
  __syncthreads();
  if (t < kS + 1) {
    const int b = t < kS ? t * kC : 0, e = t < kS ? b + kC : kSuper;
    double lo[3] = {kEmptyLo, kEmptyLo, kEmptyLo}, hi[3] = {kEmptyHi, kEmptyHi, kEmptyHi};
    for (int i = b; i < e; ++i) {
      const int at = s_at[i];
      if (at < 0) continue;
      for (int d = 0; d < 3; ++d) {
        lo[d] = fmin(lo[d], p.w[d][at]);
        hi[d] = fmax(hi[d], p.w[d][at]);
      }
    }
    double* const out_lo = t < kS ? p.box_lo + 3 * (sc * kS + t) : p.sbox_lo + 3 * sc;
    double* const out_hi = t < kS ? p.box_hi + 3 * (sc * kS + t) : p.sbox_hi + 3 * sc;
    for (int d = 0; d < 3; ++d) {
      out_lo[d] = lo[d];
      out_hi[d] = hi[d];
    }
  }
}

__global__ void column_box_kernel(P p) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= p.ncol) return;
  double lo[2] = {kEmptyLo, kEmptyLo}, hi[2] = {kEmptyHi, kEmptyHi};
  for (int s = p.col_slot_start[c] / kSuper; s < p.col_slot_start[c + 1] / kSuper && s < p.max_super; ++s) {
    if (p.sbox_lo[3 * s] > p.sbox_hi[3 * s]) continue;
    for (int d = 0; d < 2; ++d) {
      lo[d] = fmin(lo[d], fmin(p.sbox_lo[3 * s + d], p.sbox_hi[3 * s + d]));
      hi[d] = fmax(hi[d], fmax(p.sbox_lo[3 * s + d], p.sbox_hi[3 * s + d]));
    }
  }
  for (int d = 0; d < 2; ++d) {
    p.cbox_lo[2 * c + d] = lo[d];
    p.cbox_hi[2 * c + d] = hi[d];
  }
}

// The host's gap2: box a shifted by s against box b, in the same order of operations.
__device__ double gap2(const double* alo, const double* ahi, const double* s, const double* blo,
                       const double* bhi) {
  double g2 = 0.0;
  for (int d = 0; d < 3; ++d) {
    const double g = fmax(
        0.0, fmax(__dsub_rn(__dadd_rn(alo[d], s[d]), bhi[d]), __dsub_rn(__dsub_rn(blo[d], ahi[d]), s[d])));
    g2 = __dadd_rn(g2, __dmul_rn(g, g));
  }
  return g2;
}

// The pairs (slot a of ci, slot b of cj) that may interact at shift code sh, distance aside (the host's
// pair_mask): not padding, not a pair twice within a cluster, not excluded. Exclusions are looked up only
// for atoms of the same molecule (they never cross molecules; without molecules, for every pair).
__device__ unsigned long long pair_mask(const P& p, int ci, int cj, int sh) {
  unsigned long long m = 0;
  for (int a = 0; a < kC; ++a) {
    const int i = p.slot_atom[ci * kC + a];
    if (i < 0) continue;
    const int eb = p.excl_start[i], ee = p.excl_start[i + 1];
    const int mi = p.mol ? p.mol[i] : 0;
    for (int b = 0; b < kC; ++b) {
      const int j = p.slot_atom[cj * kC + b];
      if (j < 0 || (ci == cj && sh == 13 && b <= a)) continue;
      if (!p.mol || p.mol[j] == mi) {
        int lo = eb, hi = ee;  // binary search of j among i's sorted exclusions
        while (lo < hi) {
          const int mid = (lo + hi) >> 1;
          if (p.excl[mid] < j)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (lo < ee && p.excl[lo] == j) continue;
      }
      m |= 1ull << (kC * a + b);
    }
  }
  return m;
}

constexpr int kSearchWarps = 4;

// A warp per super-cluster, in the host's loop order: shifts, columns, then the column's clusters from the
// super-cluster's own on, 32 at a time; ballots keep their order. The lanes test 32 columns at a time
// against the super-cluster's box, and a j-cluster against it before its 8 i-clusters. A j-cluster whose
// pairs with an i-cluster may all interact (no padding, not the cluster itself, no molecule in common:
// exclusions stay within molecules) gets no pair mask without a look at the exclusions.
__global__ void __launch_bounds__(32 * kSearchWarps) search_kernel(P p) {
  __shared__ double s_box[kSearchWarps][kS][6];
  __shared__ int s_mol[kSearchWarps][kSuper];  // -1: padding
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, sc = blockIdx.x * kSearchWarps + w;
  if (sc >= num_super(p)) return;  // whole warps: the kernel synchronises warps only
  const double* slo = p.sbox_lo + 3 * sc;
  const double* shi = p.sbox_hi + 3 * sc;
  for (int q = lane; q < kS * 6; q += 32) {
    const int k = q / 6, c = q % 6;
    s_box[w][k][c] = c < 3 ? p.box_lo[3 * (sc * kS + k) + c] : p.box_hi[3 * (sc * kS + k) + c - 3];
  }
  for (int q = lane; q < kSuper; q += 32) {
    const int a = p.slot_atom[sc * kSuper + q];
    s_mol[w][q] = a < 0 ? -1 : (p.mol ? p.mol[a] : 0);
  }
  __syncwarp();
  int ne = 0, nj = 0, nm = 0, nw = 0;
  if (slo[0] <= shi[0]) {
    for (int sh = 0; sh < 27; ++sh) {
      const double s[3] = {(sh % 3 - 1) * p.L[0], (sh / 3 % 3 - 1) * p.L[1], (sh / 9 - 1) * p.L[2]};
      const int first = nj;
      for (int cb = 0; cb < p.ncol; cb += 32) {
        bool col_hit = false;
        {
          const int c = cb + lane;
          if (c < p.ncol) {
            const double clo[3] = {p.cbox_lo[2 * c], p.cbox_lo[2 * c + 1], -1e300};
            const double chi[3] = {p.cbox_hi[2 * c], p.cbox_hi[2 * c + 1], 1e300};
            col_hit = clo[0] <= chi[0] && gap2(slo, shi, s, clo, chi) < p.r2;
          }
        }
        for (unsigned cols = __ballot_sync(0xffffffffu, col_hit); cols != 0; cols &= cols - 1) {
          const int c = cb + __ffs(cols) - 1;
          const int c0 = max(sc, p.col_slot_start[c] / kSuper) * kS;
          const int c1 = min(p.col_slot_start[c + 1] / kSuper, p.max_super) * kS;
          for (int base = c0; base < c1; base += 32) {
            const int cj = base + lane;
            unsigned imask = 0;
            bool full = true;
            unsigned long long m[kS];
#pragma unroll
            for (int k = 0; k < kS; ++k) m[k] = 0;
            if (cj < c1 && p.box_lo[3 * cj] <= p.box_hi[3 * cj]) {
              const double* jlo = p.box_lo + 3 * cj;
              const double* jhi = p.box_hi + 3 * cj;
              if (gap2(slo, shi, s, jlo, jhi) < p.r2) {
                unsigned near = 0;
#pragma unroll
                for (int k = 0; k < kS; ++k) {
                  const int ci = sc * kS + k;
                  const double* ilo = s_box[w][k];
                  if (ci > cj || (ci == cj && sh < 13) || ilo[0] > ilo[3] ||
                      gap2(ilo, ilo + 3, s, jlo, jhi) >= p.r2)
                    continue;
                  near |= 1u << k;
                }
                if (near != 0) {
                  int mj[kC];
                  bool jpad = false;
#pragma unroll
                  for (int b = 0; b < kC; ++b) {
                    const int a = p.slot_atom[cj * kC + b];
                    mj[b] = a < 0 ? -1 : (p.mol ? p.mol[a] : 0);
                    jpad = jpad || a < 0;
                  }
                  for (int k = 0; k < kS; ++k) {
                    if (!(near >> k & 1)) continue;
                    const int ci = sc * kS + k;
                    bool plain = !jpad && !(ci == cj && sh == 13) && p.mol != nullptr;
                    for (int a = 0; a < kC && plain; ++a) {
                      const int mi = s_mol[w][k * kC + a];
                      plain = mi >= 0;
                      for (int b = 0; b < kC && plain; ++b) plain = mi != mj[b];
                    }
                    m[k] = plain ? ~0ull : pair_mask(p, ci, cj, sh);
                    if (m[k] == 0) continue;
                    imask |= 1u << k;
                    full = full && m[k] == ~0ull;
                  }
                }
              }
            }
            const bool with_masks = imask != 0 && !full;
            const unsigned hits = __ballot_sync(0xffffffffu, imask != 0);
            const unsigned maskers = __ballot_sync(0xffffffffu, with_masks);
            const unsigned below = (1u << lane) - 1;
            const int at = nj + __popc(hits & below), mat = nm + __popc(maskers & below);
            if (imask != 0) {
              if (at < kClusterJCap && (!with_masks || mat < kClusterMaskCap)) {
                p.sup_j[sc * kClusterJCap + at] =
                    make_int4(cj, static_cast<int>(imask), with_masks ? mat : -1, 0);
                if (with_masks)
                  for (int k = 0; k < kS; ++k)
                    p.sup_masks[(static_cast<size_t>(sc) * kClusterMaskCap + mat) * kS + k] = m[k];
              } else {
                atomicOr(p.overflow, 2);
              }
            }
            nj += __popc(hits);
            nm += __popc(maskers);
          }
        }
      }
      if (nj > first && lane == 0) {
        if (ne < kClusterEntryCap)
          p.sup_entries[sc * kClusterEntryCap + ne] = make_int4(sc, sh, first, nj - first);
        else
          atomicOr(p.overflow, 4);
      }
      if (nj > first) {
        ++ne;
        nw += (nj - first + p.chunk - 1) / p.chunk;
      }
    }
  }
  if (lane == 0) {
    p.counts[kCounts * sc] = min(ne, kClusterEntryCap);
    p.counts[kCounts * sc + 1] = min(nj, kClusterJCap);
    p.counts[kCounts * sc + 2] = min(nm, kClusterMaskCap);
    // No work items where a capacity was exceeded: the list then has j-clusters it did not write.
    p.counts[kCounts * sc + 3] =
        ne <= kClusterEntryCap && nj <= kClusterJCap && nm <= kClusterMaskCap ? nw : 0;
  }
}

// Exclusive scans of the entries, js, mask groups and work items per super-cluster (one block each:
// blockIdx.x).
__global__ void count_scan_kernel(P p) {
  const int k = blockIdx.x, ns = num_super(p);
  block_scan(
      p.max_super, [&](int sc) { return sc < ns ? p.counts[kCounts * sc + k] : 0; },
      p.offsets + k * (p.max_super + 1));
}

__global__ void compact_kernel(P p) {
  const int sc = blockIdx.x;
  if (sc >= num_super(p)) return;
  const int* oe = p.offsets;
  const int* oj = p.offsets + (p.max_super + 1);
  const int* om = p.offsets + 2 * (p.max_super + 1);
  const int* ow = p.offsets + 3 * (p.max_super + 1);
  const int* c = p.counts + kCounts * sc;
  for (int k = threadIdx.x; k < c[0]; k += blockDim.x) {
    int4 e = p.sup_entries[sc * kClusterEntryCap + k];
    e.z += oj[sc];
    p.entries[oe[sc] + k] = e;
  }
  for (int q = threadIdx.x; q < c[1]; q += blockDim.x) {
    int4 j = p.sup_j[sc * kClusterJCap + q];
    if (j.z >= 0) j.z = (om[sc] + j.z) * kS;  // the host's index of the first of its 8 masks
    p.j[oj[sc] + q] = j;
  }
  for (int q = threadIdx.x; q < c[2] * kS; q += blockDim.x)
    p.masks[static_cast<size_t>(om[sc]) * kS + q] =
        p.sup_masks[static_cast<size_t>(sc) * kClusterMaskCap * kS + q];
  // The work items: each entry cut into chunks of at most `chunk` j-clusters.
  if (threadIdx.x == 0 && c[3] > 0) {
    int at = ow[sc];
    for (int k = 0; k < c[0]; ++k) {
      const int4 e = p.sup_entries[sc * kClusterEntryCap + k];
      for (int q = 0; q < e.w; q += p.chunk)
        p.work[at++] = make_int4(e.x, e.y, oj[sc] + e.z + q, min(p.chunk, e.w - q));
    }
  }
}

}  // namespace

void launch_cluster_build(gpu::GpuCalls& calls, const ClusterBuildParams& p) {
  const int ncell = p.ncol * p.nz, blocks_n = (p.n + 255) / 256;
  calls.memset_async(p.cell_count, 0, sizeof(int) * ncell);
  calls.memset_async(p.cell_fill, 0, sizeof(int) * ncell);
  calls.memset_async(p.overflow, 0, sizeof(int));
  calls.launch("cluster_wrap_count_kernel", wrap_count_kernel, blocks_n, 256, 0, p);
  calls.launch("cluster_cell_scan_kernel", cell_scan_kernel, 1, 1024, 0, p);
  calls.launch("cluster_place_kernel", place_kernel, blocks_n, 256, 0, p);
  calls.launch("cluster_cell_sort_kernel", cell_sort_kernel, (ncell + 255) / 256, 256, 0, p);
  calls.launch("cluster_column_scan_kernel", column_scan_kernel, 1, 1024, 0, p);
  calls.launch("cluster_scatter_kernel", scatter_kernel, p.ncol, 128, 0, p);
  calls.launch("cluster_split_kernel", split_kernel, p.max_super, kSuper, 0, p);
  calls.launch("cluster_column_box_kernel", column_box_kernel, (p.ncol + 127) / 128, 128, 0, p);
  calls.launch("cluster_search_kernel", search_kernel, (p.max_super + kSearchWarps - 1) / kSearchWarps,
               32 * kSearchWarps, 0, p);
  calls.launch("cluster_count_scan_kernel", count_scan_kernel, kCounts, 1024, 0, p);
  calls.launch("cluster_compact_kernel", compact_kernel, p.max_super, 128, 0, p);
}

}  // namespace halomd::cuda
