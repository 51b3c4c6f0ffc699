#include "cuda/cuda_dd_executor.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <utility>

#include "comm/gpu/gpu_halo.h"
#include "comm/plan_build.h"
#include "core/env.h"
#include "core/errors.h"
#include "core/heap.h"
#include "core/parallel.h"
#include "cpu/dd_domain.h"
#include "cpu/pair_interaction.h"
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
#include "domdec/assignment.h"
#include "domdec/drift.h"
#include "domdec/halo_plan.h"
#include "gpu/cuda_check.h"
#include "gpu/step_graph.h"
#include "gpu/upload.h"

namespace halomd {
namespace {

using cuda::StepState;

// The default of HALOMD_DD_SKIN (nm): how far the atoms may drift from where they were at the last
// repartition before the next neighbour search must repartition again (domdec/drift.h: displacement plus
// distance outside the cell within 2 skin). Measured on one H200, 4 domains (bench/NOTES.md): with that
// rule (sixteenth session) 0.45 / 0.35 / 0.30 gave 45k nvshmem 924-929 / 907 / 902 ns/day with 7 / 12 / 16
// repartitions in 3,000 steps, 9k 1,968-1,991 / 1,963 / 1,932; mpi_staged gained from the thinner halo
// (326 -> 351 at 45k), nvshmem did not. With the older rule (every atom within the skin), 45k nvshmem:
// 0.2 / 0.3 / 0.45 gave 430 / 530 / 569 ns/day with 94 / 40 / 17 repartitions in 301 searches (sixth
// session); 0.3 / 0.45 / 0.6 / 0.75 gave 615 / 673 / 689 / 692 with 40 / 17 / 9 / 5 (ninth session), but
// in one benchmark call 0.6 gave nvshmem only +0.3% and cost the other transports 4-11% (their steps pay
// more for the larger halo). Domains too narrow for the skin's halo get the largest skin that fits
// (kSkinStep).
constexpr double kDefaultSkin = 0.45;
// The skin is lowered in steps of this much (nm) until the grid accepts its halo range (usable_range).
constexpr double kSkinStep = 0.05;

// Room in the search box of a decomposed dimension beyond the domain's local atoms at the search: their
// drift until the next search and growth of the molecule margin. The skin check bounds how much further
// the local atoms spread than at the repartition by 2 skin (domdec/drift.h); the room is at least that.
constexpr double kSearchPad = 1.0;  // nm
// The molecule margin enters the search box rounded up to a multiple of this, so that the box, and with it
// the cell grid and the float position of every atom beyond the box's end, does not follow the small changes
// of the margin between the start of a run and a continuation of it (water's O-H distances go from the .gro
// file's three decimals, 0.1012 nm in spce_9k, to SETTLE's 0.1): a continuation searches in the same box.
constexpr double kMarginQuantum = 0.25;  // nm

// The default of HALOMD_DD_SPECULATE (device-initiated transports): a search does not wait for its skin
// check while the last check found every atom within this fraction of the skin (0: always wait). The
// check is then verified at the next point where the host waits anyway, and a failed one rolls the window
// back (Impl::settle_speculation).
constexpr double kDefaultSpeculate = 0.8;

// The default of HALOMD_DD_AHEAD: off. With it (a fraction of the skin), once a skin check finds an atom
// beyond that fraction, a thread builds the next plan from the positions of the next GPU-only search while
// the steps run on (CudaDdExecutor::Impl::Ahead). Measured on one H200 with 4 domains (bench/NOTES.md,
// fourteenth session), it lost: nvshmem at 45k 856 -> 808 ns/day with 0.6 and 870 -> 655-696 with 0.8,
// 9k 1,921 -> 1,010 with 0.8; the threads' collectives waited for each other for milliseconds, and a plan
// committed a few windows after its positions lives shorter, so commits came 1.4-2.5x as often as the
// repartitions they replaced.
constexpr double kDefaultAhead = 0.0;
// The default of HALOMD_DD_AHEAD_SEARCHES: the plan built ahead replaces the current one at this many
// searches after the one whose positions it partitions. The thread has the GPU time of one window less than
// that to do a repartition's host work (~4 ms at 45k, 4 domains on one H200; a window is ~1.9 ms there),
// and the atoms move for that many windows before the plan takes over.
constexpr int kDefaultAheadSearches = 4;

// The most list lanes per atom when several ranks share the GPU. Their domains' rows are home and halo rows,
// and many halo rows have short lists, which more lanes split further. Measured on one H200 with 4 domains
// of spce_9k (nvshmem, bench/NOTES.md, fourteenth session): 4 / 8 / 16 lanes against the 32 of the
// whole-GPU rule gave +10% / +16% / +14% ns/day. At 45k that rule already gives 8; there 4 and 16 lost 2% and
// 11%.
constexpr int kSharedGpuMaxLanes = 8;

}  // namespace

class CudaDdExecutor::Impl {
 public:
  Impl(const ExecutorConfig& config, std::unique_ptr<comm::GpuHaloTransport> t, const domdec::DdGrid& req)
      : cfg(config),
        top(*config.top),
        mdp(*config.mdp),
        transport(std::move(t)),
        host(transport->host()),
        requested(req) {
    HALOMD_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    HALOMD_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    gpu_name = prop.name;
    gpu_key = static_cast<int64_t>(prop.pciDomainID) << 16 | prop.pciBusID << 8 | prop.pciDeviceID;
    multiprocessors = prop.multiProcessorCount;
    // Every environment value is read before any stream or event is made, so that a bad one leaks nothing.
    // enqueue_step says what the overlap modes do; bench/NOTES.md (thirteenth session) what they measured.
    overlap = env_int("HALOMD_DD_OVERLAP", transport->device_initiated() ? 2 : 1);
    if (overlap < 0 || overlap > 3)
      throw InputError("", 0, "HALOMD_DD_OVERLAP must be 0, 1, 2 or 3, not " + std::to_string(overlap));
    // HALOMD_DD_PRIORITY: 0: every stream at the default priority; 1 (host-orchestrated transports): the
    // main stream (the halos, the boundary rows, the update) at the highest, the interior rows' side stream
    // at the lowest; 2 (device-initiated transports): only the halo rows and the force halo (their own
    // stream `urgent` in overlap 2) at the highest, everything else at the lowest. With 1 and overlap 2,
    // a rank's coordinate halo and update at the highest priority arrived while the other ranks' home rows
    // ran at the lowest, and the halo took 48 us instead of 22 at 45k (bench/NOTES.md, thirteenth session).
    // The graphs keep the streams' priorities per kernel.
    priority = env_int("HALOMD_DD_PRIORITY", transport->device_initiated() ? 2 : 1);
    if (priority < 0 || priority > 2)
      throw InputError("", 0, "HALOMD_DD_PRIORITY must be 0, 1 or 2, not " + std::to_string(priority));
    ahead_below = std::max(0.0, env_number("HALOMD_DD_AHEAD", kDefaultAhead));
    ahead_searches = env_int("HALOMD_DD_AHEAD_SEARCHES", kDefaultAheadSearches);
    if (ahead_searches < 1)
      throw InputError("", 0,
                       "HALOMD_DD_AHEAD_SEARCHES must be at least 1, not " + std::to_string(ahead_searches));
    skin = skin_asked = std::max(0.0, env_number("HALOMD_DD_SKIN", kDefaultSkin));
    speculate_below = transport->device_initiated()
                          ? std::max(0.0, env_number("HALOMD_DD_SPECULATE", kDefaultSpeculate))
                          : 0.0;
    every_step_timed = env_number("HALOMD_GPU_TIMING", 0) != 0;
    // HALOMD_DD_SEARCH_GRAPH (default 1): a GPU-only search step of a device-initiated transport is one
    // graph launch (enqueue_search_step); 0: kernel by kernel, as before (bench/NOTES.md, twentieth session).
    search_graphs = env_int("HALOMD_DD_SEARCH_GRAPH", 1) != 0;
    // HALOMD_DD_DIRECT=1: direct halo pulses where every decomposed dimension needs one pulse
    // (domdec/halo_plan.h): each zone straight from its owner, no pulse forwarding another's atoms, so the
    // update can pack and release every pulse (bench/NOTES.md, twentieth session).
    direct = env_int("HALOMD_DD_DIRECT", 0) != 0;
    // HALOMD_DD_PCOUPL_REPARTITION=1: every pressure-coupling step repartitions in the new box, as before the
    // plan was reboxed in place (scale(); the scaling itself is on the device either way).
    pcoupl_repartitions = env_int("HALOMD_DD_PCOUPL_REPARTITION", 0) != 0;
    // HALOMD_HEAP_RESERVE_MB: heap faulted in up front for the repartitions' growing vectors (core/heap.h);
    // by default 4 KiB per atom of a rank's share, 16 to 256 MiB (~45 MiB at 45k atoms on 4 ranks); 0: none.
    const int reserve_mb = env_int("HALOMD_HEAP_RESERVE_MB", -1);
    if (reserve_mb < -1 || reserve_mb > 65536)
      throw InputError("", 0, "HALOMD_HEAP_RESERVE_MB must be 0 to 65536, not " + std::to_string(reserve_mb));
    heap_reserve = reserve_mb >= 0
                       ? static_cast<size_t>(reserve_mb) << 20
                       : std::clamp<size_t>(size_t{4096} * static_cast<size_t>(top.num_atoms()) /
                                                static_cast<size_t>(std::max(1, host.num_ranks())),
                                            size_t{16} << 20, size_t{256} << 20);
    // HALOMD_HEAP_HUGE_PAGES (default 1): the reserve marked for transparent huge pages (core/heap.h).
    prefault_heap(heap_reserve, env_int("HALOMD_HEAP_HUGE_PAGES", 1) != 0);
    flip_reduce_at = static_cast<int64_t>(env_number("HALOMD_TEST_FLIP_REDUCE_AT", -1));
    fail_check_at = static_cast<int64_t>(env_number("HALOMD_TEST_FAIL_SKIN_CHECK_AT", -1));
    int least = 0, greatest = 0;
    if (priority != 0) HALOMD_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    calls.create_stream(priority == 1 ? greatest : least);
    HALOMD_CUDA_CHECK(cudaStreamCreateWithPriority(&urgent, cudaStreamNonBlocking, greatest));
    graph_reduce.use_node_priority(priority != 0);
    graph_plain.use_node_priority(priority != 0);
    search_graph_reduce.use_node_priority(priority != 0);
    search_graph_plain.use_node_priority(priority != 0);
    // Listed interactions, LINCS or virtual sites: update groups, as the CPU decomposition has them (a
    // protein's halo margin is then a CH3 group's, not its extent), with the local topology's index (which
    // gives each domain its home sites); otherwise whole molecules (water: the same groups), whose exclusions
    // are all home pairs.
    if (!top.bonded.empty() || !top.constraints.empty() || !top.vsites.empty()) {
      first_atom =
          domdec::update_group_first_atoms(top.num_atoms(), top.settles, top.constraints, top.vsites);
      topo_index = std::make_unique<LocalTopologyIndex>(make_local_topology_index(top, first_atom));
      // The whole topology's grouping, once: the errors of lincs_layout (a group too large for a block, an
      // atom in SETTLE and LINCS) before any step rather than at a repartition.
      if (!top.constraints.empty()) (void)cuda::lincs_layout(top);
      if (!top.vsites.empty()) (void)cuda::vsite_layout(top);  // sites built from sites: refused here
    } else {
      first_atom = domdec::first_atoms(top.molecule);
    }
    for (double m : top.mass) total_mass += m;
    hst.allocate(1, "step state (host staging)");
    first_step_gpu.create();
    mid_step_gpu.create();
    search_gpu.create();
    search_graph_gpu.create();
    repart_gpu.create();
    HALOMD_CUDA_CHECK(cudaStreamCreateWithPriority(&side, cudaStreamNonBlocking, least));
    if (mdp.coulombtype == CoulombType::Pme) {
      HALOMD_CUDA_CHECK(cudaStreamCreateWithPriority(&mesh_stream, cudaStreamNonBlocking, least));
      HALOMD_CUDA_CHECK(cudaEventCreateWithFlags(&ev_mesh_fork, cudaEventDisableTiming));
      HALOMD_CUDA_CHECK(cudaEventCreateWithFlags(&ev_mesh_join, cudaEventDisableTiming));
    }
    HALOMD_CUDA_CHECK(cudaEventCreateWithFlags(&ev_urgent, cudaEventDisableTiming));
    HALOMD_CUDA_CHECK(cudaEventCreateWithFlags(&ev_fork, cudaEventDisableTiming));
    HALOMD_CUDA_CHECK(cudaEventCreateWithFlags(&ev_join, cudaEventDisableTiming));
    HALOMD_CUDA_CHECK(cudaEventCreateWithFlags(&ev_halo, cudaEventDisableTiming));
    HALOMD_CUDA_CHECK(cudaEventCreateWithFlags(&ev_spec, cudaEventDisableTiming));
    HALOMD_CUDA_CHECK(cudaEventCreateWithFlags(&ev_ahead, cudaEventDisableTiming | cudaEventBlockingSync));
    spec_disp.allocate(2, "skin check (host staging)");
    snap_st.allocate(1, "step state at a speculative search");
    if (every_step_timed) timing.create(256);
    ds.interior_cells = overlap == 1 || overlap == 3;  // only the interior passes read the cells' classes
    ds.row_lists = overlap >= 2;                       // only the home and halo passes read the rows by kind
  }
  ~Impl() {
    if (ahead.worker.joinable()) ahead.worker.join();  // its collectives end: every rank's thread runs them
    if (ev_ahead) (void)cudaEventDestroy(ev_ahead);
    if (ev_fork) (void)cudaEventDestroy(ev_fork);
    if (ev_join) (void)cudaEventDestroy(ev_join);
    if (ev_halo) (void)cudaEventDestroy(ev_halo);
    if (ev_spec) (void)cudaEventDestroy(ev_spec);
    if (side) (void)cudaStreamDestroy(side);
    if (mesh_stream) (void)cudaStreamDestroy(mesh_stream);
    if (ev_mesh_fork) (void)cudaEventDestroy(ev_mesh_fork);
    if (ev_mesh_join) (void)cudaEventDestroy(ev_mesh_join);
    if (urgent) (void)cudaStreamDestroy(urgent);
    if (ev_urgent) (void)cudaEventDestroy(ev_urgent);
    first_step_gpu.destroy();
    mid_step_gpu.destroy();
    search_gpu.destroy();
    search_graph_gpu.destroy();
    repart_gpu.destroy();
  }

