// An experiment for the next list format (bench/NOTES.md, sixteenth session): the non-bonded forces of one
// box over a cluster-pair list as GROMACS's nbnxm lays it out on GPUs, timed against nothing but itself and
// checked against a double-precision host sum. Not part of halomd: it decides whether the cluster path is
// worth building (the search would then test bounding boxes of 8-atom clusters instead of atom pairs).
//
// Layout: super-clusters of 64 atoms (columns of ~0.86 nm in x-y, atoms sorted by z, cut into 64, each
// split 2x2x2 into clusters of 8 by x, then y, then z); a half list of (super-cluster, shift) entries, each
// with the j-clusters whose bounding box lies within rlist of some of its 8 i-clusters (an 8-bit mask per
// j-cluster; pairs (ci, cj) with ci <= cj only). The kernel: a block of 64 threads per entry, thread
// (tx, ty) = (j atom, i atom); i forces in registers over the entry, j forces reduced per warp and added
// atomically (64-bit fixed point, deterministic, or float). Exclusions: pairs within one molecule (water).
//
// Usage: cluster_nb -c conf.gro -p topol.top -f run.mdp [--rlist 1.094] [--chunk N] [--split 0|1]
//          [--reps 200] [--out result.json]
// (CLUSTER_NB_HOST_ONLY=1: build and check the list on the host only.)
// --chunk: entries cut into at most N j-clusters; --split: a warp per half j-cluster (GROMACS's split). Each
// run times three kernels: fixed-point atomics, float atomics, fixed point with warps that have no pair
// within the cut-off skipping the arithmetic. bench/cluster_nb.sh builds it and runs the sweep:
//   nvcc -O3 -std=c++20 -arch=sm_90 -I src bench/cluster_nb.cu build/test/libhalomd_cpu.a \
//     build/test/libhalomd_io.a -lfmt -Xcompiler -fopenmp -o devbin/cluster_nb
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "cpu/nonbonded.h"
#include "io/gro.h"
#include "io/mdp.h"
#include "io/top.h"

