// Pair terms shared by the non-bonded kernels (nonbonded.cu over the atom-pair list, cluster_nonbonded.cu
// over the cluster-pair list), in float as cpu/pair_interaction.h defines them.
#pragma once

#include <cuda_runtime.h>

#include "cuda/device_data.h"

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

// The LJ part of a pair with 1/r = rinv, 1/r^2 = rinv2 and r^2 = r2 (the three of one distance): returns
// |F|/r and, with kEnergy, sets v to the energy. The switched forms take r1 - r clamped at 0 instead of a
// branch (the switch is then the identity), so that a warp does not diverge at r1.
template <int kVdw, bool kEnergy>
__device__ __forceinline__ float lj_term(float2 cc, float r2, float rinv, float rinv2, float sh6, float sh12,
                                         const VdwSwitch& sw, float& v) {
  const float rinv6 = rinv2 * rinv2 * rinv2;
  const float vrep = cc.y * rinv6 * rinv6;
  const float vdisp = cc.x * rinv6;
  if constexpr (kVdw == kVdwForceSwitch) {
    const float r = r2 * rinv;
    const float d = fmaxf(r - sw.r1, 0.f), d2 = d * d, d3 = d2 * d;
    if (kEnergy)
      v = (vrep - cc.y * (sw.c12 + sw.a12_3 * d3 + sw.b12_4 * d3 * d)) -
          (vdisp - cc.x * (sw.c6 + sw.a6_3 * d3 + sw.b6_4 * d3 * d));
    return (12.f * vrep - 6.f * vdisp) * rinv2 +
           (cc.y * (sw.a12 * d2 + sw.b12 * d3) - cc.x * (sw.a6 * d2 + sw.b6 * d3)) * rinv;
  } else if constexpr (kVdw == kVdwPotentialSwitch) {
    const float r = r2 * rinv;
    const float t = fmaxf(r - sw.r1, 0.f) * sw.inv_w, t2 = t * t, t3 = t2 * t;
    const float s = 1.f - 10.f * t3 + 15.f * t3 * t - 6.f * t3 * t2;
    const float ds = (-30.f * t2 + 60.f * t3 - 30.f * t3 * t) * sw.inv_w;
    const float v0 = vrep - vdisp;
    if (kEnergy) v = v0 * s;
    return (12.f * vrep - 6.f * vdisp) * rinv2 * s - v0 * ds * rinv;
  } else {
    if (kEnergy) v = (vrep - cc.y * sh12) - (vdisp - cc.x * sh6);
    return (12.f * vrep - 6.f * vdisp) * rinv2;
  }
}

// A listed pair (cpu/pair_interaction.h's pair_lj_rf) at squared distance r2 and separation d = x_i - x_j,
// LJ parameters cc (c6, c12), charges product qq (scaled by f/eps_r): returns |F|/r, 0 unless in (beyond the
// cut-off the same instructions run on rc2, so a warp does not diverge); with kEnergy and in, adds the LJ
// (lj_term's form kVdw) and Coulomb energies and the virial to v (add_pair_virial's layout).
template <bool kEnergy, int kVdw = kVdwShift>
__device__ __forceinline__ float lj_rf_pair(float2 cc, float qq, float r2, bool in, float dx, float dy,
                                            float dz, float rc2, float k_rf, float c_rf, float sh6,
                                            float sh12, float* v, const VdwSwitch& sw = VdwSwitch{}) {
  const float rr2 = in ? r2 : rc2;
  const float rinv = rsqrtf(rr2);
  const float rinv2 = rinv * rinv;
  float v_lj = 0.f;
  const float fpair =
      lj_term<kVdw, kEnergy>(cc, rr2, rinv, rinv2, sh6, sh12, sw, v_lj) + qq * (rinv * rinv2 - 2.f * k_rf);
  const float fscal = in ? fpair : 0.f;
  if (kEnergy && in) {
    v[0] += v_lj;
    v[1] += qq * (rinv + k_rf * r2 - c_rf);
    add_pair_virial(v, fscal, dx, dy, dz);
  }
  return fscal;
}

// 2/sqrt(pi), for the Ewald force.
constexpr float kTwoOverSqrtPiF = 1.1283791671f;

// erfc(x) exp(x^2) = t Q(t) with t = 1 / (1 + kErfcxP x), for 0 <= x <= kErfcxMaxX (device_data.h): relative
// error 2.2e-7 (3.2e-7 with t rounded to float, as here: about erfcf's), from scripts/fit_ewald_erfc.py,
// which prints these constants. The pair kernels then need one exponential per pair, shared by erfc and the
// force's Gaussian term, and no erfcf (its own exponential and branches doubled the PME pair kernel's time
// against reaction field's).
constexpr float kErfcxP = 0.4f;
__device__ __forceinline__ float erfcx_poly(float x) {
  constexpr float c[] = {2.254446431e-01f,  2.292896453e-01f,  1.837314793e-01f,
                         2.576712035e-01f,  -5.850496362e-02f, 2.732052736e-01f,
                         -6.718271514e-02f, -7.151457260e-02f, 2.786006911e-02f};
  const float t = __frcp_rn(fmaf(kErfcxP, x, 1.f));
  float q = c[8];
#pragma unroll
  for (int k = 7; k >= 0; --k) q = fmaf(q, t, c[k]);
  return t * q;
}

