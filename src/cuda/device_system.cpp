#include "cuda/device_system.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/env.h"
#include "core/errors.h"
#include "core/units.h"
#include "cpu/nonbonded.h"
#include "cuda/pairsearch.h"
#include "gpu/upload.h"

namespace halomd::cuda {
namespace {

// Room per list lane beyond its share of the candidates: image-shift markers (at most one per shift and lane,
// 8 shifts, as the search visits the cells grouped by shift), the padding of the last group (7) and the one
// entry by which an atom's lanes differ; kept at the old per-column bound of 75.
constexpr int kMaxMarkers = 75;
// Types beyond this would not fit the LJ table in shared memory (64^2 float2 = 32 KiB).
constexpr int kMaxTypes = 64;

using gpu::upload;

int log2_int(int v) {
  int l = 0;
  while ((1 << l) < v) ++l;
  return l;
}

}  // namespace

int choose_lanes_per_atom(int n, int multiprocessors) {
  // Enough lanes to fill the GPU: at least one full wave (2048 threads per multiprocessor).
  int tpa = 1;
  while (tpa < 32 && static_cast<long long>(n) * tpa < 2048LL * multiprocessors) tpa *= 2;
  return tpa;
}

void setup_device_system(const ExecutorConfig& cfg, int multiprocessors, int tpa, gpu::GpuCalls& calls,
                         DeviceSystem& ds) {
  const Topology& top = *cfg.top;
  const MdParams& mdp = *cfg.mdp;
  const int n = top.num_atoms();
  const PairParams pp = make_pair_params(mdp);
  const double q_scale = std::sqrt(pp.epsfac);
  HostAtoms a;
  a.n = n;
  a.qs.resize(n);
  a.inv_mass.resize(n);
  double total_mass = 0.0;
  for (int i = 0; i < n; ++i) {
    a.qs[i] = static_cast<float>(top.charge[i] * q_scale);
    a.inv_mass[i] = top.update_inv_mass(i);  // 0 for fully frozen atoms too: the update leaves them
    total_mass += top.mass[i];
  }
  a.mass = top.mass;
  a.type = top.type;
  a.excl_start = top.excl_start;
  a.excl = top.excl;
  std::vector<char> in_settle(n, 0);
  for (const Settle& s : top.settles) {
    a.settles.push_back({s.o, s.h1, s.h2, 0, top.mass[s.o], top.mass[s.h1], s.d_oh, s.d_hh});
    in_settle[s.o] = in_settle[s.h1] = in_settle[s.h2] = 1;
  }
  // LINCS's atoms have their own blocks in the update (cuda/lincs_gpu.h): one GPU only, domains refuse them.
  for (const Constraint& c : top.constraints) in_settle[c.a] = in_settle[c.b] = 1;
  for (int i = 0; i < n; ++i)
    if (!in_settle[i]) a.free_atoms.push_back(i);
  const int lanes = tpa > 0 ? tpa : choose_lanes_per_atom(n, multiprocessors);
  setup_device_constants(cfg, cfg.box.len, total_mass, lanes, calls, ds);
  upload_atoms(a, calls, ds);
}

void setup_device_constants(const ExecutorConfig& cfg, const Vec3& search_len, double total_mass, int tpa,
                            gpu::GpuCalls& calls, DeviceSystem& ds) {
  const Topology& top = *cfg.top;
  const MdParams& mdp = *cfg.mdp;
  const int ntypes = top.num_types();
  if (ntypes > kMaxTypes)
    throw InputError("", 0,
                     "the CUDA executor supports at most " + std::to_string(kMaxTypes) +
                         " atom types, the system has " + std::to_string(ntypes));
  if (tpa > 32 || tpa < 1 || (tpa & (tpa - 1)) != 0)
    throw InputError("", 0, "lanes per atom must be 1, 2, 4, ..., 32");
  ds.tpa = tpa;
  const PairParams pp = make_pair_params(mdp);
  double q2 = 0.0;
  for (double q : top.charge) q2 += q * q;
  ds.self_energy = coulomb_self_energy(pp, q2);
  ds.host_mass = top.mass;
  std::vector<float2> lj(static_cast<size_t>(ntypes) * ntypes);
  for (int a = 0; a < ntypes * ntypes; ++a)
    lj[a] = make_float2(static_cast<float>(top.c6[a]), static_cast<float>(top.c12[a]));
  upload(calls, ds.lj, lj, "LJ parameters");
  ds.st.allocate(1, "step state");

  // Grid: cells of at least rlist / reach (rlist < L/2 is checked on input, so of the images of a neighbour
  // that several shifts reach, only one lies within rlist).
  SearchParams& sp = ds.search;
  const int reach_xy = env_int("HALOMD_GPU_REACH_XY", kDefaultReachXY);
  const int reach_z = env_int("HALOMD_GPU_REACH_Z", kDefaultReachZ);
  if (reach_xy < 1 || reach_xy > 4 || reach_z < 1 || reach_z > 12)
    throw InputError(
        "", 0,
        "HALOMD_GPU_REACH_XY must be 1 to 4 and HALOMD_GPU_REACH_Z 1 to 12 (cells per rlist), got " +
            std::to_string(reach_xy) + " and " + std::to_string(reach_z));
  sp.search_blocks = env_int("HALOMD_GPU_SEARCH_BLOCKS", 8);
  sp.test_path = env_int("HALOMD_TEST_SEARCH_PATH", 0);
  if (sp.test_path < 0 || sp.test_path > 2)
    throw InputError("", 0, "HALOMD_TEST_SEARCH_PATH must be 0, 1 or 2, got " + std::to_string(sp.test_path));
  sp.chunk_cap = env_int("HALOMD_TEST_SEARCH_CHUNKS", kSearchChunkCap);
  if (sp.chunk_cap < 4 || sp.chunk_cap > kSearchChunkCap)
    throw InputError("", 0,
                     "HALOMD_TEST_SEARCH_CHUNKS must be 4 to " + std::to_string(kSearchChunkCap) + ", got " +
                         std::to_string(sp.chunk_cap));
  ds.skip_halo_rows = env_int("HALOMD_GPU_SKIP_HALO_ROWS", 1) != 0;
  if (sp.search_blocks != 8 && sp.search_blocks != 12 && sp.search_blocks != 16)
    throw InputError("", 0,
                     "HALOMD_GPU_SEARCH_BLOCKS must be 8, 12 or 16, got " + std::to_string(sp.search_blocks));
  for (int d = 0; d < 3; ++d) sp.reach[d] = d < 2 ? reach_xy : reach_z;
  set_box_lengths(mdp, search_len, calls, ds);
  sp.tpa = tpa;
  sp.rlist2 = static_cast<float>(mdp.rlist * mdp.rlist);
  const double prune = mdp.rlist + 1e-3;  // whole cells: room for float rounding at cell faces
  sp.prune = static_cast<float>(prune);
  sp.prune2 = static_cast<float>(prune * prune);
  sp.st = ds.st.get();

  NonbondedParams& np = ds.nonbonded;
  np.tpa = tpa;
  np.log2_tpa = log2_int(tpa);
  np.ntypes = ntypes;
  np.rc2 = static_cast<float>(pp.rc2);
  np.k_rf = static_cast<float>(pp.k_rf);
  np.c_rf = static_cast<float>(pp.c_rf);
  np.sh6 = static_cast<float>(pp.sh_six);
  np.sh12 = static_cast<float>(pp.sh_twelve);
  if (pp.ewald_beta * std::sqrt(pp.rc2) > kErfcxMaxX)
    throw InputError("", 0,
                     "ewald-rtol is below what the GPU's real-space Ewald term covers (beta rc " +
                         std::to_string(pp.ewald_beta * std::sqrt(pp.rc2)) + " > " +
                         std::to_string(kErfcxMaxX) + "): use ewald-rtol 1e-16 or larger");
  np.ewald_beta = static_cast<float>(pp.ewald_beta);
  np.sh_ewald = static_cast<float>(pp.sh_ewald);
  np.vdw = pp.fsw_r1 > 0.0 ? kVdwForceSwitch : pp.psw_r1 >= 0.0 ? kVdwPotentialSwitch : kVdwShift;
  np.sw = VdwSwitch{};
  if (np.vdw == kVdwForceSwitch) {
    VdwSwitch& w = np.sw;
    w.r1 = static_cast<float>(pp.fsw_r1);
    w.a6 = static_cast<float>(pp.fsw_a6);
    w.b6 = static_cast<float>(pp.fsw_b6);
    w.c6 = static_cast<float>(pp.fsw_c6);
    w.a12 = static_cast<float>(pp.fsw_a12);
    w.b12 = static_cast<float>(pp.fsw_b12);
    w.c12 = static_cast<float>(pp.fsw_c12);
    w.a6_3 = static_cast<float>(pp.fsw_a6 / 3.0);
    w.b6_4 = static_cast<float>(pp.fsw_b6 / 4.0);
    w.a12_3 = static_cast<float>(pp.fsw_a12 / 3.0);
    w.b12_4 = static_cast<float>(pp.fsw_b12 / 4.0);
  } else if (np.vdw == kVdwPotentialSwitch) {
    np.sw.r1 = static_cast<float>(pp.psw_r1);
    np.sw.inv_w = static_cast<float>(1.0 / pp.psw_w);
  }
  np.lj = ds.lj.get();
  np.st = ds.st.get();

  UpdateParams& up = ds.update;
  up.dt = mdp.dt;
  up.max_disp2 = 0.1 * 0.1;   // as the CPU executor's blow-up check
  up.max_force2 = 1e8 * 1e8;  // as the CPU's extreme pair force, here per atom
  // Berendsen couples on v-rescale's schedule with a factor of its own (update.cu begin_step).
  up.vrescale = mdp.tcoupl == Tcoupl::VRescale || mdp.tcoupl == Tcoupl::Berendsen;
  up.berendsen = mdp.tcoupl == Tcoupl::Berendsen;
  up.nsttcouple = std::max(1, mdp.nsttcouple);
  up.comm_linear = mdp.comm_mode == CommMode::Linear && mdp.nstcomm > 0;
  up.nstcomm = std::max(1, mdp.nstcomm);
  up.ref_kinetic = 0.5 * cfg.ndf * units::kBoltzmann * mdp.ref_t;
  up.ndf = cfg.ndf;
  up.tau_steps = mdp.tau_t / (up.nsttcouple * mdp.dt);
  up.total_mass = total_mass;
  up.seed = cfg.ld_seed;
  up.st = ds.st.get();
}

bool set_box_lengths(const MdParams& mdp, const Vec3& len, gpu::GpuCalls& calls, DeviceSystem& ds) {
  SearchParams& sp = ds.search;
  // Cells of at least rlist / reach: with fewer, a search's window of reach cells would miss neighbours
  // (with rlist < L/2 a periodic dimension has at least 2 reach cells anyway). The count is a function of
  // the box alone, so that a run continued from a checkpoint searches the grid of the uninterrupted run.
  int nc[3];
  int ncell = 1;
  for (int d = 0; d < 3; ++d) {
    nc[d] = std::max(1, static_cast<int>(std::floor(len[d] * sp.reach[d] / mdp.rlist)));
    ncell *= nc[d];
  }
  const bool changed =
      ds.cell_count.size() == 0 || nc[0] != sp.nc[0] || nc[1] != sp.nc[1] || nc[2] != sp.nc[2];
  for (int d = 0; d < 3; ++d) {
    sp.nc[d] = nc[d];
    sp.inv_nc[d] = 1.0 / nc[d];
    sp.len[d] = len[d];
    sp.cells_per_nm[d] = nc[d] / len[d];
    sp.lenf[d] = static_cast<float>(len[d]);
    sp.cell_size[d] = static_cast<float>(len[d] / nc[d]);
    sp.inv_cell_size[d] = static_cast<float>(nc[d] / len[d]);
    ds.nonbonded.len[d] = static_cast<float>(len[d]);
    ds.nonbonded.inv_len[d] = static_cast<float>(1.0 / len[d]);
    ds.update.len[d] = len[d];
  }
  if (!changed) return false;
  sp.ncell = ncell;
  // More cells than the arrays hold (the box grew): larger ones (GPU domains grow their own per-cell arrays
  // in upload_atoms, which the repartition after pressure coupling calls).
  if (static_cast<size_t>(ncell) > ds.cell_count.size()) {
    ds.cell_count.allocate(ncell, "cell grid");
    ds.cell_start.allocate(ncell + 1, "cell grid");
    ds.scan_state.allocate(1 + scan_tiles(ncell), "cell grid");
    calls.memset_async(ds.cell_count.get(), 0, ds.cell_count.bytes());  // zero between searches from here
  }
  // The scan's epoch counts tickets per tile of this grid: a new grid starts from zero.
  calls.memset_async(ds.scan_state.get(), 0, ds.scan_state.bytes());
  sp.cell_count = ds.cell_count.get();
  sp.cell_start = ds.cell_start.get();
  sp.scan_ticket = ds.scan_state.get();
  sp.scan_prefix = ds.scan_state.get() + 1;
  return true;
}

bool upload_atoms(const HostAtoms& a, gpu::GpuCalls& calls, DeviceSystem& ds) {
  const int n = a.n;
  ds.n = n;
  bool grown = false;
  if (static_cast<size_t>(n) > ds.capacity) {
    // A domain's atom count changes from search to search: room for 10% more, so reallocations are rare.
    const size_t cap = ds.capacity == 0 && ds.zone_mask.size() == 0 && a.zone_mask.empty()
                           ? static_cast<size_t>(n)
                           : static_cast<size_t>(n) + n / 10 + 64;
    const std::string per_atom = "per-atom arrays (" + std::to_string(cap) + " atoms)";
    for (int d = 0; d < 3; ++d) {
      ds.x[d].allocate(cap, "positions");
      ds.v[d].allocate(cap, "velocities");
    }
    ds.mass.allocate(cap, "masses");
    ds.inv_mass.allocate(cap, "inverse masses");
    ds.qs.allocate(cap, "charges");
    ds.type.allocate(cap, "atom types");
    ds.excl_start.allocate(cap + 1, "exclusions");
    for (auto* b : {&ds.sorted_of, &ds.cell_of, &ds.slot, &ds.order_tmp, &ds.atom_of, &ds.cell_s, &ds.type_s})
      b->allocate(cap, per_atom);
    ds.img.allocate(cap, per_atom);
    ds.xq.allocate(cap, per_atom);
    ds.f.allocate(cap, per_atom);
    if (!a.zone_mask.empty()) {
      ds.zone_mask.allocate(cap, per_atom);
      ds.zone_mask_s.allocate(cap, per_atom);
      ds.f_halo.allocate(cap, per_atom);
    }
    ds.capacity = cap;
    grown = true;
  }
  // Without exclusions: empty ranges for every atom, and one entry so that the kernels get a valid pointer.
  const std::vector<int> no_excl_start(a.excl_start.empty() ? n + 1 : 0, 0),
      no_excl(a.excl.empty() ? 1 : 0, 0);
  const std::vector<int>& excl_start = a.excl_start.empty() ? no_excl_start : a.excl_start;
  const std::vector<int>& excl = a.excl.empty() ? no_excl : a.excl;
  if (excl.size() > ds.excl.size()) {
    ds.excl.allocate(excl.size() + excl.size() / 10, "exclusions");
    grown = true;
  }
  if (a.settles.size() > ds.settles.size()) {
    ds.settles.allocate(a.settles.size() + a.settles.size() / 10 + 16, "SETTLE waters");
    grown = true;
  }
  if (a.free_atoms.size() > ds.free_atoms.size()) {
    ds.free_atoms.allocate(a.free_atoms.size() + a.free_atoms.size() / 10 + 16, "atoms outside waters");
    grown = true;
  }
  // One page-locked round of asynchronous copies (a search would otherwise wait once per array).
  using gpu::UploadStaging;
  const size_t bytes =
      2 * UploadStaging::room<double>(a.mass.size()) + UploadStaging::room<float>(a.qs.size()) +
      UploadStaging::room<int>(a.type.size()) + UploadStaging::room<int>(excl_start.size()) +
      UploadStaging::room<int>(excl.size()) + UploadStaging::room<int>(a.zone_mask.size()) +
      UploadStaging::room<SettleDev>(a.settles.size()) + UploadStaging::room<int>(a.free_atoms.size());
  ds.staging.begin(calls, bytes, "atoms");
  auto put = [&](auto& buf, const auto& host) { ds.staging.put(calls, buf.get(), host.data(), host.size()); };
  put(ds.mass, a.mass);
  put(ds.inv_mass, a.inv_mass);
  put(ds.qs, a.qs);
  put(ds.type, a.type);
  put(ds.excl_start, excl_start);
  put(ds.excl, excl);
  if (!a.zone_mask.empty()) put(ds.zone_mask, a.zone_mask);
  put(ds.settles, a.settles);
  put(ds.free_atoms, a.free_atoms);
  ds.staging.end(calls);
  // A new plan: its home atoms have nothing returned yet (the halo's entries are zeroed as they arrive).
  if (!a.zone_mask.empty()) calls.memset_async(ds.f_halo.get(), 0, static_cast<size_t>(n) * sizeof(float4));
  const bool row_lists = !a.zone_mask.empty() && ds.row_lists;
  if (row_lists && ds.rows.size() < ds.capacity) {
    ds.rows.allocate(ds.capacity, "rows by kind");
    ds.row_block_counts.allocate(2 * (ds.capacity / kRowListBlock + 1), "rows by kind");
  }
  const int n_home = static_cast<int>(std::count(a.zone_mask.begin(), a.zone_mask.end(), 0));

  SearchParams& sp = ds.search;
  sp.n = n;
  for (int d = 0; d < 3; ++d) sp.x[d] = ds.x[d].get();
  sp.qs = ds.qs.get();
  sp.type = ds.type.get();
  sp.excl_start = ds.excl_start.get();
  sp.excl = ds.excl.get();
  sp.zone_mask = a.zone_mask.empty() ? nullptr : ds.zone_mask.get();
  sp.zone_mask_s = a.zone_mask.empty() ? nullptr : ds.zone_mask_s.get();
  const bool interior = !a.zone_mask.empty() && ds.interior_cells;
  if (!a.zone_mask.empty() && ds.cell_halo.size() < static_cast<size_t>(sp.ncell)) {
    ds.cell_halo.allocate(sp.ncell, "cell grid");
    ds.cell_interior.allocate(sp.ncell, "cell grid");
  }
  if (!a.zone_mask.empty() && ds.partner_ext.size() == 0) ds.partner_ext.allocate(3, "partner extents");
  sp.partner_ext = a.zone_mask.empty() || !ds.skip_halo_rows ? nullptr : ds.partner_ext.get();
  sp.cell_halo = a.zone_mask.empty() ? nullptr : ds.cell_halo.get();
  sp.cell_interior = interior ? ds.cell_interior.get() : nullptr;
  sp.rows = row_lists ? ds.rows.get() : nullptr;
  sp.row_block_counts = row_lists ? ds.row_block_counts.get() : nullptr;
  sp.n_home = n_home;
  sp.img = ds.img.get();
  sp.cell_of = ds.cell_of.get();
  sp.slot = ds.slot.get();
  sp.sorted_of = ds.sorted_of.get();
  sp.order_tmp = ds.order_tmp.get();
  sp.atom_of = ds.atom_of.get();
  sp.cell_s = ds.cell_s.get();
  sp.xq = ds.xq.get();
  sp.type_s = ds.type_s.get();
  NonbondedParams& np = ds.nonbonded;
  np.n = n;
  np.xq = ds.xq.get();
  np.type_s = ds.type_s.get();
  np.atom_of = ds.atom_of.get();
  np.sorted_of = ds.sorted_of.get();
  np.excl_start = ds.excl_start.get();
  np.excl = ds.excl.get();
  np.f = ds.f.get();
  np.cell_s = ds.cell_s.get();
  np.cell_interior = sp.cell_interior;
  np.zone_mask_s = sp.zone_mask_s;
  np.rows = sp.rows;
  np.n_home = n_home;
  UpdateParams& up = ds.update;
  up.n = n;
  up.nsettle = static_cast<int>(a.settles.size());
  up.nfree = static_cast<int>(a.free_atoms.size());
  up.settles = ds.settles.get();
  up.free_atoms = ds.free_atoms.get();
  for (int d = 0; d < 3; ++d) {
    up.x[d] = ds.x[d].get();
    up.v[d] = ds.v[d].get();
  }
  up.inv_mass = ds.inv_mass.get();
  up.mass = ds.mass.get();
  up.f = ds.f.get();
  up.f_halo = a.zone_mask.empty() ? nullptr : ds.f_halo.get();
  up.sorted_of = ds.sorted_of.get();
  up.img = ds.img.get();
  up.qs = ds.qs.get();
  up.xq = ds.xq.get();
  return grown;
}

int most_within_reach(std::vector<int> count, const int (&nc)[3], const int (&reach)[3]) {
  // Three separable periodic window sums, each a running sum along its lines (a cell enters and one
  // leaves per step): O(cells) whatever the reach (the search's thin z cells reach 8 cells).
  std::vector<int> sum(count.size());
  const int stride[3] = {nc[1] * nc[2], nc[2], 1};
  for (int d = 2; d >= 0; --d) {
    const int len = nc[d], r = reach[d], st = stride[d];
    for (int c = 0; c < static_cast<int>(count.size()); ++c) {
      if ((c / st) % len != 0) continue;  // c starts a line along d
      auto at = [&](int k) { return count[c + (((k % len) + len) % len) * st]; };
      int w = 0;
      for (int dk = -r; dk <= r; ++dk) w += at(dk);
      for (int k = 0; k < len; ++k) {
        sum[c + k * st] = w;
        w += at(k + r + 1) - at(k - r);
      }
    }
    count.swap(sum);
  }
  return count.empty() ? 0 : *std::max_element(count.begin(), count.end());
}

bool size_pair_list(const std::vector<Vec3>& x, gpu::GpuCalls& calls, DeviceSystem& ds) {
  SearchParams& sp = ds.search;
  const int ny = sp.nc[1], nz = sp.nc[2];
  std::vector<int> count(sp.ncell, 0);
  for (const Vec3& p : x) {
    int c[3];
    for (int d = 0; d < 3; ++d) {
      const double w = p[d] - std::floor(p[d] / sp.len[d]) * sp.len[d];
      c[d] = std::clamp(static_cast<int>(w * sp.cells_per_nm[d]), 0, sp.nc[d] - 1);
    }
    ++count[(c[0] * ny + c[1]) * nz + c[2]];
  }
  const int most = most_within_reach(std::move(count), sp.nc, sp.reach);
  const int entries = (most + ds.tpa - 1) / ds.tpa + 1 + kMaxMarkers;
  const int cap = (entries + kListGroup - 1) / kListGroup;
  const long long lanes = static_cast<long long>(ds.capacity) * ds.tpa;
  if (cap <= ds.cap_groups && lanes <= ds.list_lanes) return false;
  ds.list_lanes = lanes;
  const long long warps = (lanes + 31) / 32;
  ds.list.allocate(static_cast<size_t>(warps) * cap * 32 * kListGroup,
                   "the pair list (" + std::to_string(cap * kListGroup) + " entries per lane)");
  ds.groups.allocate(static_cast<size_t>(warps) * 32, "the pair list");
  calls.memset_async(ds.groups.get(), 0, ds.groups.bytes());
  ds.cap_groups = cap;
  sp.cap_groups = cap;
  sp.list = ds.list.get();
  sp.groups = ds.groups.get();
  ds.nonbonded.cap_groups = cap;
  ds.nonbonded.list = ds.list.get();
  ds.nonbonded.groups = ds.groups.get();
  return true;
}

}  // namespace halomd::cuda
