// The device-resident CUDA executor (`--backend cuda`): x, v and f stay on one GPU for the whole run and the
// host only enqueues work. A regular step is one CUDA graph launch (the non-bonded and update kernels,
// recorded once); NS steps add the pair search and energy steps copy a small state block back. The host
// waits for the device only on energy steps, frames and checkpoints. docs/ARCHITECTURE.md has the design.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/executor.h"

namespace halomd {

class CudaExecutor final : public Executor {
 public:
  // Throws RuntimeError when no CUDA device can be used.
  explicit CudaExecutor(const ExecutorConfig& config);
  ~CudaExecutor() override;
  void load(const MdState& state) override;
  void step(const StepRequest& request, StepEnergies* energies) override;
  void save(MdState& state) override;
  void positions(std::vector<Vec3>& x) override;
  // Pressure coupling (C-rescale, Parrinello-Rahman): the atoms scaled on the device, the box's lengths
  // into the kernels' parameters (the step graphs are recorded again at their next launch).
  void scale_coordinates(const Tensor& mu, const Box& box) override;
  void scale_positions(const Tensor& mu, const Box& box) override;
  size_t num_pairs() const override;
  CallCounters counters() const override;
  std::string report_json() const override;

  // The forces (pairs, exclusion corrections, PME's mesh, listed interactions, virtual sites' forces spread
  // onto their atoms, the sites' own zero) at the positions the last step started from,
  // kJ/mol/nm, in the topology's atom order (tests, and traj.trr's nstfout).
  void forces(std::vector<Vec3>& f);
  bool last_forces(std::vector<Vec3>& f) override {
    forces(f);
    return true;
  }

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace halomd
