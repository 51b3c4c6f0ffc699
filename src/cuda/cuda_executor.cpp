#include "cuda/cuda_executor.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>

#include "core/env.h"
#include "core/errors.h"
#include "core/units.h"
#include "cpu/thermostat.h"
#include "cuda/cluster_build.h"
#include "cuda/cluster_list.h"
#include "cuda/cluster_nonbonded.h"
#include "cuda/device_system.h"
#include "cuda/gpu_timing.h"
#include "cuda/lincs_gpu.h"
#include "cuda/listed.h"
#include "cuda/nonbonded.h"
#include "cuda/pairsearch.h"
#include "cuda/pme_mesh.h"
#include "cuda/step_state.h"
#include "cuda/update.h"
#include "cuda/vsite_gpu.h"
#include "fmt/format.h"
#include "gpu/cuda_check.h"
#include "gpu/step_graph.h"

namespace halomd {
namespace {

using cuda::StepState;

static_assert(offsetof(StepState, cvir_acc) == offsetof(StepState, nb_acc) + sizeof(StepState::nb_acc) &&
                  offsetof(StepState, pme_acc) ==
                      offsetof(StepState, cvir_acc) + sizeof(StepState::cvir_acc) &&
                  offsetof(StepState, listed_acc) ==
                      offsetof(StepState, pme_acc) + sizeof(StepState::pme_acc),
              "an energy step zeroes nb_acc, cvir_acc, pme_acc and listed_acc with one memset");

}  // namespace

class CudaExecutor::Impl {
 public:
  explicit Impl(const ExecutorConfig& config) : cfg(config) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0)
      throw RuntimeError(-1, -1,
                         std::string("--backend cuda: no usable CUDA device (") +
                             (err != cudaSuccess ? cudaGetErrorString(err) : "none found") + ")");
    HALOMD_CUDA_CHECK(cudaSetDevice(0));
    cudaDeviceProp prop{};
    HALOMD_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    gpu_name = prop.name;
    calls.create_stream();
    every_step_timed = env_int("HALOMD_GPU_TIMING", 0) != 0;
    cuda::setup_device_system(cfg, prop.multiProcessorCount, env_int("HALOMD_GPU_TPA", 0), calls, ds);
    cluster = env_int("HALOMD_GPU_CLUSTER", 0) != 0;
    if (cluster && cfg.mdp->coulombtype == CoulombType::Pme)
      throw InputError(
          "", 0,
          "HALOMD_GPU_CLUSTER=1 (the cluster-pair kernels) has no PME: unset it for coulombtype = PME");
    if (cluster && cfg.mdp->vdw_modifier != VdwModifier::PotentialShift &&
        cfg.mdp->vdw_modifier != VdwModifier::None)
      throw InputError("", 0,
                       "HALOMD_GPU_CLUSTER=1 (the cluster-pair kernels) has no LJ switches: unset it for "
                       "vdw-modifier = Force-switch or Potential-switch");
    if (cluster && !cfg.top->vsites.empty())
      throw InputError("", 0,
                       "HALOMD_GPU_CLUSTER=1 (the cluster-pair kernels) has no virtual sites: unset it for a "
                       "topology with [ virtual_sites2 ] or [ virtual_sites3 ]");
    if (cluster && !cfg.top->bonded.empty())
      throw InputError("", 0,
                       "HALOMD_GPU_CLUSTER=1 (the cluster-pair kernels) has no listed interactions: unset it "
                       "for a topology with bonds, angles, dihedrals or pairs");
    if (cluster && cfg.mdp->pcoupl != Pcoupl::No)
      throw InputError("", 0,
                       "HALOMD_GPU_CLUSTER=1 (the cluster-pair kernels) has no pressure coupling: unset it "
                       "for pcoupl = C-rescale, Parrinello-Rahman or Berendsen");
    ds.update.pr_coupling = cfg.mdp->pcoupl == Pcoupl::ParrinelloRahman ? 1 : 0;
    if (cluster) setup_cluster(prop.multiProcessorCount);
    pme.setup(*cfg.mdp, cfg.pme_grid_box(), cfg.box, *cfg.top, calls);
    listed.setup(*cfg.mdp, cfg.box, *cfg.top, calls);
    vsites.setup(*cfg.top, calls);
    lincs.setup(cfg, calls, ds.update);
    setup_groups();
    // HALOMD_GPU_PME_OVERLAP=1: the mesh (which needs x(n) only) on a second stream beside the pair kernel;
    // the gather waits for both. Off until measured (bench/NOTES.md, twenty-first session).
    pme_overlap = pme.active() && env_int("HALOMD_GPU_PME_OVERLAP", 0) != 0;
    if (pme_overlap) {
      HALOMD_CUDA_CHECK(cudaStreamCreateWithFlags(&pme_stream, cudaStreamNonBlocking));
      HALOMD_CUDA_CHECK(cudaEventCreateWithFlags(&pme_fork, cudaEventDisableTiming));
      HALOMD_CUDA_CHECK(cudaEventCreateWithFlags(&pme_join, cudaEventDisableTiming));
    }
    hx.allocate(3 * static_cast<size_t>(ds.n), "positions (host staging)");
    hv.allocate(3 * static_cast<size_t>(ds.n), "velocities (host staging)");
    hst.allocate(1, "step state (host staging)");
    timing.create(every_step_timed ? 1024 : 64);
  }
  ~Impl() {
    if (pme_fork) (void)cudaEventDestroy(pme_fork);
    if (pme_join) (void)cudaEventDestroy(pme_join);
    if (pme_stream) (void)cudaStreamDestroy(pme_stream);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  // HALOMD_GPU_CLUSTER=1: the cluster-pair list (cuda/cluster_list.h) and its kernels instead of the
  // atom-pair list. The atoms' sorted order is then the list's slots (padding included), so the update
  // kernel reads forces from and writes positions to slot-sized buffers of its own.
  // Work items of at most `chunk` j-clusters: 8 below 20k atoms, 16 above (bench/NOTES.md, sixteenth
  // session: fewer, longer items leave a small system's GPU idle; shorter ones add i-force atomics).
  // Several tc-grps: each atom's group on the device and each group's v-rescale parameters, as CpuExecutor's;
  // several comm-grps: each atom's group and each group's mass.
  void setup_groups() {
    cuda::set_nose_hoover_params(cfg, ds.update);
    if (cuda::set_comm_group_params(cfg, ds.update) > 0) {
      comm_group.allocate(cfg.comm_group->size(), "comm-grps of the atoms");
      calls.copy_sync(comm_group.get(), cfg.comm_group->data(), cfg.comm_group->size() * sizeof(int),
                      cudaMemcpyHostToDevice);
      ds.update.comm_group = comm_group.get();
    }
    if (cuda::set_tc_group_params(cfg, ds.update) == 0) return;
    tc_group.allocate(cfg.tc_group->size(), "tc-grps of the atoms");
    calls.copy_sync(tc_group.get(), cfg.tc_group->data(), cfg.tc_group->size() * sizeof(int),
                    cudaMemcpyHostToDevice);
    ds.update.tc_group = tc_group.get();
  }

  void setup_cluster(int multiprocessors) {
    chunk = env_int("HALOMD_GPU_CLUSTER_CHUNK", ds.n < 20000 ? 8 : 16);
    cuda::reserve_cluster_list(ds.n, cfg.box, cfg.mdp->rlist, chunk, cl);
    c_mol.allocate(ds.n, "cluster list: molecules");
    calls.copy_sync(c_mol.get(), cfg.top->molecule.data(), ds.n * sizeof(int), cudaMemcpyHostToDevice);
    const int slots = cl.max_slots();
    c_xq.allocate(slots, "cluster list: slot positions");
    c_f.allocate(slots, "cluster list: slot forces");
    c_type.allocate(slots, "cluster list: slot types");
    c_atom_of.allocate(slots, "cluster list: slot atoms");
    c_ffix.allocate(3 * static_cast<size_t>(slots), "cluster list: force sums");
    calls.memset_async(c_ffix.get(), 0, c_ffix.bytes());
    calls.memset_async(c_f.get(), 0, c_f.bytes());
    const cuda::NonbondedParams& np = ds.nonbonded;
    cuda::ClusterNbParams& p = cnb;
    p.ntypes = np.ntypes;
    p.max_slots = slots;
    // 32 blocks of 64 per SM take the work items in turn (at 45k: 111 us against 132 with 16 per SM and 121
    // with a block per item, whose energy kernel took 396 us: bench/NOTES.md, seventeenth session);
    // HALOMD_GPU_CLUSTER_BLOCKS overrides (0: a block per work item the list can hold).
    const int blocks = env_int("HALOMD_GPU_CLUSTER_BLOCKS", 32 * multiprocessors);
    p.pair_blocks = blocks > 0 ? std::min(cl.max_work, blocks) : cl.max_work;
    p.rc2 = np.rc2;
    p.k_rf = np.k_rf;
    p.c_rf = np.c_rf;
    p.sh6 = np.sh6;
    p.sh12 = np.sh12;
    for (int d = 0; d < 3; ++d) {
      p.len[d] = np.len[d];
      p.inv_len[d] = np.inv_len[d];
      p.x[d] = ds.x[d].get();
      p.w[d] = cl.w[d].get();
      p.inv_box[d] = 1.0 / cfg.box.len[d];
    }
    p.work = cl.work.get();
    p.j = cl.j.get();
    p.masks = cl.masks.get();
    p.num_work = cl.num_work();
    p.num_slots = cl.num_slots();
    p.slot_atom = cl.slot_atom.get();
    p.overflow = cl.overflow.get();
    p.qs = ds.qs.get();
    p.type = ds.type.get();
    p.excl_start = ds.excl_start.get();
    p.excl = ds.excl.get();
    p.lj = ds.lj.get();
    p.sorted_of = ds.sorted_of.get();
    p.img = ds.img.get();
    p.xq = c_xq.get();
    p.type_s = c_type.get();
    p.atom_of = c_atom_of.get();
    p.ffix = c_ffix.get();
    p.f = c_f.get();
    p.st = ds.st.get();
    ds.update.xq = c_xq.get();
    ds.update.f = c_f.get();
  }
  void enqueue_search(gpu::GpuCalls& c) {
    if (cluster) {
      const double* const xs[3] = {ds.x[0].get(), ds.x[1].get(), ds.x[2].get()};
      // setup_cluster reserved for these atoms, box and rlist, which do not change: no allocation here (a
      // graph records this), and the kernels' pointers stay valid.
      if (cuda::build_cluster_list(c, xs, ds.n, cfg.box, cfg.mdp->rlist, ds.excl_start.get(), ds.excl.get(),
                                   c_mol.get(), chunk, cl))
        throw RuntimeError(step, -1, "internal error: the cluster list grew after its setup");
      cuda::launch_cluster_order(c, cnb);
    } else {
      cuda::launch_pair_search(c, ds.search);
    }
  }
  void enqueue_nonbonded(gpu::GpuCalls& c, bool energy) {
    if (pme_overlap) {
      c.fork(pme_stream, pme_fork);
      const gpu::GpuCalls::Use on(c, pme_stream);
      pme.enqueue_mesh(c, ds, energy);
    }
    if (cluster)
      cuda::launch_cluster_nonbonded(c, cnb, energy);
    else
      cuda::launch_nonbonded(c, ds.nonbonded, energy);
    // coulombtype = PME: the mesh forces are added to the pair forces before the update reads them.
    if (pme.active()) {
      if (pme_overlap)
        c.join(pme_stream, pme_join);
      else
        pme.enqueue_mesh(c, ds, energy);
      pme.enqueue_gather(c, ds);
    }
    if (listed.active()) listed.enqueue(c, ds, energy);
    if (vsites.active()) vsites.enqueue_spread(c, ds, energy);
  }
  // The update, then the virtual sites placed from the updated atoms.
  void enqueue_update(gpu::GpuCalls& c, const cuda::UpdateParams& up, bool energy) {
    cuda::launch_update(c, up, energy);
    if (vsites.active()) vsites.enqueue_construct(c, ds);
  }
  // The regular step: its kernels read the step number and everything else that changes from device
  // memory, so the same graph serves every step until the pair list is reallocated.
  void enqueue_regular_step(gpu::GpuCalls& c) {
    enqueue_nonbonded(c, false);
    enqueue_update(c, ds.update, false);
  }
  // A search step without energies, as its own graph (the search's kernels read nothing that changes
  // between searches from their arguments either): one launch instead of seven, and no gaps between
  // its small kernels.
  void enqueue_search_step(gpu::GpuCalls& c) {
    enqueue_search(c);
    enqueue_regular_step(c);
  }

  // Pressure coupling after a step: x (and with velocities v) scaled on the device in the new box. A grid
  // whose cell count changed may need a larger pair list, sized from the positions.
  void scale(const Tensor& mu, const Box& box, bool velocities) {
    cfg.box = box;
    const bool regrid = cuda::set_box_lengths(*cfg.mdp, box.len, calls, ds);
    pme.set_box(box);
    listed.set_box(box);
    const double m[3] = {mu.m[0][0], mu.m[1][1], mu.m[2][2]};
    cuda::launch_scale(calls, ds.update, m, velocities);
    if (regrid) {
      // A new grid: the list may need more room for its wider windows (a reallocated list is empty), so the
      // next step searches. The same box gives the same grid and search in a continued run.
      std::vector<Vec3> x;
      download_positions(x);
      cuda::size_pair_list(x, calls, ds);
      searched = false;
    }
    // The kernels' box lives in their arguments: both step graphs take the new one at their next launch.
    graph.invalidate();
    search_graph.invalidate();
  }
  void download_positions(std::vector<Vec3>& x) {
    const size_t n = ds.n;
    copy_array_back(ds.x, hx);
    sync_state();
    x.resize(n);
    for (size_t i = 0; i < n; ++i) x[i] = {hx[i], hx[n + i], hx[2 * n + i]};
  }

  // Copies the step state back and waits: the one place (with save, positions, forces) the host blocks.
  void sync_state() {
    calls.copy_async(hst.get(), ds.st.get(), sizeof(StepState), cudaMemcpyDeviceToHost);
    calls.sync();
    timing.harvest();
    const StepState& h = hst[0];
    pairs = static_cast<size_t>(h.list_pairs / 2);
    max_groups = h.max_list_groups;
    cuda::throw_if_error(h);
  }

  void copy_array_back(gpu::DeviceBuffer<double> (&dev)[3], gpu::PinnedBuffer<double>& host) {
    const size_t n = ds.n;
    for (int d = 0; d < 3; ++d)
      calls.copy_async(host.get() + d * n, dev[d].get(), n * sizeof(double), cudaMemcpyDeviceToHost);
  }

  ExecutorConfig cfg;
  gpu::GpuCalls calls;
  cuda::DeviceSystem ds;
  cuda::GpuTiming timing;
  gpu::PinnedBuffer<double> hx, hv;  // x, y, z arrays one after the other
  gpu::PinnedBuffer<float4> hf;      // forces() staging, sorted order
  gpu::PinnedBuffer<int> h_atom_of;
  gpu::PinnedBuffer<StepState> hst;
  gpu::StepGraph graph, search_graph;
  bool every_step_timed = false;
  bool searched = false;
  bool cluster = false;
  cuda::PmeMesh pme;                  // coulombtype = PME only
  cuda::ListedGpu listed;             // a topology with listed interactions only
  cuda::LincsGpu lincs;               // a run with LINCS constraints only
  cuda::VsiteGpu vsites;              // a topology with virtual sites only
  gpu::DeviceBuffer<int> tc_group;    // several tc-grps only
  gpu::DeviceBuffer<int> comm_group;  // several comm-grps only
  bool pme_overlap = false;
  cudaStream_t pme_stream = nullptr;
  cudaEvent_t pme_fork = nullptr, pme_join = nullptr;
  cuda::DeviceClusterList cl;
  cuda::ClusterNbParams cnb{};
  gpu::DeviceBuffer<float4> c_xq, c_f;
  gpu::DeviceBuffer<int> c_type, c_atom_of, c_mol;
  int chunk = 0;
  gpu::DeviceBuffer<unsigned long long> c_ffix;
  // Regular steps before the one whose graph is timed (events around its launch: step_regular_graph in
  // gpu_phase_us, the steady state's regular step as the graph runs it), counted from each search; -1: none.
  static constexpr int kMidStep = 5;
  int mid_in = -1;
  int64_t step = 0;
  std::string gpu_name;
  size_t pairs = 0;
  int max_groups = 0;
};

