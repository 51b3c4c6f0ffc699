// Pair terms shared by the non-bonded kernels (nonbonded.cu over the atom-pair list, cluster_nonbonded.cu
// over the cluster-pair list), in float as cpu/pair_interaction.h defines them.
#pragma once

#include <cuda_runtime.h>

namespace halomd::cuda {

// A pair's virial terms, fscal d (x) d (xx yy zz xy xz yz, in float), added to v[2..7] (v[0], v[1]: LJ and
// Coulomb energy).
template <class T>
__device__ inline void add_pair_virial(T* v, float fscal, float dx, float dy, float dz) {
  v[2] += fscal * dx * dx;
  v[3] += fscal * dy * dy;
  v[4] += fscal * dz * dz;
  v[5] += fscal * dx * dy;
  v[6] += fscal * dx * dz;
  v[7] += fscal * dy * dz;
}

// The reaction-field correction of an excluded pair (cpu/pair_interaction.h's pair_rf_exclusion) with i at
// xi and j at xj (x y z, q sqrt(f/eps_r)), the minimum image in a box of edges len: nothing beyond the
// cut-off; its force on i added to (fx, fy, fz) and, with kEnergy, its Coulomb energy and virial to sums.
template <bool kEnergy>
__device__ inline void add_rf_exclusion(const float4& xi, const float4& xj, const float* len,
                                        const float* inv_len, float rc2, float k_rf, float c_rf, float& fx,
                                        float& fy, float& fz, double* sums) {
  const float qq = xi.w * xj.w;
  if (qq == 0.f) return;
  float dx = xi.x - xj.x, dy = xi.y - xj.y, dz = xi.z - xj.z;
  dx -= len[0] * rintf(dx * inv_len[0]);
  dy -= len[1] * rintf(dy * inv_len[1]);
  dz -= len[2] * rintf(dz * inv_len[2]);
  const float r2 = dx * dx + dy * dy + dz * dz;
  if (!(r2 < rc2)) return;
  const float fscal = -2.f * qq * k_rf;
  fx += fscal * dx;
  fy += fscal * dy;
  fz += fscal * dz;
  if (kEnergy) {
    sums[1] += qq * (k_rf * r2 - c_rf);
    add_pair_virial(sums, fscal, dx, dy, dz);
  }
}

}  // namespace halomd::cuda
