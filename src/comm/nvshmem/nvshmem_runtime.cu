#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdint>
#include <string>
#include <vector>

#include "comm/nvshmem/nvshmem_runtime.h"
#include "core/errors.h"
#include "gpu/cuda_check.h"

namespace halomd::comm::nvshmem {
namespace {

bool g_initialised = false;

std::string status_name(int s) {
  switch (s) {
    case NVSHMEM_STATUS_NOT_INITIALIZED:
      return "NOT_INITIALIZED";
    case NVSHMEM_STATUS_IS_BOOTSTRAPPED:
      return "IS_BOOTSTRAPPED";
    case NVSHMEM_STATUS_IS_INITIALIZED:
      return "IS_INITIALIZED";
    case NVSHMEM_STATUS_LIMITED_MPG:
      return "LIMITED_MPG";
    case NVSHMEM_STATUS_FULL_MPG:
      return "FULL_MPG";
    default:
      return "status " + std::to_string(s);
  }
}

void mpi_check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw RuntimeError(-1, -1, std::string(call) + " failed while starting NVSHMEM");
}

__device__ inline uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The value PE `pe` sends at position i of round `round`: every element distinct, exact in a double.
__device__ inline double ring_value(int pe, uint64_t round, int i) {
  return static_cast<double>(pe) * 1e9 + static_cast<double>(round) * 1e5 + i;
}

// One round of the ring: fill the symmetric send buffer, deliver it to `next` (put-with-signal, or stores
// through the peer's mapped address, a system-scope fence and the signal), wait for what `prev` sent, check.
// status[0]: mismatches; status[1]: 1 when the signal did not come within timeout_ns.
__global__ void ring_kernel(double* send, double* recv, uint64_t* signal, double* direct, int count, int me,
                            int prev, int next, uint64_t round, long long timeout_ns, int* status) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) send[i] = ring_value(me, round, i);
  __syncthreads();
  if (direct == nullptr) {
    nvshmemx_putmem_signal_nbi_block(recv, send, sizeof(double) * count, signal, round, NVSHMEM_SIGNAL_SET,
                                     next);
  } else {
    for (int i = threadIdx.x; i < count; i += blockDim.x) direct[i] = send[i];
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system();
      nvshmemx_signal_op(signal, round, NVSHMEM_SIGNAL_SET, next);
    }
  }
  __shared__ int timed_out;
  if (threadIdx.x == 0) {
    timed_out = 0;
    const uint64_t t0 = global_ns();
    while (nvshmem_uint64_test(signal, NVSHMEM_CMP_GE, round) == 0) {
      if (global_ns() - t0 > static_cast<uint64_t>(timeout_ns)) {
        timed_out = 1;
        break;
      }
    }
    status[1] = timed_out;
  }
  __syncthreads();
  if (timed_out) return;
  int bad = 0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) bad += recv[i] != ring_value(prev, round, i);
  if (bad) atomicAdd(&status[0], bad);
}

}  // namespace

RuntimeInfo initialise() {
  int rank = 0, size = 1;
  mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  if (!g_initialised) {
    // The ranks of a node take its GPUs in turn (several ranks per GPU need the MPS daemon); the device is
    // chosen before NVSHMEM starts.
    MPI_Comm node;
    mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
    int local = 0, devices = 0;
    mpi_check(MPI_Comm_rank(node, &local), "MPI_Comm_rank");
    MPI_Comm_free(&node);
    HALOMD_CUDA_CHECK(cudaGetDeviceCount(&devices));
    if (devices < 1) throw RuntimeError(-1, -1, "no CUDA device for NVSHMEM");
    HALOMD_CUDA_CHECK(cudaSetDevice(local % devices));
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (rank == 0 && nvshmemx_get_uniqueid(&id) != 0)
      throw RuntimeError(-1, -1, "nvshmemx_get_uniqueid failed");
    mpi_check(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast of the NVSHMEM unique id");
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    if (nvshmemx_set_attr_uniqueid_args(rank, size, &id, &attr) != 0)
      throw RuntimeError(-1, -1, "nvshmemx_set_attr_uniqueid_args failed");
    if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0)
      throw RuntimeError(-1, -1, "nvshmemx_init_attr failed");
    g_initialised = true;
  }
  RuntimeInfo info;
  info.pe = nvshmem_my_pe();
  info.npes = nvshmem_n_pes();
  if (info.pe != rank || info.npes != size)
    throw RuntimeError(-1, -1, "NVSHMEM PE numbering differs from the MPI ranks");
  info.status = nvshmemx_init_status();
  info.status_name = status_name(info.status);
  // Several PEs on one GPU are FULL_MPG (not IS_INITIALIZED) when MPS lets their kernels run together;
  // LIMITED_MPG means they may not, and a kernel spinning on a peer's signal could wait for ever.
  info.device_waits_safe =
      info.status == NVSHMEM_STATUS_IS_INITIALIZED || info.status == NVSHMEM_STATUS_FULL_MPG;
  return info;
}