  // The step's kernels after the search (which placed the halo, or exchanged it before a GPU-only search):
  // non-bonded forces, the force halo back, the update, the reduction over domains, the end of the step.
  // Every row in one pass, whatever the overlap mode: an energy step's sums then come out the same in every
  // mode, as the bitwise test compares them (energy steps usually are search steps). Splitting it as
  // overlap 2 splits a regular step gained nothing (bench/NOTES.md, fourteenth session, section 3).
  void enqueue_forces_and_update(bool energy, bool reduce) {
    fork_mesh(energy);
    cuda::launch_nonbonded(calls, ds.nonbonded, energy);
    if (mesh_after_pairs()) enqueue_mesh(energy);
    search_mark(kSearchForces);
    exchange_forces(energy);
    search_mark(kSearchHaloF);
    enqueue_update(energy, reduce);
  }

  // A GPU-only search step without energies, recorded as a graph (search_graph_reduce/_plain) after each
  // repartition: the coordinate halo of the current plan, the pair search, then the step's kernels. Its
  // kernels read everything that changes between the window's searches from device memory, as the regular
  // step's do; the plan, the buffers and the search's arguments change only at a repartition.
  void enqueue_search_step(bool reduce) {
    enqueue_exchange_x();
    cuda::launch_pair_search(calls, ds.search);
    enqueue_forces_and_update(false, reduce);
  }

  // reduce: the step's sums are summed over domains at its end (reduce_at). Otherwise the update kernel
  // ends the step itself, and neither the reduction nor finish_dd_step is enqueued.
  void enqueue_update(bool energy, bool reduce) {
    if (pme.active()) {
      calls.join(mesh_stream, ev_mesh_join);
      pme.enqueue_gather(calls, ds);  // the home atoms' mesh forces onto their pair forces
    }
    // Virtual sites: each home site's force (its pair, mesh and listed forces and what the force halo
    // brought back) onto its atoms, which are home too (one update group), before the update; after it, the
    // sites placed again from them, before the next step's coordinate halo sends them.
    if (vsites.active()) vsites.enqueue_spread(calls, ds, energy);
    cuda::launch_update(calls, ds.update, energy, reduce ? 1 : 0);
    if (vsites.active()) vsites.enqueue_construct(calls, ds);
    // The listed energies and virial of an energy step, summed over the domains on the device.
    if (energy && listed.active())
      transport->reduce(calls, ds.st.get()->listed_acc, cuda::ListedGpu::kAccCount, &ds.st.get()->one, true);
    if (reduce) {
      transport->reduce(calls, ds.st.get()->red, cuda::kRedCount, &ds.st.get()->red_active, true);
      // Each tc-grps group's kinetic energy and each comm-grps group's momentum (zero but at COM-removal
      // steps), adjacent in the step state: one reduction for both (on a host-orchestrated transport each is
      // a host wait and an MPI exchange).
      const int tc = ds.update.ngroups, comm = 3 * ds.update.ncomm;
      if (tc > 0 || comm > 0) {
        static_assert(offsetof(StepState, comm_red) ==
                      offsetof(StepState, group_red) + cuda::kMaxTcGroups * sizeof(long long));
        StepState* st = ds.st.get();
        transport->reduce(calls, tc > 0 ? st->group_red : st->comm_red,
                          comm == 0 ? tc : (tc > 0 ? cuda::kMaxTcGroups : 0) + comm, &st->red_active, true);
      }
      cuda::launch_finish_dd_step(calls, ds.update, energy);
    }
    mark(kEnd);
  }

  // coulombtype = PME: the mesh part on its own stream, forked from where it is enqueued (it reads the home
  // atoms' x(n) only), joined before the update (enqueue_update gathers). Each domain spreads its home atoms,
  // the charge grid is summed over the domains in 64-bit fixed point (GpuHaloTransport::sum_grid: the same
  // grid as one domain's), and every domain transforms and solves the whole grid itself: no atom crosses to a
  // PME rank, at the price of the transforms on every GPU (bench/NOTES.md, twenty-seventh session). Every
  // domain gets the whole mesh's Coul. recip. and virial, so these are not summed over domains. With a
  // host-orchestrated transport the mesh's kernels are enqueued after the pair kernels, before the force halo
  // (its stream forked at the step's start all the same): the host then sums the charge grid while they run,
  // and the coordinate halo has not waited for it.
  bool mesh_after_pairs() const { return !transport->device_initiated(); }
  void fork_mesh(bool energy) {
    if (!pme.active()) return;
    calls.fork(mesh_stream, ev_mesh_fork);
    if (!mesh_after_pairs()) enqueue_mesh(energy);
  }
  void enqueue_mesh(bool energy) {
    if (!pme.active()) return;
    const gpu::GpuCalls::Use on(calls, mesh_stream);
    pme.enqueue_mesh(calls, ds, energy,
                     [this](gpu::GpuCalls& c, unsigned long long* grid) { transport->sum_grid(c, grid); });
  }

  // The force halo, with the listed interactions around it: their forces on halo atoms join the halo rows'
  // non-bonded forces before it sends them to their owners, those on home atoms go into f_halo after it has
  // added what came back (f_halo's sum order is the transports' contract, so every transport gives the same
  // bits). The listed kernel needs only the coordinate halo, which the halo rows already waited for.
  void exchange_forces(bool energy) {
    if (listed.active()) listed.enqueue_domain_halo(calls, ds, num_home, energy);
    transport->exchange_f(calls);
    if (listed.active()) listed.enqueue_domain_home(calls, ds, num_home);
  }

  // The coordinate halo; the transports' unpacking also writes the received atoms' sorted non-bonded records
  // (GpuLocalArrays::xq).
  void enqueue_exchange_x() { transport->exchange_x(calls); }

  // A step between searches, by `overlap` (HALOMD_DD_OVERLAP; bench/NOTES.md, thirteenth session, has
  // what each measured):
  // 0: every row's forces after the coordinate halo, in one pass, then the force halo.
  // 1 (host-orchestrated transports): the interior rows (home atoms whose neighbours are all home) on the
  //    side stream while the coordinate halo moves; the other rows after it; the force halo once both are
  //    done.
  // 2 (device-initiated transports): after the coordinate halo, the halo rows and right after them the
  //    force halo on the main stream, while every home row runs on the side stream. The force halo writes
  //    only f_halo (the returned forces, summed apart), which no non-bonded pass touches, so it need not
  //    wait for the home rows; the update waits for both. Nothing runs beside the coordinate halo: interior
  //    rows there slowed it by more than they hid (on one GPU; mode 3 is that option).
  // 3 (an option): as 2, with the interior home rows on the side stream beside the coordinate halo, which
  //    runs on the highest-priority stream with the halo rows and the force halo; then the other home rows.
  void enqueue_step(bool energy, bool reduce) {
    fork_mesh(energy);
    if (overlap == 0) {
      mark(kInterior);
      enqueue_exchange_x();
      mark(kHaloX);
      cuda::launch_nonbonded(calls, ds.nonbonded, energy);
      if (mesh_after_pairs()) enqueue_mesh(energy);
      mark(kHaloRows);
      mark(kBoundary);
      exchange_forces(energy);
      mark(kHaloF);
      mark(kJoined);
      enqueue_update(energy, reduce);
      return;
    }
    if (overlap >= 2) {
      const bool interior_first = overlap == 3;
      if (!interior_first) {
        mark(kInterior);
        enqueue_exchange_x();
        mark(kHaloX);
      }
      calls.fork(urgent, ev_fork);
      calls.fork(side, ev_fork);
      if (interior_first) {
        {
          const gpu::GpuCalls::Use on(calls, side);
          cuda::launch_nonbonded(calls, ds.nonbonded, energy, cuda::kInteriorAtoms);
          mark(kInterior);
        }
        const gpu::GpuCalls::Use on(calls, urgent);
        enqueue_exchange_x();
        mark(kHaloX);
        calls.fork(side, ev_halo);  // the other home rows need the halo
      }
      {
        // The home rows first: a host-orchestrated force halo blocks the host until it is done.
        const gpu::GpuCalls::Use on(calls, side);
        cuda::launch_nonbonded(calls, ds.nonbonded, energy,
                               interior_first ? cuda::kHomeBoundaryAtoms : cuda::kHomeAtoms);
        mark(kBoundary);
      }
      {
        const gpu::GpuCalls::Use on(calls, urgent);
        cuda::launch_nonbonded(calls, ds.nonbonded, energy, cuda::kHaloAtoms);
        if (mesh_after_pairs()) enqueue_mesh(energy);
        mark(kHaloRows);
        exchange_forces(energy);
        mark(kHaloF);
      }
      calls.join(urgent, ev_urgent);
      calls.join(side, ev_join);
      mark(kJoined);
      enqueue_update(energy, reduce);
      return;
    }
    calls.fork(side, ev_fork);
    {
      const gpu::GpuCalls::Use on(calls, side);
      cuda::launch_nonbonded(calls, ds.nonbonded, energy, cuda::kInteriorAtoms);
      mark(kInterior);
    }
    enqueue_exchange_x();
    mark(kHaloX);
    cuda::launch_nonbonded(calls, ds.nonbonded, energy, cuda::kBoundaryAtoms);
    if (mesh_after_pairs()) enqueue_mesh(energy);
    mark(kHaloRows);
    mark(kBoundary);
    calls.join(side, ev_join);
    exchange_forces(energy);
    mark(kHaloF);
    mark(kJoined);
    enqueue_update(energy, reduce);
  }

  // Records `graph` when a repartition invalidated it (StepGraph::prepare), before any timing event of its
  // step, counting the host time of the recording (graph_record_us_mean).
  template <class Record>
  void prepare_graph(gpu::StepGraph& graph, Record&& record) {
    const int64_t before = graph.instantiations() + graph.updates();
    const auto t0 = std::chrono::steady_clock::now();
    graph.prepare(calls, record);
    if (graph.instantiations() + graph.updates() != before) {
      graph_record_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      ++graph_records;
    }
  }

  // The plan's pulses are direct ones (some pulse crosses two dimensions at once).
  bool direct_plan() const {
    for (const domdec::Pulse& p : dom.plan.pulses)
      if (p.offset.x + p.offset.y + p.offset.z > 1) return true;
    return false;
  }

  // HALOMD_GPU_TIMING=1: every regular step runs kernel by kernel (no graph) with CUDA events between its
  // phases; the events are read at the next host wait (sync_state) and reported as gpu_phase_us. Every mark
  // is recorded in every overlap mode (some at the same point); "joined" is where the update may start.
  enum Mark { kStart, kInterior, kHaloX, kHaloRows, kBoundary, kHaloF, kJoined, kEnd };
  static const cuda::GpuTiming::PhaseTable& regular_phases() {
    static const cuda::GpuTiming::PhaseTable table{{"nonbonded_interior", kStart, kInterior},
                                                   {"x_halo", kStart, kHaloX},
                                                   {"nonbonded_halo_rows", kHaloX, kHaloRows},
                                                   {"nonbonded_boundary", kHaloX, kBoundary},
                                                   {"f_halo", kHaloRows, kHaloF},
                                                   {"joined", kStart, kJoined},
                                                   {"update_reduce", kJoined, kEnd},
                                                   {"step_regular", kStart, kEnd}};
    return table;
  }
  void mark(int k) {
    if (timed_sample) calls.record(timed_sample->ev[k]);
  }

  // The host's copy of the device's decision (update.cu reduce_at): whether the step's sums are summed
  // over domains at its end.
  bool reduce_at(int64_t s, bool energy) const {
    const bool tc_next = cuda::scheduled_request(ds.update, s + 1).tcouple;
    const bool comm = cuda::scheduled_request(ds.update, s).comm;
    return (energy || tc_next || comm) != (s == flip_reduce_at);
  }

  // KE(n - 1/2) of the whole system, when the last step did not sum it over domains.
  void reduce_ke_prev() {
    if (ke_prev_global) return;
    cuda::launch_stage_ke_prev(calls, ds.st.get());
    transport->reduce(calls, ds.st.get()->red + cuda::kRedKe, 6, &ds.st.get()->one, true);
    cuda::launch_take_ke_prev(calls, ds.st.get());
    if (const int groups = ds.update.ngroups; groups > 0) {
      cuda::launch_stage_group_ke_prev(calls, ds.st.get(), groups);
      transport->reduce(calls, ds.st.get()->group_red, groups, &ds.st.get()->one, true);
      cuda::launch_take_group_ke_prev(calls, ds.st.get(), groups);
    }
    ke_prev_global = true;
  }

