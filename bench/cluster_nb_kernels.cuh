// The force kernels of bench/cluster_nb.cu over the cluster-pair half list (bench/NOTES.md, sixteenth
// session).
#pragma once

#include <cuda_runtime.h>

#include "cluster_nb_list.h"

namespace cluster_nb {

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
  const int* nentries;       // the GPU-built list's entry count (blocks beyond it return), or null
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

// The pair's |F| / r (LJ and reaction field, in float; 0 unless ok): both kernels' arithmetic.
__device__ __forceinline__ float pair_fscal(const KParams& p, float2 cc, float qq, float r2, bool ok) {
  const float rinv = rsqrtf(ok ? r2 : p.rc2);
  const float rinv2 = rinv * rinv;
  const float rinv6 = rinv2 * rinv2 * rinv2;
  const float fpair =
      (12.f * cc.y * rinv6 * rinv6 - 6.f * cc.x * rinv6) * rinv2 + qq * (rinv * rinv2 - 2.f * p.krf);
  return ok ? fpair : 0.f;
}

// A block's prologue: the LJ table and the entry's 64 i atoms (shifted) into shared memory.
__device__ inline void load_entry(const KParams& p, const Entry& e, float4* s_xi, int2* s_ti, float2* s_lj) {
  if (threadIdx.x < p.ntypes * p.ntypes) s_lj[threadIdx.x] = p.lj[threadIdx.x];
  const int a = e.super * kSuperAtoms + threadIdx.x;
  float4 v = p.xq[a];
  v.x += (e.shift % 3 - 1) * p.box[0];
  v.y += (e.shift / 3 % 3 - 1) * p.box[1];
  v.z += (e.shift / 9 - 1) * p.box[2];
  s_xi[threadIdx.x] = v;
  s_ti[threadIdx.x] = p.tm[a];
  __syncthreads();
}

// One block of 64 threads per entry: tx = threadIdx.x & 7 the j atom, ty = threadIdx.x >> 3 the i atom of
// each i-cluster. A warp holds ty 0-3 or 4-7, so a j atom's force is reduced over 4 i atoms by shuffles
// and added once per warp.
template <bool kFixedAtomics>
__global__ void __launch_bounds__(64) cluster_nb_kernel(KParams p) {
  if (p.nentries && static_cast<int>(blockIdx.x) >= *p.nentries) return;
  const Entry e = p.entries[blockIdx.x];
  const int tx = threadIdx.x & 7, ty = threadIdx.x >> 3;
  __shared__ float4 s_xi[kSuperAtoms];
  __shared__ int2 s_ti[kSuperAtoms];
  __shared__ float2 s_lj[64];  // up to 8 types
  load_entry(p, e, s_xi, s_ti, s_lj);
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
      const float fs = pair_fscal(p, s_lj[ti.x * p.ntypes + tj.x], xi.w * xj.w, r2, ok);
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
  __shared__ float2 s_lj[64];  // up to 8 types
  load_entry(p, e, s_xi, s_ti, s_lj);
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
      const float fs = pair_fscal(p, s_lj[ti.x * p.ntypes + tj.x], xi.w * xj.w, r2, ok);
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

}  // namespace cluster_nb
