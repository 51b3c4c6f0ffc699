// The listed interactions (bonds, angles, dihedrals, 1-4 pairs, CMAP) in the CUDA executors: the
// interactions on the device and the two calls of a step (listed_kernels.h). One GPU: the topology's,
// enqueued after the non-bonded kernel (and PME's gather), so that a regular step's graph holds them too.
// GPU domains: the ones the domain computes on its local atoms (cpu/dd_domain.h's rule), set at each
// repartition, their forces on halo atoms added before the force halo sends those back and on home atoms
// after it (cuda_dd_executor.cpp, exchange_forces).
#pragma once

#include <vector>

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
  // GPU domains: the constants (a topology with listed interactions only; no interactions yet) ...
  void setup_domain(const MdParams& mdp, const Box& box, const Topology& top, gpu::GpuCalls& calls);
  // ... and at each repartition the domain's interactions on its num_local local atoms (grow-only buffers;
  // waits for the copies).
  void set_domain_terms(const std::vector<BondedTerm>& terms, int num_local, gpu::GpuCalls& calls);
  // The topology has listed interactions: every domain launches the kernels (some may have none to compute)
  // and sums their energies on energy steps.
  bool active() const { return active_; }
  // A new box (pressure coupling): the minimum image's lengths and the restraints' reference centre.
  void set_box(const Box& box);
  // Their forces added to ds's non-bonded forces; with energy, their energies and virial summed into
  // StepState::listed_acc, which the caller zeroes before an energy step.
  void enqueue(gpu::GpuCalls& calls, const DeviceSystem& ds, bool energy) const;
  // GPU domains: the interactions' forces, and those on halo atoms (local atoms num_home and up) added to
  // their non-bonded forces (sorted order), which the force halo then sends to their owners ...
  void enqueue_domain_halo(gpu::GpuCalls& calls, const DeviceSystem& ds, int num_home, bool energy) const;
  // ... and after the force halo, those on home atoms added to ds.f_halo (which the update adds and zeroes).
  void enqueue_domain_home(gpu::GpuCalls& calls, const DeviceSystem& ds, int num_home) const;
  // StepState::listed_acc: the values a reduction over domains sums.
  static constexpr int kAccCount = kNumBondedTerms + 9;
  // The energy terms and the virial of an energy step's state, into e.
  void add_energies(const StepState& h, StepEnergies* e) const;

 private:
  void setup_constants(const MdParams& mdp, const Box& box, const Topology& top, gpu::GpuCalls& calls);
  ListedParams params(const DeviceSystem& ds) const;

  bool active_ = false;
  ListedParams p_;
  double posres_com_frac_[3] = {};
  gpu::DeviceBuffer<BondedTerm> terms_;
  gpu::DeviceBuffer<double> cmap_data_;
  gpu::DeviceBuffer<CmapView> cmap_views_;
  gpu::DeviceBuffer<unsigned long long> f_fixed_;
};

}  // namespace halomd::cuda
