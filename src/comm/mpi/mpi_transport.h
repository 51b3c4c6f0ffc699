// The mpi transport: one domain per MPI rank, host memory, non-blocking point-to-point messages per pulse
// (MPI_Isend/MPI_Irecv, then MPI_Waitall), collectives for migration, reductions and gathers. Built only
// with HALOMD_ENABLE_MPI; only engine/backends.cpp and the other files of comm/mpi include this header.
#pragma once

#include <cstdint>
#include <memory>

#include "comm/halo_transport.h"

namespace halomd::comm {

// MPI's lifetime in the process. MPI is started only when an MPI launcher (mpirun/mpiexec, srun) started
// this process or `required` (--transport mpi) asks for it, so that a plain `halomd run` never initialises
// MPI; a singleton start (no launcher) gives one rank.
void mpi_start(bool required);
bool mpi_started();
int mpi_world_size();  // 1 when MPI was not started
int mpi_world_rank();  // 0 when MPI was not started
// Rank 0's value on every rank (MPI_Bcast); the value itself when MPI was not started. Collective.
uint64_t mpi_broadcast_from_rank0(uint64_t value);
// This rank's index among the ranks of its node (MPI_Comm_split_type SHARED), to choose its GPU; 0 when MPI
// was not started. Collective over MPI_COMM_WORLD.
int mpi_node_local_rank();
// Throws RuntimeError naming `call` and MPI's message unless rc is MPI_SUCCESS (for the files of comm/mpi,
// which keep MPI's types out of their headers).
void mpi_check(int rc, const char* call);
// MPI_Finalize when mpi_start started MPI.
void mpi_stop();
// After an error on this rank: returns when every rank failed too (they all reach a barrier within 2 s, as
// they do for errors in the inputs), so that the caller finalises MPI and exits with exit_code; otherwise
// ends every rank with exit_code (MPI_Abort), so that none waits forever for this one.
void mpi_end_after_error(int exit_code);

// Needs mpi_start(); one domain per rank, domain index = rank in MPI_COMM_WORLD.
std::unique_ptr<HaloTransport> make_mpi_transport();

}  // namespace halomd::comm
