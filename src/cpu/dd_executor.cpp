// The domain-decomposed CPU executor (dd_executor.h): a step is the CPU reference's step on each domain's
// home atoms, with the halo exchanged through the transport around the non-bonded forces.
#include "cpu/dd_executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>

#include "comm/plan_build.h"
#include "core/env.h"
#include "core/errors.h"
#include "core/units.h"
#include "cpu/cpu_executor.h"
#include "cpu/electric_field.h"
#include "cpu/fixed_point.h"
#include "cpu/listed_term.h"
#include "cpu/update.h"
#include "cpu/vsite.h"
#include "domdec/assignment.h"
#include "domdec/halo_plan.h"

namespace halomd {
namespace {

using Clock = std::chrono::steady_clock;

void add_fixed(int64_t* acc, const Tensor& t) {
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      acc[3 * a + b] = wrap_add(acc[3 * a + b], to_fixed(t.m[a][b], kEnergyFixedScale));
}

Tensor tensor_from_fixed(const int64_t* acc) {
  Tensor t;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) t.m[a][b] = from_fixed(acc[3 * a + b], kEnergyFixedScale);
  return t;
}

// The step's reduction over all domains, one integer array: kinetic energy, momentum, LJ, Coulomb, pair
// virial, constraint virial, the listed interactions' terms and virial.
enum Reduced {
  kKe = 0,
  kMomentum = 9,
  kLj = 12,
  kCoul = 13,
  kVir = 14,
  kConstr = 20,
  kListed = 29,
  kListedVir = kListed + kNumBondedTerms,
  kVsiteVir = kListedVir + 9,
  kReducedSize = kVsiteVir + 9
};

}  // namespace

DdExecutor::DdExecutor(const ExecutorConfig& config, std::unique_ptr<comm::HaloTransport> transport,
                       int num_domains, const domdec::DdGrid& requested)
    : cfg_(config),
      top_(*config.top),
      mdp_(*config.mdp),
      transport_(std::move(transport)),
      num_domains_(num_domains),
      requested_(requested),
      nonbonded_(top_, mdp_, config.threads),
      bonded_(top_, mdp_.epsilon_r),
      coupling_(config) {
  if (mdp_.integrator == Integrator::Sd)
    sd_.emplace(mdp_, std::max<int>(1, static_cast<int>(cfg_.tc_ndf.size())), cfg_.ld_seed);
  // Update groups, not whole molecules: a protein's halo margin is then a CH3 group's, not its extent.
  first_atom_ =
      domdec::update_group_first_atoms(top_.num_atoms(), top_.settles, top_.constraints, top_.vsites);
  index_ = make_local_topology_index(top_, first_atom_);
  for (double m : top_.mass) total_mass_ += m;  // the order remove_com_velocity sums in
  if (cfg_.comm_group) {                        // each comm-grps group's mass, the same order
    comm_mass_.assign(cfg_.comm_groups, 0.0);
    for (int a = 0; a < top_.num_atoms(); ++a)
      if ((*cfg_.comm_group)[a] >= 0) comm_mass_[(*cfg_.comm_group)[a]] += top_.mass[a];
  }
  // HALOMD_DD_DIRECT=1: direct halo pulses where every decomposed dimension needs one pulse
  // (domdec/halo_plan.h): the same local atoms, so the same trajectory bits, in fewer hops.
  direct_ = env_int("HALOMD_DD_DIRECT", 0) != 0;
  if (mdp_.coulombtype == CoulombType::Pme) {
    // The grid from the input's box (kept while pressure coupling changes the box), as one domain's.
    pme_ = std::make_unique<PmeCpu>(mdp_, cfg_.pme_grid_box(), top_.charge, config.threads);
    pme_->set_box(cfg_.box);
    mesh_bits_.resize(3 * static_cast<size_t>(top_.num_atoms()));
    mesh_x_.resize(top_.num_atoms());
    mesh_f_.resize(top_.num_atoms());
  }
}

