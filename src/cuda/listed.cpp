#include "cuda/listed.h"

#include <algorithm>
#include <vector>

#include "core/units.h"
#include "gpu/upload.h"

namespace halomd::cuda {

void ListedGpu::set_box(const Box& box) {
  for (int d = 0; d < 3; ++d) {
    p_.len[d] = box.len[d];
    p_.posres_com[d] = posres_com_frac_[d] * box.len[d];  // refcoord-scaling = com, as the CPU's
  }
}

void ListedGpu::setup(const MdParams& mdp, const Box& box, const Topology& top, gpu::GpuCalls& calls) {
  if (top.bonded.empty()) return;
  setup_constants(mdp, box, top, calls);
  p_.n_terms = static_cast<int>(top.bonded.size());
  p_.n_atoms = top.num_atoms();
  terms_.allocate(top.bonded.size(), "listed interactions");
  calls.copy_sync(terms_.get(), top.bonded.data(), top.bonded.size() * sizeof(BondedTerm),
                  cudaMemcpyHostToDevice);
  p_.terms = terms_.get();
  f_fixed_.allocate(3 * static_cast<size_t>(p_.n_atoms), "listed forces (fixed point)");
  calls.memset_async(f_fixed_.get(), 0, f_fixed_.bytes());
  p_.f_fixed = f_fixed_.get();
}

void ListedGpu::setup_domain(const MdParams& mdp, const Box& box, const Topology& top, gpu::GpuCalls& calls) {
  if (top.bonded.empty()) return;
  setup_constants(mdp, box, top, calls);
}

void ListedGpu::set_domain_terms(const std::vector<BondedTerm>& terms, int num_local, gpu::GpuCalls& calls) {
  if (!active_) return;
  p_.terms = gpu::upload_grow(calls, terms_, terms, "listed interactions of the domain");
  // Zero between steps (each add zeroes what it adds), so only new room needs zeroing.
  const size_t need = 3 * static_cast<size_t>(std::max(num_local, 1));
  if (f_fixed_.size() < need) {
    f_fixed_.allocate(need + need / 4, "listed forces of the domain (fixed point)");
    calls.memset_async(f_fixed_.get(), 0, f_fixed_.bytes());
  }
  p_.n_terms = static_cast<int>(terms.size());
  p_.n_atoms = num_local;
  p_.f_fixed = f_fixed_.get();
}

void ListedGpu::setup_constants(const MdParams& mdp, const Box& box, const Topology& top,
                                gpu::GpuCalls& calls) {
  active_ = true;
  p_.coulomb_factor = units::kCoulomb / mdp.epsilon_r;
  for (int d = 0; d < 3; ++d) posres_com_frac_[d] = top.posres_com_frac[d];
  set_box(box);
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
}

ListedParams ListedGpu::params(const DeviceSystem& ds) const {
  ListedParams p = p_;
  for (int d = 0; d < 3; ++d) p.x[d] = ds.x[d].get();
  p.sorted_of = ds.sorted_of.get();
  p.f = ds.nonbonded.f;
  p.st = ds.st.get();
  return p;
}

void ListedGpu::enqueue(gpu::GpuCalls& calls, const DeviceSystem& ds, bool energy) const {
  launch_listed(calls, params(ds), energy);
}

void ListedGpu::enqueue_domain_halo(gpu::GpuCalls& calls, const DeviceSystem& ds, int num_home,
                                    bool energy) const {
  const ListedParams p = params(ds);
  launch_listed_terms(calls, p, energy);
  launch_listed_add(calls, p, num_home, p.n_atoms, p.f, p.sorted_of);
}

void ListedGpu::enqueue_domain_home(gpu::GpuCalls& calls, const DeviceSystem& ds, int num_home) const {
  launch_listed_add(calls, params(ds), 0, num_home, ds.f_halo.get(), nullptr);
}

void ListedGpu::add_energies(const StepState& h, StepEnergies* e) const {
  if (!active()) return;
  auto sum = [&h](int k) { return static_cast<double>(h.listed_acc[k]) / kEnergyScale; };
  for (int k = 0; k < kNumBondedTerms; ++k) e->bonded[k] = sum(k);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) e->virial.m[a][b] += sum(kListedVirial + 3 * a + b);
}

}  // namespace halomd::cuda
