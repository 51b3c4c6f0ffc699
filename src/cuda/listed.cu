#include <algorithm>

#include "cpu/listed_term.h"
#include "cuda/device_util.cuh"
#include "cuda/listed_kernels.h"

namespace halomd::cuda {
namespace {

constexpr int kBlock = 128;
constexpr int kSums = kNumBondedTerms + 9;

template <bool kEnergy>
__global__ void listed_kernel(ListedParams p) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  double sums[kSums];
  for (int c = 0; c < kSums; ++c) sums[c] = 0.0;
  if (t < p.n_terms) {
    const BondedTerm term = p.terms[t];
    const int* a = term.atoms;
    // The minimum image of x_i - x_j, as core/box.h's minimum_image.
    auto dx = [&p, &term, a](int i, int j) {
      Vec3 d;
      for (int k = 0; k < 3; ++k) {
        const double v = p.x[k][a[i]] - (j < 0 ? term.p[3 + k] + p.posres_com[k] : p.x[k][a[j]]);
        d[k] = v - p.len[k] * round(v / p.len[k]);
      }
      return d;
    };
    Vec3 fa[5];  // a CMAP term has 5 atoms
    double v = 0.0, v_coulomb = 0.0;
    if (term.kind == BondedKind::Cmap)
      cmap_term(p.cmaps[static_cast<int>(term.p[0])], dx, fa, v);
    else
      listed_term(term, p.coulomb_factor, dx, fa, v, v_coulomb);
    const int n = listed_atom_count(term.kind);
    for (int k = 0; k < n; ++k) {
      for (int c = 0; c < 3; ++c) {
        const double f = fa[k][c];
        if (!(fabs(f) < kListedForceLimit)) {  // also NaN: the run stops naming the step and atom
          flag_error(p.st, p.st->step, a[k], kErrForce);
          continue;
        }
        atomicAdd(p.f_fixed + 3 * static_cast<long long>(a[k]) + c,
                  static_cast<unsigned long long>(llrint(f * kListedForceScale)));
      }
    }
    if (kEnergy) {
      sums[bonded_term_of(term.kind)] += v;
      if (term.kind == BondedKind::Pair14) sums[static_cast<int>(BondedTermIndex::Coulomb14)] += v_coulomb;
      // -1/2 sum_a r_a (x) F_a with r_a relative to the first atom, as BondedCpu.
      for (int k = 1; k < n; ++k) {
        const Vec3 r = dx(k, 0);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) sums[kListedVirial + 3 * i + j] += -0.5 * r[i] * fa[k][j];
      }
      if (term.kind == BondedKind::PosRes) {
        double vir[3] = {0, 0, 0};
        posres_virial(term, dx(0, -1), fa[0], vir);
        for (int k = 0; k < 3; ++k) sums[kListedVirial + 4 * k] += vir[k];
      }
    }
  }
  if (kEnergy) {
    __shared__ double s_scratch[32 * kSums];
    block_sum(sums, s_scratch);
    if (threadIdx.x == 0)
      for (int c = 0; c < kSums; ++c) add_fixed(&p.st->listed_acc[c], to_fixed(sums[c], kEnergyScale));
  }
}

__global__ void listed_add_kernel(ListedParams p, int first, int last, float4* dst, const int* map) {
  const int i = first + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= last) return;
  unsigned long long* acc = p.f_fixed + 3 * static_cast<long long>(i);
  float4& f = dst[map ? map[i] : i];
  f.x += static_cast<float>(static_cast<double>(static_cast<long long>(acc[0])) * (1.0 / kListedForceScale));
  f.y += static_cast<float>(static_cast<double>(static_cast<long long>(acc[1])) * (1.0 / kListedForceScale));
  f.z += static_cast<float>(static_cast<double>(static_cast<long long>(acc[2])) * (1.0 / kListedForceScale));
  acc[0] = acc[1] = acc[2] = 0;
}

int blocks_for(long long items) { return static_cast<int>((items + kBlock - 1) / kBlock); }

}  // namespace

void launch_listed_terms(gpu::GpuCalls& calls, const ListedParams& p, bool energy) {
  // At least one block: a domain without interactions still launches (an energy step's sums stay 0), so
  // that every domain's step has the same kernels.
  const int blocks = std::max(1, blocks_for(p.n_terms));
  if (energy)
    calls.launch("listed_kernel<energy>", listed_kernel<true>, blocks, kBlock, 0, p);
  else
    calls.launch("listed_kernel", listed_kernel<false>, blocks, kBlock, 0, p);
}

void launch_listed_add(gpu::GpuCalls& calls, const ListedParams& p, int first, int last, float4* dst,
                       const int* map) {
  calls.launch("listed_add_kernel", listed_add_kernel, std::max(1, blocks_for(last - first)), kBlock, 0, p,
               first, last, dst, map);
}

void launch_listed(gpu::GpuCalls& calls, const ListedParams& p, bool energy) {
  launch_listed_terms(calls, p, energy);
  launch_listed_add(calls, p, 0, p.n_atoms, p.f, p.sorted_of);
}

}  // namespace halomd::cuda
