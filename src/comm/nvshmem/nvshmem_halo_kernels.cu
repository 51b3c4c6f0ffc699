// Kernels of the nvshmem and nvshmem_put halo transports (nvshmem_halo_kernels.h says what they share).
//
// One kernel per direction and step, one block, all pulses in order (forwarding: a pulse may send atoms an
// earlier pulse received, so each pulse starts after the last one's data is in place, a __syncthreads away):
//   coordinates  per pulse: pack straight into the peer's symmetric receive buffer (direct stores through
//                the mapped address) or into a local symmetric stage; then release the receiver (a
//                system-scope fence and the signal, or put-with-signal of the stage for nvshmem_put or a peer
//                not mapped); then thread 0 waits for this PE's own signal of the pulse to reach the step's
//                epoch, with a timeout, and the block unpacks;
//   forces       the same in reverse pulse order, with the received atoms' forces going back and the
//                returned forces added to the sent atoms.
// One block keeps the step at two launches of the halo (it was two per pulse and direction, each a few
// microseconds of launch and dependency latency on the step's critical path) and needs no grid-wide
// barrier; a pulse moves a few thousand atoms, which one block of 1024 threads packs in microseconds.
// The epoch is advanced by the kernel itself, every PE alike, and the signals are SET to it and waited for
// with >=: a signal is never reset, so a wait of step n + 1 can never take step n's value for an arrival.
//
// Why it cannot deadlock (several PEs on one GPU under MPS, or one PE per GPU):
// - No block waits for another block: each kernel is one block, and it waits for external signals only.
// - A PE has at most one spinning block at a time (one stream: the halo kernels and the one-block reduction
//   are in stream order), so P PEs sharing a GPU spin on at most P blocks; every other kernel (a peer's halo
//   kernel, or a non-bonded kernel that ends by itself) still finds room and runs to completion.
// - The dependencies are acyclic: the wait of (step n, pulse k, direction) needs the peer's send of the same
//   (n, k, direction), which in the peer's stream comes after only waits of earlier (n, k, direction)
//   triples (coordinates before forces, pulses in their order, steps in theirs). By induction every wait is
//   eventually satisfied, as long as every PE enqueues the same sequence of exchanges (they are collective).
// MPS makes the kernels of different processes run at the same time; without it (LIMITED_MPG, refused by
// nvshmem::initialise) a spinning kernel would hold the GPU until its time slice ends.
//
// Why a receive buffer is never overwritten while its owner still reads it: the sender S of pulse k packs
// step n + 1's coordinates into R's buffer only after S's wait for R's forces of pulse k at step n, which R
// sends after unpacking the coordinates of pulse k at step n (stream order on R). The forces go the other
// way round the same chain (R's force buffer of pulse k is written by S at step n + 1 only after R's
// coordinates of step n + 1 reached S, sent after R added step n's forces). The put stage is reused under
// the same chain (the data arrived, so the stage was read).
#include <nvshmem.h>
#include <nvshmemx.h>

#include "comm/gpu/gpu_halo_device.cuh"
#include "comm/nvshmem/nvshmem_halo_kernels.h"
#include "core/errors.h"

