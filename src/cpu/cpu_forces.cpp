#include "cpu/cpu_forces.h"

#include "cpu/electric_field.h"
#include "cpu/vsite.h"

namespace halomd {

CpuForces::CpuForces(const Topology& top, const MdParams& mdp, const Box& box, const Box& grid_box,
                     int threads)
    : top_(top),
      mdp_(mdp),
      box_(box),
      threads_(threads),
      nonbonded_(top, mdp, threads),
      bonded_(top, mdp.epsilon_r) {
  if (mdp.coulombtype == CoulombType::Pme) {
    pme_ = std::make_unique<PmeCpu>(mdp, grid_box, top.charge, threads);
    pme_->set_box(box);
  }
}

void CpuForces::set_box(const Box& box) {
  box_ = box;
  if (pme_) pme_->set_box(box);
}

void CpuForces::compute(const std::vector<Vec3>& x, bool search, int64_t step, std::vector<Vec3>& f,
                        StepEnergies* e, PhaseTimers& timers) {
  if (search) {
    timers.start(Phase::NeighbourSearch);
    build_pair_list(x, box_, mdp_.rlist, top_, threads_, list_);
    timers.stop();
  }
  timers.start(Phase::Nonbonded);
  NonbondedEnergies nb;
  nonbonded_.compute(list_, x, box_, e != nullptr, step, f, nb);
  timers.stop();
  PmeEnergies mesh;
  if (pme_) {
    timers.start(Phase::PmeMesh);
    pme_->compute(x, e != nullptr, f, mesh, step);
    timers.stop();
  }
  BondedEnergies listed;
  if (!bonded_.empty()) {
    timers.start(Phase::Bonded);
    bonded_.compute(x, box_, f, e ? &listed : nullptr);
    timers.stop();
  }
  // The applied electric field (md: the step's time), then virtual sites' forces onto their constructing
  // atoms (and the virial's change for non-linear sites).
  add_electric_field_forces(mdp_, mdp_.tinit + static_cast<double>(step) * mdp_.dt, top_.charge, {}, f);
  Tensor vsite_virial;
  if (!top_.vsites.empty()) spread_vsite_forces(top_.vsites, x, f, box_, e ? &vsite_virial : nullptr);
  if (e) {
    e->lj = nb.lj;
    e->coulomb = nb.coulomb;
    e->coulomb_recip = mesh.energy;
    e->bonded = listed.term;
    e->virial = nb.virial;
    e->virial += mesh.virial;
    e->virial += listed.virial;
    e->virial += vsite_virial;
  }
}

}  // namespace halomd