namespace {

// The marks of a timed step and the phases between them (gpu_phase_us in run.json).
enum Mark { kStart, kSearched, kNonbonded, kUpdated };
const cuda::GpuTiming::PhaseTable& step_phases(bool ns, bool energy) {
  using Table = cuda::GpuTiming::PhaseTable;
  static const Table tables[2][2] = {{Table{{"nonbonded", kSearched, kNonbonded},
                                            {"update", kNonbonded, kUpdated},
                                            {"step_regular", kStart, kUpdated}},
                                      Table{{"nonbonded_energy", kSearched, kNonbonded},
                                            {"update_energy", kNonbonded, kUpdated},
                                            {"step_energy", kStart, kUpdated}}},
                                     {Table{{"ns_search", kStart, kSearched},
                                            {"nonbonded", kSearched, kNonbonded},
                                            {"update", kNonbonded, kUpdated},
                                            {"step_ns", kStart, kUpdated}},
                                      Table{{"ns_search", kStart, kSearched},
                                            {"nonbonded_energy", kSearched, kNonbonded},
                                            {"update_energy", kNonbonded, kUpdated},
                                            {"step_ns", kStart, kUpdated}}}};
  return tables[ns][energy];
}
const cuda::GpuTiming::PhaseTable& graph_step_phases(bool ns) {
  static const cuda::GpuTiming::PhaseTable regular{{"step_regular_graph", kStart, kUpdated}};
  static const cuda::GpuTiming::PhaseTable search{{"step_ns_graph", kStart, kUpdated}};
  return ns ? search : regular;
}

}  // namespace

