// The device-resident system of the CUDA executor: every buffer the kernels use, the kernels' parameter
// structs that point into them, and how they are set up from the topology and sized for the pair list.
#pragma once

#include <string>
#include <vector>

#include "core/executor.h"
#include "cuda/device_data.h"
#include "gpu/device_buffer.h"
#include "gpu/gpu_calls.h"
#include "gpu/upload_staging.h"

namespace halomd::cuda {

struct DeviceSystem {
  int n = 0;
  int tpa = 1;               // lanes per atom in the pair list and the non-bonded kernel
  int cap_groups = 0;        // list capacity per lane, in groups of kListGroup entries
  double self_energy = 0.0;  // coulomb_self_energy (cpu/nonbonded.h), kJ/mol, added on the host
  std::vector<double> host_mass;

  // Original order.
  gpu::DeviceBuffer<double> x[3], v[3];
  gpu::DeviceBuffer<double> mass, inv_mass;
  gpu::DeviceBuffer<float> qs;
  gpu::DeviceBuffer<int> type, excl_start, excl, free_atoms, sorted_of, cell_of, slot;
  gpu::DeviceBuffer<int4> img;
  gpu::DeviceBuffer<SettleDev> settles;
  // Cells and sorted order.
  gpu::DeviceBuffer<int> cell_count, cell_start, order_tmp, atom_of, cell_s, type_s;
  gpu::DeviceBuffer<unsigned long long> scan_state;  // SearchParams::scan_ticket, then scan_prefix per tile
  gpu::DeviceBuffer<float4> xq, f;
  // Domain decomposition: per local atom, the forces the halo brought back (comm::GpuLocalArrays::f_halo).
  gpu::DeviceBuffer<float4> f_halo;
  // Domain decomposition: the sorted rows by kind (SearchParams::rows), made by every search when row_lists
  // (the executor's home and halo passes read them).
  gpu::DeviceBuffer<int> rows, row_block_counts;
  bool row_lists = false;
  gpu::DeviceBuffer<float2> lj;
  // Pair list, per lane.
  gpu::DeviceBuffer<int> list, groups;
  gpu::DeviceBuffer<StepState> st;
  gpu::DeviceBuffer<int> zone_mask, zone_mask_s;  // domain decomposition only
  gpu::DeviceBuffer<int> cell_halo;  // domain decomposition only, per cell (zeroed by each search)
  gpu::DeviceBuffer<unsigned char> cell_interior;
  // Domain decomposition: whether each search classifies its cells as interior or not (three passes over
  // the cells), which only the interior pass beside the halo (HALOMD_DD_OVERLAP=1) reads.
  bool interior_cells = true;
  // Domain decomposition: the search skips halo rows that cannot have a pair (SearchParams::partner_ext;
  // HALOMD_GPU_SKIP_HALO_ROWS=0 keeps them, a check).
  bool skip_halo_rows = true;
  gpu::DeviceBuffer<unsigned long long> partner_ext;  // domain decomposition only: SearchParams::partner_ext
  size_t capacity = 0;                                // per-atom buffers' size (>= n)
  long long list_lanes = 0;                           // lanes the pair list has room for
  gpu::UploadStaging staging;                         // upload_atoms' host side

  SearchParams search{};
  NonbondedParams nonbonded{};
  UpdateParams update{};
};

// Uploads the topology's constants, allocates the per-atom buffers and fills the parameter structs (the
// pair list is sized later, by size_pair_list). tpa: lanes per atom, 0 to choose from the atom count and
// the number of multiprocessors.
void setup_device_system(const ExecutorConfig& cfg, int multiprocessors, int tpa, gpu::GpuCalls& calls,
                         DeviceSystem& ds);

// The atoms a DeviceSystem holds, as host arrays: the whole topology (single GPU), or one domain's local
// atoms for one search window (home atoms first, then the halo; cuda_dd_executor.h).
struct HostAtoms {
  int n = 0;
  std::vector<float> qs;  // q sqrt(f / eps_r)
  std::vector<int> type;
  std::vector<int> excl_start, excl;   // CSR over the n atoms, indices into them
  std::vector<double> mass, inv_mass;  // 0 for atoms the update does not move (halo)
  std::vector<int> zone_mask;  // empty, or per atom the dimensions (bits 0-2) in which its zone is not 0
  std::vector<SettleDev> settles;
  std::vector<int> free_atoms;  // updated atoms outside waters (and outside LINCS constraints)
  // GPU domains with listed interactions or LINCS (update groups; upload_atoms does not read these): the
  // listed interactions the domain computes, on local atoms, and the home groups' constraints, on home atoms.
  std::vector<BondedTerm> listed;
  std::vector<Constraint> constraints;
  std::vector<int> tc_group;        // GPU domains with several tc-grps: each home atom's group
  std::vector<int> comm_group;      // GPU domains with several comm-grps: each home atom's group (-1: none)
  std::vector<VirtualSite> vsites;  // GPU domains with virtual sites: the home sites, on home atoms
};

// The constants of a system that does not change with its atoms: LJ table, pair, update and coupling
// parameters, and the search grid for a box of edges search_len (nm; the domain-decomposed executor passes
// an open, non-periodic extent for decomposed dimensions). total_mass: of the whole system (COM removal).
void setup_device_constants(const ExecutorConfig& cfg, const Vec3& search_len, double total_mass, int tpa,
                            gpu::GpuCalls& calls, DeviceSystem& ds);
// The search grid and the kernels' box lengths (SearchParams, NonbondedParams, UpdateParams) for a box of
// edges len: at set-up, and on one GPU after pressure coupling scaled the box. The grid has the most cells
// of at least rlist / reach (a function of the box alone); its arrays grow when it needs more. Returns true
// when the grid's cell count changed (the pair list may then need more room: size_pair_list), false when
// only the lengths did.
bool set_box_lengths(const MdParams& mdp, const Vec3& len, gpu::GpuCalls& calls, DeviceSystem& ds);
// Uploads the atoms (growing the per-atom buffers when they are too small; contents of x and v are the
// caller's) and points the parameter structs at them. Returns true when a buffer was reallocated.
bool upload_atoms(const HostAtoms& atoms, gpu::GpuCalls& calls, DeviceSystem& ds);
// Lanes per atom that fill a GPU with `multiprocessors` for n atoms.
int choose_lanes_per_atom(int n, int multiprocessors);

// Makes the pair list large enough for positions x: an upper bound on any atom's neighbours (all atoms in
// the cells within the search's reach around its cell) plus room for image markers. Returns true when it
// (re)allocated.
bool size_pair_list(const std::vector<Vec3>& x, gpu::GpuCalls& calls, DeviceSystem& ds);
// The most atoms within reach[d] cells of any cell of a periodic grid of nc cells per dimension (cells
// counted with multiplicity where the window wraps onto itself), from the atoms per cell (x-major, z
// fastest).
int most_within_reach(std::vector<int> count, const int (&nc)[3], const int (&reach)[3]);

}  // namespace halomd::cuda
