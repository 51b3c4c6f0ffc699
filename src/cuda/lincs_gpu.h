// LINCS on one GPU: the constraints grouped into the update kernel's blocks (whole groups of coupled
// constraints per block, at most kUpdateBlock atoms and constraints) and uploaded, UpdateParams::lincs set.
// The update kernel solves them after leap-frog, as cpu/lincs.h does (update.cu, lincs_block).
#pragma once

#include <vector>

#include "core/executor.h"
#include "cuda/device_data.h"
#include "gpu/device_buffer.h"
#include "gpu/gpu_calls.h"

namespace halomd::cuda {

// The host side of the grouping, for the tests: blocks, atom slots and constraints as uploaded.
struct LincsLayout {
  std::vector<LincsBlockDev> blocks;
  std::vector<int> atoms;
  std::vector<LincsConDev> con;
  std::vector<int> coupling_start, coupling_other;
  std::vector<double> coupling_coef;
  std::vector<int> atom_con_start, atom_con;
};
// Groups top.constraints (InputError where a group of coupled constraints holds more than kUpdateBlock atoms
// or constraints, as all-bonds makes a protein one group).
LincsLayout lincs_layout(const Topology& top);

class LincsGpu {
 public:
  // The run's constraints on the device and up.lincs pointing at them (nothing without constraints).
  void setup(const ExecutorConfig& cfg, gpu::GpuCalls& calls, UpdateParams& up);
  // GPU domains, at each repartition: the home update groups' constraints (home-array indices; their
  // layout from lincs_layout of the domain's home atoms), in buffers that only grow; up.lincs.nblocks 0 for
  // a domain without any. Waits for the copies.
  void set_layout(const LincsLayout& l, const MdParams& mdp, gpu::GpuCalls& calls, UpdateParams& up);

 private:
  gpu::DeviceBuffer<LincsBlockDev> blocks_;
  gpu::DeviceBuffer<LincsConDev> con_;
  gpu::DeviceBuffer<int> atoms_, coupling_start_, coupling_other_, atom_con_start_, atom_con_;
  gpu::DeviceBuffer<double> coupling_coef_;
};

}  // namespace halomd::cuda