  void sync_state() {
    calls.copy_async(hst.get(), ds.st.get(), sizeof(StepState), cudaMemcpyDeviceToHost);
    calls.sync();
    timing.harvest();
    transport->check_errors();
    const StepState& h = hst[0];
    pairs = static_cast<size_t>(h.list_pairs / 2);
    cuda::throw_if_error(h, dom.plan.global);
    if (h.reduce_mismatch != 0)
      throw RuntimeError(h.reduce_mismatch - 1, -1,
                         "internal error: the host and the device disagree on whether this step sums over "
                         "domains (cuda_dd_executor.cpp reduce_at, update.cu reduce_at)");
  }

  // The centre-of-mass velocity the next update removes from home atom i (the step state as last copied
  // back: download_home), whose checkpoint or frame takes it off.
  Vec3 pending_vcm(size_t i) const {
    return cuda::pending_vcm(hst[0], ds.update, cfg.comm_group ? (*cfg.comm_group)[dom.home[i]] : 0);
  }

  // Home atoms' x (global frame) and v from the device into dom.x, dom.v; waits.
  void download_home(bool with_v) {
    const size_t nh = static_cast<size_t>(num_home);
    for (int d = 0; d < 3; ++d) {
      calls.copy_async(hx.get() + d * nh, ds.x[d].get(), nh * sizeof(double), cudaMemcpyDeviceToHost);
      if (with_v)
        calls.copy_async(hv.get() + d * nh, ds.v[d].get(), nh * sizeof(double), cudaMemcpyDeviceToHost);
    }
    sync_state();
    to_global_frame(hx.get(), nh, dom.image, cfg.box, dom.x, host_threads);
    if (with_v)
      parallel_for(static_cast<int64_t>(nh), host_threads, [&](int64_t i) {
        dom.v[i] = {hv[i], hv[nh + i], hv[2 * nh + i]};
      });
  }
  // x[i] = the home atom i's position in the global frame, from h (its domain-frame x, y, z components,
  // nh apart, as downloaded) and its image.
  static void to_global_frame(const double* h, size_t nh, const std::vector<domdec::IVec3>& image,
                              const Box& box, std::vector<Vec3>& x, int threads) {
    parallel_for(static_cast<int64_t>(nh), threads, [&](int64_t i) {
      const domdec::IVec3& k = image[i];
      x[i] = domdec::shifted(Vec3{h[i], h[nh + i], h[2 * nh + i]}, domdec::IVec3{-k.x, -k.y, -k.z}, box);
    });
  }

  // Host wall time of the search's parts (report_json): lap(k) adds the time since the last lap to part k.
  // plan_mpi is the part of build_plans spent in the transport's exchanges (taken out of plan); at a commit
  // of a plan built ahead (commit_ahead), the halo positions' exchange. ahead_join: the wait for that thread.
  static constexpr const char* kParts[] = {"download",    "departures",  "migrate_mpi", "set_home",
                                           "margin_max",  "plan",        "topology",    "upload",
                                           "launch_bind", "search_wait", "frame",       "plan_mpi",
                                           "local_atoms", "positions",   "list_size",   "ahead_join"};
  enum Part {
    kDownload,
    kDepartures,
    kMigrateMpi,
    kSetHome,
    kMarginMax,
    kPlan,
    kTopology,
    kUpload,
    kLaunchBind,
    kSearchWait,
    kFrame,
    kPlanMpi,
    kLocalAtoms,
    kPositions,
    kListSize,
    kAheadJoin,
    kPartCount
  };
  static constexpr int kNumParts = sizeof(kParts) / sizeof(kParts[0]);
  static_assert(kNumParts == kPartCount, "one name per part");
  void lap(int k) {
    const auto now = std::chrono::steady_clock::now();
    if (k >= 0) search_part_s[k] += std::chrono::duration<double>(now - last_mark).count();
    last_mark = now;
  }
  void lap(Part k) { lap(static_cast<int>(k)); }

  // The GPU samples (EventSample), read at a search, when the host waits anyway, or later: a sample whose
  // end has not run yet (a speculative search does not wait for the device) stays pending, and no new one of
  // its kind starts meanwhile.
  void harvest_step_events() {
    first_step_gpu.harvest();
    mid_step_gpu.harvest();
    search_gpu.harvest();
    search_graph_gpu.harvest();
    repart_gpu.harvest();
  }
  // The GPU time of a search step from its coordinate halo to its end, by phase (SearchMark). A GPU-only
  // search: the halo, the pair search, the forces, the force halo and the update; a repartition: the same
  // without the pair search, which ran during its bind (its phase reads 0).
  enum SearchMark { kSearchBegin, kSearchHaloX, kSearchList, kSearchForces, kSearchHaloF, kSearchEnd };
  static constexpr const char* kSearchPhases[kSearchEnd] = {"x_halo", "pair_search", "nonbonded", "f_halo",
                                                            "update"};
  static constexpr const char* kStepPhase[1] = {"step"};
  // CUDA events around a kind of step and its kPhases phases (mark k ends phase k - 1), sampled whenever the
  // last sample of that kind has been read; the sums by phase, the mean in json().
  template <int kPhases>
  struct EventSample {
    static constexpr int kEnd = kPhases, kMarks = kPhases + 1;
    const char* const* names;
    cudaEvent_t ev[kMarks] = {};
    bool pending = false;
    bool now = false;  // the step being enqueued is sampled
    double phase_s[kPhases] = {};
    int64_t samples = 0;
    explicit EventSample(const char* const* phase_names) : names(phase_names) {}
    void create() {
      for (cudaEvent_t& e : ev) HALOMD_CUDA_CHECK(cudaEventCreate(&e));
    }
    void destroy() {
      for (cudaEvent_t e : ev)
        if (e) (void)cudaEventDestroy(e);
    }
    void start(gpu::GpuCalls& calls) {
      now = !pending;
      if (now) calls.record(ev[0]);
    }
    void mark(gpu::GpuCalls& calls, int k) {
      if (now) calls.record(ev[k]);
    }
    void stop(gpu::GpuCalls& calls) {
      if (!now) return;
      calls.record(ev[kEnd]);
      pending = true;
      now = false;
    }
    // The sample, when its end has run (a failed query drops it; the error reports at the next sync).
    void harvest() {
      if (!pending) return;
      const cudaError_t ready = cudaEventQuery(ev[kEnd]);
      if (ready == cudaErrorNotReady) return;
      pending = false;
      double part[kPhases] = {};
      for (int k = 0; k < kPhases; ++k) {
        float ms = 0.f;
        if (ready != cudaSuccess || cudaEventElapsedTime(&ms, ev[k], ev[k + 1]) != cudaSuccess) {
          (void)cudaGetLastError();
          return;
        }
        part[k] = 1e-3 * ms;
      }
      for (int k = 0; k < kPhases; ++k) phase_s[k] += part[k];
      ++samples;
    }
    // The mean of a sample (us), all phases.
    double mean_us() const {
      double total = 0.0;
      for (double p : phase_s) total += p;
      return samples > 0 ? 1e6 * total / samples : 0.0;
    }
    std::string json() const {
      std::string phases;
      for (int k = 0; k < kPhases; ++k)
        phases += fmt::format("{}\"{}\": {:.1f}", k > 0 ? ", " : "", names[k],
                              samples > 0 ? 1e6 * phase_s[k] / samples : 0.0);
      return fmt::format("{{\"us\": {:.1f}, \"samples\": {}, \"phases_us\": {{{}}}}}", mean_us(), samples,
                         phases);
    }
  };
  using SearchSample = EventSample<kSearchEnd>;
  SearchSample* sampling = nullptr;  // the search step being enqueued, when sampled
  void search_mark(SearchMark k) {
    if (sampling) sampling->mark(calls, k);
  }
  static constexpr int kMidStep = 5;

  // The halo plan's range: pairs within rlist + 2 skin at the repartition, so that it still holds every pair
  // within rlist while no atom has moved more than the skin.
  domdec::HaloRange plan_range(double margin) const {
    return {mdp.rlist + 2.0 * skin, margin + domdec::kMarginSlack};
  }

  // The plan range that `check` (a grid check, throwing InputError) accepts: with the skin, or, when the
  // domains are too narrow for the skin's wider halo, with the largest skin below it (in kSkinStep steps,
  // down to 0: a repartition at every search) that they take, from then on.
  template <class Check>
  domdec::HaloRange usable_range(double margin, Check&& check) {
    for (;;) {
      try {
        const domdec::HaloRange r = plan_range(margin);
        check(r);
        // Halo atoms start at least a cell width less the margin above the domain's lower edge and drift
        // down by at most the skin (domdec/drift.h). Below that edge a halo row's float position would wrap
        // to the top of the search box, where the window clipped at partner_ext (pairsearch.cu) is empty:
        // cells must be wider than margin + skin (only very thin slabs, e.g. --dd 10 1 1 at 4.5 nm, are not).
        for (int d = 0; d < 3; ++d)
          if (skin > 0.0 && grid.n[d] > 1 && cfg.box.len[d] / grid.n[d] <= r.margin + skin + kSkinStep)
            throw InputError("", 0,
                             fmt::format("cells {:.3f} nm wide in {} leave no room for a skin of {:.2f} nm",
                                         cfg.box.len[d] / grid.n[d], "xyz"[d], skin));
        return r;
      } catch (const InputError& e) {
        if (skin <= 0.0) throw;
        const double lower = skin_asked - kSkinStep * (std::round((skin_asked - skin) / kSkinStep) + 1.0);
        const double before = skin;
        skin = lower > 0.5 * kSkinStep ? lower : 0.0;
        if (host.rank() == 0)
          fmt::print(stderr,
                     "halomd: the DD skin is lowered from {:.2f} to {:.2f} nm for the rest of the run ({})\n",
                     before, skin, e.what());
      }
    }
  }

  // The skin check's two maxima over the home atoms (domdec/drift.h): the largest displacement since the
  // plan's positions and the largest distance outside the cell widened by the plan's margin, into
  // st->disp2_bits and st->beyond_bits.
  void launch_skin_check() {
    const double* const x0[3] = {x_plan[0].get(), x_plan[1].get(), x_plan[2].get()};
    cuda::CellLimits cell{};
    for (int d = 0; d < 3; ++d) {
      const bool split = grid.n[d] > 1;
      // The margin scales with the box since the repartition, as the cell does (skin_left).
      const double margin = range.margin * (cfg.box.len[d] / partition_box.len[d]);
      cell.lo[d] = split ? dom.plan.lo[d] - margin : -std::numeric_limits<double>::infinity();
      cell.hi[d] = split ? dom.plan.hi[d] + margin : std::numeric_limits<double>::infinity();
    }
    cuda::launch_home_displacement(calls, ds.update, x0, num_home, cell);
  }
  // The drift measure of a check's two results, the largest over the ranks (domdec::plan_drift); the
  // largest displacement alone into *disp.
  double drift_over_ranks(unsigned long long disp2_bits, unsigned long long beyond_bits, double* disp) {
    double worst[2] = {std::sqrt(std::bit_cast<double>(disp2_bits)), std::bit_cast<double>(beyond_bits)};
    host.max(worst);
    *disp = worst[0];
    return domdec::plan_drift(worst[0], worst[1]);
  }

  // At a neighbour search after the first: whether the atoms have drifted from the plan's positions by no
  // more than the skin allows (domdec/drift.h; then the plan still holds and only the pair list is rebuilt,
  // on the GPU). Waits for the device; checks the errors of the last window on the way.
  bool plan_still_holds() {
    if (skin <= 0.0) return false;
    const auto t0 = std::chrono::steady_clock::now();
    launch_skin_check();
    sync_state();
    harvest_step_events();
    double disp = 0.0;
    const double worst = drift_over_ranks(hst[0].disp2_bits, hst[0].beyond_bits, &disp);
    check_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++checks;
    if (worst > skin_left() || step == fail_check_at) return false;
    max_drift = std::max(max_drift, worst);
    max_disp_kept = std::max(max_disp_kept, disp);
    last_worst = worst;
    return true;
  }

  // A search that keeps the plan without waiting for its skin check (HALOMD_DD_SPECULATE): allowed with a
  // device-initiated transport while the last check found every atom well within the skin.
  bool may_speculate() const {
    return speculate_below > 0.0 && skin > 0.0 && searched && !repartition_next &&
           last_worst <= speculate_below * skin_left();
  }

  // The skin the plan has left (domdec/drift.h skin_after_scaling): all of it, unless pressure coupling
  // scaled the box since the repartition (scale()).
  double skin_left() const {
    if (!box_scaled) return skin;
    double m_min = 1.0, m_max = 1.0, extent = 0.0;
    for (int d = 0; d < 3; ++d) {
      if (grid.n[d] == 1) continue;
      const double m = cfg.box.len[d] / partition_box.len[d];
      m_min = std::min(m_min, m);
      m_max = std::max(m_max, m);
      extent = std::max(extent, search_len[d]);  // the local atoms span less than their search box
    }
    return domdec::skin_after_scaling(skin, range.rlist, extent, m_min, m_max);
  }

