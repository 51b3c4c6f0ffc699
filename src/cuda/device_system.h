// The device-resident system of the CUDA executor: every buffer the kernels use, the kernels' parameter
// structs that point into them, and how they are set up from the topology and sized for the pair list.
#pragma once

#include <string>
#include <vector>

#include "core/executor.h"
#include "cuda/device_data.h"
#include "gpu/device_buffer.h"
#include "gpu/gpu_calls.h"

namespace halomd::cuda {

struct DeviceSystem {
  int n = 0;
  int tpa = 1;               // lanes per atom in the search and the non-bonded kernel
  int cap_groups = 0;        // list capacity per lane, in groups of kListGroup entries
  double self_energy = 0.0;  // -1/2 c_rf f/eps_r sum q^2 (kJ/mol), added on the host
  std::vector<double> host_mass;

  // Original order.
  gpu::DeviceBuffer<double> x[3], v[3];
  gpu::DeviceBuffer<double> mass, inv_mass;
  gpu::DeviceBuffer<float> qs;
  gpu::DeviceBuffer<int> type, excl_start, excl, free_atoms, sorted_of, cell_of, slot;
  gpu::DeviceBuffer<int4> img;
  gpu::DeviceBuffer<SettleDev> settles;
  // Cells and sorted order.
  gpu::DeviceBuffer<int> cell_count, cell_start, order_tmp, atom_of, cell_s, type_s;
  gpu::DeviceBuffer<float4> xq, f;
  gpu::DeviceBuffer<float2> lj;
  // Pair list, per lane.
  gpu::DeviceBuffer<int> list, groups;
  gpu::DeviceBuffer<StepState> st;

  SearchParams search{};
  NonbondedParams nonbonded{};
  UpdateParams update{};
};

// Uploads the topology's constants, allocates the per-atom buffers and fills the parameter structs (the
// pair list is sized later, by size_pair_list). tpa: lanes per atom, 0 to choose from the atom count and
// the number of multiprocessors.
void setup_device_system(const ExecutorConfig& cfg, int multiprocessors, int tpa, gpu::GpuCalls& calls,
                         DeviceSystem& ds);

// Makes the pair list large enough for positions x: an upper bound on any atom's neighbours (all atoms in
// the (2 kCellsPerRlist + 1)^3 cells around its cell) plus room for image markers. Returns true when it
// (re)allocated.
bool size_pair_list(const std::vector<Vec3>& x, gpu::GpuCalls& calls, DeviceSystem& ds);

}  // namespace halomd::cuda
