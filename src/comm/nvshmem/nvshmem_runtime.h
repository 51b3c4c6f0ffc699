// NVSHMEM for the device-initiated halo transports: initialisation over MPI with a unique id, the checks
// that decide whether kernels may wait on each other's signals, and a self-test of put-with-signal and of
// direct stores between the processes of a run (`halomd devices --check-nvshmem` under mpirun).
#pragma once

#include <string>

namespace halomd::comm::nvshmem {

struct RuntimeInfo {
  int pe = 0;
  int npes = 1;
  int status = 0;                  // nvshmemx_init_status()
  std::string status_name;         // IS_INITIALIZED, FULL_MPG, ...
  bool device_waits_safe = false;  // kernels of different PEs may spin on each other's signals
  int direct_peers = 0;  // peers whose symmetric memory this PE can store into (nvshmem_ptr != null)
};

// Initialises NVSHMEM on the MPI world (MPI must be initialised): chooses the CUDA device (local rank modulo
// the node's devices), then rank 0 makes a unique id and MPI_Bcast shares it. Idempotent. Throws RuntimeError
// naming the call that failed.
RuntimeInfo initialise();
void finalise();

// Every PE sends `count` doubles to the next PE (ring), `rounds` times, the signal set to the round number,
// through nvshmemx_putmem_signal_nbi_block (`put` true) or direct stores through nvshmem_ptr and a release
// fence before the signal (`put` false, where the peer is directly reachable). The receiver waits on the
// device with a timeout of `timeout_ms` and checks every value. Returns a one-line report; throws
// RuntimeError naming the round and peer when data is wrong or a signal never comes.
std::string ring_check(int count, int rounds, bool put, int timeout_ms);

}  // namespace halomd::comm::nvshmem
