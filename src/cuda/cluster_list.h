// The cluster-pair list built on the GPU: step 1 and 2 of the plan in bench/NOTES.md (sixteenth session) for
// replacing the atom-pair search, which costs twice the force kernel. It reproduces the host reference
// (cpu/cluster_pairlist.h) slot for slot and entry for entry: the same grid (cluster_grid_shape), the same
// keys in double without fused multiply-adds, the same loops. A whole periodic box for now (no domains, no
// zones). test_cuda_executor compares it with the host list. The single-GPU executor uses it with
// HALOMD_GPU_CLUSTER=1 (cuda/cluster_nonbonded.h); off by default, as its force kernel is slower than the
// atom-pair kernel (bench/results/gpu_pair_lists.json, bench/NOTES.md seventeenth session).
#pragma once

#include <cstdint>

#include "core/box.h"
#include "cpu/cluster_pairlist.h"
#include "gpu/device_buffer.h"
#include "gpu/gpu_calls.h"

namespace halomd::cuda {

struct DeviceClusterList {
  ClusterGridShape shape;
  int n = 0, ncol = 0, ncol_cap = 0, ncell = 0, max_super = 0, chunk = 0, max_work = 0;
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
  gpu::DeviceBuffer<int> counts;       // per super: entries, js, mask groups, work items (kCounts each)
  gpu::DeviceBuffer<int> offsets;      // their exclusive scans, kCounts x (max_super + 1)
  gpu::DeviceBuffer<int4> entries, j;  // compacted: (super, shift, first, count), (cj, imask, masks, 0)
  gpu::DeviceBuffer<unsigned long long> masks;
  // The force kernel's work items: the entries cut into runs of at most `chunk` j-clusters, in the same
  // (super, shift, first, count) form, so that a long entry is spread over several blocks.
  gpu::DeviceBuffer<int4> work;
  gpu::DeviceBuffer<int> overflow;

  int max_slots() const { return max_super * ClusterPairList::kSuperSize; }
  // On the device, after a build: the slots in use (padding included) and the entries.
  const int* num_slots() const { return col_slot_start.get() + ncol; }
  const int* num_entries() const { return offsets.get() + max_super; }
  const int* num_work() const { return offsets.get() + 3 * (max_super + 1) + max_super; }
};

// Sizes the buffers for n atoms in `box` at rlist; returns true when it (re)allocated. Allocates on the
// host: call it before a build is recorded into a graph, which then never allocates.
bool reserve_cluster_list(int n, const Box& box, double rlist, int chunk, DeviceClusterList& list);

// Builds the list on the calls' stream from positions x (double, structure of arrays, n atoms, unwrapped)
// in a periodic box; excl_start/excl: the exclusions (CSR over atoms, sorted) on the device; mol: each
// atom's molecule (or null: every pair's exclusions are looked up); chunk: j-clusters per work item.
// Returns true when it had to (re)allocate (reserve_cluster_list): a graph recorded before is then stale. A
// capacity exceeded sets `overflow` (download_cluster_list throws; the executor's step reports it).
bool build_cluster_list(gpu::GpuCalls& calls, const double* const x[3], int n, const Box& box, double rlist,
                        const int* excl_start, const int* excl, const int* mol, int chunk,
                        DeviceClusterList& list);

// The list in the host layout (waits for the device); throws RuntimeError when a capacity was exceeded.
void download_cluster_list(const DeviceClusterList& list, ClusterPairList& out);

}  // namespace halomd::cuda