  // The speculative search's first part: the home atoms' x, v and the step state as they are at the start
  // of this step (to run the window again from), and the skin check, whose result is copied back and read
  // at the next point where the host waits anyway (settle_speculation).
  void begin_speculation() {
    launch_skin_check();
    cuda::launch_copy_home_state(calls, live_state(), snapshot_state(), num_home);
    calls.copy_async(spec_disp.get(), &ds.st.get()->disp2_bits, 2 * sizeof(unsigned long long),
                     cudaMemcpyDeviceToHost);
    calls.record(ev_spec);
    spec_step = step;
    spec_ke_prev_global = ke_prev_global;
    ++spec_checks;
  }
  cuda::HomeState live_state() const {
    return {{ds.x[0].get(), ds.x[1].get(), ds.x[2].get()},
            {ds.v[0].get(), ds.v[1].get(), ds.v[2].get()},
            ds.st.get()};
  }
  cuda::HomeState snapshot_state() const {
    return {{snap_x[0].get(), snap_x[1].get(), snap_x[2].get()},
            {snap_v[0].get(), snap_v[1].get(), snap_v[2].get()},
            snap_st.get()};
  }

  // Before the host reads the device's state or waits for it (a search, an energy step, a save, positions):
  // the pending speculative skin check, maximum over the ranks (all of them reach the same points). When
  // some atom had left the skin, the window since that search was computed with a plan that may miss
  // pairs: every rank puts back the state of that step, repartitions there, as the waiting check would
  // have, and runs the steps again up to where it was. Either way the trajectory is the waiting check's.
  void settle_speculation(bool at_search) {
    if (spec_step < 0) return;
    const auto t0 = std::chrono::steady_clock::now();
    calls.wait(ev_spec);
    harvest_step_events();
    double disp = 0.0;
    const double worst = drift_over_ranks(spec_disp[0], spec_disp[1], &disp);
    spec_wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int64_t from = spec_step, to = step;
    spec_step = -1;
    if (worst <= skin_left() && from != fail_check_at) {
      max_drift = std::max(max_drift, worst);
      max_disp_kept = std::max(max_disp_kept, disp);
      last_worst = worst;
      return;
    }
    ++rollbacks;
    rollbacks_outside_searches += at_search ? 0 : 1;
    rollback_steps += to - from;
    --gpu_searches;    // the window's search becomes the repartition the waiting check would have made
    if (spec_graph) {  // nor was it a graph launch
      --search_graph_launches;
      --graph_searches_unsampled;
    }
    // This rank's window is done; the other ranks' exchanges into it are too (it waited for them). The
    // repartition's own exchanges (migration, plan) then order the ranks, as at any repartition.
    calls.sync();
    cuda::launch_copy_home_state(calls, snapshot_state(), live_state(), num_home);
    step = from;
    ke_prev_global = spec_ke_prev_global;
    repartition_next = true;
    for (int64_t s = from; s < to; ++s) replay(s);
  }
  // Runs step s again after a rollback: the search step of the window, then regular steps (energy steps,
  // Parrinello-Rahman steps, saves and positions settle the speculation before they run, so none lies inside
  // the window). The coupling flags are the device's schedule (scheduled_request; there is no MD loop's
  // request to check).
  void replay(int64_t s);
  void run_step(const StepRequest& r, StepEnergies* e);

  // Host wall time by part (kParts) for a search's host work, on whichever thread does it.
  struct PartClock {
    double* parts;
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    void lap(int k) {
      const auto now = std::chrono::steady_clock::now();
      parts[k] += std::chrono::duration<double>(now - last).count();
      last = now;
    }
  };

  // What a repartition builds on the host from the home atoms' positions (d.x, global frame): the new home
  // atoms (migrated through h), their images, the plan and the local topology of domain d, the atoms as the
  // device system sees them (a), and the plan's range. may_lower: the skin may be lowered for a grid too
  // narrow for its halo (usable_range); otherwise a range the grid rejects throws InputError. Collective
  // over h. Reads no member that the main thread changes while a thread builds ahead (skin, grid, search_len
  // stay as they are until the thread is joined).
  void partition(DdDomain& d, comm::HaloTransport& h, bool may_lower, PartClock& clock, int64_t at_step,
                 cuda::HostAtoms& a, domdec::HaloRange& r, std::vector<comm::AtomState>* leaving_out) {
    const Box& box = cfg.box;
    std::vector<std::vector<comm::AtomState>> leaving(1), arriving(1);
    leaving[0] = take_departures(d, grid, box, first_atom);
    d.departed = static_cast<int64_t>(leaving[0].size());
    clock.lap(kDepartures);
    h.migrate(leaving, arriving);
    clock.lap(kMigrateMpi);
    add_arrivals(d, top, std::move(arriving[0]));
    if (leaving_out) *leaving_out = std::move(leaving[0]);
    double margin = home_margin(d, first_atom);
    clock.lap(kSetHome);
    h.max({&margin, 1});
    const auto check = [&](const domdec::HaloRange& range) {
      domdec::validate_grid(grid, grid.num_domains(), box, range);
    };
    if (may_lower) {
      try {
        r = usable_range(margin, check);
      } catch (const InputError& e) {
        throw RuntimeError(at_step, -1, e.what());
      }
    } else {
      r = plan_range(margin);
      check(r);
    }
    clock.lap(kMarginMax);
    std::vector<Vec3> frame = place_home_atoms(d, box, first_atom);
    std::vector<comm::HomeAtoms> home{{d.home, d.image, frame}};
    std::vector<domdec::DomainPlan> plans;
    std::vector<std::vector<Vec3>> x_local;
    clock.lap(kFrame);
    double exchange_s = 0.0;
    comm::build_plans(h, grid, box, r, home, plans, x_local, &exchange_s, host_threads, direct);
    d.plan = std::move(plans[0]);
    d.x_local = std::move(x_local[0]);
    clock.lap(kPlan);
    clock.parts[kPlan] -= exchange_s;
    clock.parts[kPlanMpi] += exchange_s;
    build_local_interactions(d, top, host_threads, topo_index.get());
    if (topo_index) {
      const DdDomain* mine[1] = {&d};
      check_local_topology(mine, top, h, at_step, mdp.rlist, r.margin);
    }
    clock.lap(kTopology);
    const int nl = d.plan.num_local(), nh = d.plan.num_home;

    // The local atoms as the device system sees them.
    a = cuda::HostAtoms{};
    a.n = nl;
    a.qs.resize(nl);
    parallel_for(nl, host_threads, [&](int64_t i) { a.qs[i] = static_cast<float>(d.charge[i] * q_scale); });
    // Moved: the executor reads these only here (the next partition builds them again).
    a.type = std::move(d.type);
    a.excl_start = std::move(d.excl_start);
    a.excl = std::move(d.excl);
    a.mass.assign(nl, 0.0);
    a.inv_mass.assign(nl, 0.0);
    std::copy(d.mass.begin(), d.mass.end(), a.mass.begin());
    std::copy(d.inv_mass.begin(), d.inv_mass.end(), a.inv_mass.begin());
    a.zone_mask.resize(nl);
    parallel_for(nl, host_threads, [&](int64_t i) {
      const domdec::IVec3& z = d.plan.zone[i];
      a.zone_mask[i] = (z.x != 0 ? 1 : 0) | (z.y != 0 ? 2 : 0) | (z.z != 0 ? 4 : 0);
    });
    std::vector<char> in_settle(nh, 0);
    for (const Settle& w : home_waters(d, top)) {
      a.settles.push_back({w.o, w.h1, w.h2, 0, d.mass[w.o], d.mass[w.h1], w.d_oh, w.d_hh});
      in_settle[w.o] = in_settle[w.h1] = in_settle[w.h2] = 1;
    }
    // LINCS's atoms have their own blocks in the update (install lays them out).
    for (const Constraint& c : d.constraints) in_settle[c.a] = in_settle[c.b] = 1;
    for (int i = 0; i < nh; ++i)
      if (!in_settle[i]) a.free_atoms.push_back(i);
    a.listed = std::move(d.listed);
    a.constraints = d.constraints;
    a.vsites = d.vsites;
    if (cfg.tc_group) {
      a.tc_group.resize(nh);
      for (int i = 0; i < nh; ++i) a.tc_group[i] = (*cfg.tc_group)[d.home[i]];
    }
    if (cfg.comm_group) {
      a.comm_group.resize(nh);
      for (int i = 0; i < nh; ++i) a.comm_group[i] = (*cfg.comm_group)[d.home[i]];
    }

    // Every local atom must fit the search box with room for a neighbour beyond it (no false periodic pair):
    // the local atoms' extent, one pass (chunks' extents, then theirs).
    const int chunks = chunk_count(nl, host_threads);
    std::vector<Vec3> chunk_lo(chunks, Vec3{1e300, 1e300, 1e300}),
        chunk_hi(chunks, Vec3{-1e300, -1e300, -1e300});
    for_chunks(nl, chunks, [&](int64_t b, int64_t e, int k) {
      for (int64_t i = b; i < e; ++i)
        for (int dim = 0; dim < 3; ++dim) {
          chunk_lo[k][dim] = std::min(chunk_lo[k][dim], d.x_local[i][dim]);
          chunk_hi[k][dim] = std::max(chunk_hi[k][dim], d.x_local[i][dim]);
        }
    });
    for (int dim = 0; dim < 3; ++dim) {
      if (grid.n[dim] == 1) continue;
      double lo = 1e300, hi = -1e300;
      for (int k = 0; k < chunks; ++k) {
        lo = std::min(lo, chunk_lo[k][dim]);
        hi = std::max(hi, chunk_hi[k][dim]);
      }
      if (hi - lo + mdp.rlist + 0.1 > search_len[dim]) {
        // Name the atoms at both ends (home or halo, and where the domain's cell lies) for the report.
        int at_lo = 0, at_hi = 0;
        for (int i = 0; i < nl; ++i) {
          if (d.x_local[i][dim] == lo) at_lo = i;
          if (d.x_local[i][dim] == hi) at_hi = i;
        }
        const auto which = [&](int i) {
          const int g = d.plan.global[i], f = first_atom[g];
          int fl = -1;  // the first atom of its group, where it is local
          for (int j = 0; j < nl && fl < 0; ++j)
            if (d.plan.global[j] == f) fl = j;
          return fmt::format("{} atom {} at {:.3f} (its group's first atom {} at {})",
                             i < nh ? "home" : "halo", g + 1, d.x_local[i][dim], f + 1,
                             fl < 0 ? std::string("elsewhere") : fmt::format("{:.3f}", d.x_local[fl][dim]));
        };
        throw RuntimeError(
            at_step, d.plan.global[at_hi],
            fmt::format(
                "domain {}'s atoms span {:.3f} nm in dimension {}, more than its search box of {:.3f} "
                "nm allows (molecules grew too long?): {} to {}, the cell {:.3f} to {:.3f} nm",
                d.index, hi - lo, "xyz"[dim], search_len[dim], which(at_lo), which(at_hi), d.plan.lo[dim],
                d.plan.hi[dim]));
      }
    }
    clock.lap(kLocalAtoms);
  }

  // The search box: the real box in dimensions with one domain (periodic), an open extent in decomposed
  // ones, large enough that no pair is found across its periodic boundary: the domain, the halo's range and
  // margin (home atoms reach a margin below the domain), rlist and room for drift. A function of the box and
  // of what load() fixes, so that a run continued from a checkpoint searches the same grid.
  void set_search_len(const Box& box) {
    for (int d = 0; d < 3; ++d)
      search_len[d] = grid.n[d] == 1 ? box.len[d]
                                     : box.len[d] / grid.n[d] + range.rlist + 2.0 * margin_room + mdp.rlist +
                                           std::max(kSearchPad, 2.0 * skin + 0.1);
  }

  // Pressure coupling after a step: the home atoms' x (and with `velocities`, C-rescale's, their v and the
  // pending centre-of-mass velocity by 1 / mu) scaled on the device, the box into the kernels' arguments (the
  // search grid of periodic dimensions, PME, the listed interactions), and the plan reboxed in place: its
  // cells and periodic shifts from the new box (domdec::rebox_plan), bound again to the transport, the skin
  // check's reference scaled alike. The same atoms stay home and are sent: scaling is a similarity, so the
  // plan holds while the drift stays within the skin left (skin_left, domdec/drift.h); the next repartition
  // takes the new box for the search box of decomposed dimensions too. A grid whose cell count changed, or
  // HALOMD_DD_PCOUPL_REPARTITION=1, repartitions in the new box at once instead (a few ms of host work at 45k
  // atoms, every coupling step).
  void scale(const Tensor& mu, const Box& box, bool velocities) {
    join_ahead(false);  // a plan built ahead partitions the old box
    settle_speculation(false);
    if (!on_device) throw RuntimeError(step, -1, "internal error: pressure coupling before the first step");
    const auto t0 = std::chrono::steady_clock::now();
    const double m[3] = {mu.m[0][0], mu.m[1][1], mu.m[2][2]};
    cfg.box = box;
    box_scaled = true;
    pme.set_box(box);
    listed.set_box(box);
    if (topo_index) topo_index->far = far_image_distance(grid, box);
    for (int d = 0; d < 3; ++d)
      if (grid.n[d] == 1) search_len[d] = box.len[d];  // as set_search_len has it
    // Whether the search grid's cell count changed, agreed over the ranks (its cells depend on settings read
    // by each rank), so that all take the same collective path below.
    double regrid = cuda::set_box_lengths(mdp, search_len, calls, ds) ? 1.0 : 0.0;
    host.max({&regrid, 1});
    cuda::launch_scale(calls, ds.update, m, velocities, num_home);
    if (regrid != 0.0 || pcoupl_repartitions) {
      regridded = regridded || regrid != 0.0;
      search(step);
      return;
    }
    if (skin > 0.0) {
      double* const ref[3] = {x_plan[0].get(), x_plan[1].get(), x_plan[2].get()};
      cuda::launch_scale_positions(calls, ref, num_home, m);
    }
    domdec::rebox_plan(dom.plan, grid, box);
    transport->bind(dom.plan, local_arrays(), calls);  // collective, as the coupling step is on every rank
    calls.sync();                                      // the transport's staging buffers are reused
    invalidate_graphs();                               // the box is in the kernels' arguments
    ++box_rescales;
    rescale_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  void invalidate_graphs() {
    graph_reduce.invalidate();
    graph_plain.invalidate();
    search_graph_reduce.invalidate();
    search_graph_plain.invalidate();
  }

  // The executor's arrays as the transport reads and writes them.
  comm::GpuLocalArrays local_arrays() const {
    comm::GpuLocalArrays arrays;
    for (int d = 0; d < 3; ++d) arrays.x[d] = ds.x[d].get();
    arrays.f = ds.f.get();
    arrays.f_halo = ds.f_halo.get();
    arrays.sorted_of = ds.sorted_of.get();
    arrays.num_local = num_local;
    arrays.xq = ds.update.xq;
    arrays.img = ds.update.img;
    arrays.qs = ds.update.qs;
    for (int d = 0; d < 3; ++d) arrays.len[d] = ds.update.len[d];
    return arrays;
  }

  // Pages the process has faulted in so far (a fresh page costs ~2.5 us on the GPU machine): all its threads.
  static long minor_faults() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
  }