namespace {

#define CK(call)                                                                      \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

constexpr int kCl = 8;     // atoms per cluster
constexpr int kSuper = 8;  // clusters per super-cluster
constexpr int kSuperAtoms = 64;
constexpr double kFixed = 4294967296.0;  // 2^32 units per kJ/mol/nm, as halomd's fixed-point forces
int kChunk = 1 << 30;                    // --chunk
bool kSplit = false;                     // --split

struct Entry {
  int super;  // i super-cluster
  int shift;  // 0..26: (sx + 1) + 3 (sy + 1) + 9 (sz + 1), added to the i atoms
  int first;  // into the j list
  int count;
};
struct JEntry {
  int cj;
  unsigned imask;  // which of the super-cluster's 8 i-clusters interact
  unsigned hmask;  // bit 2 k + h: i-cluster k with the j-cluster's half h (atoms 4h..4h+3; --split)
};

struct System {
  float box[3];
  std::vector<float> x, y, z, q;
  std::vector<int> type, mol;  // padding: type 0 with q 0 far away, mol -1 - slot
  std::vector<int> atom_of;    // slot -> original atom (-1 padding)
  int nslots = 0;
};

// Super-clusters as GROMACS's GPU grid makes them.
System build_slots(const halomd::io::GroFile& gro, const halomd::Topology& top,
                   const std::vector<double>& q) {
  System s;
  const int n = static_cast<int>(gro.x.size());
  for (int d = 0; d < 3; ++d) s.box[d] = static_cast<float>(gro.box.len[d]);
  std::vector<double> wx(n), wy(n), wz(n);
  for (int i = 0; i < n; ++i) {
    wx[i] = gro.x[i].x - gro.box.len.x * std::floor(gro.x[i].x / gro.box.len.x);
    wy[i] = gro.x[i].y - gro.box.len.y * std::floor(gro.x[i].y / gro.box.len.y);
    wz[i] = gro.x[i].z - gro.box.len.z * std::floor(gro.x[i].z / gro.box.len.z);
  }
  const double vol = gro.box.len.x * gro.box.len.y * gro.box.len.z;
  const double side = std::cbrt(kSuperAtoms * vol / n);  // a super-cluster's cube
  const int ncx = std::max(1, static_cast<int>(std::lround(gro.box.len.x / side)));
  const int ncy = std::max(1, static_cast<int>(std::lround(gro.box.len.y / side)));
  std::vector<std::vector<int>> col(ncx * ncy);
  for (int i = 0; i < n; ++i) {
    const int cx = std::min(ncx - 1, static_cast<int>(wx[i] / gro.box.len.x * ncx));
    const int cy = std::min(ncy - 1, static_cast<int>(wy[i] / gro.box.len.y * ncy));
    col[cx * ncy + cy].push_back(i);
  }
  auto push = [&](int a, int slot_pad) {
    if (a >= 0) {
      s.x.push_back(wx[a]);
      s.y.push_back(wy[a]);
      s.z.push_back(wz[a]);
      s.q.push_back(q[a]);
      s.type.push_back(top.type[a]);
      s.mol.push_back(top.molecule[a]);
    } else {
      s.x.push_back(-1000.f - 10.f * slot_pad);  // far from everything, 10 nm apart
      s.y.push_back(-1000.f);
      s.z.push_back(-1000.f);
      s.q.push_back(0.f);
      s.type.push_back(0);
      s.mol.push_back(-1 - slot_pad);
    }
    s.atom_of.push_back(a);
  };
  for (auto& c : col) {
    std::sort(c.begin(), c.end(), [&](int a, int b) { return wz[a] < wz[b]; });
    for (size_t b = 0; b < c.size(); b += kSuperAtoms) {
      std::vector<int> sc(c.begin() + b, c.begin() + std::min(c.size(), b + kSuperAtoms));
      while (sc.size() < kSuperAtoms) sc.push_back(-1);
      // 2x2x2 split by x, then y, then z (padding last in each sort).
      auto key = [&](int a, const std::vector<double>& w) { return a < 0 ? 1e30 : w[a]; };
      std::stable_sort(sc.begin(), sc.end(), [&](int a, int b2) { return key(a, wx) < key(b2, wx); });
      for (int h = 0; h < 2; ++h)
        std::stable_sort(sc.begin() + 32 * h, sc.begin() + 32 * h + 32,
                         [&](int a, int b2) { return key(a, wy) < key(b2, wy); });
      for (int qd = 0; qd < 4; ++qd)
        std::stable_sort(sc.begin() + 16 * qd, sc.begin() + 16 * qd + 16,
                         [&](int a, int b2) { return key(a, wz) < key(b2, wz); });
      for (int a : sc) push(a, static_cast<int>(s.x.size()));
    }
  }
  s.nslots = static_cast<int>(s.x.size());
  return s;
}

struct Bbox {
  float lo[3], hi[3];
};

// The half list: for each super-cluster and shift, the j-clusters within rlist of some i-cluster's box.
void build_list(const System& s, double rlist, std::vector<Entry>& entries, std::vector<JEntry>& jl,
                long long& cluster_pairs) {
  const int ncl = s.nslots / kCl;
  std::vector<Bbox> bb(ncl), bbh(2 * ncl);
  for (int c = 0; c < 2 * ncl; ++c) {
    Bbox b{{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
    for (int k = 0; k < kCl / 2; ++k) {
      const int a = c * (kCl / 2) + k;
      if (s.atom_of[a] < 0) continue;
      const float q[3] = {s.x[a], s.y[a], s.z[a]};
      for (int d = 0; d < 3; ++d) {
        b.lo[d] = std::min(b.lo[d], q[d]);
        b.hi[d] = std::max(b.hi[d], q[d]);
      }
    }
    bbh[c] = b;
  }
  for (int c = 0; c < ncl; ++c) {
    Bbox b{{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
    for (int k = 0; k < kCl; ++k) {
      const int a = c * kCl + k;
      if (s.atom_of[a] < 0) continue;
      const float p[3] = {s.x[a], s.y[a], s.z[a]};
      for (int d = 0; d < 3; ++d) {
        b.lo[d] = std::min(b.lo[d], p[d]);
        b.hi[d] = std::max(b.hi[d], p[d]);
      }
    }
    bb[c] = b;
  }
  const float r2 = static_cast<float>(rlist * rlist);
  cluster_pairs = 0;
  const int nsuper = ncl / kSuper;
  for (int sc = 0; sc < nsuper; ++sc) {
    Bbox sb{{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
    for (int k = 0; k < kSuper; ++k)
      for (int d = 0; d < 3; ++d) {
        sb.lo[d] = std::min(sb.lo[d], bb[sc * kSuper + k].lo[d]);
        sb.hi[d] = std::max(sb.hi[d], bb[sc * kSuper + k].hi[d]);
      }
    for (int sh = 0; sh < 27; ++sh) {
      const int o[3] = {sh % 3 - 1, sh / 3 % 3 - 1, sh / 9 - 1};
      bool near = true;  // a shift matters only for a super-cluster within rlist of that face
      for (int d = 0; d < 3; ++d)
        if ((o[d] == 1 && sb.lo[d] > rlist) || (o[d] == -1 && sb.hi[d] < s.box[d] - rlist)) near = false;
      if (!near) continue;
      const float shift[3] = {static_cast<float>(sh % 3 - 1) * s.box[0],
                              static_cast<float>(sh / 3 % 3 - 1) * s.box[1],
                              static_cast<float>(sh / 9 - 1) * s.box[2]};
      Entry e{sc, sh, static_cast<int>(jl.size()), 0};
      for (int cj = sc * kSuper; cj < ncl; ++cj) {
        if (bb[cj].lo[0] > bb[cj].hi[0]) continue;  // all padding
        float sd2 = 0.f;
        for (int d = 0; d < 3; ++d) {
          const float g =
              std::max(0.f, std::max(sb.lo[d] + shift[d] - bb[cj].hi[d], bb[cj].lo[d] - sb.hi[d] - shift[d]));
          sd2 += g * g;
        }
        if (sd2 >= r2) continue;
        unsigned mask = 0, hmask = 0;
        auto gap2 = [&](const Bbox& bi, const Bbox& bj) {
          float d2 = 0.f;
          for (int d = 0; d < 3; ++d) {
            const float ilo = bi.lo[d] + shift[d], ihi = bi.hi[d] + shift[d];
            const float g = std::max(0.f, std::max(ilo - bj.hi[d], bj.lo[d] - ihi));
            d2 += g * g;
          }
          return d2;
        };
        for (int k = 0; k < kSuper; ++k) {
          const int ci = sc * kSuper + k;
          if (ci > cj || bb[ci].lo[0] > bb[ci].hi[0]) continue;
          if (ci == cj && sh != 13) continue;  // a cluster and its own image: boxes > 2 rlist
          if (gap2(bb[ci], bb[cj]) >= r2) continue;
          mask |= 1u << k;
          for (int h = 0; h < 2; ++h)
            if (bbh[2 * cj + h].lo[0] <= bbh[2 * cj + h].hi[0] && gap2(bb[ci], bbh[2 * cj + h]) < r2)
              hmask |= 1u << (2 * k + h);
        }
        if (mask) {
          jl.push_back({cj, mask, hmask});
          cluster_pairs += __builtin_popcount(mask);
        }
      }
      e.count = static_cast<int>(jl.size()) - e.first;
      // Long entries are cut into pieces of at most kChunk j-clusters: more blocks for the GPU (GROMACS's
      // split of super-cluster entries), at the price of more i-force atomics.
      for (int c = 0; c < e.count; c += kChunk) {
        Entry piece = e;
        piece.first = e.first + c;
        piece.count = std::min(kChunk, e.count - c);
        entries.push_back(piece);
      }
    }
  }
}

struct KParams {
  const float4* xq;  // x y z q (q scaled by sqrt(epsfac))
  const int2* tm;    // type, molecule
  const float2* lj;  // c6, c12 per type pair
  int ntypes;
  const Entry* entries;
  const JEntry* jl;
  float box[3];
  float rc2, krf, crf;
  unsigned long long* ffix;  // 3 per slot, fixed point
  float* fflt;               // 3 per slot
  int skip;                  // skip the arithmetic of warps with no pair within the cut-off
};

template <bool kFixedAtomics>
__device__ inline void add_force(const KParams& p, int slot, float fx, float fy, float fz) {
  if constexpr (kFixedAtomics) {
    atomicAdd(p.ffix + 3 * slot + 0, static_cast<unsigned long long>(__float2ll_rn(fx * 4294967296.f)));
    atomicAdd(p.ffix + 3 * slot + 1, static_cast<unsigned long long>(__float2ll_rn(fy * 4294967296.f)));
    atomicAdd(p.ffix + 3 * slot + 2, static_cast<unsigned long long>(__float2ll_rn(fz * 4294967296.f)));
  } else {
    atomicAdd(p.fflt + 3 * slot + 0, fx);
    atomicAdd(p.fflt + 3 * slot + 1, fy);
    atomicAdd(p.fflt + 3 * slot + 2, fz);
  }
}

// One block of 64 threads per entry: tx = threadIdx.x & 7 the j atom, ty = threadIdx.x >> 3 the i atom of
// each i-cluster. A warp holds ty 0-3 or 4-7, so a j atom's force is reduced over 4 i atoms by shuffles
// and added once per warp.
template <bool kFixedAtomics>
__global__ void __launch_bounds__(64) cluster_nb_kernel(KParams p) {
  const Entry e = p.entries[blockIdx.x];
  const int tx = threadIdx.x & 7, ty = threadIdx.x >> 3;
  __shared__ float4 s_xi[kSuperAtoms];
  __shared__ int2 s_ti[kSuperAtoms];
  __shared__ float2 s_lj[64];  // up to 8 types
  if (threadIdx.x < p.ntypes * p.ntypes) s_lj[threadIdx.x] = p.lj[threadIdx.x];
  const float sx = (e.shift % 3 - 1) * p.box[0], sy = (e.shift / 3 % 3 - 1) * p.box[1],
              sz = (e.shift / 9 - 1) * p.box[2];
  {
    const int a = e.super * kSuperAtoms + threadIdx.x;
    float4 v = p.xq[a];
    v.x += sx;
    v.y += sy;
    v.z += sz;
    s_xi[threadIdx.x] = v;
    s_ti[threadIdx.x] = p.tm[a];
  }
  __syncthreads();
  float fi[kSuper][3];
#pragma unroll
  for (int k = 0; k < kSuper; ++k) fi[k][0] = fi[k][1] = fi[k][2] = 0.f;
  // The next j-cluster's entry and atom are loaded while this one is computed.
  JEntry nje = e.count > 0 ? p.jl[e.first] : JEntry{0, 0, 0};
  float4 nxj = __ldg(p.xq + nje.cj * kCl + tx);
  int2 ntj = __ldg(p.tm + nje.cj * kCl + tx);
  for (int jj = 0; jj < e.count; ++jj) {
    const JEntry je = nje;
    const int sj = je.cj * kCl + tx;
    const float4 xj = nxj;
    const int2 tj = ntj;
    if (jj + 1 < e.count) {
      nje = p.jl[e.first + jj + 1];
      nxj = __ldg(p.xq + nje.cj * kCl + tx);
      ntj = __ldg(p.tm + nje.cj * kCl + tx);
    }
    float fjx = 0.f, fjy = 0.f, fjz = 0.f;
    bool hit = false;  // warp-uniform: some pair of this j-cluster was computed
#pragma unroll
    for (int k = 0; k < kSuper; ++k) {
      if (!(je.imask >> k & 1)) continue;  // uniform over the block
      const int li = k * kCl + ty;
      const float4 xi = s_xi[li];
      const int2 ti = s_ti[li];
      const float dx = xi.x - xj.x, dy = xi.y - xj.y, dz = xi.z - xj.z;
      const float r2 = dx * dx + dy * dy + dz * dz;
      const int ci = e.super * kSuper + k;
      // Same cluster: each pair once (j after i). Same molecule: excluded (water).
      const bool ok = r2 < p.rc2 && ti.y != tj.y && (ci != je.cj || tx > ty);
      // With skip: a warp none of whose 32 pairs is within the cut-off moves on (~a third of them).
      if (p.skip && !__any_sync(0xffffffffu, ok)) continue;
      hit = true;
      const float2 cc = s_lj[ti.x * p.ntypes + tj.x];
      const float rinv = rsqrtf(ok ? r2 : p.rc2);
      const float rinv2 = rinv * rinv;
      const float rinv6 = rinv2 * rinv2 * rinv2;
      const float fpair = (12.f * cc.y * rinv6 * rinv6 - 6.f * cc.x * rinv6) * rinv2 +
                          xi.w * xj.w * (rinv * rinv2 - 2.f * p.krf);
      const float fs = ok ? fpair : 0.f;
      fi[k][0] += fs * dx;
      fi[k][1] += fs * dy;
      fi[k][2] += fs * dz;
      fjx -= fs * dx;
      fjy -= fs * dy;
      fjz -= fs * dz;
    }
    if (p.skip && !hit) continue;
    // Over the warp's 4 i atoms (lanes tx + 8 ty').
    for (int m = 8; m < 32; m <<= 1) {
      fjx += __shfl_xor_sync(0xffffffffu, fjx, m);
      fjy += __shfl_xor_sync(0xffffffffu, fjy, m);
      fjz += __shfl_xor_sync(0xffffffffu, fjz, m);
    }
    if ((threadIdx.x & 31) < 8) add_force<kFixedAtomics>(p, sj, fjx, fjy, fjz);
  }
  // i forces: over the 8 j lanes (tx), then one atomic per i atom and component.
#pragma unroll
  for (int k = 0; k < kSuper; ++k) {
    for (int m = 1; m < 8; m <<= 1) {
      fi[k][0] += __shfl_xor_sync(0xffffffffu, fi[k][0], m);
      fi[k][1] += __shfl_xor_sync(0xffffffffu, fi[k][1], m);
      fi[k][2] += __shfl_xor_sync(0xffffffffu, fi[k][2], m);
    }
  }
  if (tx == 0)
#pragma unroll
    for (int k = 0; k < kSuper; ++k)
      add_force<kFixedAtomics>(p, e.super * kSuperAtoms + k * kCl + ty, fi[k][0], fi[k][1], fi[k][2]);
}

// --split: a warp per j-cluster half (4 j atoms) and all 8 i atoms of an i-cluster (lane = 4 ty + j), as
// GROMACS's GPU kernel splits its j-clusters: a half whose box lies beyond rlist of an i-cluster is skipped
// by its own mask bit, for the whole warp.
template <bool kFixedAtomics>
__global__ void __launch_bounds__(64) cluster_nb_split_kernel(KParams p) {
  const Entry e = p.entries[blockIdx.x];
  const int h = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int ty = lane >> 2, tx = 4 * h + (lane & 3);
  __shared__ float4 s_xi[kSuperAtoms];
  __shared__ int2 s_ti[kSuperAtoms];
  __shared__ float2 s_lj[64];
  if (threadIdx.x < p.ntypes * p.ntypes) s_lj[threadIdx.x] = p.lj[threadIdx.x];
  const float sx = (e.shift % 3 - 1) * p.box[0], sy = (e.shift / 3 % 3 - 1) * p.box[1],
              sz = (e.shift / 9 - 1) * p.box[2];
  {
    const int a = e.super * kSuperAtoms + threadIdx.x;
    float4 v = p.xq[a];
    v.x += sx;
    v.y += sy;
    v.z += sz;
    s_xi[threadIdx.x] = v;
    s_ti[threadIdx.x] = p.tm[a];
  }
  __syncthreads();
  float fi[kSuper][3];
#pragma unroll
  for (int k = 0; k < kSuper; ++k) fi[k][0] = fi[k][1] = fi[k][2] = 0.f;
  JEntry nje = e.count > 0 ? p.jl[e.first] : JEntry{0, 0, 0};
  float4 nxj = __ldg(p.xq + nje.cj * kCl + tx);
  int2 ntj = __ldg(p.tm + nje.cj * kCl + tx);
  for (int jj = 0; jj < e.count; ++jj) {
    const JEntry je = nje;
    const int sj = je.cj * kCl + tx;
    const float4 xj = nxj;
    const int2 tj = ntj;
    if (jj + 1 < e.count) {
      nje = p.jl[e.first + jj + 1];
      nxj = __ldg(p.xq + nje.cj * kCl + tx);
      ntj = __ldg(p.tm + nje.cj * kCl + tx);
    }
    const unsigned hm = je.hmask >> h;
    if (!(hm & 0x5555u)) continue;  // no i-cluster meets this half
    float fjx = 0.f, fjy = 0.f, fjz = 0.f;
    bool hit = false;
#pragma unroll
    for (int k = 0; k < kSuper; ++k) {
      if (!(hm >> (2 * k) & 1)) continue;  // uniform over the warp
      const int li = k * kCl + ty;
      const float4 xi = s_xi[li];
      const int2 ti = s_ti[li];
      const float dx = xi.x - xj.x, dy = xi.y - xj.y, dz = xi.z - xj.z;
      const float r2 = dx * dx + dy * dy + dz * dz;
      const int ci = e.super * kSuper + k;
      const bool ok = r2 < p.rc2 && ti.y != tj.y && (ci != je.cj || tx > ty);
      if (p.skip && !__any_sync(0xffffffffu, ok)) continue;
      hit = true;
      const float2 cc = s_lj[ti.x * p.ntypes + tj.x];
      const float rinv = rsqrtf(ok ? r2 : p.rc2);
      const float rinv2 = rinv * rinv;
      const float rinv6 = rinv2 * rinv2 * rinv2;
      const float fpair = (12.f * cc.y * rinv6 * rinv6 - 6.f * cc.x * rinv6) * rinv2 +
                          xi.w * xj.w * (rinv * rinv2 - 2.f * p.krf);
      const float fs = ok ? fpair : 0.f;
      fi[k][0] += fs * dx;
      fi[k][1] += fs * dy;
      fi[k][2] += fs * dz;
      fjx -= fs * dx;
      fjy -= fs * dy;
      fjz -= fs * dz;
    }
    if (!hit) continue;
    for (int m = 4; m < 32; m <<= 1) {  // over the 8 i atoms
      fjx += __shfl_xor_sync(0xffffffffu, fjx, m);
      fjy += __shfl_xor_sync(0xffffffffu, fjy, m);
      fjz += __shfl_xor_sync(0xffffffffu, fjz, m);
    }
    if (lane < 4) add_force<kFixedAtomics>(p, sj, fjx, fjy, fjz);
  }
#pragma unroll
  for (int k = 0; k < kSuper; ++k) {
    for (int m = 1; m < 4; m <<= 1) {  // over the warp's 4 j lanes
      fi[k][0] += __shfl_xor_sync(0xffffffffu, fi[k][0], m);
      fi[k][1] += __shfl_xor_sync(0xffffffffu, fi[k][1], m);
      fi[k][2] += __shfl_xor_sync(0xffffffffu, fi[k][2], m);
    }
  }
  if ((lane & 3) == 0)
#pragma unroll
    for (int k = 0; k < kSuper; ++k)
      add_force<kFixedAtomics>(p, e.super * kSuperAtoms + k * kCl + ty, fi[k][0], fi[k][1], fi[k][2]);
}

}  // namespace

int main(int argc, char** argv) {
  std::string conf, topf, mdpf, out;
  double rlist = 1.094;
  int reps = 200;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "-c")
      conf = argv[a + 1];
    else if (k == "-p")
      topf = argv[a + 1];
    else if (k == "-f")
      mdpf = argv[a + 1];
    else if (k == "--rlist")
      rlist = std::atof(argv[a + 1]);
    else if (k == "--reps")
      reps = std::atoi(argv[a + 1]);
    else if (k == "--out")
      out = argv[a + 1];
    else if (k == "--chunk")
      kChunk = std::atoi(argv[a + 1]);
    else if (k == "--split")
      kSplit = std::atoi(argv[a + 1]) != 0;
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  const halomd::io::GroFile gro = halomd::io::read_gro(conf);
  const halomd::Topology top = halomd::io::read_top(topf);
  const halomd::PairParams pp = halomd::make_pair_params(halomd::io::read_mdp(mdpf));
  const double rc = std::sqrt(pp.rc2), epsfac = pp.epsfac, krf = pp.k_rf, crf = pp.c_rf;
  std::vector<double> q(top.charge.size());
  for (size_t i = 0; i < q.size(); ++i) q[i] = top.charge[i] * std::sqrt(epsfac);
  System s = build_slots(gro, top, q);
  std::vector<Entry> entries;
  std::vector<JEntry> jl;
  long long cluster_pairs = 0;
  const auto t0 = std::chrono::steady_clock::now();
  build_list(s, rlist, entries, jl, cluster_pairs);
  const double list_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  const int nt = top.num_types();
  std::vector<float2> lj(nt * nt);
  for (int i = 0; i < nt; ++i)
    for (int j = 0; j < nt; ++j) lj[i * nt + j] = make_float2(top.c6_of(i, j), top.c12_of(i, j));
  std::vector<float4> xq(s.nslots);
  std::vector<int2> tm(s.nslots);
  for (int a = 0; a < s.nslots; ++a) {
    xq[a] = make_float4(s.x[a], s.y[a], s.z[a], s.q[a]);
    tm[a] = make_int2(s.type[a], s.mol[a]);
  }

  // Reference: every non-excluded pair within rc, minimum image, in double (a cell list of rc cells).
  const int n = static_cast<int>(gro.x.size());
  std::vector<double> fref(3 * n, 0.0);
  {
    int nc[3];
    for (int d = 0; d < 3; ++d) nc[d] = std::max(3, static_cast<int>(s.box[d] / rc));
    std::vector<std::vector<int>> cells(nc[0] * nc[1] * nc[2]);
    std::vector<int> cell_of(n);
    std::vector<double> w(3 * n);
    for (int i = 0; i < n; ++i) {
      int c[3];
      for (int d = 0; d < 3; ++d) {
        const double L = gro.box.len[d];
        w[3 * i + d] = gro.x[i][d] - L * std::floor(gro.x[i][d] / L);
        c[d] = std::min(nc[d] - 1, static_cast<int>(w[3 * i + d] / L * nc[d]));
      }
      cell_of[i] = (c[0] * nc[1] + c[1]) * nc[2] + c[2];
      cells[cell_of[i]].push_back(i);
    }
    for (int i = 0; i < n; ++i) {
      const int ci = cell_of[i];
      const int cx = ci / (nc[1] * nc[2]), cy = ci / nc[2] % nc[1], cz = ci % nc[2];
      for (int ox = -1; ox <= 1; ++ox)
        for (int oy = -1; oy <= 1; ++oy)
          for (int oz = -1; oz <= 1; ++oz) {
            const int c = (((cx + ox + nc[0]) % nc[0]) * nc[1] + (cy + oy + nc[1]) % nc[1]) * nc[2] +
                          (cz + oz + nc[2]) % nc[2];
            for (int j : cells[c]) {
              if (j == i || top.molecule[j] == top.molecule[i]) continue;
              double dv[3], r2 = 0;
              for (int d = 0; d < 3; ++d) {
                const double L = gro.box.len[d];
                dv[d] = w[3 * i + d] - w[3 * j + d];
                dv[d] -= L * std::nearbyint(dv[d] / L);
                r2 += dv[d] * dv[d];
              }
              if (r2 >= rc * rc) continue;
              const double c6 = top.c6_of(top.type[i], top.type[j]),
                           c12 = top.c12_of(top.type[i], top.type[j]);
              const double ri2 = 1 / r2, ri6 = ri2 * ri2 * ri2, ri = std::sqrt(ri2);
              const double fs =
                  (12 * c12 * ri6 * ri6 - 6 * c6 * ri6) * ri2 + q[i] * q[j] * (ri * ri2 - 2 * krf);
              for (int d = 0; d < 3; ++d) fref[3 * i + d] += fs * dv[d];
            }
          }
    }
  }

  std::printf("atoms %d slots %d entries %zu j-cluster entries %zu cluster pairs %lld (rlist %.3f)\n", n,
              s.nslots, entries.size(), jl.size(), cluster_pairs, rlist);
  // The list checked on the host first: the kernel's arithmetic in double over the list must give the
  // reference forces (a missing cluster pair would show here, without a GPU).
  {
    std::vector<double> f(3 * s.nslots, 0.0);
    for (const Entry& e : entries) {
      const double sh[3] = {(e.shift % 3 - 1) * gro.box.len[0], (e.shift / 3 % 3 - 1) * gro.box.len[1],
                            (e.shift / 9 - 1) * gro.box.len[2]};
      for (int jj = 0; jj < e.count; ++jj) {
        const JEntry je = jl[e.first + jj];
        for (int k = 0; k < kSuper; ++k) {
          if (!(je.imask >> k & 1)) continue;
          const int ci = e.super * kSuper + k;
          for (int ty = 0; ty < kCl; ++ty)
            for (int tx = 0; tx < kCl; ++tx) {
              const int a = ci * kCl + ty, b = je.cj * kCl + tx;
              if (kSplit && !(je.hmask >> (2 * k + tx / 4) & 1)) continue;
              if (s.mol[a] == s.mol[b] || (ci == je.cj && tx <= ty)) continue;
              const double dv[3] = {s.x[a] + sh[0] - s.x[b], s.y[a] + sh[1] - s.y[b],
                                    s.z[a] + sh[2] - s.z[b]};
              const double r2 = dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2];
              if (r2 >= rc * rc) continue;
              const double c6 = top.c6_of(s.type[a], s.type[b]), c12 = top.c12_of(s.type[a], s.type[b]);
              const double ri2 = 1 / r2, ri6 = ri2 * ri2 * ri2, ri = std::sqrt(ri2);
              const double fs = (12 * c12 * ri6 * ri6 - 6 * c6 * ri6) * ri2 +
                                double(s.q[a]) * s.q[b] * (ri * ri2 - 2 * krf);
              for (int d = 0; d < 3; ++d) {
                f[3 * a + d] += fs * dv[d];
                f[3 * b + d] -= fs * dv[d];
              }
            }
        }
      }
    }
    double err = 0;
    for (int a = 0; a < s.nslots; ++a)
      if (s.atom_of[a] >= 0)
        for (int d = 0; d < 3; ++d) err = std::max(err, std::fabs(f[3 * a + d] - fref[3 * s.atom_of[a] + d]));
    std::printf("host check of the list: max |f - f_ref| %.3e kJ/mol/nm (float positions)\n", err);
    if (err > 1.0) {
      std::fprintf(stderr, "cluster list misses pairs\n");
      return 1;
    }
  }
  if (std::getenv("CLUSTER_NB_HOST_ONLY")) return 0;

  KParams p{};
  float4* d_xq;
  int2* d_tm;
  float2* d_lj;
  Entry* d_e;
  JEntry* d_j;
  CK(cudaMalloc(&d_xq, sizeof(float4) * s.nslots));
  CK(cudaMalloc(&d_tm, sizeof(int2) * s.nslots));
  CK(cudaMalloc(&d_lj, sizeof(float2) * lj.size()));
  CK(cudaMalloc(&d_e, sizeof(Entry) * entries.size()));
  CK(cudaMalloc(&d_j, sizeof(JEntry) * jl.size()));
  CK(cudaMalloc(&p.ffix, sizeof(unsigned long long) * 3 * s.nslots));
  CK(cudaMalloc(&p.fflt, sizeof(float) * 3 * s.nslots));
  CK(cudaMemcpy(d_xq, xq.data(), sizeof(float4) * s.nslots, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_tm, tm.data(), sizeof(int2) * s.nslots, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_lj, lj.data(), sizeof(float2) * lj.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_e, entries.data(), sizeof(Entry) * entries.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_j, jl.data(), sizeof(JEntry) * jl.size(), cudaMemcpyHostToDevice));
  p.xq = d_xq;
  p.tm = d_tm;
  p.lj = d_lj;
  p.ntypes = nt;
  p.entries = d_e;
  p.jl = d_j;
  for (int d = 0; d < 3; ++d) p.box[d] = s.box[d];
  p.rc2 = static_cast<float>(rc * rc);
  p.krf = static_cast<float>(krf);
  p.crf = static_cast<float>(crf);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  double us[3] = {0, 0, 0}, maxerr[3] = {0, 0, 0}, rms_ref = 0;
  for (int i = 0; i < 3 * n; ++i) rms_ref += fref[i] * fref[i];
  rms_ref = std::sqrt(rms_ref / (3 * n));
  for (int variant = 0; variant < 3; ++variant) {
    const bool fixed = variant != 1;
    p.skip = variant == 2 ? 1 : 0;
    auto launch = [&] {
      if (fixed) {
        CK(cudaMemsetAsync(p.ffix, 0, sizeof(unsigned long long) * 3 * s.nslots));
        if (kSplit)
          cluster_nb_split_kernel<true><<<entries.size(), 64>>>(p);
        else
          cluster_nb_kernel<true><<<entries.size(), 64>>>(p);
      } else {
        CK(cudaMemsetAsync(p.fflt, 0, sizeof(float) * 3 * s.nslots));
        if (kSplit)
          cluster_nb_split_kernel<false><<<entries.size(), 64>>>(p);
        else
          cluster_nb_kernel<false><<<entries.size(), 64>>>(p);
      }
    };
    for (int w = 0; w < 10; ++w) launch();
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0));
    for (int r = 0; r < reps; ++r) launch();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    us[variant] = 1000.0 * ms / reps;
    std::vector<double> f(3 * s.nslots);
    if (fixed) {
      std::vector<unsigned long long> h(3 * s.nslots);
      CK(cudaMemcpy(h.data(), p.ffix, h.size() * 8, cudaMemcpyDeviceToHost));
      for (size_t k = 0; k < h.size(); ++k) f[k] = static_cast<double>(static_cast<long long>(h[k])) / kFixed;
    } else {
      std::vector<float> h(3 * s.nslots);
      CK(cudaMemcpy(h.data(), p.fflt, h.size() * 4, cudaMemcpyDeviceToHost));
      for (size_t k = 0; k < h.size(); ++k) f[k] = h[k];
    }
    for (int a = 0; a < s.nslots; ++a) {
      const int g = s.atom_of[a];
      if (g < 0) continue;
      for (int d = 0; d < 3; ++d)
        maxerr[variant] = std::max(maxerr[variant], std::fabs(f[3 * a + d] - fref[3 * g + d]));
    }
  }
  // The memset alone, to subtract.
  CK(cudaEventRecord(e0));
  for (int r = 0; r < reps; ++r) CK(cudaMemsetAsync(p.ffix, 0, sizeof(unsigned long long) * 3 * s.nslots));
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms_memset = 0;
  CK(cudaEventElapsedTime(&ms_memset, e0, e1));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const int nsuper = s.nslots / kSuperAtoms;
  long long jentries = static_cast<long long>(jl.size());
  char buf[2048];
  std::snprintf(
      buf, sizeof(buf),
      "{\"gpu\": \"%s\", \"atoms\": %d, \"slots\": %d, \"super_clusters\": %d, \"rlist_nm\": %.4f, "
      "\"entries\": %zu, \"j_cluster_entries\": %lld, \"cluster_pairs\": %lld, \"host_list_ms\": %.1f, "
      "\"kernel_fixed_atomics_us\": %.2f, \"kernel_float_atomics_us\": %.2f, \"memset_us\": %.2f, "
      "\"kernel_fixed_skip_us\": %.2f, \"max_abs_force_error_skip\": %.3e, "
      "\"max_abs_force_error_fixed\": %.3e, \"max_abs_force_error_float\": %.3e, "
      "\"rms_force\": %.3f}\n",
      prop.name, n, s.nslots, nsuper, rlist, entries.size(), jentries, cluster_pairs, list_ms, us[0], us[1],
      1000.0 * ms_memset / reps, us[2], maxerr[2], maxerr[0], maxerr[1], rms_ref);
  std::fputs(buf, stdout);
  if (!out.empty()) {
    FILE* fo = std::fopen(out.c_str(), "w");
    if (fo) {
      std::fputs(buf, fo);
      std::fclose(fo);
    }
  }
  return 0;
}
