#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.h"
#include "cpu/vsite_term.h"
#include "cuda/device_util.cuh"
#include "cuda/vsite_gpu.h"
#include "gpu/upload.h"

namespace halomd::cuda {
namespace {

constexpr int kBlock = 128;

__device__ inline Vec3 load_x(const UpdateParams& u, int a) { return Vec3{u.x[0][a], u.x[1][a], u.x[2][a]}; }

// A site's construction vectors r_ij and r_ik (0 for vsite2) from its atoms' x.
__device__ inline void site_vectors(const UpdateParams& u, const VsiteDev& s, const Vec3& xi, Vec3& rij,
                                    Vec3& rik) {
  rij = min_image(load_x(u, s.atoms[1]), xi, u.len);
  rik = s.kind == static_cast<int>(VsiteKind::Two) ? Vec3{} : min_image(load_x(u, s.atoms[2]), xi, u.len);
}

// One thread per constructing atom: its force plus its share of each of its sites' forces, in the CPU's
// order; with kEnergy, -1/2 (x_atom - x_site) (x) share into the constraint virial's sums.
template <bool kEnergy>
__global__ void __launch_bounds__(kBlock) spread_kernel(VsiteParams p, UpdateParams u, float4* f) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  long long vir[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  if (t < p.natoms) {
    const int a = p.atoms[t];
    const int sa = u.sorted_of[a];
    const float4 fa0 = f[sa];
    Vec3 sum{fa0.x, fa0.y, fa0.z};
    for (int e = p.start[t]; e < p.start[t + 1]; ++e) {
      const VsiteDev s = p.sites[p.entries[e] >> 2];
      const int slot = p.entries[e] & 3;
      float4 g = f[u.sorted_of[s.site]];
      if (u.f_halo) {  // GPU domains: what the force halo brought back to the site (the update takes it)
        const float4 h = u.f_halo[s.site];
        g.x += h.x;
        g.y += h.y;
        g.z += h.z;
      }
      Vec3 rij, rik;
      site_vectors(u, s, load_x(u, s.atoms[0]), rij, rik);
      Vec3 share[3];
      vsite_forces(static_cast<VsiteKind>(s.kind), s.p, Vec3{g.x, g.y, g.z}, rij, rik, share);
      sum += share[slot];
      if (kEnergy) {
        const Vec3 d = min_image(load_x(u, a), load_x(u, s.site), u.len);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) vir[3 * i + j] += to_fixed(-0.5 * d[i] * share[slot][j], kEnergyScale);
      }
    }
    f[sa] =
        make_float4(static_cast<float>(sum.x), static_cast<float>(sum.y), static_cast<float>(sum.z), fa0.w);
  }
  if (kEnergy) {
    __shared__ long long scratch[32 * 9];
    block_sum(vir, scratch);
    if (threadIdx.x == 0)
      for (int c = 0; c < 9; ++c) add_fixed(&u.st->cvir_acc[c], vir[c]);
  }
}

// One thread per site: placed from x(n + 1), its velocity the displacement over dt, its float record
// (image of the last search, the box's lengths), its force zeroed.
__global__ void __launch_bounds__(kBlock) construct_kernel(VsiteParams p, UpdateParams u, float4* f) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= p.nsites) return;
  const VsiteDev s = p.sites[t];
  const Vec3 xi = load_x(u, s.atoms[0]);
  Vec3 rij, rik;
  site_vectors(u, s, xi, rij, rik);
  const Vec3 xs = vsite_position(static_cast<VsiteKind>(s.kind), s.p, xi, rij, rik);
  const Vec3 v = min_image(xs, load_x(u, s.site), u.len) * (1.0 / u.dt);
  for (int d = 0; d < 3; ++d) {
    u.x[d][s.site] = xs[d];
    u.v[d][s.site] = v[d];
  }
  const int ss = u.sorted_of[s.site];
  u.xq[ss] = float_record(xs, u.img[s.site], u.len, u.qs[s.site]);
  f[ss] = make_float4(0.f, 0.f, 0.f, 0.f);
}

}  // namespace

