// Kernels of the nvshmem and nvshmem_put halo transports (nvshmem_halo_kernels.h says what they share).
//
// Per pulse and direction there are two kernels in stream order:
//   pack-and-send  packs the pulse straight into the peer's symmetric receive buffer (direct stores through
//                  the mapped address) or into a local symmetric stage; the last block to finish (a counter
//                  in device memory) then releases the receiver: a system-scope fence and the signal
//                  (direct), or put-with-signal of the stage (nvshmem_put, or a peer not mapped);
//   wait-and-use   each block's thread 0 waits for its own signal of that pulse to reach the exchange's
//                  epoch, with a timeout, then the block unpacks (coordinates) or adds (forces).
// The epoch is advanced by the first pack kernel of an exchange (its last block), every PE alike, and the
// signals are SET to it and waited for with >=: a signal is never reset, so a wait of step n + 1 can never
// take step n's value for an arrival.
//
// Why it cannot deadlock (several PEs on one GPU under MPS, or one PE per GPU):
// - No kernel waits for another block of itself: the pack kernels never wait (the last block only counts
//   that the others are done), and each block of a waiting kernel waits for an external signal only. So no
//   kernel needs its blocks to be co-resident.
// - The only kernels that spin are the waiting ones here, at most kBlocks blocks of kThreads threads each
//   (the reduction: one block), and a PE has at most one of them running at a time (one stream). With P PEs
//   sharing a GPU that is at most P x kBlocks resident blocks that spin; an H200 holds 132 SMs x 8 such
//   blocks, so every other kernel (a peer's pack kernel, or a big non-bonded kernel that ends by itself)
//   still finds room and runs to completion.
// - The dependencies are acyclic: the wait of (step n, pulse k, direction) needs the peer's pack of the same
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

constexpr int kThreads = 256;
// The grid of every pack and waiting kernel: fixed (so a captured graph stays valid whatever the counts),
// small (the co-residency argument above), grid-stride over the atoms.
constexpr int kBlocks = 16;

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

// The end of a pack kernel: true in the one block that finishes last, after every block's packed data is
// visible (system scope when it went straight to the peer). That block resets the counter for the next pack
// kernel (stream order: nobody else touches it meanwhile).
__device__ bool last_block_done(StateDev* s, bool direct) {
  if (direct) {
    __threadfence_system();
  } else {
    __threadfence();
  }
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) {
    last = atomicAdd(&s->blocks_done, 1u) == gridDim.x - 1;
    if (last) {
      s->blocks_done = 0;
      __threadfence();  // acquire: the other blocks' stage writes are read by the put below
    }
  }
  __syncthreads();
  return last;
}

// The epoch of this exchange: advanced by the exchange's first pack kernel, read by the rest.
__device__ uint64_t exchange_epoch(unsigned long long* counter, bool advance) {
  __shared__ uint64_t epoch;
  if (threadIdx.x == 0) {
    if (advance) {
      epoch = ++*counter;
    } else {
      epoch = *reinterpret_cast<volatile unsigned long long*>(counter);
    }
  }
  __syncthreads();
  return epoch;
}

__global__ void pack_send_x_kernel(Launch l, int k, int advance) {
  const PulseDev& q = l.config->pulse[k];
  const GpuLocalArrays a = l.config->a;
  const HaloPulseDev p = q.p;
  double* wire = q.x_direct ? q.x_direct : q.x_stage;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < p.send_count; i += gridDim.x * blockDim.x)
    pack_x_atom(a, p, i, wire);
  if (!last_block_done(l.state, q.x_direct != nullptr)) return;
  const uint64_t epoch = exchange_epoch(&l.state->epoch_x, advance != 0);
  if (q.x_direct) {
    if (threadIdx.x == 0) {
      __threadfence_system();
      nvshmemx_signal_op(q.x_signal, epoch, NVSHMEM_SIGNAL_SET, q.send_to);
    }
  } else if (p.send_count == 0) {
    if (threadIdx.x == 0) nvshmemx_signal_op(q.x_signal, epoch, NVSHMEM_SIGNAL_SET, q.send_to);
  } else {
    nvshmemx_putmem_signal_nbi_block(q.x_recv, q.x_stage, sizeof(double) * 3 * p.send_count, q.x_signal,
                                     epoch, NVSHMEM_SIGNAL_SET, q.send_to);
  }
}

