// The domain-decomposed CUDA executor (`mpirun -n N halomd run --backend cuda --transport T`): one domain
// per MPI rank, each on a GPU (several ranks may share one under MPS), the step of the single-GPU executor
// on the domain's local atoms (home atoms first, then the halo), with the halo exchanged by a GPU transport
// (comm/gpu/gpu_halo.h: mpi_staged, cuda_ipc, nvshmem, nvshmem_put). Between searches the host only enqueues
// work; with a device-initiated transport a regular step, halo exchange and reductions included, is one CUDA
// graph launch. At a search the host gathers the home atoms, migrates them and builds the plan through the
// transport's host side (the CPU decomposition's code), and uploads the domain for the GPU pair search.
// docs/ARCHITECTURE.md ("Domain decomposition on GPUs") has the design.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/executor.h"
#include "domdec/grid.h"

namespace halomd {

namespace comm {
class GpuHaloTransport;
}

class CudaDdExecutor final : public Executor {
 public:
  // requested: the --dd grid, or all zeros to choose one (one domain per rank). The transport has chosen
  // this process's CUDA device.
  CudaDdExecutor(const ExecutorConfig& config, std::unique_ptr<comm::GpuHaloTransport> transport,
                 const domdec::DdGrid& requested);
  ~CudaDdExecutor() override;
  void load(const MdState& state) override;
  void step(const StepRequest& request, StepEnergies* energies) override;
  void save(MdState& state) override;
  void positions(std::vector<Vec3>& x) override;
  // Pressure coupling (C-rescale: x and v; Parrinello-Rahman: x): the domains repartition in the new box
  // at once (Impl::scale).
  void scale_coordinates(const Tensor& mu, const Box& box) override;
  void scale_positions(const Tensor& mu, const Box& box) override;
  void frame(std::vector<Vec3>& x, std::vector<Vec3>& v) override;
  bool writes_outputs() const override;
  std::string transport() const override;
  size_t num_pairs() const override;
  CallCounters counters() const override;
  std::string report_json() const override;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace halomd