void DdExecutor::load(const MdState& s) {
  const Box& box = cfg_.box;
  if (static_cast<int>(s.x.size()) != top_.num_atoms() || s.v.size() != s.x.size())
    throw RuntimeError(s.step, -1, "the state to load has not one position and velocity per atom");
  const std::vector<Vec3>& x0 = s.x;
  // The plans' exchanges are collective: direct pulses on every rank if any asks (HALOMD_DD_DIRECT).
  double direct[1] = {direct_ ? 1.0 : 0.0};
  transport_->max(direct);
  direct_ = direct[0] != 0.0;
  range_ = {mdp_.rlist, domdec::molecule_margin(x0, first_atom_) + domdec::kMarginSlack};
  if (requested_.n.x > 0) {
    domdec::validate_grid(requested_, num_domains_, box, range_);
    grid_ = requested_;
  } else {
    grid_ = domdec::choose_grid(num_domains_, box, range_);
  }
  transport_->set_grid(grid_);
  inv_len_ = pair_inv_len(box, grid_);
  index_.far = far_image_distance(grid_, box);

  const domdec::HomeAssignment owner = domdec::assign_home(grid_, box, x0, first_atom_);
  const std::vector<int>& mine = transport_->domains();
  dom_ = std::vector<DdDomain>(mine.size());
  for (size_t k = 0; k < mine.size(); ++k) {
    dom_[k].index = mine[k];
    std::vector<comm::AtomState> atoms;
    atoms.reserve(owner.home[mine[k]].size());
    for (int g : owner.home[mine[k]]) atoms.push_back({g, mine[k], x0[g], s.v[g]});
    set_home(dom_[k], top_, std::move(atoms));
  }
  step_ = s.step;
  ke_half_prev_ = s.ke_half_prev;
  ke_prev_valid_ = true;
  coupling_.load(s);
  const int groups = coupling_.groups();
  if (groups > 0)
    group_ke_prev_ = s.ke_half_prev_groups.size() == static_cast<size_t>(groups)
                         ? s.ke_half_prev_groups
                         : kinetic_energy_by_group(s.v, top_.mass, *cfg_.tc_group, groups);
}

void DdExecutor::migrate() {
  const size_t ns = dom_.size();
  std::vector<std::vector<comm::AtomState>> leaving(ns), arriving(ns);
  for (size_t k = 0; k < ns; ++k) {
    leaving[k] = take_departures(dom_[k], grid_, cfg_.box, first_atom_);
    dom_[k].departed = static_cast<int64_t>(leaving[k].size());
  }
  transport_->migrate(leaving, arriving);
  for (size_t k = 0; k < ns; ++k) add_arrivals(dom_[k], top_, std::move(arriving[k]));
}