// The same pair with real-space Ewald Coulomb instead (cpu/pair_interaction.h's pair_lj_ewald): qq
// (erfc(beta r)/r - sh_ewald), coulombtype = PME. beta rc must not exceed kErfcxMaxX
// (device_system.cpp checks).
template <bool kEnergy, int kVdw = kVdwShift>
__device__ __forceinline__ float lj_ewald_pair(float2 cc, float qq, float r2, bool in, float dx, float dy,
                                               float dz, float rc2, float beta, float sh_ewald, float sh6,
                                               float sh12, float* v, const VdwSwitch& sw = VdwSwitch{}) {
  const float rr2 = in ? r2 : rc2;
  const float rinv = rsqrtf(rr2);
  const float rinv2 = rinv * rinv;
  const float br = beta * rr2 * rinv;
  const float gauss = expf(-br * br);
  const float erfc_r = gauss * erfcx_poly(br) * rinv;
  float v_lj = 0.f;
  const float fpair = lj_term<kVdw, kEnergy>(cc, rr2, rinv, rinv2, sh6, sh12, sw, v_lj) +
                      qq * (erfc_r + kTwoOverSqrtPiF * beta * gauss) * rinv2;
  const float fscal = in ? fpair : 0.f;
  if (kEnergy && in) {
    v[0] += v_lj;
    v[1] += qq * (erfc_r - sh_ewald);
    add_pair_virial(v, fscal, dx, dy, dz);
  }
  return fscal;
}

// An excluded pair's correction with i at xi and j at xj (x y z, q sqrt(f/eps_r)), the minimum image in a
// box of edges len: nothing beyond the cut-off; `term(qq, r2, &v)` gives |F|/r and the Coulomb energy v. Its
// force on i is added to (fx, fy, fz) and, with kEnergy, its energy and virial to sums.
template <bool kEnergy, class Term>
__device__ inline void add_exclusion(const float4& xi, const float4& xj, const float* len,
                                     const float* inv_len, float rc2, Term term, float& fx, float& fy,
                                     float& fz, double* sums) {
  const float qq = xi.w * xj.w;
  if (qq == 0.f) return;
  float dx = xi.x - xj.x, dy = xi.y - xj.y, dz = xi.z - xj.z;
  dx -= len[0] * rintf(dx * inv_len[0]);
  dy -= len[1] * rintf(dy * inv_len[1]);
  dz -= len[2] * rintf(dz * inv_len[2]);
  const float r2 = dx * dx + dy * dy + dz * dz;
  if (!(r2 < rc2)) return;
  float v = 0.f;
  const float fscal = term(qq, r2, &v);
  fx += fscal * dx;
  fy += fscal * dy;
  fz += fscal * dz;
  if (kEnergy) {
    sums[1] += v;
    add_pair_virial(sums, fscal, dx, dy, dz);
  }
}

// The reaction-field correction of an excluded pair (cpu/pair_interaction.h's pair_rf_exclusion).
template <bool kEnergy>
__device__ inline void add_rf_exclusion(const float4& xi, const float4& xj, const float* len,
                                        const float* inv_len, float rc2, float k_rf, float c_rf, float& fx,
                                        float& fy, float& fz, double* sums) {
  add_exclusion<kEnergy>(
      xi, xj, len, inv_len, rc2,
      [k_rf, c_rf](float qq, float r2, float* v) {
        *v = qq * (k_rf * r2 - c_rf);
        return -2.f * qq * k_rf;
      },
      fx, fy, fz, sums);
}

// The Ewald correction of an excluded pair (cpu/pair_interaction.h's pair_ewald_exclusion): the mesh's
// interaction of the pair taken out again, -qq erf(beta r)/r.
template <bool kEnergy>
__device__ inline void add_ewald_exclusion(const float4& xi, const float4& xj, const float* len,
                                           const float* inv_len, float rc2, float beta, float& fx, float& fy,
                                           float& fz, double* sums) {
  add_exclusion<kEnergy>(
      xi, xj, len, inv_len, rc2,
      [beta](float qq, float r2, float* v) {
        if (r2 == 0.f) {  // two excluded atoms at one place: the limit of erf(beta r)/r, no force
          *v = -qq * kTwoOverSqrtPiF * beta;
          return 0.f;
        }
        const float rinv = rsqrtf(r2);
        const float br = beta * r2 * rinv;
        const float erf_r = erff(br) * rinv;
        *v = -qq * erf_r;
        return -qq * (erf_r - kTwoOverSqrtPiF * beta * expf(-br * br)) * (rinv * rinv);
      },
      fx, fy, fz, sums);
}

}  // namespace halomd::cuda