CudaExecutor::CudaExecutor(const ExecutorConfig& config) : impl_(std::make_unique<Impl>(config)) {}
CudaExecutor::~CudaExecutor() = default;

void CudaExecutor::load(const MdState& s) {
  Impl& m = *impl_;
  const size_t n = m.ds.n;
  if (s.x.size() != n || s.v.size() != n)
    throw RuntimeError(s.step, -1, "the state to load has a different number of atoms than the topology");
  for (size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) {
      m.hx[d * n + i] = s.x[i][d];
      m.hv[d * n + i] = s.v[i][d];
    }
  for (int d = 0; d < 3; ++d) {
    m.calls.copy_async(m.ds.x[d].get(), m.hx.get() + d * n, n * sizeof(double), cudaMemcpyHostToDevice);
    m.calls.copy_async(m.ds.v[d].get(), m.hv.get() + d * n, n * sizeof(double), cudaMemcpyHostToDevice);
  }
  m.hst[0] = cuda::initial_step_state(s);
  cuda::set_initial_group_ke(s, m.cfg, m.ds.update, m.hst[0]);
  m.calls.copy_async(m.ds.st.get(), m.hst.get(), sizeof(StepState), cudaMemcpyHostToDevice);
  if (!m.cluster && cuda::size_pair_list(s.x, m.calls, m.ds)) {
    m.graph.invalidate();
    m.search_graph.invalidate();
  }
  cuda::launch_begin_step(m.calls, m.ds.update);
  m.calls.sync();  // the staging buffers are reused at once; errors show up here rather than at step 1
  m.step = s.step;
  m.searched = false;
}

