// What the MD loop (src/engine) asks of a backend: load the state, advance it one step at a time, report
// energies on the steps that want them, and hand the state back for checkpoints, frames and confout.gro.
// The CPU reference (src/cpu), the domain-decomposed CPU executor and the CUDA executor implement it; the
// loop, the outputs and the checkpoints are the same for all of them.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/bonded_terms.h"
#include "core/box.h"
#include "core/md_params.h"
#include "core/phase_timers.h"
#include "core/topology.h"
#include "core/vec3.h"

namespace halomd {

// The dynamic state at the start of step `step`, as global arrays in the topology's atom order.
struct MdState {
  int64_t step = 0;
  std::vector<Vec3> x;                      // x(step), unwrapped, molecules whole
  std::vector<Vec3> v;                      // v(step - dt/2)
  Tensor ke_half_prev;                      // 1/2 sum m v(step - dt/2) (x) v(step - dt/2)
  std::vector<double> ke_half_prev_groups;  // its trace per tc-grps group (empty: one group)
  double thermostat_integral = 0.0;
  // tcoupl = Nose-Hoover: each group's xi and its rate vxi (GROMACS's nosehoover_xi, _vxi; empty otherwise).
  std::vector<double> nh_xi, nh_vxi;
};

// What one step must do besides advancing x and v.
struct StepRequest {
  int64_t step = 0;
  bool ns = false;       // rebuild the pair lists (and the domain decomposition)
  bool energy = false;   // compute energies and virial
  bool tcouple = false;  // a temperature-coupling step (v-rescale or Nose-Hoover)
  bool comm = false;     // remove the centre-of-mass velocity after the update
  // Parrinello-Rahman coupling step: the update takes - pr_scale[d] v[d] off each velocity (GROMACS's
  // nstpcouple dt M v, M diagonal for a rectangular box).
  bool pr = false;
  Vec3 pr_scale{};
};

// Energies of one step, summed over all atoms (and domains), before the dispersion correction.
struct StepEnergies {
  double lj = 0.0;       // LJ (SR)
  double coulomb = 0.0;  // Coulomb (SR) with the reaction-field or Ewald exclusion correction and self term
  double coulomb_recip = 0.0;  // Coul. recip. (PME's mesh part), with its virial in `virial`
  BondedTermValues bonded{};   // the listed interactions' terms (bonds, angles, ..., LJ-14, Coulomb-14)
  Tensor virial;               // -1/2 sum r (x) F: pairs, listed interactions and constraints
  Tensor kinetic;              // average of the half-step kinetic energy tensors around the step
  std::vector<double> group_kinetic;  // the same (traces) per tc-grps group, with several groups
  double thermostat_integral = 0.0;   // after this step's coupling
};

// Calls counted by the code (../shared/BENCH.md), cumulative since the executor was made.
struct CallCounters {
  int64_t host_syncs = 0;
  int64_t mpi_waits = 0;
  int64_t launches = 0;
  int64_t halo_bytes = 0;
};

// The most comm-grps whose centre-of-mass motion the GPU executors remove separately (cuda/device_data.h).
inline constexpr int kGpuMaxCommGroups = 4;

// What every executor is built from.
struct ExecutorConfig {
  const Topology* top = nullptr;
  const MdParams* mdp = nullptr;
  Box box;
  Box grid_box;      // the box PME's grid is chosen from (the input's; zero: box), kept when the box changes
  double ndf = 0.0;  // degrees of freedom, for the v-rescale reference kinetic energy
  // Several tc-grps (CPU reference): each atom's group and each group's degrees of freedom.
  const std::vector<int>* tc_group = nullptr;
  std::vector<double> tc_ndf;
  // comm-grps other than the whole system: each atom's group, -1 where none; their count (the GPUs take at
  // most kGpuMaxCommGroups).
  const std::vector<int>* comm_group = nullptr;
  int comm_groups = 0;
  uint64_t ld_seed = 0;  // v-rescale random stream
  int threads = 1;       // CPU threads
  PhaseTimers* timers = nullptr;
  // The box PME's grid is chosen from.
  const Box& pme_grid_box() const { return grid_box.volume() > 0 ? grid_box : box; }
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Takes the state at the start of state.step.
  virtual void load(const MdState& state) = 0;
  // Advances from request.step to request.step + 1: forces, coupling, update, constraints, COM removal.
  // Fills `energies` when request.energy. Throws RuntimeError naming the step and atom on a blow-up.
  virtual void step(const StepRequest& request, StepEnergies* energies) = 0;
  // The whole state at the start of the next step (on the rank that writes outputs; others may leave
  // it empty).
  virtual void save(MdState& state) = 0;
  // x at the start of the next step only (frames), on the rank that writes outputs.
  virtual void positions(std::vector<Vec3>& x) = 0;
  // x and v (as save() gives them) for a trajectory frame, on the rank that writes outputs; unlike save(), it
  // leaves the run's schedule as it is (GPU domains repartition after a save, not after a frame).
  virtual void frame(std::vector<Vec3>& x, std::vector<Vec3>& v) {
    MdState s;
    save(s);
    x = std::move(s.x);
    v = std::move(s.v);
  }
  // Pressure coupling after a step: x(step + 1) scaled by mu (diagonal) atom by atom, v(step + 1/2) by 1/mu,
  // and the new box. Only executors that run pressure coupling implement it (the factory refuses the rest).
  virtual void scale_coordinates(const Tensor& mu, const Box& box) {
    (void)mu;
    (void)box;
    throw std::logic_error("this executor has no pressure coupling");
  }
  // Parrinello-Rahman or Berendsen after a coupling step: x(step + 1) scaled by mu (diagonal), v unchanged,
  // the new box.
  virtual void scale_positions(const Tensor& mu, const Box& box) {
    (void)mu;
    (void)box;
    throw std::logic_error("this executor has no pressure coupling");
  }
  // The forces at x(step) of the last step run (kJ/mol/nm, global atom order) on the rank that writes
  // outputs (nstfout); collective where the executor has several processes. False where the executor
  // cannot give them (the factory refuses nstfout there).
  virtual bool last_forces(std::vector<Vec3>& f) {
    (void)f;
    return false;
  }
  // True on the rank (process) that writes the output files.
  virtual bool writes_outputs() const { return true; }
  virtual std::string transport() const { return "none"; }
  virtual size_t num_pairs() const = 0;
  virtual CallCounters counters() const { return {}; }
  // Extra top-level members for run.json (already formatted as `"key": value` lines joined by ",\n  "),
  // e.g. the domain grid; empty when there are none.
  virtual std::string report_json() const { return {}; }
};

}  // namespace halomd
