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
// --chunk: entries cut into at most N j-clusters; --split: a warp per half j-cluster (GROMACS's split);
// (Its GPU list build went: halomd's own, src/cuda/cluster_list.h, runs in the executor with
// HALOMD_GPU_CLUSTER=1 and is measured by bench/gpu_single.sh, PAIR_LISTS="atom cluster".) Each run times three kernels: fixed-point atomics, float atomics, fixed point with warps that have no pair
// within the cut-off skipping the arithmetic. bench/cluster_nb.sh builds it and runs the sweep:
//   nvcc -O3 -std=c++20 -arch=sm_90 -I src -I bench bench/cluster_nb.cu build/test/libhalomd_cpu.a \
//     build/test/libhalomd_io.a -lfmt -lfftw3 -Xcompiler -fopenmp -o devbin/cluster_nb
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

#include "cluster_nb_kernels.cuh"
#include "cluster_nb_list.h"
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

}  // namespace

using namespace cluster_nb;

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
  char buf[4096];
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
