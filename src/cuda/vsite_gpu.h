// Virtual sites on one GPU and on GPU domains (TIP4P, TIP5P, ...): after the step's forces (pairs, PME's
// mesh, listed terms; on domains also the force halo's returns, f_halo), each site's force is spread onto its
// constructing atoms, and after the update each site is placed again
// from them (its x, its float record for the pair kernel, and its velocity as the CPU's: the displacement
// over dt), with the definitions of cpu/vsite_term.h. Sites built from other sites are refused (the CPU
// runs them in order; here every site is placed by its own thread).
#pragma once

#include <vector>

#include "core/topology.h"
#include "cuda/device_system.h"
#include "gpu/device_buffer.h"
#include "gpu/gpu_calls.h"

namespace halomd::cuda {

struct VsiteDev {
  int kind;      // VsiteKind
  int site;      // original index
  int atoms[3];  // i, j (and k)
  double p[3];
};

// What the two kernels read: the sites, and per constructing atom (CSR over `atoms`) its (site, slot)
// entries as site * 4 + slot, in the CPU's spreading order (the sites in reverse), so that each atom sums its
// share of the sites' forces in a fixed order.
struct VsiteParams {
  int nsites = 0, natoms = 0;
  const VsiteDev* sites = nullptr;
  const int* atoms = nullptr;
  const int* start = nullptr;
  const int* entries = nullptr;
};

// The host side of VsiteParams, as uploaded (tests emulate the spreading with it): the sites in topology
// order, and per constructing atom (ascending) its entries. InputError for a site built from another site.
struct VsiteLayout {
  std::vector<VsiteDev> sites;
  std::vector<int> atoms, start, entries;
};
// `sites` on atoms [0, num_atoms): the topology's (vsite_layout(top)), or a GPU domain's home sites on home
// atoms (cpu/dd_domain.h's DdDomain::vsites).
VsiteLayout vsite_layout(const std::vector<VirtualSite>& sites, int num_atoms);
VsiteLayout vsite_layout(const Topology& top);

class VsiteGpu {
 public:
  // The topology's sites on the device (nothing without sites).
  void setup(const Topology& top, gpu::GpuCalls& calls);
  // GPU domains, at each repartition: the home update groups' sites on home atoms (their buffers grow only).
  void set_domain_sites(const std::vector<VirtualSite>& sites, int num_home, gpu::GpuCalls& calls);
  bool active() const { return p_.nsites > 0; }
  // The sites' forces (ds's sorted forces, plus ds.update.f_halo where it is set) onto their atoms; with
  // energy, the virial's change for non-linear sites into StepState::cvir_acc (zeroed by the caller). After
  // every force, before the update.
  void enqueue_spread(gpu::GpuCalls& calls, const DeviceSystem& ds, bool energy) const;
  // The sites from the updated atoms (x(n + 1)), their velocities and float records; their forces zeroed
  // (so the step's forces read back as the CPU's). After the update.
  void enqueue_construct(gpu::GpuCalls& calls, const DeviceSystem& ds) const;

 private:
  // The layout's arrays on the device (grow-only buffers), and their counts.
  void put(const VsiteLayout& l, gpu::GpuCalls& calls);
  VsiteParams p_;
  gpu::DeviceBuffer<VsiteDev> sites_;
  gpu::DeviceBuffer<int> atoms_, start_, entries_;
};

}  // namespace halomd::cuda