  // A repartition at this step: the home atoms' x and v from the device (unless `have_state`: dom.x, dom.v
  // already hold them), the host's partition, and install.
  void search(int64_t at_step, bool have_state = false) {
    lap(-1);
    if (on_device && !have_state) download_home(true);  // waits for the steps queued before: not the search's
    harvest_step_events();
    if (box_scaled) {  // pressure coupling since the last repartition: the search box follows the box
      set_search_len(cfg.box);
      regridded = cuda::set_box_lengths(mdp, search_len, calls, ds) || regridded;
    }
    lap(kDownload);
    const auto t0 = last_mark;
    const long faults0 = minor_faults();
    const bool running = on_device;  // the first partition of a run fills its buffers: not counted
    PartClock clock{search_part_s, last_mark};
    cuda::HostAtoms a;
    partition(dom, host, true, clock, at_step, a, range, nullptr);
    last_mark = clock.last;
    install(a, nullptr, t0);
    partition_box = cfg.box;
    box_scaled = false;
    if (running) {
      search_faults += minor_faults() - faults0;
      ++searches_counted_for_faults;
    }
    last_worst = 0.0;
  }

  // Puts the partition in dom on the device: the atoms, the positions (dom.x_local, all local atoms) and
  // velocities, the skin's reference (ref: the home atoms' positions in the domain's frame, by default
  // dom.x_local's), the pair list and the transport's binding. Waits for the device at its end.
  void install(const cuda::HostAtoms& a, const std::vector<Vec3>* ref,
               std::chrono::steady_clock::time_point t0) {
    num_home = dom.plan.num_home;
    num_local = dom.plan.num_local();
    const bool grown = cuda::upload_atoms(a, calls, ds);
    atom_regrows += grown ? 1 : 0;
    listed.set_domain_terms(a.listed, num_local, calls);
    if (!top.vsites.empty()) vsites.set_domain_sites(a.vsites, num_home, calls);
    if (ds.update.ngroups > 0)  // each home atom's tc-grps group
      ds.update.tc_group = gpu::upload_grow(calls, tc_group_dev, a.tc_group, "tc-grps of the home atoms");
    if (ds.update.ncomm > 0)  // each home atom's comm-grps group
      ds.update.comm_group =
          gpu::upload_grow(calls, comm_group_dev, a.comm_group, "comm-grps of the home atoms");
    if (!top.constraints.empty()) {
      Topology home;  // lincs_layout reads the constraints and the masses: the home atoms'
      home.mass.assign(a.mass.begin(), a.mass.begin() + num_home);
      home.constraints = a.constraints;
      if (!top.frozen.empty())  // freezegrps: constraints between two frozen atoms are left out
        for (int i = 0; i < num_home; ++i) home.frozen.push_back(top.frozen[dom.home[i]]);
      lincs.set_layout(cuda::lincs_layout(home), mdp, calls, ds.update);
    }
    lap(kUpload);
    if (hx.size() < 3 * ds.capacity) {
      hx.allocate(3 * ds.capacity, "positions (host staging)");
      hv.allocate(3 * ds.capacity, "velocities (host staging)");
    }
    if (ahead_host && hx_ahead.size() < 3 * ds.capacity)
      hx_ahead.allocate(3 * ds.capacity, "positions for the next plan (host staging)");
    const size_t nl = static_cast<size_t>(num_local), nh = static_cast<size_t>(num_home);
    parallel_for(static_cast<int64_t>(nl), host_threads, [&](int64_t i) {
      for (int d = 0; d < 3; ++d) {
        hx[d * nl + i] = dom.x_local[i][d];
        if (static_cast<size_t>(i) < nh) hv[d * nh + i] = dom.v[i][d];
      }
    });
    if (ref) {
      if (hr.size() < 3 * ds.capacity) hr.allocate(3 * ds.capacity, "skin reference (host staging)");
      for (size_t i = 0; i < nh; ++i)
        for (int d = 0; d < 3; ++d) hr[d * nh + i] = (*ref)[i][d];
    }
    for (int d = 0; d < 3; ++d) {
      calls.copy_async(ds.x[d].get(), hx.get() + d * nl, nl * sizeof(double), cudaMemcpyHostToDevice);
      calls.copy_async(ds.v[d].get(), hv.get() + d * nh, nh * sizeof(double), cudaMemcpyHostToDevice);
      // Where the home atoms are at this repartition (plan_still_holds).
      if (skin > 0.0) {
        if (x_plan[d].size() < ds.capacity) x_plan[d].allocate(ds.capacity, "positions at the repartition");
        // Room for a speculative search's copy of the home atoms (allocated here, never inside a step).
        if (speculate_below > 0.0 && snap_x[d].size() < ds.capacity) {
          snap_x[d].allocate(ds.capacity, "home positions at a speculative search");
          snap_v[d].allocate(ds.capacity, "home velocities at a speculative search");
        }
        const double* from = ref ? hr.get() + d * nh : hx.get() + d * nl;
        calls.copy_async(x_plan[d].get(), from, nh * sizeof(double), cudaMemcpyHostToDevice);
      }
    }
    if (pme.active()) {
      if (q_home.size() < ds.capacity) q_home.allocate(ds.capacity, "home atoms' charges (PME)");
      // The domain's charges per local atom (home atoms first), from which the pair kernels' are scaled.
      calls.copy_async(q_home.get(), dom.charge.data(), nh * sizeof(double), cudaMemcpyHostToDevice);
      pme.set_atoms(q_home.get(), num_home);
    }
    lap(kPositions);
    // The list's capacity per lane is a bound from binning the local atoms on the host (~1 ms at 45k).
    // Between repartitions the GPU-only searches rely on the capacity of the last repartition and on the
    // search's full-list error, as the single-GPU executor does for its whole run; so here too the host
    // bound is skipped while the longest list of the last search used at most 2/3 of the capacity and
    // the per-atom arrays did not outgrow the list's lanes.
    const int last_groups = hst[0].max_list_groups;
    const bool list_roomy = ds.cap_groups > 0 && last_groups > 0 && 3 * last_groups <= 2 * ds.cap_groups &&
                            static_cast<long long>(ds.capacity) * ds.tpa <= ds.list_lanes && !regridded;
    regridded = false;
    if (!list_roomy) list_regrows += cuda::size_pair_list(dom.x_local, calls, ds) ? 1 : 0;
    lap(kListSize);
    cuda::launch_pair_search(calls, ds.search);
    transport->bind(dom.plan, local_arrays(), calls);
    lap(kLaunchBind);
    calls.sync();  // the staging buffers are reused at the next search
    lap(kSearchWait);
    invalidate_graphs();  // the plan changed: the regular and search steps are recorded again

    halo_bytes_per_step = 0;
    for (const domdec::Pulse& p : dom.plan.pulses)
      halo_bytes_per_step +=
          static_cast<int64_t>(p.send.size() * 3 * sizeof(double) + p.recv_count * 3 * sizeof(float));
    on_device = true;
    search_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++searches;
    halo_atoms_sum += num_local - num_home;
    time_next_step = true;  // the first regular step after a repartition (started unless one is pending)
    if (!mid_step_gpu.pending) mid_in = kMidStep - 1;
  }

  // --- The next plan, built ahead (HALOMD_DD_AHEAD) ---
  // A plan built from the positions of search step s holds at a later search while no atom has moved more
  // than the skin since s: the displacement check then measures from s. So once the last check found an
  // atom beyond `ahead_below` of the skin, a GPU-only search copies the home atoms' positions to the host
  // and a thread partitions them (migration of the atoms' identities, plan, local topology: the host work
  // of a repartition) over its own communicator, while the steps run on. At the ahead_searches-th search
  // after s the next plan replaces the current one (commit_ahead, which waits for the thread if need be):
  // only the atoms' present state moves to their new owners and onto the device. The positions they hold
  // then are checked against s on the host; an atom beyond the skin (rare: s is a few windows back)
  // repartitions at once. Needs a second communicator (HaloTransport::clone_for_thread).
  struct Ahead {
    std::thread worker;
    int64_t from_step = -1;                // the search step whose positions it partitions
    int searches_left = 0;                 // searches until the commit
    DdDomain dom;                          // the next domain; x, v are filled in at the commit
    std::vector<comm::AtomState> leaving;  // this domain's atoms that go (global index, new owner)
    domdec::HaloRange range;
    cuda::HostAtoms atoms;
    std::vector<Vec3> ref;  // the home atoms' positions at from_step in the next domain's frame
    bool rejected = false;  // the grid does not take the plan's range at the skin: repartition instead
    std::exception_ptr error;
    double part_s[kNumParts] = {};
  };

  bool ahead_running() const { return ahead.worker.joinable(); }

  // Starts the thread at a GPU-only search step (before its update): the home positions to the host (an
  // event the thread waits for) and a copy of what it reads of the current domain.
  void begin_ahead() {
    const size_t nh = static_cast<size_t>(num_home);
    for (int d = 0; d < 3; ++d)
      calls.copy_async(hx_ahead.get() + d * nh, ds.x[d].get(), nh * sizeof(double), cudaMemcpyDeviceToHost);
    calls.record(ev_ahead);
    ahead.from_step = step;
    ahead.searches_left = ahead_searches;
    ahead.dom = DdDomain{};
    ahead.dom.index = dom.index;
    ahead.dom.home = dom.home;
    ahead.dom.image = dom.image;
    ahead.dom.home_of = std::move(ahead_home_of);  // scratch (cleared after use), reused between plans
    ahead.dom.settle_of_oxygen = std::move(ahead_settle_of);
    ahead.rejected = false;
    ahead.error = nullptr;
    std::fill(std::begin(ahead.part_s), std::end(ahead.part_s), 0.0);
    ++ahead_started;
    ahead.worker = std::thread([this] { build_ahead(); });
  }

  void build_ahead() {
    try {
      HALOMD_CUDA_CHECK(cudaSetDevice(device));
      HALOMD_CUDA_CHECK(cudaEventSynchronize(ev_ahead));
      DdDomain& d = ahead.dom;
      const size_t nh = d.home.size();
      d.x.resize(nh);
      d.v.assign(nh, Vec3{});
      to_global_frame(hx_ahead.get(), nh, d.image, cfg.box, d.x, host_threads);
      set_home(d, top, home_states(d));
      PartClock clock{ahead.part_s};
      try {
        partition(d, *ahead_host, false, clock, ahead.from_step, ahead.atoms, ahead.range, &ahead.leaving);
      } catch (const InputError&) {
        ahead.rejected = true;  // every rank alike: the check reads the maximum margin
      }
      if (!ahead.rejected) ahead.ref.assign(d.x_local.begin(), d.x_local.begin() + d.plan.num_home);
    } catch (...) {
      ahead.error = std::current_exception();
    }
  }
  static std::vector<comm::AtomState> home_states(const DdDomain& d) {
    std::vector<comm::AtomState> atoms;
    atoms.reserve(d.home.size());
    for (size_t i = 0; i < d.home.size(); ++i) atoms.push_back({d.home[i], d.index, d.x[i], d.v[i]});
    return atoms;
  }

  // Waits for the thread; what it built is dropped unless `keep`.
  void join_ahead(bool keep) {
    if (!ahead_running()) return;
    const auto t0 = std::chrono::steady_clock::now();
    ahead.worker.join();
    ahead_join_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (ahead.error) {
      std::exception_ptr e = ahead.error;
      ahead.error = nullptr;
      std::rethrow_exception(e);
    }
    for (int k = 0; k < kNumParts; ++k) ahead_part_s[k] += ahead.part_s[k];
    if (!keep) {
      ++ahead_dropped;
      recycle_ahead();
    }
  }
  void recycle_ahead() {
    ahead_home_of = std::move(ahead.dom.home_of);
    ahead_settle_of = std::move(ahead.dom.settle_of_oxygen);
    ahead.dom = DdDomain{};
    ahead.from_step = -1;
  }

