// The cluster grid and box search of bench/cluster_nb.cu on the GPU (bench/NOTES.md, sixteenth session): the
// other half of the question whether a cluster list pays. Same layout as the host builder there: columns of
// super-cluster width in x-y, atoms sorted by z (ties by index) and cut into super-clusters of 64, each split
// 2x2x2 into clusters of 8; a half list of (super-cluster, shift) entries with the j-clusters whose box lies
// within rlist of some of its 8 i-clusters. Deterministic: every order is a sort or a ballot in a fixed loop,
// never an atomic's.
//
// Kernels, in order: count atoms per column; scan the padded counts; place atoms per column; sort each
// column by z; split each super-cluster 2x2x2 and fill positions, types and boxes; search (a warp per
// super-cluster, lanes over a column's clusters, 32 at a time); scan the entries per super-cluster and place
// them. No host synchronisation: the entry count stays on the device for the force kernel.
#pragma once

#include <cuda_runtime.h>

#include "cuda/device_util.cuh"

namespace cluster_gpu {

constexpr int kCl = 8, kSuper = 8, kSuperAtoms = 64;

struct Box6 {
  float lo[3], hi[3];
};

struct ListParams {
  int n;  // atoms
  float box[3];
  int ncx, ncy;
  float colw[2];
  float rlist2, rlist;
  int chunk;       // j-clusters per entry at most
  const float* x;  // wrapped positions, per atom
  const float* y;
  const float* z;
  const float* q;
  const int* type;
  const int* mol;
  int* col_of;     // per atom
  int* col_n;      // per column: atoms
  int* col_fill;   // per column: placement counter
  int* col_start;  // per column: first slot (scan of padded counts); [ncols] = total slots
  int* col_tmp;    // per slot: atoms of a column, unordered
  int* slot_atom;  // per slot: atom or -1
  float4* xq;      // per slot
  int2* tm;        // per slot: type, molecule (padding: type 0, -1 - slot)
  Box6* bb;        // per cluster
  Box6* sbb;       // per super-cluster
  int max_slots;   // capacity of the slot arrays
  int jcap;        // j-entries per super-cluster at most
  int ecap;        // entries per super-cluster at most
  int* jcount;     // per super-cluster
  int* ecount;     // per super-cluster
  int* estart;     // per super-cluster: scan of ecount; [nsuper] = total
  int4* sentries;  // per super-cluster region: (super, shift, first, count)
  int4* entries;   // contiguous
  int3* jl;        // (cj, imask, 0): JEntry's layout, region sc * jcap
  int* overflow;   // set when a capacity was exceeded
};

__device__ inline int ncols(const ListParams& p) { return p.ncx * p.ncy; }

__global__ void col_count_kernel(ListParams p) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= p.n) return;
  const int cx = min(p.ncx - 1, static_cast<int>(p.x[a] / p.colw[0]));
  const int cy = min(p.ncy - 1, static_cast<int>(p.y[a] / p.colw[1]));
  const int c = cx * p.ncy + cy;
  p.col_of[a] = c;
  atomicAdd(&p.col_n[c], 1);
}

using halomd::cuda::block_scan;

__global__ void col_scan_kernel(ListParams p) {
  block_scan(
      ncols(p), [&](int c) { return (p.col_n[c] + kSuperAtoms - 1) / kSuperAtoms * kSuperAtoms; },
      p.col_start);
  if (threadIdx.x == 0 && p.col_start[ncols(p)] > p.max_slots) atomicExch(p.overflow, 1);
}

__global__ void col_place_kernel(ListParams p) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= p.n) return;
  const int c = p.col_of[a];
  const int k = atomicAdd(&p.col_fill[c], 1);
  if (p.col_start[c] + k < p.max_slots) p.col_tmp[p.col_start[c] + k] = a;
}

// One block per column: rank by (z, atom) in shared memory; the padded tail gets -1.
__global__ void col_sort_kernel(ListParams p) {
  extern __shared__ float s_z[];
  const int c = blockIdx.x;
  const int m = p.col_n[c], first = p.col_start[c], padded = p.col_start[c + 1] - first;
  if (first + padded > p.max_slots) return;
  int* s_a = reinterpret_cast<int*>(s_z + m);
  for (int i = threadIdx.x; i < m; i += blockDim.x) {
    s_a[i] = p.col_tmp[first + i];
    s_z[i] = p.z[s_a[i]];
  }
  __syncthreads();
  for (int i = threadIdx.x; i < m; i += blockDim.x) {
    const float zi = s_z[i];
    const int ai = s_a[i];
    int r = 0;
    for (int j = 0; j < m; ++j) r += (s_z[j] < zi || (s_z[j] == zi && s_a[j] < ai)) ? 1 : 0;
    p.slot_atom[first + r] = ai;
  }
  for (int i = m + threadIdx.x; i < padded; i += blockDim.x) p.slot_atom[first + i] = -1;
}

