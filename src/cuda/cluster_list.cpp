#include "cuda/cluster_list.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.h"
#include "cuda/cluster_build.h"
#include "gpu/cuda_check.h"

namespace halomd::cuda {
namespace {
constexpr int kS = ClusterPairList::kClustersPerSuper, kSuper = ClusterPairList::kSuperSize;
}  // namespace

bool reserve_cluster_list(int n, const Box& box, double rlist, int chunk, DeviceClusterList& d) {
  if (chunk < 1) throw RuntimeError(-1, -1, "cluster list: a work item needs at least one j-cluster");
  const ClusterGridShape g = cluster_grid_shape(Vec3{0, 0, 0}, box.len, n, rlist);
  const int ncol = g.ncx * g.ncy, ncell = ncol * g.nz;
  const int max_super = (n + kSuper * ncol) / kSuper + 1;
  d.shape = g;
  d.ncol = ncol;
  d.rlist = rlist;
  const int max_work = max_super * (kClusterEntryCap + (kClusterJCap + chunk - 1) / chunk);
  if (n <= d.n && ncell <= d.ncell && ncol <= d.ncol_cap && max_super <= d.max_super && chunk == d.chunk)
    return false;
  d.chunk = chunk;
  d.max_work = max_work;
  d.work.allocate(static_cast<size_t>(max_work), "cluster list: work items");
  const int cap_n = std::max(n, d.n);
  for (auto& b : d.w) b.allocate(cap_n, "cluster list: positions");
  d.cell_of.allocate(cap_n, "cluster list: cells");
  d.cell_count.allocate(ncell, "cluster list: cells");
  d.cell_fill.allocate(ncell, "cluster list: cells");
  d.cell_start.allocate(ncell + 1, "cluster list: cells");
  d.cell_atoms.allocate(cap_n, "cluster list: cells");
  d.col_slot_start.allocate(ncol + 1, "cluster list: columns");
  d.slot_atom.allocate(static_cast<size_t>(max_super) * kSuper, "cluster list: slots");
  for (auto* b : {&d.box_lo, &d.box_hi}) b->allocate(static_cast<size_t>(max_super) * kS * 3, "cluster list");
  for (auto* b : {&d.sbox_lo, &d.sbox_hi}) b->allocate(static_cast<size_t>(max_super) * 3, "cluster list");
  for (auto* b : {&d.cbox_lo, &d.cbox_hi}) b->allocate(static_cast<size_t>(ncol) * 2, "cluster list");
  d.sup_entries.allocate(static_cast<size_t>(max_super) * kClusterEntryCap, "cluster list: entries");
  d.sup_j.allocate(static_cast<size_t>(max_super) * kClusterJCap, "cluster list: j-clusters");
  d.sup_masks.allocate(static_cast<size_t>(max_super) * kClusterMaskCap * kS, "cluster list: masks");
  d.counts.allocate(static_cast<size_t>(max_super) * kCounts, "cluster list: counts");
  d.offsets.allocate(static_cast<size_t>(max_super + 1) * kCounts, "cluster list: offsets");
  d.entries.allocate(static_cast<size_t>(max_super) * kClusterEntryCap, "cluster list: entries");
  d.j.allocate(static_cast<size_t>(max_super) * kClusterJCap, "cluster list: j-clusters");
  d.masks.allocate(static_cast<size_t>(max_super) * kClusterMaskCap * kS, "cluster list: masks");
  d.overflow.allocate(1, "cluster list: overflow flag");
  d.n = cap_n;
  d.ncell = ncell;
  d.ncol_cap = ncol;
  d.max_super = max_super;
  return true;
}

bool build_cluster_list(gpu::GpuCalls& calls, const double* const x[3], int n, const Box& box, double rlist,
                        const int* excl_start, const int* excl, const int* mol, int chunk,
                        DeviceClusterList& d) {
  const bool reallocated = reserve_cluster_list(n, box, rlist, chunk, d);
  const ClusterGridShape& g = d.shape;
  const int ncol = d.ncol;
  ClusterBuildParams p{};
  p.n = n;
  p.ncx = g.ncx;
  p.ncy = g.ncy;
  p.nz = g.nz;
  p.ncol = ncol;
  p.max_super = d.max_super;
  for (int k = 0; k < 3; ++k) {
    p.L[k] = box.len[k];
    p.inv[k] = 1.0 / box.len[k];
    p.lo[k] = g.lo[k];
    p.len[k] = g.len[k];
    p.x[k] = x[k];
    p.w[k] = d.w[k].get();
  }
  p.r2 = rlist * rlist;
  p.excl_start = excl_start;
  p.excl = excl;
  p.mol = mol;
  p.chunk = chunk;
  p.work = d.work.get();
  p.cell_of = d.cell_of.get();
  p.cell_count = d.cell_count.get();
  p.cell_fill = d.cell_fill.get();
  p.cell_start = d.cell_start.get();
  p.cell_atoms = d.cell_atoms.get();
  p.col_slot_start = d.col_slot_start.get();
  p.slot_atom = d.slot_atom.get();
  p.box_lo = d.box_lo.get();
  p.box_hi = d.box_hi.get();
  p.sbox_lo = d.sbox_lo.get();
  p.sbox_hi = d.sbox_hi.get();
  p.cbox_lo = d.cbox_lo.get();
  p.cbox_hi = d.cbox_hi.get();
  p.sup_entries = d.sup_entries.get();
  p.sup_j = d.sup_j.get();
  p.sup_masks = d.sup_masks.get();
  p.counts = d.counts.get();
  p.offsets = d.offsets.get();
  p.entries = d.entries.get();
  p.j = d.j.get();
  p.masks = d.masks.get();
  p.overflow = d.overflow.get();
  launch_cluster_build(calls, p);
  return reallocated;
}

void download_cluster_list(const DeviceClusterList& d, ClusterPairList& out) {
  HALOMD_CUDA_CHECK(cudaDeviceSynchronize());
  auto get = [](auto* dst, const auto* src, size_t count) {
    if (count > 0) HALOMD_CUDA_CHECK(cudaMemcpy(dst, src, count * sizeof(*src), cudaMemcpyDeviceToHost));
  };
  int overflow = 0, slots = 0;
  get(&overflow, d.overflow.get(), 1);
  if (overflow)
    throw RuntimeError(-1, -1,
                       "cluster list: a capacity was exceeded (flags " + std::to_string(overflow) +
                           ": 1 slots, 2 j-clusters or masks, 4 entries per super-cluster)");
  get(&slots, d.col_slot_start.get() + d.ncol, 1);
  int totals[3];
  for (int k = 0; k < 3; ++k) get(&totals[k], d.offsets.get() + k * (d.max_super + 1) + d.max_super, 1);
  out.rlist = d.rlist;
  out.atom_of_slot.resize(slots);
  get(out.atom_of_slot.data(), d.slot_atom.get(), slots);
  std::vector<double> w[3];
  for (int k = 0; k < 3; ++k) {
    w[k].resize(d.w[k].size());
    get(w[k].data(), d.w[k].get(), w[k].size());
  }
  out.x_slot.resize(slots);
  for (int s = 0; s < slots; ++s) {
    const int a = out.atom_of_slot[s];
    out.x_slot[s] = a >= 0 ? Vec3{w[0][a], w[1][a], w[2][a]} : Vec3{-1e6, -1e6, -1e6};
  }
  std::vector<int4> e(totals[0]), j(totals[1]);
  get(e.data(), d.entries.get(), e.size());
  get(j.data(), d.j.get(), j.size());
  out.entries.clear();
  for (const int4& v : e) out.entries.push_back({v.x, v.y, v.z, v.w});
  out.j.clear();
  for (const int4& v : j) out.j.push_back({v.x, static_cast<uint32_t>(v.y), v.z});
  out.pair_masks.resize(static_cast<size_t>(totals[2]) * kS);
  get(reinterpret_cast<unsigned long long*>(out.pair_masks.data()), d.masks.get(), out.pair_masks.size());
}

}  // namespace halomd::cuda
