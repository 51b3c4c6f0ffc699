// Device helpers shared by the kernels: error flags, fixed-point conversion, the minimum image, an atom's
// float record, deterministic block sums and scans.
#pragma once

#include <cuda_runtime.h>

#include "core/vec3.h"
#include "cuda/device_data.h"

namespace halomd::cuda {

// a - b in the minimum image of a box of edges len (core/box.h's minimum_image).
__device__ inline Vec3 min_image(const Vec3& a, const Vec3& b, const double* len) {
  Vec3 d = a - b;
  for (int k = 0; k < 3; ++k) d[k] -= len[k] * round(d[k] / len[k]);
  return d;
}

// An atom's float record for the pair kernels (device_data.h): x less its image at the last search, in a
// box of edges len, and its scaled charge. Every writer (search, update, pressure coupling, virtual sites)
// makes it this way, so that the record is the same whichever wrote it.
__device__ inline float4 float_record(const Vec3& x, const int4& k, const double* len, float q) {
  return make_float4(static_cast<float>(x.x - k.x * len[0]), static_cast<float>(x.y - k.y * len[1]),
                     static_cast<float>(x.z - k.z * len[2]), q);
}

// Records that `atom` (original index) went wrong at `step`; the earliest step, then the lowest atom, wins.
__device__ inline void flag_error(StepState* st, long long step, int atom, int kind) {
  const unsigned long long key = (static_cast<unsigned long long>(step) << 32) |
                                 (static_cast<unsigned long long>(atom & 0x3fffffff) << 2) |
                                 static_cast<unsigned long long>(kind);
  atomicMin(&st->error, key);
}

__device__ inline long long to_fixed(double value, double scale) { return llrint(value * scale); }

__device__ inline void add_fixed(long long* acc, long long value) {
  atomicAdd(reinterpret_cast<unsigned long long*>(acc), static_cast<unsigned long long>(value));
}

// Sums kCount values over the block in a fixed order (warp butterflies, then the warps in order) and
// returns the totals in thread 0's `v`. Needs every thread of the block and blockDim.x <= 1024, a multiple of
// 32; `scratch` (shared) holds 32 * kCount values.
template <int kCount, class T>
__device__ inline void block_sum(T (&v)[kCount], T* scratch) {
  constexpr int count = kCount;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
#pragma unroll
  for (int c = 0; c < count; ++c) {
    T s = v[c];
    for (int m = 16; m > 0; m >>= 1) s += __shfl_xor_sync(0xffffffffu, s, m);
    if (lane == 0) scratch[warp * count + c] = s;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int c = 0; c < count; ++c) {
      T s = scratch[c];
      for (int w = 1; w < nwarps; ++w) s += scratch[w * count + c];
      v[c] = s;
    }
  }
  __syncthreads();
}

// One block: the exclusive scan out[i] = v(0) + ... + v(i - 1) for i <= m (out[m]: the total), each thread
// summing a contiguous chunk, then a scan over the threads in shared memory. blockDim.x <= 1024.
template <class F>
__device__ inline void block_scan(int m, F v, int* out) {
  __shared__ int s_part[1024];
  const int t = threadIdx.x, nt = blockDim.x;
  const int per = (m + nt - 1) / nt, b = min(m, t * per), e = min(m, b + per);
  int sum = 0;
  for (int i = b; i < e; ++i) sum += v(i);
  s_part[t] = sum;
  __syncthreads();
  for (int o = 1; o < nt; o <<= 1) {
    const int add = t >= o ? s_part[t - o] : 0;
    __syncthreads();
    s_part[t] += add;
    __syncthreads();
  }
  int run = s_part[t] - sum;
  for (int i = b; i < e; ++i) {
    out[i] = run;
    run += v(i);
  }
  if (t == nt - 1) out[m] = s_part[t];
}

}  // namespace halomd::cuda