// One block of 64 per super-cluster: the 2x2x2 split (rank by x in 64, by y in 32, by z in 16; padding
// last), then positions, types and the boxes of its clusters and of itself.
__global__ void super_split_kernel(ListParams p) {
  const int sc = blockIdx.x, t = threadIdx.x;
  const int total = p.col_start[ncols(p)];
  if (sc * kSuperAtoms >= total) return;
  __shared__ int s_pos[kSuperAtoms];
  __shared__ float s_k[kSuperAtoms];
  const int a = p.slot_atom[sc * kSuperAtoms + t];
  int pos = t;  // position after each level; groups of `size` at level 0, 1, 2
  for (int level = 0; level < 3; ++level) {
    const int size = kSuperAtoms >> level;
    const float key = a < 0 ? 3.0e38f : (level == 0 ? p.x[a] : level == 1 ? p.y[a] : p.z[a]);
    const int tie = a < 0 ? (1 << 30) + t : a;
    __syncthreads();
    s_k[pos] = key;
    s_pos[pos] = tie;
    __syncthreads();
    const int g0 = pos / size * size;
    int r = 0;
    for (int j = g0; j < g0 + size; ++j) r += (s_k[j] < key || (s_k[j] == key && s_pos[j] < tie)) ? 1 : 0;
    __syncthreads();
    pos = g0 + r;
  }
  const int slot = sc * kSuperAtoms + pos;
  p.slot_atom[slot] = a;  // each thread writes its own final place: a permutation of the block's slots
  if (a >= 0) {
    p.xq[slot] = make_float4(p.x[a], p.y[a], p.z[a], p.q[a]);
    p.tm[slot] = make_int2(p.type[a], p.mol[a]);
  } else {
    p.xq[slot] = make_float4(-1000.f - 10.f * slot, -1000.f, -1000.f, 0.f);
    p.tm[slot] = make_int2(0, -1 - slot);
  }
  __syncthreads();
  __shared__ float s_lo[kSuperAtoms][3], s_hi[kSuperAtoms][3];
  const float4 v = p.xq[sc * kSuperAtoms + t];
  const bool real = p.slot_atom[sc * kSuperAtoms + t] >= 0;
  s_lo[t][0] = real ? v.x : 3.0e38f;
  s_lo[t][1] = real ? v.y : 3.0e38f;
  s_lo[t][2] = real ? v.z : 3.0e38f;
  s_hi[t][0] = real ? v.x : -3.0e38f;
  s_hi[t][1] = real ? v.y : -3.0e38f;
  s_hi[t][2] = real ? v.z : -3.0e38f;
  __syncthreads();
  if (t < kSuper + 1) {
    const int b = t < kSuper ? t * kCl : 0, e = t < kSuper ? b + kCl : kSuperAtoms;
    Box6 box{{3.0e38f, 3.0e38f, 3.0e38f}, {-3.0e38f, -3.0e38f, -3.0e38f}};
    for (int i = b; i < e; ++i)
      for (int d = 0; d < 3; ++d) {
        box.lo[d] = fminf(box.lo[d], s_lo[i][d]);
        box.hi[d] = fmaxf(box.hi[d], s_hi[i][d]);
      }
    if (t < kSuper)
      p.bb[sc * kSuper + t] = box;
    else
      p.sbb[sc] = box;
  }
}

__device__ inline float gap2(const Box6& i, const float sh[3], const Box6& j) {
  float d2 = 0.f;
  for (int d = 0; d < 3; ++d) {
    const float g = fmaxf(0.f, fmaxf(i.lo[d] + sh[d] - j.hi[d], j.lo[d] - i.hi[d] - sh[d]));
    d2 += g * g;
  }
  return d2;
}

// A warp per super-cluster: for each shift near enough and each column within rlist of its box, the lanes
// take the column's clusters 32 at a time and test them against the 8 i-clusters' boxes; the hits keep
// their order (ballot and prefix count).
__global__ void search_kernel(ListParams p) {
  const int lane = threadIdx.x & 31;
  const int sc = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5);
  const int total = p.col_start[ncols(p)];
  if (sc * kSuperAtoms >= total) return;
  const Box6 sb = p.sbb[sc];
  Box6 ib[kSuper];