void DdExecutor::search(int64_t step) {
  const Box& box = cfg_.box;
  migrate();
  double margin = 0.0;
  for (const DdDomain& d : dom_) margin = std::max(margin, home_margin(d, first_atom_));
  transport_->max({&margin, 1});
  range_ = {mdp_.rlist, margin + domdec::kMarginSlack};
  try {
    domdec::validate_grid(grid_, grid_.num_domains(), box, range_);
  } catch (const InputError& e) {
    throw RuntimeError(step, -1, e.what());
  }

  const size_t ns = dom_.size();
  if (coupling_.groups() > 0)
    for (DdDomain& d : dom_) {
      d.tc_group.resize(d.home.size());
      for (size_t i = 0; i < d.home.size(); ++i) d.tc_group[i] = (*cfg_.tc_group)[d.home[i]];
    }
  if (cfg_.comm_group)
    for (DdDomain& d : dom_) {
      d.comm_group.resize(d.home.size());
      for (size_t i = 0; i < d.home.size(); ++i) d.comm_group[i] = (*cfg_.comm_group)[d.home[i]];
    }
  std::vector<std::vector<Vec3>> frames(ns);
  std::vector<comm::HomeAtoms> home(ns);
  for (size_t k = 0; k < ns; ++k) {
    frames[k] = place_home_atoms(dom_[k], box, first_atom_);
    home[k] = {dom_[k].home, dom_[k].image, frames[k]};
  }
  std::vector<domdec::DomainPlan> plans;
  std::vector<std::vector<Vec3>> x_local;
  comm::build_plans(*transport_, grid_, box, range_, home, plans, x_local, nullptr, cfg_.threads, direct_);

  std::vector<const domdec::DomainPlan*> bound(ns);
  std::vector<int64_t> figures;
  for (size_t k = 0; k < ns; ++k) {
    DdDomain& d = dom_[k];
    d.plan = std::move(plans[k]);
    d.x_local = std::move(x_local[k]);
    build_local_topology(d, top_, cfg_.threads, &index_);
    d.lincs.reset();
    if (!d.constraints.empty()) {
      Topology home;  // LincsCpu reads constraints and masses: the home groups' in home-array indices
      home.mass = d.mass;
      home.constraints = d.constraints;
      if (!top_.frozen.empty())
        for (int g : d.home) home.frozen.push_back(top_.frozen[g]);
      d.lincs.emplace(home, mdp_.lincs_order, mdp_.lincs_iter, mdp_.lincs_warnangle);
    }
    PairSearchAtoms atoms;
    atoms.x = d.x_local;
    atoms.box = box;
    atoms.inv_len = inv_len_;
    atoms.global = d.plan.global;
    atoms.zone = d.plan.zone;
    build_pair_list(atoms, mdp_.rlist, top_, cfg_.threads, d.list);
    bound[k] = &d.plan;

    int64_t bytes = 0;  // per MD step: coordinates forward, forces back
    for (const domdec::Pulse& p : d.plan.pulses)
      bytes += static_cast<int64_t>(p.send.size() * sizeof(Vec3) + p.recv_count * sizeof(FixedVec3));
    const int64_t f[kNumDdFields] = {d.plan.num_home, d.plan.num_local() - d.plan.num_home,
                                     static_cast<int64_t>(d.list.num_pairs()), d.departed, bytes};
    figures.insert(figures.end(), f, f + kNumDdFields);
  }
  std::vector<const DdDomain*> mine;
  for (const DdDomain& d : dom_) mine.push_back(&d);
  check_local_topology(mine, top_, *transport_, step, mdp_.rlist, range_.margin);
  transport_->allocate(bound);
  std::vector<int64_t> all;
  transport_->all_gather(figures, all);
  stats_.add_search(all, domdec::pulses_per_dim(grid_, box, range_),
                    dom_.empty() ? 0 : static_cast<int>(dom_[0].plan.pulses.size()));
}

void DdExecutor::exchange_x() {
  const auto t0 = Clock::now();
  std::vector<Vec3*> x(dom_.size());
  for (size_t k = 0; k < dom_.size(); ++k) {
    DdDomain& d = dom_[k];
    for (size_t i = 0; i < d.home.size(); ++i) d.x_local[i] = domdec::shifted(d.x[i], d.image[i], cfg_.box);
    x[k] = d.x_local.data();
  }
  const int np = static_cast<int>(dom_[0].plan.pulses.size());
  for (int k = 0; k < np; ++k) {
    transport_->post_x(k, x);
    transport_->wait_x(k, x);
  }
  stats_.add_exchange_seconds(std::chrono::duration<double>(Clock::now() - t0).count());
}

