#include "cuda/cluster_nonbonded.h"
#include "cuda/device_util.cuh"
#include "cuda/pair_terms.cuh"

namespace halomd::cuda {
namespace {

constexpr int kC = 8, kS = 8, kSuper = 64;  // ClusterPairList's cluster and super-cluster sizes
constexpr int kSlotBlock = 256;
constexpr float kMaxPairForce2 = 1e16f;  // (kJ/mol/nm)^2: the update kernel's per-atom bound

__device__ inline void add_force(unsigned long long* acc, float fx, float fy, float fz) {
  constexpr float scale = static_cast<float>(kForceScale);
  atomicAdd(acc + 0, static_cast<unsigned long long>(__float2ll_rn(fx * scale)));
  atomicAdd(acc + 1, static_cast<unsigned long long>(__float2ll_rn(fy * scale)));
  atomicAdd(acc + 2, static_cast<unsigned long long>(__float2ll_rn(fz * scale)));
}

__device__ inline float from_force_fixed(unsigned long long v) {
  return static_cast<float>(static_cast<double>(static_cast<long long>(v)) / kForceScale);
}

__global__ void cluster_order_kernel(ClusterNbParams p) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s == 0 && *p.overflow != 0) flag_error(p.st, p.st->step, 0, kErrListFull);
  if (s >= p.max_slots) return;
  const int a = s < *p.num_slots ? p.slot_atom[s] : -1;
  p.atom_of[s] = a;
  if (a < 0) {
    p.xq[s] = make_float4(-1e6f, -1e6f, -1e6f, 0.f);  // never paired: the pair masks leave padding out
    p.type_s[s] = 0;
    return;
  }
  // The image the build wrapped with (cluster_list.cu's wrap_count_kernel), so that the update kernel's
  // x - k L continues the position the list was built from.
  int k[3];
  for (int d = 0; d < 3; ++d) k[d] = static_cast<int>(floor(__dmul_rn(p.x[d][a], p.inv_box[d])));
  p.img[a] = make_int4(k[0], k[1], k[2], 0);
  p.sorted_of[a] = s;
  p.xq[s] = make_float4(static_cast<float>(p.w[0][a]), static_cast<float>(p.w[1][a]),
                        static_cast<float>(p.w[2][a]), p.qs[a]);
  p.type_s[s] = p.type[a];
}