#pragma unroll
  for (int k = 0; k < kSuper; ++k) ib[k] = p.bb[sc * kSuper + k];
  int nj = 0, ne = 0;
  for (int sh = 0; sh < 27; ++sh) {
    const int o[3] = {sh % 3 - 1, sh / 3 % 3 - 1, sh / 9 - 1};
    bool near = sb.lo[0] <= sb.hi[0];
    for (int d = 0; d < 3; ++d)
      if ((o[d] == 1 && sb.lo[d] > p.rlist) || (o[d] == -1 && sb.hi[d] < p.box[d] - p.rlist)) near = false;
    if (!near) continue;
    const float s[3] = {o[0] * p.box[0], o[1] * p.box[1], o[2] * p.box[2]};
    const int first = nj;
    const int x0 = max(0, static_cast<int>(floorf((sb.lo[0] + s[0] - p.rlist) / p.colw[0])));
    const int x1 = min(p.ncx - 1, static_cast<int>(floorf((sb.hi[0] + s[0] + p.rlist) / p.colw[0])));
    const int y0 = max(0, static_cast<int>(floorf((sb.lo[1] + s[1] - p.rlist) / p.colw[1])));
    const int y1 = min(p.ncy - 1, static_cast<int>(floorf((sb.hi[1] + s[1] + p.rlist) / p.colw[1])));
    for (int cx = x0; cx <= x1; ++cx)
      for (int cy = y0; cy <= y1; ++cy) {
        const int col = cx * p.ncy + cy;
        // The column's super-clusters are in z order: the lanes find the run of them whose z range meets
        // the i box's, and only their clusters are tested.
        const int s0 = p.col_start[col] / kSuperAtoms, s1 = p.col_start[col + 1] / kSuperAtoms;
        int zfirst = s1, zlast = s0 - 1;
        for (int b = s0; b < s1; b += 32) {
          const int js = b + lane;
          bool meet = false;
          if (js < s1) {
            const Box6 jb = p.sbb[js];
            meet = jb.lo[2] - (sb.hi[2] + s[2]) < p.rlist && (sb.lo[2] + s[2]) - jb.hi[2] < p.rlist;
          }
          const unsigned m = __ballot_sync(0xffffffffu, meet);
          if (m) {
            zfirst = min(zfirst, b + __ffs(m) - 1);
            zlast = max(zlast, b + 31 - __clz(m));
          }
        }
        const int c0 = zfirst * kSuper, c1 = (zlast + 1) * kSuper;
        for (int base = max(c0, sc * kSuper); base < c1; base += 32) {  // half list: cj >= the first ci
          const int cj = base + lane;
          unsigned mask = 0;
          if (cj < c1) {
            const Box6 jb = p.bb[cj];
            if (jb.lo[0] <= jb.hi[0] && gap2(sb, s, jb) < p.rlist2) {
#pragma unroll
              for (int k = 0; k < kSuper; ++k) {
                const int ci = sc * kSuper + k;
                if (ci > cj || (ci == cj && sh != 13) || ib[k].lo[0] > ib[k].hi[0]) continue;
                if (gap2(ib[k], s, jb) < p.rlist2) mask |= 1u << k;
              }
            }
          }
          const unsigned hits = __ballot_sync(0xffffffffu, mask != 0);
          const int at = nj + __popc(hits & ((1u << lane) - 1));
          if (mask != 0) {
            if (at < p.jcap)
              p.jl[static_cast<size_t>(sc) * p.jcap + at] = make_int3(cj, static_cast<int>(mask), 0);
            else
              atomicExch(p.overflow, 2);
          }
          nj += __popc(hits);
        }
      }
    if (lane == 0)
      for (int b = first; b < nj; b += p.chunk) {
        if (ne < p.ecap)
          p.sentries[static_cast<size_t>(sc) * p.ecap + ne] =
              make_int4(sc, sh, sc * p.jcap + b, min(p.chunk, nj - b));
        else
          atomicExch(p.overflow, 3);
        ++ne;
      }
    ne = __shfl_sync(0xffffffffu, ne, 0);
  }
  if (lane == 0) {
    p.jcount[sc] = nj;
    p.ecount[sc] = min(ne, p.ecap);
  }
}

__global__ void entry_scan_kernel(ListParams p, int nsuper_cap) {
  const int nsuper = p.col_start[ncols(p)] / kSuperAtoms;
  block_scan(
      nsuper_cap, [&](int sc) { return sc < nsuper ? p.ecount[sc] : 0; }, p.estart);
}

__global__ void entry_place_kernel(ListParams p, int nsuper_cap) {
  const int sc = blockIdx.x;
  const int nsuper = p.col_start[ncols(p)] / kSuperAtoms;
  if (sc >= nsuper) return;
  for (int k = threadIdx.x; k < p.ecount[sc]; k += blockDim.x)
    p.entries[p.estart[sc] + k] = p.sentries[static_cast<size_t>(sc) * p.ecap + k];
}

}  // namespace cluster_gpu