  // The next plan replaces the current one at this search step (see Ahead). Returns false when it cannot
  // (the grid rejected its range, or an atom moved beyond the skin since its positions): then dom holds the
  // home atoms' present state and the caller repartitions from it.
  bool commit_ahead(int64_t at_step) {
    lap(-1);
    join_ahead(true);
    lap(kAheadJoin);
    download_home(true);  // the present state of the current home atoms
    harvest_step_events();
    lap(kDownload);
    const auto t0 = last_mark;  // search_wall_us_mean: from here, as for search()
    if (ahead.rejected) {
      ++ahead_dropped;
      recycle_ahead();
      return false;
    }
    // The atoms that go: their present state to their new owners.
    std::vector<std::vector<comm::AtomState>> leaving(1), arriving(1);
    leaving[0] = std::move(ahead.leaving);
    for (comm::AtomState& a : leaving[0]) {
      const auto it = std::lower_bound(dom.home.begin(), dom.home.end(), a.global);
      if (it == dom.home.end() || *it != a.global)
        throw RuntimeError(at_step, a.global, "internal error: an atom of the next plan left from elsewhere");
      const size_t i = static_cast<size_t>(it - dom.home.begin());
      a.x = dom.x[i];
      a.v = dom.v[i];
    }
    host.migrate(leaving, arriving);
    lap(kMigrateMpi);
    // The next home atoms (ascending) are the kept ones (ascending in dom.home) and the arrivals: one merge.
    std::sort(arriving[0].begin(), arriving[0].end(),
              [](const comm::AtomState& p, const comm::AtomState& q) { return p.global < q.global; });
    DdDomain& d = ahead.dom;
    const size_t nh = d.home.size();
    {
      size_t i = 0, k = 0;
      const size_t n_old = dom.home.size(), n_in = arriving[0].size();
      for (size_t j = 0; j < nh; ++j) {
        const int g = d.home[j];
        while (i < n_old && dom.home[i] < g) ++i;  // skips the atoms that left
        if (i < n_old && dom.home[i] == g) {
          d.x[j] = dom.x[i];
          d.v[j] = dom.v[i];
        } else if (k < n_in && arriving[0][k].global == g) {
          d.x[j] = arriving[0][k].x;
          d.v[j] = arriving[0][k].v;
          ++k;
        } else {
          throw RuntimeError(at_step, g, "internal error: an atom of the next plan did not arrive");
        }
      }
      if (k != n_in)
        throw RuntimeError(at_step, -1, "internal error: an atom arrived that the next plan lacks");
    }
    // The home atoms in the next frame, and how far they are from where the plan was built. Every atom
    // within the skin of it is the stricter form of the skin check (domdec/drift.h), kept here: a commit
    // is rare and this needs no cell bounds on the host.
    double worst2 = 0.0;
    for (size_t j = 0; j < nh; ++j) {
      d.x_local[j] = domdec::shifted(d.x[j], d.image[j], cfg.box);
      worst2 = std::max(worst2, norm2(d.x_local[j] - ahead.ref[j]));
    }
    double worst = std::sqrt(worst2);
    host.max({&worst, 1});
    if (at_step == fail_check_at) worst = 2.0 * skin + 1.0;  // the test hook fails this check too
    lap(kSetHome);
    if (worst > skin) {
      // dom keeps the present state of the current home atoms (download_home above); drop the next plan.
      ++ahead_dropped;
      recycle_ahead();
      return false;
    }
    // The halo's positions now, through the host transport, pulse by pulse.
    const domdec::DomainPlan* next_plan[1] = {&d.plan};
    host.allocate(next_plan);
    Vec3* xl[1] = {d.x_local.data()};
    for (size_t k = 0; k < d.plan.pulses.size(); ++k) {
      host.post_x(static_cast<int>(k), xl);
      host.wait_x(static_cast<int>(k), xl);
    }
    lap(kPlanMpi);
    std::swap(dom, d);
    // The host transport keeps no pointer to the plan being dropped.
    const domdec::DomainPlan* current[1] = {&dom.plan};
    host.allocate(current);
    range = ahead.range;
    install(ahead.atoms, &ahead.ref, t0);
    partition_box = cfg.box;  // unscaled since the thread started (scale() drops a plan being built)
    recycle_ahead();          // the old domain's scratch, kept for the next thread
    last_worst = worst;
    max_drift = std::max(max_drift, worst);
    max_disp_kept = std::max(max_disp_kept, worst);
    ++ahead_commits;
    return true;
  }

  // The next plan built ahead (Ahead, begin_ahead, commit_ahead).
  std::unique_ptr<comm::HaloTransport> ahead_host;  // the thread's communicator (nullptr: built at searches)
  double ahead_below = 0.0;                         // HALOMD_DD_AHEAD: a fraction of the skin (0: never)
  int ahead_searches = kDefaultAheadSearches;       // HALOMD_DD_AHEAD_SEARCHES: searches to the commit
  Ahead ahead;
  cudaEvent_t ev_ahead = nullptr;
  gpu::PinnedBuffer<double> hx_ahead, hr;           // the thread's positions; the skin reference at a commit
  std::vector<int> ahead_home_of, ahead_settle_of;  // scratch for the thread (DdDomain::home_of, ...)
  int64_t ahead_started = 0, ahead_commits = 0, ahead_dropped = 0;
  double ahead_join_s = 0.0;
  double ahead_part_s[kNumParts] = {};  // the thread's host time by part, summed over the plans joined
  int device = 0;

  ExecutorConfig cfg;
  const Topology& top;
  const MdParams& mdp;
  std::unique_ptr<comm::GpuHaloTransport> transport;
  comm::HaloTransport& host;
  domdec::DdGrid requested, grid;
  domdec::HaloRange range;
  std::vector<int> first_atom;
  double total_mass = 0.0;
  double q_scale = 1.0;
  double skin = 0.0;        // nm (plan_still_holds); lowered when the domains are too narrow for it
  double skin_asked = 0.0;  // HALOMD_DD_SKIN
  // HALOMD_TEST_FLIP_REDUCE_AT: a test makes the host's reduce_at wrong at this step (the guard must stop the
  // run there).
  int64_t flip_reduce_at = -1;
  // Speculative skin checks (may_speculate, settle_speculation).
  double speculate_below = 0.0;  // HALOMD_DD_SPECULATE: a fraction of the skin (0: never speculate)
  double last_worst = 0.0;       // the largest displacement the last check found (0 after a repartition)
  int64_t spec_step = -1;        // the search step whose check is pending (-1: none)
  bool spec_ke_prev_global = true;
  cudaEvent_t ev_spec = nullptr;
  gpu::PinnedBuffer<unsigned long long> spec_disp;
  gpu::DeviceBuffer<double> snap_x[3], snap_v[3];
  gpu::DeviceBuffer<StepState> snap_st;
  int64_t spec_checks = 0, rollbacks = 0, rollback_steps = 0;
  int64_t rollbacks_outside_searches = 0;  // settled at an energy step, a save or positions
  // HALOMD_TEST_FAIL_SKIN_CHECK_AT: a test makes the skin check of this search step fail, waiting or not.
  int64_t fail_check_at = -1;
  double spec_wait_s = 0.0;
  bool repartition_next = false;  // set by save()
  // Pressure coupling (scale): the box of the last repartition, whether it has been scaled since, and the
  // coupling steps that reboxed the plan in place (their host time).
  Box partition_box;
  bool box_scaled = false;
  bool pcoupl_repartitions = false;  // HALOMD_DD_PCOUPL_REPARTITION (the constructor)
  int64_t box_rescales = 0;
  double rescale_s = 0.0;
  int64_t gpu_key = 0;    // this rank's GPU on its node (PCI address)
  int ranks_per_gpu = 1;  // ranks whose domains share this rank's GPU
  gpu::DeviceBuffer<double> x_plan[3];
  int64_t checks = 0, gpu_searches = 0;
  int64_t atom_regrows = 0, list_regrows = 0;  // searches that grew the per-atom arrays / the pair list
  double check_s = 0.0, max_drift = 0.0;       // max_drift: the largest of the checks that kept the plan
  double max_disp_kept = 0.0;                  // the largest displacement alone among those checks
  Vec3 search_len;
  double margin_room = 0.0;  // the molecule margin's room in the search box (load, set_search_len)
  DdDomain dom;
  int num_home = 0, num_local = 0;

  gpu::GpuCalls calls;
  cuda::DeviceSystem ds;
  cuda::PmeMesh pme;  // coulombtype = PME (enqueue_mesh)
  // Listed interactions and LINCS (update groups: topo_index set), set at each repartition (install).
  std::unique_ptr<LocalTopologyIndex> topo_index;
  cuda::ListedGpu listed;
  cuda::LincsGpu lincs;
  cuda::VsiteGpu vsites;                  // the home sites (set at each repartition, install)
  gpu::DeviceBuffer<int> tc_group_dev;    // several tc-grps: each home atom's group
  gpu::DeviceBuffer<int> comm_group_dev;  // several comm-grps: each home atom's group
  gpu::DeviceBuffer<double> q_home;
  cudaStream_t mesh_stream = nullptr;
  cudaEvent_t ev_mesh_fork = nullptr, ev_mesh_join = nullptr;
  gpu::PinnedBuffer<double> hx, hv;
  gpu::PinnedBuffer<StepState> hst;
  gpu::StepGraph graph_reduce, graph_plain;
  gpu::StepGraph search_graph_reduce, search_graph_plain;  // GPU-only search steps (enqueue_search_step)
  bool search_graphs = true;                               // HALOMD_DD_SEARCH_GRAPH (the constructor)
  int64_t search_graph_launches = 0;
  // GPU-only searches that could have been graph launches since the last one timed by phase (run_step).
  int64_t graph_searches_unsampled = kSearchPhaseEvery;
  bool spec_graph = false;  // the speculative search (spec_step) ran as a graph
  bool direct = false;      // HALOMD_DD_DIRECT (the constructor)
  std::string gpu_name;
  int multiprocessors = 0;