void DdExecutor::forces(const StepRequest& r, NonbondedFixedSums& total, int64_t* listed) {
  total = NonbondedFixedSums{};
  std::vector<FixedVec3*> f(dom_.size());
  for (size_t k = 0; k < dom_.size(); ++k) {
    DdDomain& d = dom_[k];
    NonbondedFixedSums s;
    nonbonded_.compute_fixed(d.list, local_atoms(d, cfg_.box, inv_len_), r.energy, r.step, d.f_local, s);
    total.lj = wrap_add(total.lj, s.lj);
    total.coul = wrap_add(total.coul, s.coul);
    for (int c = 0; c < 6; ++c) total.vir[c] = wrap_add(total.vir[c], s.vir[c]);
    if (!d.listed.empty()) {
      // The domain's listed interactions on its local atoms, added to the pair forces in fixed point, so
      // that the force halo returns the halo atoms' share.
      f_listed_.assign(d.x_local.size(), Vec3{});
      BondedEnergies be;
      bonded_.compute_terms(d.listed, d.x_local, cfg_.box, f_listed_, r.energy ? &be : nullptr);
      for (size_t i = 0; i < f_listed_.size(); ++i)
        for (int c = 0; c < 3; ++c)
          d.f_local[i][c] = wrap_add(d.f_local[i][c], to_fixed(f_listed_[i][c], kForceFixedScale));
      if (r.energy) {
        for (int t = 0; t < kNumBondedTerms; ++t)
          listed[t] = wrap_add(listed[t], to_fixed(be.term[t], kEnergyFixedScale));
        add_fixed(listed + kNumBondedTerms, be.virial);
      }
    }
    f[k] = d.f_local.data();
  }
  const auto t0 = Clock::now();
  for (int k = static_cast<int>(dom_[0].plan.pulses.size()) - 1; k >= 0; --k) {
    transport_->post_f(k, f);
    transport_->wait_f(k, f);
  }
  stats_.add_exchange_seconds(std::chrono::duration<double>(Clock::now() - t0).count());
  for (DdDomain& d : dom_) {
    for (size_t i = 0; i < d.home.size(); ++i)
      for (int c = 0; c < 3; ++c) d.f[i][c] = from_fixed(d.f_local[i][c], kForceFixedScale);
  }
}

void DdExecutor::mesh_forces(const StepRequest& r, PmeEnergies& mesh) {
  // All positions on every rank: each atom's bits from its owner, zeros from every other rank, so the
  // integer sum over ranks is the owner's bits exactly.
  std::fill(mesh_bits_.begin(), mesh_bits_.end(), 0);
  for (const DdDomain& d : dom_)
    for (size_t i = 0; i < d.home.size(); ++i)
      for (int c = 0; c < 3; ++c)
        mesh_bits_[3 * static_cast<size_t>(d.home[i]) + c] = std::bit_cast<int64_t>(d.x[i][c]);
  transport_->sum(mesh_bits_);
  for (size_t a = 0; a < mesh_x_.size(); ++a)
    for (int c = 0; c < 3; ++c) mesh_x_[a][c] = std::bit_cast<double>(mesh_bits_[3 * a + c]);
  std::fill(mesh_f_.begin(), mesh_f_.end(), Vec3{});
  pme_->compute(mesh_x_, r.energy, mesh_f_, mesh, r.step);
  // The same numbers as the single-domain executor adds (f + (0 - a) is f - a), in the global atom order.
  for (DdDomain& d : dom_)
    for (size_t i = 0; i < d.home.size(); ++i) d.f[i] += mesh_f_[d.home[i]];
}

void DdExecutor::reduce_ke_prev() {
  if (ke_prev_valid_) return;
  const int groups = coupling_.groups();
  std::vector<int64_t> ke(9 + groups, 0);
  for (const DdDomain& d : dom_) {
    for (int c = 0; c < 9; ++c) ke[c] = wrap_add(ke[c], d.ke_fixed[c]);
    for (int g = 0; g < groups; ++g) ke[9 + g] = wrap_add(ke[9 + g], d.group_ke_fixed[g]);
  }
  transport_->sum(ke);
  ke_half_prev_ = tensor_from_fixed(ke.data());
  for (int g = 0; g < groups; ++g) group_ke_prev_[g] = from_fixed(ke[9 + g], kEnergyFixedScale);
  ke_prev_valid_ = true;
}

