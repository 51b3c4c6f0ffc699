// The kernels of the GPU cluster-pair list build (cuda/cluster_list.h has the host API): what they read and
// write, and the one call that enqueues them. Kept free of C++20 headers for nvcc (C++17).
#pragma once

#include <cuda_runtime.h>

#include "gpu/gpu_calls.h"

namespace halomd::cuda {

// Capacities per super-cluster (the build sets `overflow` when one is exceeded: 1 slots, 2 j-clusters or
// masks, 4 entries).
inline constexpr int kClusterJCap = 1024, kClusterMaskCap = 512, kClusterEntryCap = 27;
// Per super-cluster counts (and their scans): entries, j-clusters, mask groups, work items.
inline constexpr int kCounts = 4;

// Everything the kernels read and write (device pointers; n atoms, ncol columns of nz thin z cells, room
// for max_super super-clusters).
struct ClusterBuildParams {
  int n, ncx, ncy, nz, ncol, max_super;
  double L[3], inv[3], lo[3], len[3], r2;
  const double* x[3];
  const int *excl_start, *excl;
  const int* mol;  // molecule of each atom (exclusions stay within one), or null
  int chunk;       // j-clusters per work item at most
  double* w[3];
  int *cell_of, *cell_count, *cell_fill, *cell_start, *cell_atoms, *col_slot_start, *slot_atom;
  double *box_lo, *box_hi, *sbox_lo, *sbox_hi, *cbox_lo, *cbox_hi;
  int4 *sup_entries, *sup_j, *entries, *j, *work;
  unsigned long long *sup_masks, *masks;
  int *counts, *offsets, *overflow;
};

// Enqueues the build: wrap and bin, scan, place, sort each cell, pad the columns, split the super-clusters,
// box the columns, search, scan the counts, compact.
void launch_cluster_build(gpu::GpuCalls& calls, const ClusterBuildParams& p);

}  // namespace halomd::cuda