  bool on_device = false;  // x and v of the home atoms are on the device (after the first search)
  bool searched = false;   // since load
  // Pressure coupling (scale): the search grid changed its cell count (the pair list is sized again).
  bool regridded = false;
  bool ke_prev_global = true;  // st->ke_prev holds the whole system's KE(n - 1/2)
  int64_t step = 0;
  int64_t halo_bytes_per_step = 0;
  int64_t halo_bytes = 0;
  int64_t searches = 0;
  int64_t halo_atoms_sum = 0;
  // Pages faulted in by the main thread during repartitions from a running state (search()).
  int64_t search_faults = 0, searches_counted_for_faults = 0;
  double search_s = 0.0;  // wall time of the searches from the home atoms' arrival on the host to the list
  double search_part_s[kNumParts] = {};
  double search_part_max_s[kNumParts] = {};  // the largest over the ranks, as of the last save (all ranks)
  std::chrono::steady_clock::time_point last_mark;
  cudaStream_t side = nullptr;    // the home rows' non-bonded forces, while the halos move (enqueue_step)
  cudaStream_t urgent = nullptr;  // overlap 2: the halo rows and the force halo
  cudaEvent_t ev_urgent = nullptr;
  cudaEvent_t ev_fork = nullptr, ev_join = nullptr;
  cudaEvent_t ev_halo = nullptr;  // overlap 3: the coordinate halo is in, for the boundary rows
  // GPU time of the first regular step after each repartition, and of the kMidStep-th regular step after
  // every search (host repartition or GPU-only): a steady-state sample that starts from no particular
  // alignment of the ranks.
  EventSample<1> first_step_gpu{kStepPhase}, mid_step_gpu{kStepPhase};
  bool time_next_step = false;
  int mid_in = -1;  // regular steps before the one timed in the middle of the window (-1: none this window)
  // GPU time of GPU-only search steps and of repartition steps.
  SearchSample search_gpu{kSearchPhases}, repart_gpu{kSearchPhases};
  // GPU time of the GPU-only search steps run as one graph (no phases); search_gpu times one in
  // kSearchPhaseEvery of them kernel by kernel, by phase.
  EventSample<1> search_graph_gpu{kStepPhase};
  static constexpr int64_t kSearchPhaseEvery = 8;
  double graph_record_s = 0.0;  // host time of the regular and search steps' graph recordings (and updates)
  int64_t graph_records = 0;
  bool every_step_timed = false;  // HALOMD_GPU_TIMING=1
  int overlap = 2;                // HALOMD_DD_OVERLAP (enqueue_step)
  // A repartition's per-atom host loops run on the rank's own thread: OpenMP teams beside four ranks that
  // poll MPI and NVSHMEM lost 2-13% (HALOMD_HOST_THREADS, bench/NOTES.md, twenty-fifth session).
  static constexpr int host_threads = 1;
  size_t heap_reserve = 0;  // bytes, HALOMD_HEAP_RESERVE_MB (the constructor)
  int priority = 1;         // HALOMD_DD_PRIORITY (the constructor)
  cuda::GpuTiming timing;
  cuda::GpuTiming::Sample* timed_sample = nullptr;  // the step being enqueued, when timed
  size_t pairs = 0;
  int64_t pairs_all = 0;    // over all domains, as of the last save
  int64_t skipped_all = 0;  // halo rows the last search skipped, over all domains, as of the last save
};

CudaDdExecutor::CudaDdExecutor(const ExecutorConfig& config,
                               std::unique_ptr<comm::GpuHaloTransport> transport,
                               const domdec::DdGrid& requested)
    : impl_(std::make_unique<Impl>(config, std::move(transport), requested)) {}
CudaDdExecutor::~CudaDdExecutor() = default;

void CudaDdExecutor::load(const MdState& s) {
  Impl& m = *impl_;
  const Box& box = m.cfg.box;
  const int nd = m.host.num_ranks();
  if (static_cast<int>(s.x.size()) != m.top.num_atoms() || s.v.size() != s.x.size())
    throw RuntimeError(s.step, -1, "the state to load has not one position and velocity per atom");
  m.join_ahead(false);  // before anything the thread reads changes
  {
    // Every rank must take the same decisions from these (the skin checks are collectives).
    // (So do the plans' exchanges: direct pulses on every rank if any asks.)
    double asked[6] = {m.skin_asked,         m.speculate_below,
                       m.ahead_below,        static_cast<double>(m.ahead_searches),
                       m.direct ? 1.0 : 0.0, m.pcoupl_repartitions ? 1.0 : 0.0};
    m.host.max(asked);
    m.skin = m.skin_asked = asked[0];
    m.speculate_below = asked[1];
    m.ahead_below = asked[2];
    m.ahead_searches = static_cast<int>(asked[3]);
    m.direct = asked[4] != 0.0;
    m.pcoupl_repartitions = asked[5] != 0.0;
  }
  m.partition_box = box;
  m.box_scaled = false;
  const double margin = domdec::molecule_margin(s.x, m.first_atom);
  m.range = m.usable_range(margin, [&](const domdec::HaloRange& r) {
    if (m.requested.n.x > 0) {
      domdec::validate_grid(m.requested, nd, box, r);
      m.grid = m.requested;
    } else {
      m.grid = domdec::choose_grid(nd, box, r);
    }
  });
  m.host.set_grid(m.grid);
  if (m.topo_index) m.topo_index->far = far_image_distance(m.grid, box);
  if (m.ahead_below > 0.0 && !m.ahead_host) m.ahead_host = m.host.clone_for_thread();  // collective
  if (m.ahead_host) m.ahead_host->set_grid(m.grid);

  const domdec::HomeAssignment owner = domdec::assign_home(m.grid, box, s.x, m.first_atom);
  const int me = m.host.rank();
  m.dom = DdDomain{};
  m.dom.index = me;
  std::vector<comm::AtomState> atoms;
  for (int g : owner.home[me]) atoms.push_back({g, me, s.x[g], s.v[g]});
  set_home(m.dom, m.top, std::move(atoms));

  m.margin_room = kMarginQuantum * (std::floor(m.range.margin / kMarginQuantum) + 1.0);
  m.set_search_len(box);
  const PairParams pp = make_pair_params(m.mdp);
  m.q_scale = std::sqrt(pp.epsfac);
  // Lanes per atom: for the atoms of all the domains that share this GPU (under MPS their kernels run side
  // by side, so more lanes than one wave of the whole GPU only make each atom's list shorter and its
  // per-lane overheads larger).
  {
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    const int64_t mine[2] = {static_cast<int64_t>(std::hash<std::string>{}(name) >> 1), m.gpu_key};
    std::vector<int64_t> all;
    m.host.all_gather(mine, all);
    m.ranks_per_gpu = 0;
    for (size_t r = 0; r + 1 < all.size(); r += 2)
      m.ranks_per_gpu += all[r] == mine[0] && all[r + 1] == mine[1];
  }
  // Where ranks share the GPU, at most kSharedGpuMaxLanes.
  const int tpa_env = env_int("HALOMD_GPU_TPA", 0);
  const int atoms_on_gpu = m.top.num_atoms() / nd * std::max(1, m.ranks_per_gpu);
  int tpa = cuda::choose_lanes_per_atom(atoms_on_gpu, m.multiprocessors);
  if (m.ranks_per_gpu > 1) tpa = std::min(tpa, kSharedGpuMaxLanes);
  if (tpa_env > 0) tpa = tpa_env;
  if (m.ds.st.size() == 0)
    cuda::setup_device_constants(m.cfg, m.search_len, m.total_mass, tpa, m.calls, m.ds);
  cuda::set_tc_group_params(m.cfg, m.ds.update);
  cuda::set_comm_group_params(m.cfg, m.ds.update);
  cuda::set_nose_hoover_params(m.cfg, m.ds.update);
  m.ds.update.pr_coupling = m.mdp.pcoupl == Pcoupl::ParrinelloRahman ? 1 : 0;
  if (m.mdp.coulombtype == CoulombType::Pme && !m.pme.active()) {
    m.pme.setup(m.mdp, m.cfg.pme_grid_box(), box, m.top, m.calls);
    static_assert(sizeof(cuda::PmeReal) == sizeof(float), "the transports' float grid is the mesh's");
    // Collective; the slab form of nvshmem sums into a float grid of its own, which the mesh then transforms.
    if (float* real = m.transport->reserve_grid(m.pme.grid_points(), cuda::kPmeGridScale))
      m.pme.use_grid(real);
  }
  if (!m.top.bonded.empty() && !m.listed.active()) m.listed.setup_domain(m.mdp, box, m.top, m.calls);
  m.ds.update.dd = 1;
  // The graphs record it: fixed for the transport's life. Not with virtual sites: the update would pack
  // (and release) the home sites before they are placed again; the exchange packs them instead.
  m.ds.update.prepack = m.top.vsites.empty() ? m.transport->prepack() : nullptr;

  m.hst[0] = cuda::initial_step_state(s);
  cuda::set_initial_group_ke(s, m.cfg, m.ds.update, m.hst[0]);  // load has every atom's v
  m.calls.copy_async(m.ds.st.get(), m.hst.get(), sizeof(StepState), cudaMemcpyHostToDevice);
  cuda::launch_begin_step(m.calls, m.ds.update);
  m.calls.sync();
  m.step = s.step;
  m.on_device = false;
  m.searched = false;
  m.spec_step = -1;
  m.last_worst = 0.0;
  m.ke_prev_global = true;
}

void CudaDdExecutor::step(const StepRequest& r, StepEnergies* e) { impl_->run_step(r, e); }

void CudaDdExecutor::Impl::replay(int64_t s) {
  StepRequest r = cuda::scheduled_request(ds.update, s);
  r.ns = repartition_next;  // the window's search step, the first replayed
  run_step(r, nullptr);
}

namespace {
// The update's Parrinello-Rahman term for one step (StepRequest::pr_scale), zero again when the step has been
// enqueued: the graphs, recorded at other steps, must not take it.
class PrTerm {
 public:
  PrTerm(cuda::UpdateParams& up, const StepRequest& r) : up_(up), on_(r.pr) {
    if (on_)
      for (int d = 0; d < 3; ++d) up_.pr_scale[d] = r.pr_scale[d];
  }
  ~PrTerm() {
    if (on_)
      for (double& s : up_.pr_scale) s = 0.0;
  }
  PrTerm(const PrTerm&) = delete;
  PrTerm& operator=(const PrTerm&) = delete;

 private:
  cuda::UpdateParams& up_;
  bool on_;
};
}  // namespace

void CudaDdExecutor::Impl::run_step(const StepRequest& r, StepEnergies* e) {
  Impl& m = *this;
  const cuda::UpdateParams& up = m.ds.update;
  cuda::check_request(up, r, m.step);
  const bool ns = r.ns || !m.searched;
  const bool energy = r.energy && e != nullptr;
  if (r.pr && !up.pr_coupling)
    throw RuntimeError(r.step, -1, "internal error: a Parrinello-Rahman step for an executor without it");
  if (ns || energy || r.pr) m.settle_speculation(ns);
  const bool reduce = m.reduce_at(r.step, energy);
  // A Parrinello-Rahman coupling step runs kernel by kernel with the step's term in the update's arguments,
  // as on one GPU (the box changes after it, and the domains repartition there); no graph records it.
  PrTerm pr_term(m.ds.update, r);
  // A regular step of a device-initiated transport is one graph launch; the graph is recorded (after a
  // search changed the plan) before the timing events, which then time the step's GPU work only.
  const bool graph_step = !ns && !energy && !r.pr && !m.every_step_timed && m.transport->device_initiated();
  gpu::StepGraph& graph = reduce ? m.graph_reduce : m.graph_plain;
  // Regular steps that sum over domains and those that do not are two graphs, recorded again after each
  // repartition (the plan and the buffers change there).
  auto record_regular = [&m, reduce](gpu::GpuCalls&) { m.enqueue_step(false, reduce); };
  if (graph_step) m.prepare_graph(graph, record_regular);
  const bool timed = !ns && !energy && !r.pr && m.time_next_step;
  if (timed) {
    m.first_step_gpu.start(m.calls);
    m.time_next_step = false;
  }
  bool mid = false;
  if (!ns && !energy && !r.pr && m.mid_in >= 0) {
    mid = m.mid_in == 0;
    --m.mid_in;
  }
  if (mid) m.mid_step_gpu.start(m.calls);
  if (m.every_step_timed && !ns && !energy && !r.pr) {
    m.timed_sample = m.timing.begin(Impl::regular_phases());
    m.mark(Impl::kStart);
    m.enqueue_step(false, reduce);  // the host-orchestrated transports sum over domains on the host
    m.timed_sample = nullptr;
  } else if (graph_step) {
    graph.launch(m.calls, record_regular);
  } else {
    bool search_graph = false;
    if (ns) {
      // A search repartitions (host) unless the atoms are still within the skin's drift (domdec/drift.h);
      // then the halo of the current plan is exchanged first and the pair list rebuilt on the GPU.
      // After a save (a checkpoint) the search repartitions, as a run continued from that checkpoint
      // does at its first step: the continuation then gives the same bits.
      // With a device-initiated transport the check need not hold the queue up (may_speculate): the
      // search then goes ahead as if the plan held, and settle_speculation checks it later.
      // A plan built ahead (Impl::Ahead) replaces the current one at the ahead_searches-th search after the
      // one whose positions it partitions, waiting for its thread if need be. When to start one and when to
      // commit it depend only on the checks' results up to the last search, which a speculative run knows
      // there as a waiting one does, and a repartition drops it: the trajectory is the same either way, and
      // with any transport.
      bool repartition = !m.searched || m.repartition_next;
      // (Not in a box scaled since the repartition: the thread would partition it with the old search box.)
      const bool start_ahead = !repartition && m.ahead_host && !m.ahead_running() && m.skin > 0.0 &&
                               !m.box_scaled && m.ahead_below > 0.0 && m.last_worst > m.ahead_below * m.skin;
      const bool commit = !repartition && m.ahead_running() && --m.ahead.searches_left <= 0;
      if (!repartition && !commit && !energy && !r.pr && m.may_speculate())
        m.begin_speculation();
      else if (!repartition && !commit)
        repartition = !m.plan_still_holds();
      if (repartition) m.join_ahead(false);
      m.repartition_next = false;
      if (commit) {
        if (!m.commit_ahead(r.step)) m.search(r.step, true);
        repartition = true;
      } else if (repartition) {
        m.search(r.step);
        m.searched = true;
      } else if (start_ahead) {
        m.begin_ahead();
      }
      if (!repartition) {
        ++m.gpu_searches;
        if (!m.mid_step_gpu.pending) m.mid_in = Impl::kMidStep - 1;
      }
      // A GPU-only search step without energies of a device-initiated transport is one graph launch
      // (enqueue_search_step), but for one in kSearchPhaseEvery of them, which runs kernel by kernel
      // between the events that time its phases (the same kernels, so the same bits): the first, then
      // the first after kSearchPhaseEvery - 1 graph launches whose phase sample has been read.
      const bool graphable = !repartition && !energy && !r.pr && m.search_graphs && !m.every_step_timed &&
                             m.transport->device_initiated();
      const bool phases_due =
          !m.search_gpu.pending && m.graph_searches_unsampled >= Impl::kSearchPhaseEvery - 1;
      search_graph = graphable && !phases_due;
      if (graphable) m.graph_searches_unsampled = search_graph ? m.graph_searches_unsampled + 1 : 0;
      if (m.spec_step == m.step) m.spec_graph = search_graph;
      if (search_graph) {
        gpu::StepGraph& sg = reduce ? m.search_graph_reduce : m.search_graph_plain;
        auto record_search = [&m, reduce](gpu::GpuCalls&) {
          // Events recorded during a capture would become graph nodes that the host cannot query.
          if (m.sampling || m.timed_sample)
            throw RuntimeError(m.step, -1, "internal error: a timing event inside a recorded search step");
          m.enqueue_search_step(reduce);
        };
        m.prepare_graph(sg, record_search);
        m.search_graph_gpu.start(m.calls);
        sg.launch(m.calls, record_search);
        m.search_graph_gpu.stop(m.calls);
        ++m.search_graph_launches;
      } else {
        if (!energy && !r.pr) {
          m.sampling = repartition ? &m.repart_gpu : &m.search_gpu;
          m.sampling->start(m.calls);
        }
        // Also after a repartition, whose plan already placed the halo: every step then runs the same
        // exchange sequence (x, then f), which the transports' buffer-reuse rules assume, for the same
        // bits.
        m.enqueue_exchange_x();
        m.search_mark(Impl::kSearchHaloX);
        if (!repartition) cuda::launch_pair_search(m.calls, m.ds.search);
        m.search_mark(Impl::kSearchList);
      }
    }
    if (!search_graph) {
      if (energy) {
        m.reduce_ke_prev();
        m.calls.memset_async(reinterpret_cast<char*>(m.ds.st.get()) + offsetof(StepState, nb_acc), 0,
                             sizeof(StepState::nb_acc) + sizeof(StepState::cvir_acc) +
                                 sizeof(StepState::pme_acc) +
                                 sizeof(StepState::listed_acc));  // contiguous (cuda_executor.cpp)
      }
      if (ns)
        m.enqueue_forces_and_update(energy, reduce);
      else
        m.enqueue_step(energy, reduce);
      if (m.sampling) m.sampling->stop(m.calls);
      m.sampling = nullptr;
    }
  }
  if (timed) m.first_step_gpu.stop(m.calls);
  if (mid) m.mid_step_gpu.stop(m.calls);
  m.ke_prev_global = reduce;
  m.halo_bytes += m.halo_bytes_per_step;
  ++m.step;
  if (energy) {
    m.sync_state();
    cuda::fill_energies(m.hst[0], m.ds.self_energy, e);
    m.pme.add_energies(m.hst[0], e);     // the whole mesh's, the same on every domain
    m.listed.add_energies(m.hst[0], e);  // summed over the domains (enqueue_update)
    e->group_kinetic.assign(m.hst[0].rep_group_ke, m.hst[0].rep_group_ke + m.ds.update.ngroups);
  }
}

void CudaDdExecutor::save(MdState& s) {
  Impl& m = *impl_;
  m.settle_speculation(false);
  m.repartition_next = true;
  // The next search repartitions, so a plan being built ahead would be dropped there anyway: drop it now,
  // so that a thread's error surfaces here (every run saves after its last step), while the ranks can
  // still end together.
  m.join_ahead(false);
  // Every rank saves at the same steps: each search part's largest time over the ranks for the report (rank
  // 0's own parts include its waits for the others at the pulses' exchanges).
  std::copy(std::begin(m.search_part_s), std::end(m.search_part_s), std::begin(m.search_part_max_s));
  m.host.max(m.search_part_max_s);
  m.reduce_ke_prev();
  std::vector<comm::AtomState> mine, all;
  if (m.on_device)
    m.download_home(true);
  else
    m.sync_state();
  {
    // The pairs of every domain's last search: each pair is this domain's or another's (the eighth-shell
    // rule), so the sum is the whole system's count, as one GPU finds it (a test checks).
    const int64_t mine[2] = {static_cast<int64_t>(m.pairs), m.hst[0].skipped_rows};
    std::vector<int64_t> every;
    m.host.all_gather(mine, every);
    m.pairs_all = m.skipped_all = 0;
    for (size_t k = 0; k + 1 < every.size(); k += 2) {
      m.pairs_all += every[k];
      m.skipped_all += every[k + 1];
    }
  }
  const StepState& h = m.hst[0];
  for (size_t i = 0; i < m.dom.home.size(); ++i) {
    Vec3 v = m.dom.v[i];
    // The centre-of-mass removal of the last step is applied lazily by the next update: apply it here.
    if (m.dom.mass[i] > 0.0) v -= m.pending_vcm(i);
    mine.push_back({m.dom.home[i], m.dom.index, m.dom.x[i], v});
  }
  m.host.gather(mine, all);
  s.step = m.step;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) s.ke_half_prev.m[a][b] = h.ke_prev[3 * a + b];
  s.ke_half_prev_groups.assign(h.group_ke_prev, h.group_ke_prev + m.ds.update.ngroups);
  s.thermostat_integral = h.integral_before;
  // Nose-Hoover's xi and vxi before the pending coupling (the same on every domain: each couples from the
  // same sums), as the single GPU saves them.
  s.nh_xi.assign(h.nh_xi_before, h.nh_xi_before + m.ds.update.nh_groups);
  s.nh_vxi.assign(h.nh_vxi_before, h.nh_vxi_before + m.ds.update.nh_groups);
  s.x.assign(all.empty() ? 0 : m.top.num_atoms(), Vec3{});
  s.v.assign(s.x.size(), Vec3{});
  for (const comm::AtomState& a : all) {
    s.x[a.global] = a.x;
    s.v[a.global] = a.v;
  }
}

