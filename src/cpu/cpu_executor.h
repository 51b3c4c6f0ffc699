// The CPU reference executor: one domain, double precision, fixed-point force sums, OpenMP threads.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/executor.h"
#include "cpu/coupling.h"
#include "cpu/cpu_forces.h"
#include "cpu/lincs.h"
#include "cpu/sd.h"
#include "cpu/settle.h"

namespace halomd {

class CpuExecutor final : public Executor {
 public:
  explicit CpuExecutor(const ExecutorConfig& config);
  void load(const MdState& state) override;
  void step(const StepRequest& request, StepEnergies* energies) override;
  void save(MdState& state) override;
  void positions(std::vector<Vec3>& x) override { x = x_; }
  void scale_coordinates(const Tensor& mu, const Box& box) override;
  void scale_positions(const Tensor& mu, const Box& box) override;
  bool last_forces(std::vector<Vec3>& f) override {
    f = f_;  // the step's forces at x(step), as the update used them
    return true;
  }
  size_t num_pairs() const override { return forces_.num_pairs(); }

 private:
  ExecutorConfig cfg_;
  const Topology& top_;
  const MdParams& mdp_;
  SettleCpu settle_;
  LincsCpu lincs_;
  CpuForces forces_;
  TemperatureCoupling coupling_;
  std::optional<StochasticDynamics> sd_;  // integrator = sd
  std::vector<double> inv_mass_;
  int64_t step_ = 0;
  std::vector<Vec3> x_, v_, f_, x_new_;
  Tensor ke_half_prev_;
  std::vector<double> group_ke_prev_;  // several tc-grps: each group's last half-step kinetic energy
};

// The v-rescale scaling factor of a coupling step from the half-step kinetic energy ek (kJ/mol); adds the
// energy taken out to *integral. Shared by the executors so that they draw the same random numbers.
double vrescale_lambda(double ek, double ref_kinetic, double ndf, const MdParams& mdp, uint64_t seed,
                       int64_t step, double* integral);
// The same for one of several groups with its own tau-t; group 0 draws the single-group numbers, the others
// numbers of their own stream.
double vrescale_lambda(double ek, double ref_kinetic, double ndf, double tau_t, const MdParams& mdp,
                       uint64_t seed, int group, int64_t step, double* integral);

// The blow-up check after the constraints: throws RuntimeError naming the step and atom when an atom moved
// further than 0.1 nm or its constraints could not be solved (settle_failed >= 0: a water, or a LINCS
// constraint that turned further than lincs-warnangle). With global_index, the
// arrays are a domain's home atoms and the atom is named by its global index.
void check_blow_up(int64_t step, int settle_failed, const std::vector<Vec3>& x_old,
                   const std::vector<Vec3>& x_new, std::span<const int> global_index = {});

}  // namespace halomd
