// The listed interactions (bonds, angles, dihedrals, 1-4 pairs, CMAP) in the CUDA executor, one GPU: the
// interactions on the device and the two calls of a step (listed_kernels.h), enqueued after the non-bonded
// kernel (and PME's gather), so that a regular step's graph holds them too.
#pragma once

#include "core/box.h"
#include "core/executor.h"
#include "core/md_params.h"
#include "core/topology.h"
#include "cuda/device_system.h"
#include "cuda/listed_kernels.h"
#include "gpu/device_buffer.h"

namespace halomd::cuda {

class ListedGpu {
 public:
  // The topology's interactions on the device (nothing when it has none).
  void setup(const MdParams& mdp, const Box& box, const Topology& top, gpu::GpuCalls& calls);
  bool active() const { return p_.n_terms > 0; }
  // A new box (pressure coupling): the minimum image's lengths and the restraints' reference centre.
  void set_box(const Box& box);
  // Their forces added to ds's non-bonded forces; with energy, their energies and virial summed into
  // StepState::listed_acc, which the caller zeroes before an energy step.
  void enqueue(gpu::GpuCalls& calls, const DeviceSystem& ds, bool energy) const;
  // The energy terms and the virial of an energy step's state, into e.
  void add_energies(const StepState& h, StepEnergies* e) const;

 private:
  ListedParams p_;
  double posres_com_frac_[3] = {};
  gpu::DeviceBuffer<BondedTerm> terms_;
  gpu::DeviceBuffer<double> cmap_data_;
  gpu::DeviceBuffer<CmapView> cmap_views_;
  gpu::DeviceBuffer<unsigned long long> f_fixed_;
};

}  // namespace halomd::cuda
