// PME's mesh part in the CUDA executor (coulombtype = PME, one GPU): the charges, B-spline moduli, grids and
// cuFFT plans, and the six calls of a step (spread, forward transform, solve, back transform, gather)
// enqueued after the non-bonded kernel, so that a regular step's graph holds them too.
#pragma once

#include <cufft.h>

#include <array>
#include <functional>

#include "core/box.h"
#include "core/executor.h"
#include "core/md_params.h"
#include "core/topology.h"
#include "cuda/device_system.h"
#include "cuda/pme_mesh_kernels.h"
#include "gpu/device_buffer.h"

namespace halomd::cuda {

class PmeMesh {
 public:
  PmeMesh() = default;
  ~PmeMesh();
  PmeMesh(const PmeMesh&) = delete;
  PmeMesh& operator=(const PmeMesh&) = delete;

  // The grid (cpu/pme.h's choice for grid_box: the run's first box, kept when pressure coupling scales the
  // box, as the CPU's), beta, moduli, charges and plans for the run's system in `box`.
  void setup(const MdParams& mdp, const Box& grid_box, const Box& box, const Topology& top,
             gpu::GpuCalls& calls);
  // A new box (pressure coupling): the solve's reciprocal box and volume, the net-charge term.
  void set_box(const Box& box);
  bool active() const { return active_; }
  const std::array<int, 3>& grid() const { return nk_; }
  size_t grid_points() const { return static_cast<size_t>(nk_[0]) * nk_[1] * nk_[2]; }
  // GPU domains: the mesh spreads and gathers the first n local atoms (the home atoms) with their charges q
  // (device, double, local order) instead of the whole system's; set again after every repartition.
  void set_atoms(const double* q, int n) {
    p_.q = q;
    p_.n = n;
  }
  // GPU domains whose transport sums the charge grid into a float grid of its own (GpuHaloTransport::
  // reserve_grid): the transforms read and write that one, and the spread's fixed point is not converted
  // here.
  void use_grid(PmeReal* grid) {
    p_.grid = grid;
    external_grid_ = true;
  }
  // Between the spread and the transforms, on GPU domains: the charge grid (64-bit fixed point,
  // grid_points() values) summed over the domains (GpuHaloTransport::sum_grid).
  using GridSum = std::function<void(gpu::GpuCalls&, unsigned long long*)>;
  // Spread, forward transform, solve (with energy, the sums to StepState::pme_acc, which the caller zeroes
  // before an energy step) and back transform: reads x(n) only, so it may run beside the pair kernel.
  void enqueue_mesh(gpu::GpuCalls& calls, const DeviceSystem& ds, bool energy, const GridSum& sum = {});
  // The mesh forces added to ds's non-bonded forces (sorted order): after the pair kernel and enqueue_mesh.
  void enqueue_gather(gpu::GpuCalls& calls, const DeviceSystem& ds);
  // Coul. recip. and the mesh's virial from an energy step's state (h.pme_acc), with the net-charge
  // correction, into e.
  void add_energies(const StepState& h, StepEnergies* e) const;

 private:
  bool active_ = false;
  bool external_grid_ = false;  // use_grid
  std::array<int, 3> nk_{};
  PmeMeshParams params(const DeviceSystem& ds) const;

  PmeMeshParams p_;
  double charged_energy_ = 0.0;
  double net_charge_ = 0.0;
  gpu::DeviceBuffer<double> q_, moduli_[3];
  gpu::DeviceBuffer<PmeReal> grid_;
  gpu::DeviceBuffer<unsigned long long> grid_fixed_;
  gpu::DeviceBuffer<PmeComplex> spectrum_;
  cufftHandle forward_ = 0, backward_ = 0;
  bool plans_ = false;
};

}  // namespace halomd::cuda