void DdExecutor::step(const StepRequest& r, StepEnergies* e) {
  PhaseTimers& timers = *cfg_.timers;
  const int threads = cfg_.threads;
  if (r.ns) {
    timers.start(Phase::NeighbourSearch);
    search(r.step);
    timers.stop();
  }
  timers.start(Phase::Nonbonded);
  if (!r.ns) exchange_x();  // a search leaves the halo coordinates in place
  NonbondedFixedSums nb;
  const int groups = coupling_.groups();
  // Several tc-grps: each group's KE at the end; several comm-grps: then each group's momentum.
  const int cgroups = cfg_.comm_group ? cfg_.comm_groups : 0;
  const int kGroupMomentum = kReducedSize + groups;
  std::vector<int64_t> red(kGroupMomentum + 3 * cgroups, 0);
  forces(r, nb, red.data() + kListed);
  timers.stop();
  PmeEnergies mesh;
  if (pme_) {
    timers.start(Phase::PmeMesh);
    mesh_forces(r, mesh);
    timers.stop();
  }

  // The applied electric field on the home atoms, then virtual sites' forces (pairs, listed, mesh, the halo's
  // share and the field included) onto their constructing atoms.
  for (DdDomain& d : dom_)
    add_electric_field_forces(mdp_, mdp_.tinit + static_cast<double>(r.step) * mdp_.dt, top_.charge, d.home,
                              d.f);
  for (DdDomain& d : dom_) {
    if (d.vsites.empty()) continue;
    Tensor vir;
    spread_vsite_forces(d.vsites, d.x, d.f, cfg_.box, e ? &vir : nullptr);
    if (e) add_fixed(red.data() + kVsiteVir, vir);
  }

  timers.start(Phase::Update);
  if (r.tcouple || e) reduce_ke_prev();
  coupling_.couple(r, ke_half_prev_.trace(), group_ke_prev_);
  // The whole system's constraints decide SD's form (one pass or two), the same on every domain.
  const bool constrained = !top_.settles.empty() || !top_.constraints.empty();
  for (DdDomain& d : dom_) {
    const std::vector<int>* group = coupling_.groups() > 0 ? &d.tc_group : nullptr;
    if (sd_ && !constrained)
      sd_->combined(r.step, d.x, d.v, d.f, d.inv_mass, group, d.home, mdp_.dt, d.x_new, threads);
    else
      coupling_.update(r, d.x, d.v, d.f, d.inv_mass, group, mdp_.dt, d.x_new, threads);
    keep_frozen_dimensions(top_.frozen, d.home, d.x, d.v, d.x_new);
  }
  timers.stop();

  timers.start(Phase::Constraints);
  for (DdDomain& d : dom_) {
    Tensor vir;
    // LINCS, then SETTLE, as the single-domain executor (each on the home groups: none is split).
    const int lincs_failed =
        d.lincs ? d.lincs->apply(d.x, d.x_new, &d.v, mdp_.dt, e ? &vir : nullptr, cfg_.box) : -1;
    const int settle_failed = d.settle->apply(d.x, d.x_new, &d.v, mdp_.dt, e ? &vir : nullptr, threads);
    check_blow_up(r.step, lincs_failed >= 0 ? lincs_failed : settle_failed, d.x, d.x_new, d.home);
    if (sd_ && constrained) {  // SD's second half, as one domain's
      sd_->friction_and_noise(r.step, d.v, d.inv_mass, coupling_.groups() > 0 ? &d.tc_group : nullptr, d.home,
                              mdp_.dt, d.x_new, threads);
      keep_frozen_dimensions(top_.frozen, d.home, d.x, d.v, d.x_new);
      const int l2 = d.lincs ? d.lincs->apply(d.x, d.x_new, &d.v, 0.5 * mdp_.dt, nullptr, cfg_.box) : -1;
      const int s2 = d.settle->apply(d.x, d.x_new, &d.v, 0.5 * mdp_.dt, nullptr, threads);
      check_blow_up(r.step, l2 >= 0 ? l2 : s2, d.x, d.x_new, d.home);
    }
    construct_vsites(d.vsites, d.x_new, cfg_.box, &d.x, &d.v, mdp_.dt);
    if (e) add_fixed(red.data() + kConstr, vir);
  }
  timers.stop();

  timers.start(Phase::Energies);
  // KE(n + 1/2) before the centre-of-mass removal, as the single-domain executor; summed over domains
  // only when this step needs it (else lazily, by reduce_ke_prev).
  for (DdDomain& d : dom_) {
    const Tensor ke = kinetic_energy_tensor(d.v, d.mass, threads);
    for (int c = 0; c < 9; ++c) d.ke_fixed[c] = 0;
    add_fixed(d.ke_fixed, ke);
    if (groups > 0) d.group_ke_fixed = kinetic_energy_by_group_fixed(d.v, d.mass, d.tc_group, groups);
  }
  ke_prev_valid_ = false;
  if (e || r.comm) {
    for (const DdDomain& d : dom_) {
      for (int c = 0; c < 9; ++c) red[kKe + c] = wrap_add(red[kKe + c], d.ke_fixed[c]);
      for (int g = 0; g < groups; ++g)
        red[kReducedSize + g] = wrap_add(red[kReducedSize + g], d.group_ke_fixed[g]);
      if (!r.comm) continue;
      for (size_t i = 0; i < d.v.size(); ++i) {
        const int slot =
            cgroups > 0 ? (d.comm_group[i] < 0 ? -1 : kGroupMomentum + 3 * d.comm_group[i]) : kMomentum;
        if (slot < 0) continue;
        for (int c = 0; c < 3; ++c)
          red[slot + c] = wrap_add(red[slot + c], to_fixed(d.v[i][c] * d.mass[i], kMomentumFixedScale));
      }
    }
    red[kLj] = nb.lj;
    red[kCoul] = nb.coul;
    for (int c = 0; c < 6; ++c) red[kVir + c] = nb.vir[c];
    transport_->sum(red);
    const Tensor ke_half = tensor_from_fixed(red.data() + kKe);
    if (r.comm && cgroups > 0) {
      std::vector<Vec3> vcm(cgroups);
      for (int g = 0; g < cgroups; ++g)
        for (int c = 0; c < 3; ++c)
          vcm[g][c] = comm_mass_[g] > 0.0 ? from_fixed(red[kGroupMomentum + 3 * g + c], kMomentumFixedScale) *
                                                (1.0 / comm_mass_[g])
                                          : 0.0;
      for (DdDomain& d : dom_)
        for (size_t i = 0; i < d.v.size(); ++i)
          if (d.comm_group[i] >= 0 && d.mass[i] > 0.0) d.v[i] -= vcm[d.comm_group[i]];
    } else if (r.comm && total_mass_ > 0.0) {
      Vec3 vcm;
      for (int c = 0; c < 3; ++c)
        vcm[c] = from_fixed(red[kMomentum + c], kMomentumFixedScale) * (1.0 / total_mass_);
      for (DdDomain& d : dom_)
        for (size_t i = 0; i < d.v.size(); ++i)
          if (d.mass[i] > 0.0) d.v[i] -= vcm;
    }
    if (r.comm)  // none along frozen dimensions, as GROMACS
      for (DdDomain& d : dom_) zero_frozen_velocities(top_.frozen, d.home, d.v);
    if (e) {
      NonbondedFixedSums sums;
      sums.lj = red[kLj];
      sums.coul = red[kCoul];
      for (int c = 0; c < 6; ++c) sums.vir[c] = red[kVir + c];
      const NonbondedEnergies nbe = to_energies(sums, nonbonded_.self_energy());  // self term once
      e->lj = nbe.lj;
      e->coulomb = nbe.coulomb;
      e->coulomb_recip = mesh.energy;  // every rank computed the whole mesh part: not summed
      e->virial = nbe.virial;
      e->virial += mesh.virial;
      e->virial += tensor_from_fixed(red.data() + kConstr);
      for (int t = 0; t < kNumBondedTerms; ++t)
        e->bonded[t] = from_fixed(red[kListed + t], kEnergyFixedScale);
      e->virial += tensor_from_fixed(red.data() + kListedVir);
      e->virial += tensor_from_fixed(red.data() + kVsiteVir);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) e->kinetic.m[a][b] = 0.5 * (ke_half_prev_.m[a][b] + ke_half.m[a][b]);
      e->thermostat_integral = coupling_.integral();
      e->group_kinetic.clear();
      for (int g = 0; g < groups; ++g)
        e->group_kinetic.push_back(
            0.5 * (group_ke_prev_[g] + from_fixed(red[kReducedSize + g], kEnergyFixedScale)));
    }
    ke_half_prev_ = ke_half;
    for (int g = 0; g < groups; ++g) group_ke_prev_[g] = from_fixed(red[kReducedSize + g], kEnergyFixedScale);
    ke_prev_valid_ = true;
  }
  timers.stop();

  for (DdDomain& d : dom_) d.x.swap(d.x_new);
  step_ = r.step + 1;
}