VsiteLayout vsite_layout(const std::vector<VirtualSite>& sites, int num_atoms) {
  VsiteLayout l;
  std::vector<char> is_site(num_atoms, 0);
  for (const VirtualSite& s : sites) is_site[s.site] = 1;
  std::vector<int> count(num_atoms, 0);  // entries per constructing atom
  for (const VirtualSite& s : sites) {
    if (s.kind == VsiteKind::N)
      throw InputError("", 0,
                       "virtual site " + std::to_string(s.site + 1) +
                           " is a [ virtual_sitesn ] site, which runs with --backend cpu only");
    const int n = s.kind == VsiteKind::Two ? 2 : 3;
    for (int k = 0; k < n; ++k) {
      if (is_site[s.atoms[k]])
        throw InputError("", 0,
                         "virtual site " + std::to_string(s.site + 1) +
                             " is built from another virtual site (" + std::to_string(s.atoms[k] + 1) +
                             "), which runs with --backend cpu only");
      ++count[s.atoms[k]];
    }
    VsiteDev d{};
    d.kind = static_cast<int>(s.kind);
    d.site = s.site;
    for (int k = 0; k < 3; ++k) {
      d.atoms[k] = k < n ? s.atoms[k] : s.atoms[0];
      d.p[k] = s.p[k];
    }
    l.sites.push_back(d);
  }
  // CSR over the constructing atoms in ascending order, each atom's entries in the CPU's spreading order
  // (the sites in reverse): a counting sort, linear in the atoms (GPU domains lay it out at each
  // repartition).
  std::vector<int> at(num_atoms, -1);  // the atom's next entry
  l.start.push_back(0);
  for (int a = 0; a < num_atoms; ++a) {
    if (count[a] == 0) continue;
    at[a] = l.start.back();
    l.atoms.push_back(a);
    l.start.push_back(l.start.back() + count[a]);
  }
  l.entries.resize(l.start.back());
  for (int idx = static_cast<int>(l.sites.size()) - 1; idx >= 0; --idx) {
    const int n = l.sites[idx].kind == static_cast<int>(VsiteKind::Two) ? 2 : 3;
    for (int k = 0; k < n; ++k) l.entries[at[l.sites[idx].atoms[k]]++] = idx * 4 + k;
  }
  return l;
}

VsiteLayout vsite_layout(const Topology& top) { return vsite_layout(top.vsites, top.num_atoms()); }

void VsiteGpu::setup(const Topology& top, gpu::GpuCalls& calls) {
  if (!top.vsites.empty()) put(vsite_layout(top), calls);
}

void VsiteGpu::set_domain_sites(const std::vector<VirtualSite>& sites, int num_home, gpu::GpuCalls& calls) {
  put(vsite_layout(sites, num_home), calls);
}

void VsiteGpu::put(const VsiteLayout& l, gpu::GpuCalls& calls) {
  p_.sites = gpu::upload_grow(calls, sites_, l.sites, "virtual sites");
  p_.atoms = gpu::upload_grow(calls, atoms_, l.atoms, "virtual sites' atoms");
  p_.start = gpu::upload_grow(calls, start_, l.start, "virtual sites' atoms");
  p_.entries = gpu::upload_grow(calls, entries_, l.entries, "virtual sites' atoms");
  p_.nsites = static_cast<int>(l.sites.size());
  p_.natoms = static_cast<int>(l.atoms.size());
}

void VsiteGpu::enqueue_spread(gpu::GpuCalls& calls, const DeviceSystem& ds, bool energy) const {
  const int blocks = (p_.natoms + kBlock - 1) / kBlock;
  if (energy)
    calls.launch("vsite_spread_kernel<energy>", spread_kernel<true>, blocks, kBlock, 0, p_, ds.update,
                 ds.nonbonded.f);
  else
    calls.launch("vsite_spread_kernel", spread_kernel<false>, blocks, kBlock, 0, p_, ds.update,
                 ds.nonbonded.f);
}

void VsiteGpu::enqueue_construct(gpu::GpuCalls& calls, const DeviceSystem& ds) const {
  calls.launch("vsite_construct_kernel", construct_kernel, (p_.nsites + kBlock - 1) / kBlock, kBlock, 0, p_,
               ds.update, ds.nonbonded.f);
}

}  // namespace halomd::cuda