void CudaExecutor::step(const StepRequest& r, StepEnergies* e) {
  Impl& m = *impl_;
  const cuda::UpdateParams& up = m.ds.update;
  cuda::check_request(up, r, m.step);
  const bool ns = r.ns || !m.searched;
  const bool energy = r.energy && e != nullptr;
  // A Parrinello-Rahman coupling step runs kernel by kernel with the step's term in the update's arguments
  // (every nstpcouple steps; the box changes after it, so the graphs are recorded again anyway).
  if (r.pr && !up.pr_coupling)
    throw RuntimeError(r.step, -1, "internal error: a Parrinello-Rahman step for an executor without it");
  if (!energy && !r.pr && !m.every_step_timed) {
    // A graph step: regular, or a search without energies. Timed (events around the launch, after any
    // re-recording so that the host's recording is not counted) at every search and at the kMidStep-th
    // regular step after it.
    gpu::StepGraph& g = ns ? m.search_graph : m.graph;
    auto record = [&m, ns](gpu::GpuCalls& c) {
      if (ns)
        m.enqueue_search_step(c);
      else
        m.enqueue_regular_step(c);
    };
    g.prepare(m.calls, record);  // before a sample is taken: a failed recording leaves none unrecorded
    cuda::GpuTiming::Sample* t = ns || m.mid_in == 0 ? m.timing.begin(graph_step_phases(ns)) : nullptr;
    if (!ns && m.mid_in >= 0) --m.mid_in;
    if (t) m.calls.record(t->ev[kStart]);
    g.launch(m.calls, record);
    if (t) m.calls.record(t->ev[kUpdated]);
    if (ns) {
      m.searched = true;
      m.mid_in = Impl::kMidStep - 1;
    }
    ++m.step;
    return;
  }
  // A Parrinello-Rahman step without energies is not timed: its phases would pass for a regular step's.
  cuda::GpuTiming::Sample* t = r.pr && !energy ? nullptr : m.timing.begin(step_phases(ns, energy));
  if (t) m.calls.record(t->ev[kStart]);
  if (ns) {
    m.enqueue_search(m.calls);
    m.searched = true;
    m.mid_in = Impl::kMidStep - 1;
  }
  if (t) m.calls.record(t->ev[kSearched]);
  if (energy)
    m.calls.memset_async(reinterpret_cast<char*>(m.ds.st.get()) + offsetof(StepState, nb_acc), 0,
                         sizeof(StepState::nb_acc) + sizeof(StepState::cvir_acc) +
                             sizeof(StepState::pme_acc) + sizeof(StepState::listed_acc));
  m.enqueue_nonbonded(m.calls, energy);
  if (t) m.calls.record(t->ev[kNonbonded]);
  if (r.pr) {
    cuda::UpdateParams pr = m.ds.update;
    for (int d = 0; d < 3; ++d) pr.pr_scale[d] = r.pr_scale[d];
    m.enqueue_update(m.calls, pr, energy);
  } else {
    m.enqueue_update(m.calls, m.ds.update, energy);
  }
  if (t) m.calls.record(t->ev[kUpdated]);
  ++m.step;
  if (energy) {
    m.sync_state();
    cuda::fill_energies(m.hst[0], m.ds.self_energy, e);
    m.pme.add_energies(m.hst[0], e);
    m.listed.add_energies(m.hst[0], e);
    e->group_kinetic.assign(m.hst[0].rep_group_ke, m.hst[0].rep_group_ke + m.ds.update.ngroups);
  }
}

