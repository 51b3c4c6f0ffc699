// Which backends this build has: the one place that knows what was compiled in (STYLE.md point 3).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/executor.h"
#include "engine/run_options.h"

namespace halomd {

std::vector<std::string> available_backends();
// A description of the GPUs this process sees, or a line saying the build has no GPU backend.
std::string describe_gpus();
// Under mpirun: checks that the processes' GPUs reach each other through NVSHMEM (a ring of
// put-with-signal, then of direct stores where nvshmem_ptr maps the peer), and returns this process's
// report. Throws InputError when the build has no NVSHMEM, RuntimeError naming the round and peer on failure.
std::string check_nvshmem();
// Under mpirun: the self-test of GPU halo transport `name` (mpi_staged, cuda_ipc, nvshmem, nvshmem_put;
// comm/gpu_halo_check.h) on the grid `dd` (empty: every rank along x), `rounds` times; returns this process's
// report. Throws InputError when the build lacks the transport, RuntimeError on a mismatch or a timeout.
std::string check_halo(const std::string& name, const std::vector<int>& dd, int rounds);
// Whether the options ask for domains: a transport, several domains, a grid, or several MPI ranks.
bool decomposed(const RunOptions& options);
// The executor for options.backend (and, later, its transport). Throws InputError for a backend this build
// does not have.
std::unique_ptr<Executor> make_executor(const RunOptions& options, const ExecutorConfig& config);

// The processes of a run. MPI (in builds that have it) is started only when an MPI launcher started this
// process or `want_mpi` (--transport mpi) asks for it: a plain `halomd run` never needs mpirun.
void start_processes(bool want_mpi);
int process_count();  // MPI world size, or 1
int process_rank();   // rank in the MPI world, or 0
// Rank 0's value on every process (a seed drawn from ld-seed = -1 or gen-seed = -1: every domain must couple
// and generate with the same one). Collective over the MPI world; the value itself without MPI.
uint64_t same_on_every_process(uint64_t value);
// At the end of main: finalises MPI when it was started.
void finish_processes();
// After an error: when the run has several processes and not all of them failed alike, ends all of them
// with exit_code (MPI_Abort), so that no rank waits forever for one that failed; returns otherwise (then
// finish_processes and exit with exit_code).
void abort_processes(int exit_code);

}  // namespace halomd