namespace halomd::comm::nvshmem {
namespace {

constexpr int kThreads = 1024;  // the one block of a halo kernel
constexpr int kReduceThreads = 256;

__device__ inline uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ inline bool failed(const StateDev* s) {
  return *reinterpret_cast<const volatile int*>(&s->failed);
}

// First writer wins: the record names the first wait that gave up; later ones only see `failed`.
__device__ void record_timeout(const Launch& l, int kind, int pulse, int peer) {
  if (atomicCAS(&l.state->failed, 0, 1) != 0) return;
  volatile ErrorRecord* e = l.error;
  e->kind = kind;
  e->pulse = pulse;
  e->peer = peer;
  __threadfence_system();
  e->set = 1;
  __threadfence_system();
}

// Waits until *signal >= epoch (nvshmem_signal_wait_until has no timeout). False when it timed out (recorded)
// or an earlier wait had (so that one lost peer gives one error, not a cascade of timeouts).
__device__ bool wait_ge(const Launch& l, uint64_t* signal, uint64_t epoch, int kind, int pulse, int peer) {
  if (failed(l.state)) return false;
  const uint64_t t0 = global_ns();
  while (nvshmem_uint64_test(signal, NVSHMEM_CMP_GE, epoch) == 0) {
    if (failed(l.state)) return false;
    if (global_ns() - t0 > static_cast<uint64_t>(l.timeout_ns)) {
      record_timeout(l, kind, pulse, peer);
      return false;
    }
  }
  __threadfence();  // what the signal released is read after it
  return true;
}

// The epoch of this exchange, advanced by thread 0 and shared with the block.
__device__ uint64_t next_epoch(unsigned long long* counter) {
  __shared__ uint64_t epoch;
  if (threadIdx.x == 0) epoch = ++*counter;
  __syncthreads();
  return epoch;
}

// After the block packed `bytes` into `direct` (the peer's buffer, mapped) or into `stage`: makes the data
// visible and sets the peer's signal to the epoch.
__device__ void release(void* recv, const void* stage, bool direct, size_t bytes, uint64_t* signal,
                        uint64_t epoch, int peer) {
  if (direct) {
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) nvshmemx_signal_op(signal, epoch, NVSHMEM_SIGNAL_SET, peer);
  } else {
    __threadfence();
    __syncthreads();
    if (bytes == 0) {
      if (threadIdx.x == 0) nvshmemx_signal_op(signal, epoch, NVSHMEM_SIGNAL_SET, peer);
    } else {
      nvshmemx_putmem_signal_nbi_block(recv, stage, bytes, signal, epoch, NVSHMEM_SIGNAL_SET, peer);
    }
  }
}

// Thread 0 waits for `signal` to reach `epoch`; the block learns whether it did.
__device__ bool block_wait(const Launch& l, uint64_t* signal, uint64_t epoch, int kind, int pulse, int peer) {
  __shared__ bool arrived;
  if (threadIdx.x == 0) arrived = wait_ge(l, signal, epoch, kind, pulse, peer);
  __syncthreads();
  return arrived;
}

__global__ void __launch_bounds__(kThreads) exchange_x_kernel(Launch l, int num_pulses) {
  const uint64_t epoch = next_epoch(&l.state->epoch_x);
  const GpuLocalArrays a = l.config->a;
  for (int k = 0; k < num_pulses; ++k) {
    const PulseDev& q = l.config->pulse[k];
    const HaloPulseDev p = q.p;
    double* wire = q.x_direct ? q.x_direct : q.x_stage;
    for (int i = threadIdx.x; i < p.send_count; i += blockDim.x) pack_x_atom(a, p, i, wire);
    release(q.x_recv, q.x_stage, q.x_direct != nullptr, sizeof(double) * 3 * p.send_count, q.x_signal, epoch,
            q.send_to);
    if (!block_wait(l, q.x_signal, epoch, kErrorCoordinates, k, q.recv_from)) return;
    for (int i = threadIdx.x; i < p.recv_count; i += blockDim.x) unpack_x_atom(a, p, i, q.x_recv);
    __syncthreads();  // the next pulse may send atoms this one received
  }
}

__global__ void __launch_bounds__(kThreads) exchange_f_kernel(Launch l, int num_pulses) {
  const uint64_t epoch = next_epoch(&l.state->epoch_f);
  const GpuLocalArrays a = l.config->a;
  for (int k = num_pulses - 1; k >= 0; --k) {
    const PulseDev& q = l.config->pulse[k];
    const HaloPulseDev p = q.p;
    float* wire = q.f_direct ? q.f_direct : q.f_stage;
    for (int i = threadIdx.x; i < p.recv_count; i += blockDim.x) pack_f_atom(a, p, i, wire);
    release(q.f_recv, q.f_stage, q.f_direct != nullptr, sizeof(float) * 3 * p.recv_count, q.f_signal, epoch,
            q.recv_from);
    if (!block_wait(l, q.f_signal, epoch, kErrorForces, k, q.send_to)) return;
    for (int i = threadIdx.x; i < p.send_count; i += blockDim.x) add_f_atom(a, p, i, q.f_recv);
    __syncthreads();  // the earlier pulse sends forces this one added to
  }
}

// The reduction, one block. Slots [parity][p] hold PE p's values on every PE; parity = epoch & 1. A PE
// writes reduction e + 2 (the same parity as e) into a peer only after its reduction e + 1 saw that peer's
// signal e + 1, which the peer sets after it finished reading reduction e; reduction e + 1 writes the other
// parity. So a fast PE is at most one reduction ahead of a slow one, and never overwrites what it reads.
__global__ void reduce_kernel(Launch l, long long* values, int count, const int* active) {
  if (*active == 0) return;  // every PE sees the same flag, so the epochs stay in step
  const ConfigDev& c = *l.config;
  const uint64_t epoch = next_epoch(&l.state->epoch_r);
  const int parity = static_cast<int>(epoch & 1);
  const int me = c.me, npes = c.npes;
  const size_t mine_at = (static_cast<size_t>(parity) * npes + me) * kMaxGpuReduce;
  long long* mine = c.red_slots + mine_at;
  for (int t = threadIdx.x; t < count; t += blockDim.x) mine[t] = values[t];
  __syncthreads();
  // Direct stores to the mapped peers, then one release fence for all of them.
  for (int i = threadIdx.x; i < npes * count; i += blockDim.x) {
    const int pe = i / count, t = i % count;
    if (pe != me && c.red_peer[pe]) c.red_peer[pe][mine_at + t] = mine[t];
  }
  __threadfence_system();
  __syncthreads();
  for (int pe = threadIdx.x; pe < npes; pe += blockDim.x) {
    if (pe == me) continue;
    if (c.red_peer[pe]) {
      nvshmemx_signal_op(c.red_signal + me, epoch, NVSHMEM_SIGNAL_SET, pe);
    } else {
      nvshmem_putmem_signal_nbi(mine, mine, sizeof(long long) * count, c.red_signal + me, epoch,
                                NVSHMEM_SIGNAL_SET, pe);
    }
  }
  __shared__ int lost;
  if (threadIdx.x == 0) lost = 0;
  __syncthreads();
  for (int pe = threadIdx.x; pe < npes; pe += blockDim.x) {
    if (pe != me && !wait_ge(l, c.red_signal + pe, epoch, kErrorSums, -1, pe)) lost = 1;
  }
  __syncthreads();
  if (lost) return;
  // In PE order; integers, so the sum is exact whatever the order anyway.
  for (int t = threadIdx.x; t < count; t += blockDim.x) {
    long long s = 0;
    for (int pe = 0; pe < npes; ++pe)
      s += c.red_slots[(static_cast<size_t>(parity) * npes + pe) * kMaxGpuReduce + t];
    values[t] = s;
  }
}

}  // namespace

void launch_exchange_x(gpu::GpuCalls& calls, const Launch& l, int num_pulses) {
  calls.launch("nvshmem exchange_x_kernel", exchange_x_kernel, 1, kThreads, 0, l, num_pulses);
}

void launch_exchange_f(gpu::GpuCalls& calls, const Launch& l, int num_pulses) {
  calls.launch("nvshmem exchange_f_kernel", exchange_f_kernel, 1, kThreads, 0, l, num_pulses);
}

void launch_reduce(gpu::GpuCalls& calls, const Launch& l, long long* values, int count, const int* active) {
  calls.launch("nvshmem reduce_kernel", reduce_kernel, 1, kReduceThreads, 0, l, values, count, active);
}

void* sym_malloc(size_t bytes) { return nvshmem_malloc(bytes); }
void sym_free(void* p) { nvshmem_free(p); }
void* sym_ptr(const void* p, int pe) { return nvshmem_ptr(p, pe); }
void barrier_all() { nvshmem_barrier_all(); }
int my_pe() { return nvshmem_my_pe(); }
int n_pes() { return nvshmem_n_pes(); }

}  // namespace halomd::comm::nvshmem