void CudaExecutor::save(MdState& s) {
  Impl& m = *impl_;
  const size_t n = m.ds.n;
  m.copy_array_back(m.ds.x, m.hx);
  m.copy_array_back(m.ds.v, m.hv);
  m.sync_state();
  const StepState& h = m.hst[0];
  if (h.step != m.step) throw RuntimeError(m.step, -1, "internal error: the device is at another step");
  s.step = h.step;
  s.x.resize(n);
  s.v.resize(n);
  const std::vector<int>* comm = m.cfg.comm_group;
  for (size_t i = 0; i < n; ++i) {
    s.x[i] = {m.hx[i], m.hx[n + i], m.hx[2 * n + i]};
    s.v[i] = {m.hv[i], m.hv[n + i], m.hv[2 * n + i]};
    // The centre-of-mass removal of the last step is applied lazily by the next update: apply it here.
    if (m.ds.host_mass[i] > 0.0) s.v[i] -= cuda::pending_vcm(h, m.ds.update, comm ? (*comm)[i] : 0);
  }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) s.ke_half_prev.m[a][b] = h.ke_prev[3 * a + b];
  s.ke_half_prev_groups.assign(h.group_ke_prev, h.group_ke_prev + m.ds.update.ngroups);
  s.thermostat_integral = h.integral_before;
  s.nh_xi.assign(h.nh_xi_before, h.nh_xi_before + m.ds.update.nh_groups);  // before the pending coupling
  s.nh_vxi.assign(h.nh_vxi_before, h.nh_vxi_before + m.ds.update.nh_groups);
}