void CudaDdExecutor::scale_coordinates(const Tensor& mu, const Box& box) { impl_->scale(mu, box, true); }
void CudaDdExecutor::scale_positions(const Tensor& mu, const Box& box) { impl_->scale(mu, box, false); }

void CudaDdExecutor::positions(std::vector<Vec3>& x) {
  Impl& m = *impl_;
  m.settle_speculation(false);
  if (m.on_device) m.download_home(false);
  std::vector<comm::AtomState> mine, all;
  for (size_t i = 0; i < m.dom.home.size(); ++i) mine.push_back({m.dom.home[i], m.dom.index, m.dom.x[i], {}});
  m.host.gather(mine, all);
  x.assign(all.empty() ? 0 : m.top.num_atoms(), Vec3{});
  for (const comm::AtomState& a : all) x[a.global] = a.x;
}

void CudaDdExecutor::frame(std::vector<Vec3>& x, std::vector<Vec3>& v) {
  Impl& m = *impl_;
  m.settle_speculation(false);
  if (m.on_device) m.download_home(true);
  std::vector<comm::AtomState> mine, all;
  for (size_t i = 0; i < m.dom.home.size(); ++i) {
    Vec3 vi = m.dom.v[i];
    // The last step's deferred COM removal, as save() applies it.
    if (m.dom.mass[i] > 0.0 && m.on_device) vi -= m.pending_vcm(i);
    mine.push_back({m.dom.home[i], m.dom.index, m.dom.x[i], vi});
  }
  m.host.gather(mine, all);
  x.assign(all.empty() ? 0 : m.top.num_atoms(), Vec3{});
  v.assign(x.size(), Vec3{});
  for (const comm::AtomState& a : all) {
    x[a.global] = a.x;
    v[a.global] = a.v;
  }
}

bool CudaDdExecutor::writes_outputs() const { return impl_->host.rank() == 0; }
std::string CudaDdExecutor::transport() const { return impl_->transport->name(); }
size_t CudaDdExecutor::num_pairs() const { return impl_->pairs; }

CallCounters CudaDdExecutor::counters() const {
  const Impl& m = *impl_;
  CallCounters c = m.transport->counters();
  c.host_syncs += m.calls.host_syncs();
  c.launches += m.calls.launches();
  c.halo_bytes += m.halo_bytes;
  return c;
}

std::string CudaDdExecutor::report_json() const {
  const Impl& m = *impl_;
  std::string parts, parts_max, ahead_parts;
  const int64_t joined = m.ahead_commits + m.ahead_dropped;
  for (int k = 0; k < Impl::kNumParts; ++k) {
    ahead_parts += fmt::format("{}\"{}\": {:.1f}", k > 0 ? ", " : "", Impl::kParts[k],
                               joined > 0 ? 1e6 * m.ahead_part_s[k] / joined : 0.0);
    parts += fmt::format("{}\"{}\": {:.1f}", k > 0 ? ", " : "", Impl::kParts[k],
                         m.searches > 0 ? 1e6 * m.search_part_s[k] / m.searches : 0.0);
    parts_max += fmt::format("{}\"{}\": {:.1f}", k > 0 ? ", " : "", Impl::kParts[k],
                             m.searches > 0 ? 1e6 * m.search_part_max_s[k] / m.searches : 0.0);
  }
  const cuda::SearchParams& sp = m.ds.search;
  return fmt::format(
      "\"domains\": {},\n  \"dd_grid\": \"{}\",\n  \"ranks\": {},\n  \"gpu\": \"{}\",\n"
      "  \"ranks_per_gpu\": {}, \"gpu_lanes_per_atom\": {},\n"
      "  \"gpu_grid\": [{}, {}, {}],\n  "
      "\"home_atoms_rank0\": {},\n"
      "  \"halo_atoms_rank0_mean\": {:.1f},\n  \"halo_pulses\": {},\n  \"halo_buffer_allocations\": {}, "
      "\"halo_direct\": {}, \"halo_prepacked_exchanges\": {}, \"halo_released_exchanges\": {}, "
      "\"halo_peers_on_other_gpus\": {}, \"pme_grid_sum\": {},\n"
      "  \"search_wall_us_mean\": {:.1f}, \"searches\": {}, \"search_page_faults_mean\": {:.1f}, "
      "\"heap_reserve_mib\": {},\n"
      "  \"search_parts_us_mean\": {{{}}},\n  \"search_parts_us_mean_max_over_ranks\": {{{}}},\n"
      "  \"regular_step_gpu_us\": {:.1f}, \"regular_step_gpu_samples\": {},\n"
      "  \"regular_step_gpu_mid_window_us\": {:.1f}, \"regular_step_gpu_mid_window_samples\": {},\n"
      "  \"gpu_only_search_step_gpu\": {},\n  \"gpu_only_search_step_graph_gpu\": {},\n"
      "  \"dd_search_graph\": {}, \"gpu_only_search_graph_launches\": {}, \"search_graph_recordings\": {},\n"
      "  \"repartition_step_gpu\": {},\n"
      "  \"graph_record_us_mean\": {:.1f}, \"graph_records\": {},\n"
      "  \"graph_instantiations\": {}, \"graph_updates\": {},\n"
      "  \"box_rescales\": {}, \"box_rescale_us_mean\": {:.1f}, \"dd_pcoupl_repartition\": {},\n"
      "  \"dd_skin_nm\": {}, \"repartitions\": {}, \"gpu_only_searches\": {}, \"skin_check_us_mean\": "
      "{:.1f}, "
      "\"max_drift_kept_nm\": {:.4f}, \"max_displacement_kept_nm\": {:.4f},\n  \"atom_array_regrows\": {}, "
      "\"pair_list_regrows\": {},\n"
      "  \"dd_overlap\": {}, \"dd_priority\": {}, \"gpu_timing_every_step\": {},\n"
      "  \"pairs_in_list_all_domains\": {}, \"halo_rows_skipped_all_domains\": {},\n"
      "  \"dd_speculate\": {}, \"speculative_checks\": {}, \"rollbacks\": {}, \"rollback_steps\": {}, "
      "\"rollbacks_outside_searches\": {}, \"speculation_wait_us_mean\": {:.1f},\n"
      "  \"dd_ahead\": {}, \"plans_ahead\": {{\"started\": {}, \"committed\": {}, \"dropped\": {}, "
      "\"join_wait_us_mean\": {:.1f}, \"thread_mpi_waits\": {}, \"thread_bytes\": {}, "
      "\"thread_parts_us_mean\": {{{}}}}},\n  {}",
      m.grid.num_domains(), m.grid.str(), m.host.num_ranks(), m.gpu_name, m.ranks_per_gpu, m.ds.tpa, sp.nc[0],
      sp.nc[1], sp.nc[2], m.num_home,
      m.searches > 0 ? static_cast<double>(m.halo_atoms_sum) / m.searches : 0.0, m.dom.plan.pulses.size(),
      m.transport->allocations(), m.direct_plan(), m.transport->prepacked_exchanges(),
      m.transport->released_exchanges(), m.transport->peers_on_other_gpus(),
      m.pme.active() ? fmt::format("\"{}\"", m.transport->grid_sum_form()) : std::string("null"),
      m.searches > 0 ? 1e6 * m.search_s / m.searches : 0.0, m.searches,
      m.searches_counted_for_faults > 0 ? static_cast<double>(m.search_faults) / m.searches_counted_for_faults
                                        : 0.0,
      m.heap_reserve >> 20, parts, parts_max, m.first_step_gpu.mean_us(), m.first_step_gpu.samples,
      m.mid_step_gpu.mean_us(), m.mid_step_gpu.samples, m.search_gpu.json(), m.search_graph_gpu.json(),
      m.search_graphs && m.transport->device_initiated(), m.search_graph_launches,
      m.search_graph_reduce.instantiations() + m.search_graph_reduce.updates() +
          m.search_graph_plain.instantiations() + m.search_graph_plain.updates(),
      m.repart_gpu.json(), m.graph_records > 0 ? 1e6 * m.graph_record_s / m.graph_records : 0.0,
      m.graph_records,
      m.graph_reduce.instantiations() + m.graph_plain.instantiations() +
          m.search_graph_reduce.instantiations() + m.search_graph_plain.instantiations(),
      m.graph_reduce.updates() + m.graph_plain.updates() + m.search_graph_reduce.updates() +
          m.search_graph_plain.updates(),
      m.box_rescales, m.box_rescales > 0 ? 1e6 * m.rescale_s / m.box_rescales : 0.0, m.pcoupl_repartitions,
      m.skin, m.searches, m.gpu_searches, m.checks > 0 ? 1e6 * m.check_s / m.checks : 0.0, m.max_drift,
      m.max_disp_kept, m.atom_regrows, m.list_regrows, m.overlap, m.priority, m.every_step_timed, m.pairs_all,
      m.skipped_all, m.speculate_below, m.spec_checks, m.rollbacks, m.rollback_steps,
      m.rollbacks_outside_searches, m.spec_checks > 0 ? 1e6 * m.spec_wait_s / m.spec_checks : 0.0,
      m.ahead_host ? m.ahead_below : 0.0, m.ahead_started, m.ahead_commits, m.ahead_dropped,
      joined > 0 ? 1e6 * m.ahead_join_s / joined : 0.0, m.ahead_host ? m.ahead_host->counters().mpi_waits : 0,
      m.ahead_host ? m.ahead_host->counters().halo_bytes : 0, ahead_parts, m.timing.json());
}

}  // namespace halomd