std::vector<comm::AtomState> DdExecutor::gather_state() {
  std::vector<comm::AtomState> mine, all;
  for (const DdDomain& d : dom_)
    for (size_t i = 0; i < d.home.size(); ++i) mine.push_back({d.home[i], d.index, d.x[i], d.v[i]});
  transport_->gather(mine, all);
  if (!writes_outputs()) return all;
  const int n = top_.num_atoms();
  std::vector<char> seen(n, 0);
  for (const comm::AtomState& a : all) {
    if (a.global < 0 || a.global >= n || seen[a.global])
      throw RuntimeError(step_, a.global, "an atom is home in two domains");
    seen[a.global] = 1;
  }
  if (static_cast<int>(all.size()) != n)
    throw RuntimeError(step_, -1,
                       "the domains hold " + std::to_string(all.size()) + " atoms, not " + std::to_string(n));
  return all;
}

void DdExecutor::save(MdState& s) {
  reduce_ke_prev();
  const std::vector<comm::AtomState> all = gather_state();
  s.step = step_;
  s.ke_half_prev = ke_half_prev_;
  s.ke_half_prev_groups = group_ke_prev_;
  coupling_.save(s);
  s.x.assign(all.empty() ? 0 : top_.num_atoms(), Vec3{});
  s.v.assign(s.x.size(), Vec3{});
  for (const comm::AtomState& a : all) {
    s.x[a.global] = a.x;
    s.v[a.global] = a.v;
  }
}

