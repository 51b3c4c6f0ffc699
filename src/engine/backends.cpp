#include "engine/backends.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "comm/halo_transport.h"
#include "core/env.h"
#include "core/errors.h"
#include "cpu/cpu_executor.h"
#include "cpu/dd_executor.h"

#if HALOMD_HAVE_CUDA
#include "cuda/cuda_dd_executor.h"
#include "cuda/cuda_executor.h"
#include "cuda/device_info.h"
#endif
#if HALOMD_HAVE_MPI
#include "comm/mpi/mpi_transport.h"
#endif
#if HALOMD_HAVE_CUDA && HALOMD_HAVE_MPI
#include "comm/gpu/gpu_halo.h"
#include "comm/gpu/gpu_halo_check.h"
#endif
#if HALOMD_HAVE_NVSHMEM
#include "comm/nvshmem/nvshmem_runtime.h"
#endif

namespace halomd {
namespace {

#if HALOMD_HAVE_NVSHMEM
constexpr bool kNvshmemBuilt = true;
bool g_nvshmem_started = false;  // by make_gpu_transport; finalised by finish_processes
#else
constexpr bool kNvshmemBuilt = false;
#endif

bool is_gpu_transport(const std::string& name) {
  return name == "mpi_staged" || name == "cuda_ipc" || name == "nvshmem" || name == "nvshmem_put";
}

#if HALOMD_HAVE_CUDA && HALOMD_HAVE_MPI
// HALOMD_HALO_TIMEOUT_MS bounds every wait on a peer (default 10 s).
int halo_timeout_ms() { return std::max(1, env_int("HALOMD_HALO_TIMEOUT_MS", 10000)); }

std::unique_ptr<comm::GpuHaloTransport> make_gpu_transport(const std::string& name) {
  comm::mpi_start(true);
  const int timeout = halo_timeout_ms();
  if (name == "mpi_staged") return comm::make_mpi_staged_transport(timeout);
  if (name == "cuda_ipc") return comm::make_cuda_ipc_transport(timeout);
#if HALOMD_HAVE_NVSHMEM
  if (name == "nvshmem" || name == "nvshmem_put") {
    comm::nvshmem::initialise();
    g_nvshmem_started = true;
    return comm::make_nvshmem_transport(name == "nvshmem_put", timeout);
  }
#endif
  throw InputError("", 0,
                   "transport '" + name +
                       "' is not in this build (nvshmem needs NVSHMEM_HOME or `pip install "
                       "nvidia-nvshmem-cu13==3.4.5` at configure time)");
}
#endif

std::unique_ptr<Executor> make_dd_executor(const RunOptions& o, const ExecutorConfig& config) {
  const int ranks = process_count();
  const std::string transport = !o.transport.empty() ? o.transport : (ranks > 1 ? "mpi" : "local");
  domdec::DdGrid grid{{0, 0, 0}};
  if (!o.dd.empty()) {
    if (o.dd.size() != 3 || o.dd[0] < 1 || o.dd[1] < 1 || o.dd[2] < 1)
      throw InputError("", 0, "--dd takes three domain counts of at least 1 (NX NY NZ)");
    grid.n = {o.dd[0], o.dd[1], o.dd[2]};
  }
  int domains = o.domains > 0 ? o.domains : (o.dd.empty() ? 1 : grid.num_domains());
  if (transport == "mpi") {
    if (o.domains > 0 && o.domains != ranks) {
      throw InputError("", 0,
                       fmt::format("--domains {} but mpirun started {} ranks: the mpi transport runs one "
                                   "domain per rank",
                                   o.domains, ranks));
    }
    domains = ranks;
  } else if (transport == "local" && ranks > 1) {
    throw InputError("", 0,
                     fmt::format("--transport local runs every domain in one process, but mpirun started {} "
                                 "ranks: use --transport mpi (or leave --transport out)",
                                 ranks));
  }
  if (!o.dd.empty() && grid.num_domains() != domains) {
    throw InputError(
        "", 0,
        fmt::format("--dd {} makes {} domains, but the run has {}{}", grid.str(), grid.num_domains(), domains,
                    transport == "mpi" ? " MPI ranks (one domain per rank)" : " (--domains)"));
  }
  if (transport == "local")
    return std::make_unique<DdExecutor>(config, comm::make_local_transport(), domains, grid);
#if HALOMD_HAVE_MPI
  if (transport == "mpi")
    return std::make_unique<DdExecutor>(config, comm::make_mpi_transport(), domains, grid);
#endif
  throw InputError("", 0,
                   "transport '" + transport +
                       "' is not in this build (the mpi transport needs -DHALOMD_ENABLE_MPI=ON and an MPI "
                       "library)");
}

#if HALOMD_HAVE_CUDA
// `--backend cuda` with a decomposition: one domain per MPI rank, the halo on a GPU transport (nvshmem where
// the build has it, else mpi_staged, unless --transport says).
std::unique_ptr<Executor> make_cuda_dd_executor(const RunOptions& o, const ExecutorConfig& config) {
#if HALOMD_HAVE_MPI
  std::string name = o.transport;
  if (name.empty()) name = kNvshmemBuilt ? "nvshmem" : "mpi_staged";
  if (!is_gpu_transport(name))
    throw InputError(
        "", 0,
        "--backend cuda with domains takes --transport mpi_staged, cuda_ipc, nvshmem or nvshmem_put, "
        "not '" +
            name + "'");
  const int ranks = process_count();
  if (o.domains > 0 && o.domains != ranks)
    throw InputError(
        "", 0,
        fmt::format("--domains {} but mpirun started {} ranks: the GPU transports run one domain per "
                    "rank",
                    o.domains, ranks));
  domdec::DdGrid grid{{0, 0, 0}};
  if (!o.dd.empty()) {
    if (o.dd.size() != 3 || o.dd[0] < 1 || o.dd[1] < 1 || o.dd[2] < 1)
      throw InputError("", 0, "--dd takes three domain counts of at least 1 (NX NY NZ)");
    grid.n = {o.dd[0], o.dd[1], o.dd[2]};
    if (grid.num_domains() != ranks)
      throw InputError(
          "", 0,
          fmt::format("--dd {} makes {} domains, but mpirun started {} ranks (one domain per rank)",
                      grid.str(), grid.num_domains(), ranks));
  }
  return std::make_unique<CudaDdExecutor>(config, make_gpu_transport(name), grid);
#else
  (void)o;
  (void)config;
  throw InputError("", 0, "--backend cuda with domains needs a build with MPI (-DHALOMD_ENABLE_MPI=ON)");
#endif
}
#endif

}  // namespace

// Whether the options ask for the domain-decomposed CPU executor: a transport, several domains, a grid, or
// several MPI ranks.
bool decomposed(const RunOptions& o) {
  return !o.transport.empty() || o.domains > 1 || !o.dd.empty() || process_count() > 1;
}

void start_processes([[maybe_unused]] bool want_mpi) {
#if HALOMD_HAVE_MPI
  comm::mpi_start(want_mpi);
#endif
}

int process_count() {
#if HALOMD_HAVE_MPI
  return comm::mpi_world_size();
#else
  return 1;
#endif
}

int process_rank() {
#if HALOMD_HAVE_MPI
  return comm::mpi_world_rank();
#else
  return 0;
#endif
}

uint64_t same_on_every_process(uint64_t value) {
#if HALOMD_HAVE_MPI
  return comm::mpi_broadcast_from_rank0(value);
#else
  return value;
#endif
}

void finish_processes() {
#if HALOMD_HAVE_NVSHMEM
  if (g_nvshmem_started) comm::nvshmem::finalise();  // every symmetric buffer is freed by now
  g_nvshmem_started = false;
#endif
#if HALOMD_HAVE_MPI
  comm::mpi_stop();
#endif
}

void abort_processes([[maybe_unused]] int exit_code) {
#if HALOMD_HAVE_MPI
  if (comm::mpi_world_size() > 1) comm::mpi_end_after_error(exit_code);
#endif
}

std::string check_nvshmem() {
#if HALOMD_HAVE_NVSHMEM
  std::string report = comm::nvshmem::ring_check(4096, 20, true, 5000) + "\n";
  const comm::nvshmem::RuntimeInfo info = comm::nvshmem::initialise();
  if (info.npes > 1) report += comm::nvshmem::ring_check(4096, 20, false, 5000) + "\n";
  comm::nvshmem::finalise();
  return report;
#else
  throw InputError("", 0,
                   "this build has no NVSHMEM (configure with CUDA and MPI, and NVSHMEM_HOME or "
                   "`pip install nvidia-nvshmem-cu13==3.4.5`)");
#endif
}

std::string check_halo(const std::string& name, const std::vector<int>& dd, int rounds) {
  if (!is_gpu_transport(name))
    throw InputError("", 0,
                     "--check-halo takes mpi_staged, cuda_ipc, nvshmem or nvshmem_put, not '" + name + "'");
#if HALOMD_HAVE_CUDA && HALOMD_HAVE_MPI
  domdec::DdGrid grid{{process_count(), 1, 1}};
  if (!dd.empty()) {
    if (dd.size() != 3 || dd[0] < 1 || dd[1] < 1 || dd[2] < 1)
      throw InputError("", 0, "--dd takes three domain counts of at least 1 (NX NY NZ)");
    grid.n = {dd[0], dd[1], dd[2]};
  }
  std::string report;
  {
    std::unique_ptr<comm::GpuHaloTransport> t = make_gpu_transport(name);
    report = comm::gpu_halo_check(*t, grid, rounds);
  }  // symmetric memory is freed before NVSHMEM is finalised
  return report;
#else
  (void)dd;
  (void)rounds;
  throw InputError("", 0, "the GPU halo transports need a build with CUDA and MPI");
#endif
}

std::vector<std::string> available_backends() {
#if HALOMD_HAVE_CUDA
  return {"cpu", "cuda"};
#else
  return {"cpu"};
#endif
}

std::string describe_gpus() {
#if HALOMD_HAVE_CUDA
  return cuda::describe_devices();
#else
  return "this build has no CUDA backend (configure with -DHALOMD_ENABLE_CUDA=ON)\n";
#endif
}

std::unique_ptr<Executor> make_executor(const RunOptions& options, const ExecutorConfig& config) {
  // Listed interactions (bonds, angles, dihedrals, 1-4 pairs, CMAP, position restraints), LINCS, virtual
  // sites, Nose-Hoover, pressure coupling and several comm-grps run everywhere: the CPU reference (one domain
  // or several), one GPU and GPU domains (update groups, cpu/dd_domain.h).
  if (config.comm_group && options.backend != "cpu" && config.comm_groups > kGpuMaxCommGroups)
    throw InputError(
        options.mdp, config.mdp->comm_grps_line,
        fmt::format("comm-grps has {} groups; the GPU removes the centre-of-mass motion of at most {} "
                    "(--backend cpu has no limit)",
                    config.comm_groups, kGpuMaxCommGroups));
  if (options.backend != "cpu")
    for (uint8_t bits : config.top->frozen)
      if (bits != 0 && bits != Topology::kFrozenAll)
        throw InputError(options.mdp, config.mdp->freezedim_line,
                         "freezedim: atoms frozen along some dimensions only run with --backend cpu so far "
                         "(one domain or several); GPUs run freezedim = Y Y Y");
  if (config.mdp->electric_field_on() && options.backend != "cpu")
    throw InputError(options.mdp, config.mdp->electric_field_line,
                     "electric-field runs with --backend cpu so far (one domain or several)");
  if (config.mdp->annealed() && options.backend != "cpu")
    throw InputError(options.mdp, config.mdp->annealing_line,
                     "annealing runs with --backend cpu so far (one domain or several)");
  if (config.mdp->integrator == Integrator::Sd && options.backend != "cpu")
    throw InputError(
        options.mdp, config.mdp->integrator_line,
        "integrator = sd runs with --backend cpu so far (one domain or several); GPUs take md with "
        "V-rescale");
  if (config.mdp->nstfout > 0 && options.backend == "cuda" && decomposed(options))
    throw InputError(
        options.mdp, config.mdp->nstfout_line,
        "nstfout (forces in traj.trr) is written with --backend cpu or on one GPU; GPU domains do "
        "not write forces: set nstfout = 0");
  if (options.backend == "cpu" && decomposed(options)) return make_dd_executor(options, config);
  if (options.backend == "cpu") return std::make_unique<CpuExecutor>(config);
  if (options.backend == "cuda") {
#if HALOMD_HAVE_CUDA
    if (decomposed(options)) return make_cuda_dd_executor(options, config);
    return std::make_unique<CudaExecutor>(config);
#else
    throw InputError(
        "", 0,
        "backend 'cuda' is not in this build (configure with -DHALOMD_ENABLE_CUDA=ON where nvcc is "
        "installed)");
#endif
  }
  throw InputError("", 0, "backend '" + options.backend + "' is not in this build");
}

}  // namespace halomd