// Blocks of 64 threads take the list's work items (an entry's run of at most `chunk` j-clusters) in turn:
// tx = threadIdx.x & 7 the j atom, ty = threadIdx.x >> 3 the i atom of each of the super-cluster's 8
// i-clusters. A warp whose 32 pairs of an (i-cluster, j-cluster) are all beyond the cut-off or masked skips
// their arithmetic (bench/cluster_nb.cu). A j atom's force is reduced over the warp's 4 i atoms by shuffles
// and added once per warp; the i forces at the end of the work item. A pair force that is not finite or
// above 1e8 kJ/mol/nm is reported (kErrForce, the i atom) here: the fixed-point sums would clamp it.
template <bool kEnergy>
__global__ void __launch_bounds__(kSuper) cluster_pair_kernel(ClusterNbParams p) {
  extern __shared__ float2 s_lj[];
  __shared__ float4 s_xi[kSuper];
  __shared__ int s_ti[kSuper];
  const int t = threadIdx.x, tx = t & 7, ty = t >> 3;
  for (int q = t; q < p.ntypes * p.ntypes; q += kSuper) s_lj[q] = p.lj[q];
  double sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // energy: LJ, Coulomb, d (x) F (xx yy zz xy xz yz)
  const int bit = kC * ty + tx;               // this thread's pair in a pair mask
  const int nwork = *p.num_work;
  for (int item = blockIdx.x; item < nwork; item += gridDim.x) {
    const int4 e = p.work[item];  // super, shift, first, count
    __syncthreads();              // the last item's reads of s_xi are done
    {
      const int a = e.x * kSuper + t;
      float4 v = p.xq[a];
      v.x += static_cast<float>(e.y % 3 - 1) * p.len[0];
      v.y += static_cast<float>(e.y / 3 % 3 - 1) * p.len[1];
      v.z += static_cast<float>(e.y / 9 - 1) * p.len[2];
      s_xi[t] = v;
      s_ti[t] = p.type_s[a] * p.ntypes;
    }
    __syncthreads();
    float fi[kS][3];
#pragma unroll
    for (int k = 0; k < kS; ++k) fi[k][0] = fi[k][1] = fi[k][2] = 0.f;
    // The next j-cluster's entry and atom are loaded while this one is computed.
    int4 nje = e.w > 0 ? p.j[e.z] : make_int4(0, 0, -1, 0);
    float4 nxj = __ldg(p.xq + nje.x * kC + tx);
    int ntj = __ldg(p.type_s + nje.x * kC + tx);
    for (int jj = 0; jj < e.w; ++jj) {
      const int4 je = nje;
      const float4 xj = nxj;
      const int tj = ntj;
      if (jj + 1 < e.w) {
        nje = p.j[e.z + jj + 1];
        nxj = __ldg(p.xq + nje.x * kC + tx);
        ntj = __ldg(p.type_s + nje.x * kC + tx);
      }
      float fjx = 0.f, fjy = 0.f, fjz = 0.f;
      float gsum[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
      bool hit = false;  // warp-uniform: some pair of this j-cluster was computed
#pragma unroll
      for (int k = 0; k < kS; ++k) {
        if (!(je.y >> k & 1)) continue;  // uniform over the block
        const float4 xi = s_xi[k * kC + ty];
        const float dx = xi.x - xj.x, dy = xi.y - xj.y, dz = xi.z - xj.z;
        const float r2 = dx * dx + dy * dy + dz * dz;
        const bool allowed = je.z < 0 || (__ldg(p.masks + je.z + k) >> bit & 1ull) != 0;
        const bool in = allowed && r2 < p.rc2;
        if (!__any_sync(0xffffffffu, in)) continue;
        hit = true;
        const float fscal = lj_rf_pair<kEnergy>(s_lj[s_ti[k * kC + ty] + tj], xi.w * xj.w, r2, in, dx, dy, dz,
                                                p.rc2, p.k_rf, p.c_rf, p.sh6, p.sh12, gsum);
        if (!(fscal * fscal * r2 < kMaxPairForce2))
          flag_error(p.st, p.st->step, p.atom_of[e.x * kSuper + k * kC + ty], kErrForce);
        fi[k][0] += fscal * dx;
        fi[k][1] += fscal * dy;
        fi[k][2] += fscal * dz;
        fjx -= fscal * dx;
        fjy -= fscal * dy;
        fjz -= fscal * dz;
      }
      if (!hit) continue;
      if constexpr (kEnergy) {
#pragma unroll
        for (int c = 0; c < 8; ++c) sums[c] += gsum[c];
      }
      for (int m = 8; m < 32; m <<= 1) {  // over the warp's 4 i atoms (lanes tx + 8 ty')
        fjx += __shfl_xor_sync(0xffffffffu, fjx, m);
        fjy += __shfl_xor_sync(0xffffffffu, fjy, m);
        fjz += __shfl_xor_sync(0xffffffffu, fjz, m);
      }
      if ((t & 31) < kC) add_force(p.ffix + 3 * (je.x * kC + tx), fjx, fjy, fjz);
    }
#pragma unroll
    for (int k = 0; k < kS; ++k) {
      for (int m = 1; m < kC; m <<= 1) {  // over the 8 j lanes (tx)
        fi[k][0] += __shfl_xor_sync(0xffffffffu, fi[k][0], m);
        fi[k][1] += __shfl_xor_sync(0xffffffffu, fi[k][1], m);
        fi[k][2] += __shfl_xor_sync(0xffffffffu, fi[k][2], m);
      }
    }
    if (tx == 0)
#pragma unroll
      for (int k = 0; k < kS; ++k)
        add_force(p.ffix + 3 * (e.x * kSuper + k * kC + ty), fi[k][0], fi[k][1], fi[k][2]);
  }
  if constexpr (kEnergy) {
    // Each pair once here: doubled to nonbonded.h's full-list convention (exact).
#pragma unroll
    for (int c = 0; c < 8; ++c) sums[c] *= 2.0;
    __shared__ double s_scratch[32 * 8];
    block_sum(sums, s_scratch);
    if (t == 0)
      for (int c = 0; c < 8; ++c) add_fixed(&p.st->nb_acc[c], to_fixed(sums[c], kEnergyScale));
  }
}

// Per slot: the pair sums into float, plus the reaction-field correction of the atom's excluded pairs
// within the cut-off (seen from both atoms, the minimum image: these pairs are not in the list), as
// nonbonded.cu computes it; the sums are zeroed for the next step.
template <bool kEnergy>
__global__ void __launch_bounds__(kSlotBlock) cluster_finish_kernel(ClusterNbParams p) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  double sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int a = s < p.max_slots ? p.atom_of[s] : -1;
  if (a >= 0) {
    unsigned long long* acc = p.ffix + 3 * s;
    float fx = from_force_fixed(acc[0]), fy = from_force_fixed(acc[1]), fz = from_force_fixed(acc[2]);
    acc[0] = acc[1] = acc[2] = 0ull;
    const float4 xi = p.xq[s];
    for (int q = p.excl_start[a]; q < p.excl_start[a + 1]; ++q)
      add_rf_exclusion<kEnergy>(xi, p.xq[p.sorted_of[p.excl[q]]], p.len, p.inv_len, p.rc2, p.k_rf, p.c_rf, fx,
                                fy, fz, sums);
    p.f[s] = make_float4(fx, fy, fz, 0.f);
  }
  if constexpr (kEnergy) {
    __shared__ double s_scratch[32 * 8];
    block_sum(sums, s_scratch);
    if (threadIdx.x == 0)
      for (int c = 0; c < 8; ++c)
        if (sums[c] != 0.0) add_fixed(&p.st->nb_acc[c], to_fixed(sums[c], kEnergyScale));
  }
}

}  // namespace

void launch_cluster_order(gpu::GpuCalls& calls, const ClusterNbParams& p) {
  calls.launch("cluster_order_kernel", cluster_order_kernel, (p.max_slots + kSlotBlock - 1) / kSlotBlock,
               kSlotBlock, 0, p);
}

void launch_cluster_nonbonded(gpu::GpuCalls& calls, const ClusterNbParams& p, bool energy) {
  const size_t shared = sizeof(float2) * p.ntypes * p.ntypes;
  const int slot_blocks = (p.max_slots + kSlotBlock - 1) / kSlotBlock;
  if (energy) {
    calls.launch("cluster_pair_kernel<energy>", cluster_pair_kernel<true>, p.pair_blocks, kSuper, shared, p);
    calls.launch("cluster_finish_kernel<energy>", cluster_finish_kernel<true>, slot_blocks, kSlotBlock, 0, p);
  } else {
    calls.launch("cluster_pair_kernel", cluster_pair_kernel<false>, p.pair_blocks, kSuper, shared, p);
    calls.launch("cluster_finish_kernel", cluster_finish_kernel<false>, slot_blocks, kSlotBlock, 0, p);
  }
}

}  // namespace halomd::cuda