void CudaExecutor::positions(std::vector<Vec3>& x) { impl_->download_positions(x); }

void CudaExecutor::scale_coordinates(const Tensor& mu, const Box& box) { impl_->scale(mu, box, true); }
void CudaExecutor::scale_positions(const Tensor& mu, const Box& box) { impl_->scale(mu, box, false); }

void CudaExecutor::forces(std::vector<Vec3>& f) {
  Impl& m = *impl_;
  const size_t n = m.ds.n;
  const size_t rows = m.cluster ? static_cast<size_t>(m.cl.max_slots()) : n;  // sorted order's length
  // Kept for the run: freeing page-locked memory waits for the device, and nstfout asks at every frame.
  gpu::PinnedBuffer<float4>& hf = m.hf;
  gpu::PinnedBuffer<int>& atom_of = m.h_atom_of;
  if (hf.size() < rows) hf.allocate(rows, "forces (host staging)");
  if (atom_of.size() < rows) atom_of.allocate(rows, "sorted order (host staging)");
  m.calls.copy_async(hf.get(), m.ds.update.f, rows * sizeof(float4), cudaMemcpyDeviceToHost);
  m.calls.copy_async(atom_of.get(), m.cluster ? m.c_atom_of.get() : m.ds.atom_of.get(), rows * sizeof(int),
                     cudaMemcpyDeviceToHost);
  m.sync_state();
  f.assign(n, Vec3{});
  for (size_t s = 0; s < rows; ++s)
    if (atom_of[s] >= 0) f[atom_of[s]] = {hf[s].x, hf[s].y, hf[s].z};
}