__global__ void wait_unpack_x_kernel(Launch l, int k) {
  const PulseDev& q = l.config->pulse[k];
  __shared__ bool arrived;
  if (threadIdx.x == 0) arrived = wait_ge(l, q.x_signal, l.state->epoch_x, kErrorCoordinates, k, q.recv_from);
  __syncthreads();
  if (!arrived) return;
  const GpuLocalArrays a = l.config->a;
  const HaloPulseDev p = q.p;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < p.recv_count; i += gridDim.x * blockDim.x)
    unpack_x_atom(a, p, i, q.x_recv);
}

__global__ void pack_send_f_kernel(Launch l, int k, int advance) {
  const PulseDev& q = l.config->pulse[k];
  const GpuLocalArrays a = l.config->a;
  const HaloPulseDev p = q.p;
  float* wire = q.f_direct ? q.f_direct : q.f_stage;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < p.recv_count; i += gridDim.x * blockDim.x)
    pack_f_atom(a, p, i, wire);
  if (!last_block_done(l.state, q.f_direct != nullptr)) return;
  const uint64_t epoch = exchange_epoch(&l.state->epoch_f, advance != 0);
  if (q.f_direct) {
    if (threadIdx.x == 0) {
      __threadfence_system();
      nvshmemx_signal_op(q.f_signal, epoch, NVSHMEM_SIGNAL_SET, q.recv_from);
    }
  } else if (p.recv_count == 0) {
    if (threadIdx.x == 0) nvshmemx_signal_op(q.f_signal, epoch, NVSHMEM_SIGNAL_SET, q.recv_from);
  } else {
    nvshmemx_putmem_signal_nbi_block(q.f_recv, q.f_stage, sizeof(float) * 3 * p.recv_count, q.f_signal, epoch,
                                     NVSHMEM_SIGNAL_SET, q.recv_from);
  }
}

__global__ void wait_add_f_kernel(Launch l, int k) {
  const PulseDev& q = l.config->pulse[k];
  __shared__ bool arrived;
  if (threadIdx.x == 0) arrived = wait_ge(l, q.f_signal, l.state->epoch_f, kErrorForces, k, q.send_to);
  __syncthreads();
  if (!arrived) return;
  const GpuLocalArrays a = l.config->a;
  const HaloPulseDev p = q.p;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < p.send_count; i += gridDim.x * blockDim.x)
    add_f_atom(a, p, i, q.f_recv);
}

// The reduction, one block. Slots [parity][p] hold PE p's values on every PE; parity = epoch & 1. A PE
// writes reduction e + 2 (the same parity as e) into a peer only after its reduction e + 1 saw that peer's
// signal e + 1, which the peer sets after it finished reading reduction e; reduction e + 1 writes the other
// parity. So a fast PE is at most one reduction ahead of a slow one, and never overwrites what it reads.
__global__ void reduce_kernel(Launch l, long long* values, int count, const int* active) {
  if (*active == 0) return;  // every PE sees the same flag, so the epochs stay in step
  const ConfigDev& c = *l.config;
  const uint64_t epoch = exchange_epoch(&l.state->epoch_r, true);
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
  for (int k = 0; k < num_pulses; ++k) {
    calls.launch("nvshmem pack_send_x_kernel", pack_send_x_kernel, kBlocks, kThreads, 0, l, k,
                 k == 0 ? 1 : 0);
    calls.launch("nvshmem wait_unpack_x_kernel", wait_unpack_x_kernel, kBlocks, kThreads, 0, l, k);
  }
}

void launch_exchange_f(gpu::GpuCalls& calls, const Launch& l, int num_pulses) {
  for (int k = num_pulses - 1; k >= 0; --k) {
    calls.launch("nvshmem pack_send_f_kernel", pack_send_f_kernel, kBlocks, kThreads, 0, l, k,
                 k == num_pulses - 1 ? 1 : 0);
    calls.launch("nvshmem wait_add_f_kernel", wait_add_f_kernel, kBlocks, kThreads, 0, l, k);
  }
}

void launch_reduce(gpu::GpuCalls& calls, const Launch& l, long long* values, int count, const int* active) {
  calls.launch("nvshmem reduce_kernel", reduce_kernel, 1, kThreads, 0, l, values, count, active);
}

void* sym_malloc(size_t bytes) { return nvshmem_malloc(bytes); }
void sym_free(void* p) { nvshmem_free(p); }
void* sym_ptr(const void* p, int pe) { return nvshmem_ptr(p, pe); }
void barrier_all() { nvshmem_barrier_all(); }
int my_pe() { return nvshmem_my_pe(); }
int n_pes() { return nvshmem_n_pes(); }

}  // namespace halomd::comm::nvshmem
