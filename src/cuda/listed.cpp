#include "cuda/listed.h"

#include <vector>

#include "core/units.h"

namespace halomd::cuda {

void ListedGpu::set_box(const Box& box) {
  for (int d = 0; d < 3; ++d) {
    p_.len[d] = box.len[d];
    p_.posres_com[d] = posres_com_frac_[d] * box.len[d];  // refcoord-scaling = com, as the CPU's
  }
}

void ListedGpu::setup(const MdParams& mdp, const Box& box, const Topology& top, gpu::GpuCalls& calls) {
  if (top.bonded.empty()) return;
  p_.n_terms = static_cast<int>(top.bonded.size());
  p_.n_atoms = top.num_atoms();
  p_.coulomb_factor = units::kCoulomb / mdp.epsilon_r;
  for (int d = 0; d < 3; ++d) posres_com_frac_[d] = top.posres_com_frac[d];
  set_box(box);
  terms_.allocate(top.bonded.size(), "listed interactions");
  calls.copy_sync(terms_.get(), top.bonded.data(), top.bonded.size() * sizeof(BondedTerm),
                  cudaMemcpyHostToDevice);
  p_.terms = terms_.get();
  if (!top.cmap_grids.empty()) {  // the grids' points one after another, and a view of each
    size_t points = 0;
    for (const CmapGrid& g : top.cmap_grids) points += g.data.size();
    cmap_data_.allocate(points, "CMAP grids");
    std::vector<CmapView> views;
    size_t at = 0;
    for (const CmapGrid& g : top.cmap_grids) {
      calls.copy_sync(cmap_data_.get() + at, g.data.data(), g.data.size() * sizeof(double),
                      cudaMemcpyHostToDevice);
      views.push_back({g.spacing, cmap_data_.get() + at});
      at += g.data.size();
    }
    cmap_views_.allocate(views.size(), "CMAP grids");
    calls.copy_sync(cmap_views_.get(), views.data(), views.size() * sizeof(CmapView), cudaMemcpyHostToDevice);
    p_.cmaps = cmap_views_.get();
  }
  f_fixed_.allocate(3 * static_cast<size_t>(p_.n_atoms), "listed forces (fixed point)");
  calls.memset_async(f_fixed_.get(), 0, f_fixed_.bytes());
  p_.f_fixed = f_fixed_.get();
}

void ListedGpu::enqueue(gpu::GpuCalls& calls, const DeviceSystem& ds, bool energy) const {
  ListedParams p = p_;
  for (int d = 0; d < 3; ++d) p.x[d] = ds.x[d].get();
  p.sorted_of = ds.sorted_of.get();
  p.f = ds.nonbonded.f;
  p.st = ds.st.get();
  launch_listed(calls, p, energy);
}

void ListedGpu::add_energies(const StepState& h, StepEnergies* e) const {
  if (!active()) return;
  auto sum = [&h](int k) { return static_cast<double>(h.listed_acc[k]) / kEnergyScale; };
  for (int k = 0; k < kNumBondedTerms; ++k) e->bonded[k] = sum(k);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) e->virial.m[a][b] += sum(kListedVirial + 3 * a + b);
}

}  // namespace halomd::cuda