size_t CudaExecutor::num_pairs() const {
  const Impl& m = *impl_;
  if (!m.cluster || !m.searched) return m.pairs;  // no list built yet (a run of no steps): 0
  // The cluster list keeps no atom-pair count: the last search's pairs within rlist, counted on the host from
  // the downloaded list (waits for the device; a report's figure, read after the run).
  ClusterPairList list;
  cuda::download_cluster_list(m.cl, list);
  size_t n = 0;
  for_each_cluster_pair(list, m.cfg.box, [&n](int, int, const Vec3&) { ++n; });
  return n;
}

CallCounters CudaExecutor::counters() const {
  CallCounters c;
  c.host_syncs = impl_->calls.host_syncs();
  c.launches = impl_->calls.launches();
  return c;
}

std::string CudaExecutor::report_json() const {
  const Impl& m = *impl_;
  const cuda::SearchParams& sp = m.ds.search;
  return fmt::format(
      "\"domains\": 1,\n  \"gpu\": \"{}\",\n  \"gpu_pair_list\": \"{}\",\n  \"gpu_lanes_per_atom\": {},\n"
      "  \"gpu_grid\": [{}, {}, {}],\n"
      "  \"gpu_list_entries_per_lane\": {},\n  \"gpu_list_entries_per_lane_max\": {},\n"
      "  \"gpu_every_step_timed\": {},\n  {}",
      // The atom-pair list's lanes and sizes; null where the cluster list replaces it.
      m.gpu_name, m.cluster ? "cluster" : "atom", m.cluster ? "null" : std::to_string(m.ds.tpa), sp.nc[0],
      sp.nc[1], sp.nc[2], m.cluster ? "null" : std::to_string(m.ds.cap_groups * cuda::kListGroup),
      m.cluster ? "null" : std::to_string(m.max_groups * cuda::kListGroup),
      m.every_step_timed ? "true" : "false", m.timing.json());
}

}  // namespace halomd
