// The cluster-pair list built on the GPU: step 1 and 2 of the plan in bench/NOTES.md (sixteenth session) for
// replacing the atom-pair search, which costs twice the force kernel. It reproduces the host reference
// (cpu/cluster_pairlist.h) slot for slot and entry for entry: the same grid (cluster_grid_shape), the same
// keys in double without fused multiply-adds, the same loops. A whole periodic box for now (no domains, no
// zones). Not used by an executor yet; test_cuda_executor compares it with the host list.
#pragma once

#include <cstdint>

#include "core/box.h"
#include "cpu/cluster_pairlist.h"
#include "gpu/device_buffer.h"
#include "gpu/gpu_calls.h"

namespace halomd::cuda {

struct DeviceClusterList {
  ClusterGridShape shape;
  int n = 0, ncol = 0, ncol_cap = 0, ncell = 0, max_super = 0;
  double rlist = 0.0;
  gpu::DeviceBuffer<double> w[3];  // wrapped positions, per atom
  gpu::DeviceBuffer<int> cell_of, cell_count, cell_fill, cell_start, cell_atoms;
  gpu::DeviceBuffer<int> col_slot_start;            // per column, padded; [ncol]: the slots in use
  gpu::DeviceBuffer<int> slot_atom;                 // per slot, -1 padding
  gpu::DeviceBuffer<double> box_lo, box_hi;         // per cluster, 3 each (lo > hi: empty)
  gpu::DeviceBuffer<double> sbox_lo, sbox_hi;       // per super-cluster
  gpu::DeviceBuffer<double> cbox_lo, cbox_hi;       // per column (x, y)
  gpu::DeviceBuffer<int4> sup_entries;              // per super region: (super, shift, first local, count)
  gpu::DeviceBuffer<int4> sup_j;                    // per super region: (cj, imask, mask local or -1, 0)
  gpu::DeviceBuffer<unsigned long long> sup_masks;  // per super region: 8 per j with masks
  gpu::DeviceBuffer<int> counts;                    // per super: entries, js, mask groups (3 each)
  gpu::DeviceBuffer<int> offsets;                   // their exclusive scans, 3 x (max_super + 1)
  gpu::DeviceBuffer<int4> entries, j;  // compacted: (super, shift, first, count), (cj, imask, masks, 0)
  gpu::DeviceBuffer<unsigned long long> masks;
  gpu::DeviceBuffer<int> overflow;
};

// Builds the list on the calls' stream from positions x (double, structure of arrays, n atoms, unwrapped)
// in a periodic box; excl_start/excl: the exclusions (CSR over atoms, sorted) on the device.
void build_cluster_list(gpu::GpuCalls& calls, const double* const x[3], int n, const Box& box, double rlist,
                        const int* excl_start, const int* excl, DeviceClusterList& list);

// The list in the host layout (waits for the device); throws RuntimeError when a capacity was exceeded.
void download_cluster_list(const DeviceClusterList& list, ClusterPairList& out);

}  // namespace halomd::cuda
