#include "cuda/device_util.cuh"
#include "cuda/nonbonded.h"
#include "cuda/pair_terms.cuh"
#include "cuda/pairsearch.h"

namespace halomd::cuda {
namespace {

constexpr int kBlock = 128;

// Which of the NonbondedPass kinds sorted atom s's row is (as a bit index); domains only.
__device__ inline int row_kind(const NonbondedParams& p, int s) {
  if (p.zone_mask_s[s] != 0) return 2;                                  // kHaloAtoms
  return p.cell_interior && p.cell_interior[p.cell_s[s]] != 0 ? 0 : 1;  // kInteriorAtoms : kHomeBoundaryAtoms
}

// One atom's lanes (tpa of them, adjacent in a warp) each walk their own list and sum the force on the atom
// in float, in list order; the lanes' sums are then added in a fixed butterfly. Every pair is listed from
// both of its atoms, so nothing is written to another atom's force and the result does not depend on
// thread scheduling. The pair arithmetic is pair_lj_rf and pair_rf_exclusion of cpu/pair_interaction.h,
// written out in float with the charges scaled by sqrt(f/eps_r) beforehand (test_cuda_executor checks the
// two against each other).
// Energy steps: a group's eight pairs are summed in float, then the group's sums added in double: eight
// float-to-double conversions per group, not per pair (a slow pipe on Hopper: with per-pair double sums the
// energy kernel took twice the regular one's time). Its register budget is 4 blocks per multiprocessor
// (128 registers), against 6 for the regular kernel: the group sums spilled at 6 (bench/NOTES.md, twelfth
// session).
// kListed: a listed pass over the row lists (NonbondedParams::rows), the launch's row u being the u-th
// row of its kind; otherwise row u is sorted row u. Two instantiations, so that the plain one keeps the
// single-GPU kernel's code (computing the lane from a loaded row there cost it ~3.5% at 203k atoms,
// bench/NOTES.md, thirteenth session).
// kEwald: real-space Ewald (coulombtype = PME) instead of reaction field.
// kVdw: the LJ form (pair_terms.cuh's lj_term): potential-shift, force-switch or potential-switch, each on
// one GPU and in the listed passes of GPU domains.
template <bool kEnergy, bool kListed, bool kEwald = false, int kVdw = kVdwShift>
__global__ void __launch_bounds__(kBlock, kEnergy ? 4 : 6) nonbonded_kernel(NonbondedParams p, int pass) {
  extern __shared__ float2 s_lj[];
  // A listed pass launches for more rows than it may have (listed_launch_rows): a block past them leaves.
  if (kListed && static_cast<int>((blockIdx.x * blockDim.x) >> p.log2_tpa) >= listed_count(p, pass)) return;
  for (int k = threadIdx.x; k < p.ntypes * p.ntypes; k += blockDim.x) s_lj[k] = p.lj[k];
  __syncthreads();

  int t = blockIdx.x * blockDim.x + threadIdx.x;  // the row's first list lane plus r, below
  int s = t >> p.log2_tpa;
  const int r = t & (p.tpa - 1);
  bool in_range = s < p.n;
  if constexpr (kListed) {
    const int first = listed_first(p, pass);
    in_range = s < listed_count(p, pass);
    s = in_range ? p.rows[first + s] : 0;
    t = s * p.tpa + r;
  }
  float fx = 0.f, fy = 0.f, fz = 0.f;
  double sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // LJ, Coulomb, d (x) F: xx yy zz xy xz yz
  // The same for all lanes of an atom, so the butterfly below sees whole atoms.
  const bool active = in_range && (kListed || pass == kAllAtoms || (pass >> row_kind(p, s) & 1) != 0);
  if (active) {
    const float4 xi = p.xq[s];
    const int ti = p.type_s[s] * p.ntypes;
    const int ngroups = p.groups[t];
    const int4* lp = list_group(const_cast<int*>(p.list), t, p.cap_groups, 0);
    float xsx = xi.x, xsy = xi.y, xsz = xi.z;
    // The next group's entries are loaded while the current group's eight gathers are in flight.
    int4 na = make_int4(0, 0, 0, 0), nb = make_int4(0, 0, 0, 0);
    if (ngroups > 0) {
      na = __ldg(lp);
      nb = __ldg(lp + 1);
    }
    for (int g = 0; g < ngroups; ++g) {
      const int e[kListGroup] = {na.x, na.y, na.z, na.w, nb.x, nb.y, nb.z, nb.w};
      if (g + 1 < ngroups) {
        na = __ldg(lp + (g + 1) * 2 * 32);
        nb = __ldg(lp + (g + 1) * 2 * 32 + 1);
      }
      float4 xj[kListGroup];
      int tj[kListGroup];
      float gsum[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};  // energy steps: this group's sums
#pragma unroll
      for (int u = 0; u < kListGroup; ++u) {
        const int j = e[u] < 0 ? s : e[u];  // a marker loads the atom itself, unused
        xj[u] = __ldg(p.xq + j);
        tj[u] = __ldg(p.type_s + j);
      }
#pragma unroll
      for (int u = 0; u < kListGroup; ++u) {
        if (e[u] < 0) {
          const int code = -e[u] - 1;
          xsx = xi.x - static_cast<float>(code % 3 - 1) * p.len[0];
          xsy = xi.y - static_cast<float>((code / 3) % 3 - 1) * p.len[1];
          xsz = xi.z - static_cast<float>(code / 9 - 1) * p.len[2];
          continue;
        }
        const float dx = xsx - xj[u].x, dy = xsy - xj[u].y, dz = xsz - xj[u].z;
        const float r2 = dx * dx + dy * dy + dz * dz;
        // Beyond the cut-off (about 30% of the buffered list) the same instructions run and the result is
        // zeroed: no divergent branch in the warp.
        const bool in = r2 < p.rc2;
        float fscal;
        if constexpr (kEwald)
          fscal = lj_ewald_pair<kEnergy, kVdw>(s_lj[ti + tj[u]], xi.w * xj[u].w, r2, in, dx, dy, dz, p.rc2,
                                               p.ewald_beta, p.sh_ewald, p.sh6, p.sh12, gsum, p.sw);
        else
          fscal = lj_rf_pair<kEnergy, kVdw>(s_lj[ti + tj[u]], xi.w * xj[u].w, r2, in, dx, dy, dz, p.rc2,
                                            p.k_rf, p.c_rf, p.sh6, p.sh12, gsum, p.sw);
        fx += fscal * dx;
        fy += fscal * dy;
        fz += fscal * dz;
      }
      if constexpr (kEnergy) {
#pragma unroll
        for (int c = 0; c < 8; ++c) sums[c] += gsum[c];
      }
    }
    // Reaction-field correction of the excluded pairs within the cut-off (each pair seen from both atoms);
    // the minimum image here, as these pairs are not in the list.
    const int i = p.atom_of[s];
    const int eb = p.excl_start[i], ee = p.excl_start[i + 1];
    for (int q = eb + r; q < ee; q += p.tpa) {
      if constexpr (kEwald)
        add_ewald_exclusion<kEnergy>(xi, p.xq[p.sorted_of[p.excl[q]]], p.len, p.inv_len, p.rc2, p.ewald_beta,
                                     fx, fy, fz, sums);
      else
        add_rf_exclusion<kEnergy>(xi, p.xq[p.sorted_of[p.excl[q]]], p.len, p.inv_len, p.rc2, p.k_rf, p.c_rf,
                                  fx, fy, fz, sums);
    }
  }
  for (int m = p.tpa >> 1; m > 0; m >>= 1) {
    fx += __shfl_xor_sync(0xffffffffu, fx, m);
    fy += __shfl_xor_sync(0xffffffffu, fy, m);
    fz += __shfl_xor_sync(0xffffffffu, fz, m);
  }
  if (active && r == 0) p.f[s] = make_float4(fx, fy, fz, 0.f);
  if constexpr (kEnergy) {
    __shared__ double s_scratch[32 * 8];
    block_sum(sums, s_scratch);
    if (threadIdx.x == 0)
      for (int c = 0; c < 8; ++c) add_fixed(&p.st->nb_acc[c], to_fixed(sums[c], kEnergyScale));
  }
}

// The kernels of LJ form kVdw, with reaction field or Ewald: over every row (one domain, or every row of a
// domain) or, kListed, over the rows of one kind (GPU domains' passes).
template <bool kListed, int kVdw>
void launch_form(gpu::GpuCalls& calls, const NonbondedParams& p, bool energy, int blocks, size_t shared,
                 NonbondedPass pass) {
  static constexpr const char* kNames[2][3][4] = {
      {{"nonbonded_kernel", "nonbonded_kernel<energy>", "nonbonded_kernel<ewald>",
        "nonbonded_kernel<energy, ewald>"},
       {"nonbonded_kernel<fsw>", "nonbonded_kernel<energy, fsw>", "nonbonded_kernel<ewald, fsw>",
        "nonbonded_kernel<energy, ewald, fsw>"},
       {"nonbonded_kernel<psw>", "nonbonded_kernel<energy, psw>", "nonbonded_kernel<ewald, psw>",
        "nonbonded_kernel<energy, ewald, psw>"}},
      {{"nonbonded_kernel<listed>", "nonbonded_kernel<energy, listed>", "nonbonded_kernel<listed, ewald>",
        "nonbonded_kernel<energy, listed, ewald>"},
       {"nonbonded_kernel<listed, fsw>", "nonbonded_kernel<energy, listed, fsw>",
        "nonbonded_kernel<listed, ewald, fsw>", "nonbonded_kernel<energy, listed, ewald, fsw>"},
       {"nonbonded_kernel<listed, psw>", "nonbonded_kernel<energy, listed, psw>",
        "nonbonded_kernel<listed, ewald, psw>", "nonbonded_kernel<energy, listed, ewald, psw>"}}};
  const char* const* name = kNames[kListed ? 1 : 0][kVdw];
  if (p.ewald_beta > 0.f) {
    if (energy)
      calls.launch(name[3], nonbonded_kernel<true, kListed, true, kVdw>, blocks, kBlock, shared, p, pass);
    else
      calls.launch(name[2], nonbonded_kernel<false, kListed, true, kVdw>, blocks, kBlock, shared, p, pass);
  } else if (energy) {
    calls.launch(name[1], nonbonded_kernel<true, kListed, false, kVdw>, blocks, kBlock, shared, p, pass);
  } else {
    calls.launch(name[0], nonbonded_kernel<false, kListed, false, kVdw>, blocks, kBlock, shared, p, pass);
  }
}

// launch_form for the run's LJ form (NonbondedParams::vdw).
template <bool kListed>
void launch_vdw(gpu::GpuCalls& calls, const NonbondedParams& p, bool energy, int blocks, size_t shared,
                NonbondedPass pass) {
  if (p.vdw == kVdwForceSwitch)
    launch_form<kListed, kVdwForceSwitch>(calls, p, energy, blocks, shared, pass);
  else if (p.vdw == kVdwPotentialSwitch)
    launch_form<kListed, kVdwPotentialSwitch>(calls, p, energy, blocks, shared, pass);
  else
    launch_form<kListed, kVdwShift>(calls, p, energy, blocks, shared, pass);
}

}  // namespace

void launch_nonbonded(gpu::GpuCalls& calls, const NonbondedParams& p, bool energy, NonbondedPass pass) {
  const bool listed = is_listed_pass(p, pass);
  const int rows = listed ? listed_launch_rows(p, pass) : p.n;
  const long long lanes = static_cast<long long>(rows) * p.tpa;
  const int blocks = static_cast<int>((lanes + kBlock - 1) / kBlock);
  if (blocks == 0) return;  // a pass with no rows of its kind
  const size_t shared = sizeof(float2) * p.ntypes * p.ntypes;
  if (listed)  // GPU domains' passes over the rows of one kind
    launch_vdw<true>(calls, p, energy, blocks, shared, pass);
  else
    launch_vdw<false>(calls, p, energy, blocks, shared, pass);
}

}  // namespace halomd::cuda