void finalise() {
  if (!g_initialised) return;
  nvshmem_finalize();
  g_initialised = false;
}

std::string ring_check(int count, int rounds, bool put, int timeout_ms) {
  const RuntimeInfo info = initialise();
  if (!info.device_waits_safe) {
    throw RuntimeError(-1, -1,
                       "NVSHMEM status " + info.status_name +
                           ": processes sharing a GPU need the MPS daemon (nvidia-cuda-mps-control -d) for "
                           "device-side waits");
  }
  const int me = info.pe, n = info.npes;
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  auto* send = static_cast<double*>(nvshmem_malloc(sizeof(double) * count));
  auto* recv = static_cast<double*>(nvshmem_malloc(sizeof(double) * count));
  auto* signal = static_cast<uint64_t*>(nvshmem_calloc(1, sizeof(uint64_t)));
  if (!send || !recv || !signal) throw RuntimeError(-1, -1, "nvshmem_malloc of the ring buffers failed");
  double* direct = nullptr;
  if (!put) {
    direct = static_cast<double*>(nvshmem_ptr(recv, next));
    if (!direct)
      throw RuntimeError(-1, -1, "PE " + std::to_string(next) + " is not directly reachable (nvshmem_ptr)");
  }
  int* status = nullptr;
  HALOMD_CUDA_CHECK(cudaMalloc(&status, 2 * sizeof(int)));
  nvshmem_barrier_all();
  std::string failure;
  for (int r = 1; r <= rounds && failure.empty(); ++r) {
    HALOMD_CUDA_CHECK(cudaMemset(status, 0, 2 * sizeof(int)));
    ring_kernel<<<1, 256>>>(send, recv, signal, direct, count, me, prev, next, static_cast<uint64_t>(r),
                            static_cast<long long>(timeout_ms) * 1000000LL, status);
    HALOMD_CUDA_CHECK(cudaGetLastError());
    HALOMD_CUDA_CHECK(cudaDeviceSynchronize());
    int host[2] = {0, 0};
    HALOMD_CUDA_CHECK(cudaMemcpy(host, status, sizeof(host), cudaMemcpyDeviceToHost));
    if (host[1]) {
      failure = "round " + std::to_string(r) + ": no signal from PE " + std::to_string(prev) + " within " +
                std::to_string(timeout_ms) + " ms";
    } else if (host[0]) {
      failure = "round " + std::to_string(r) + ": " + std::to_string(host[0]) + " of " +
                std::to_string(count) + " values from PE " + std::to_string(prev) + " are wrong";
    }
    // Every PE leaves the loop at the same round (a PE that stopped alone would leave the others waiting).
    int failed = failure.empty() ? 0 : 1, any = 0;
    mpi_check(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    if (any && failure.empty()) failure = "round " + std::to_string(r) + ": another PE failed";
  }
  nvshmem_barrier_all();
  HALOMD_CUDA_CHECK(cudaFree(status));
  nvshmem_free(signal);
  nvshmem_free(recv);
  nvshmem_free(send);
  if (!failure.empty())
    throw RuntimeError(-1, -1,
                       "NVSHMEM ring check (" + std::string(put ? "put" : "direct") + "), PE " +
                           std::to_string(me) + ", " + failure);
  return "PE " + std::to_string(me) + " of " + std::to_string(n) + ": " + std::to_string(rounds) +
         " rounds of " + std::to_string(count) + " doubles by " +
         (put ? "nvshmemx_putmem_signal_nbi_block" : "direct stores + signal") + " correct (status " +
         info.status_name + ", to PE " + std::to_string(next) + ")";
}

}  // namespace halomd::comm::nvshmem