void DdExecutor::positions(std::vector<Vec3>& x) {
  const std::vector<comm::AtomState> all = gather_state();
  x.assign(all.empty() ? 0 : top_.num_atoms(), Vec3{});
  for (const comm::AtomState& a : all) x[a.global] = a.x;
}

bool DdExecutor::last_forces(std::vector<Vec3>& f) {
  // The home atoms' forces (after the force halo) gathered as atom states with the force in place of x.
  std::vector<comm::AtomState> mine, all;
  for (const DdDomain& d : dom_)
    for (size_t i = 0; i < d.home.size(); ++i) mine.push_back({d.home[i], d.index, d.f[i], {}});
  transport_->gather(mine, all);
  if (!all.empty() && static_cast<int>(all.size()) != top_.num_atoms())
    throw RuntimeError(
        step_, -1,
        "the domains hold " + std::to_string(all.size()) + " atoms, not " + std::to_string(top_.num_atoms()));
  f.assign(all.empty() ? 0 : top_.num_atoms(), Vec3{});
  for (const comm::AtomState& a : all) f[a.global] = a.x;
  return true;
}

// Pressure coupling between searches: the home atoms scale in the global frame, as one domain's; the
// halo's periodic shifts follow the box (the transports read them from the plans at each exchange), so the
// next exchange gives the halo atoms the same images in the new box. The pair lists keep their pairs, as one
// domain's does; the next search migrates and re-plans in the new box.
void DdExecutor::scale_positions(const Tensor& mu, const Box& box) {
  for (DdDomain& d : dom_)
    for (Vec3& x : d.x)
      for (int c = 0; c < 3; ++c) x[c] *= mu.m[c][c];
  set_box(box);
}

void DdExecutor::scale_coordinates(const Tensor& mu, const Box& box) {
  scale_positions(mu, box);
  for (DdDomain& d : dom_)
    for (Vec3& v : d.v)
      for (int c = 0; c < 3; ++c) v[c] /= mu.m[c][c];
}

void DdExecutor::set_box(const Box& box) {
  cfg_.box = box;
  inv_len_ = pair_inv_len(box, grid_);
  index_.far = far_image_distance(grid_, box);
  if (pme_) pme_->set_box(box);
  for (DdDomain& d : dom_) domdec::rebox_plan(d.plan, grid_, box);
}

std::string DdExecutor::report_json() const { return stats_.json(grid_, transport_->num_ranks()); }

}  // namespace halomd
