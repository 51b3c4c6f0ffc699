// The domain-decomposed CPU executor: the CPU reference's physics (same pair kernel, SETTLE, leap-frog,
// v-rescale) on the domains of a domdec grid, exchanging halos through a comm::HaloTransport (all domains in
// this process with `local`, one per rank with `mpi`). Forces, energies, virial, kinetic energy and
// momentum are summed in fixed point, so the same grid gives the same bits whatever the transport.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comm/halo_transport.h"
#include "core/executor.h"
#include "cpu/bonded.h"
#include "cpu/coupling.h"
#include "cpu/dd_domain.h"
#include "cpu/dd_stats.h"
#include "cpu/lincs.h"
#include "cpu/nonbonded.h"
#include "cpu/pme.h"
#include "cpu/sd.h"
#include "domdec/grid.h"

namespace halomd {

class DdExecutor final : public Executor {
 public:
  // num_domains: how many domains (for mpi, the number of ranks); requested: the --dd grid, or all zeros
  // for domdec::choose_grid. The grid is chosen and checked in load(), which throws InputError when it
  // cannot be used (same message on every rank).
  DdExecutor(const ExecutorConfig& config, std::unique_ptr<comm::HaloTransport> transport, int num_domains,
             const domdec::DdGrid& requested);
  void load(const MdState& state) override;
  void step(const StepRequest& request, StepEnergies* energies) override;
  void save(MdState& state) override;
  void positions(std::vector<Vec3>& x) override;
  bool last_forces(std::vector<Vec3>& f) override;
  bool writes_outputs() const override { return transport_->rank() == 0; }
  std::string transport() const override { return transport_->name(); }
  size_t num_pairs() const override { return stats_.pairs(); }
  CallCounters counters() const override { return transport_->counters(); }
  std::string report_json() const override;
  void scale_coordinates(const Tensor& mu, const Box& box) override;
  void scale_positions(const Tensor& mu, const Box& box) override;

  const domdec::DdGrid& grid() const { return grid_; }
  const DdStats& stats() const { return stats_; }
  const comm::HaloTransport& halo_transport() const { return *transport_; }

 private:
  void search(int64_t step);
  void migrate();
  void exchange_x();
  void forces(const StepRequest& r, NonbondedFixedSums& sums, int64_t* listed_sums);
  void mesh_forces(const StepRequest& r, PmeEnergies& mesh);
  void reduce_ke_prev();
  void set_box(const Box& box);
  std::vector<comm::AtomState> gather_state();

  ExecutorConfig cfg_;
  const Topology& top_;
  const MdParams& mdp_;
  std::unique_ptr<comm::HaloTransport> transport_;
  int num_domains_;
  domdec::DdGrid requested_;
  domdec::DdGrid grid_;
  domdec::HaloRange range_;
  bool direct_ = false;  // HALOMD_DD_DIRECT
  Vec3 inv_len_;         // pair_inv_len of the grid
  NonbondedCpu nonbonded_;
  // coulombtype = PME: every rank computes the whole mesh part from all positions (replicated; a PME rank is
  // the plan) and keeps its home atoms' forces.
  std::unique_ptr<PmeCpu> pme_;
  std::vector<int64_t> mesh_bits_;  // 3 per atom: the bits of x, each atom's from its owner
  std::vector<Vec3> mesh_x_, mesh_f_;
  std::vector<int> first_atom_;  // of each atom's update group (domdec::update_group_first_atoms)
  LocalTopologyIndex index_;     // the listed interactions and constraints by atom
  BondedCpu bonded_;             // the listed interactions' definitions, run on each domain's share
  std::vector<Vec3> f_listed_;   // scratch: a domain's listed forces on its local atoms
  double total_mass_ = 0.0;
  std::vector<double> comm_mass_;  // several comm-grps: each group's mass
  std::vector<DdDomain> dom_;      // one per slot (transport_->domains())

  int64_t step_ = 0;
  Tensor ke_half_prev_;        // global; valid when ke_prev_valid_
  bool ke_prev_valid_ = true;  // else the domains' ke_fixed still have to be summed
  TemperatureCoupling coupling_;
  std::optional<StochasticDynamics> sd_;  // integrator = sd
  std::vector<double> group_ke_prev_;     // several tc-grps: KE(n - 1/2) per group, with ke_half_prev_
  DdStats stats_;
};

}  // namespace halomd
