// Kernels of the nvshmem and nvshmem_put halo transports (nvshmem_halo_kernels.h says what they share).
//
// One kernel per direction and step does every pulse (one launch instead of two per pulse, and no refresh
// kernel after it: bench/NOTES.md, seventh session). Per pulse, in every block:
//   pack     the block's share of the pulse straight into the peer's symmetric receive buffer (direct stores
//            through the mapped address) or into a local symmetric stage; the last block to finish (a
//            counter in device memory, one per pulse) then releases the receiver: a fence and the signal
//            (direct: system scope for a peer on another GPU, device scope for one on this GPU, whose
//            threads are on the same device whatever their process), or put-with-signal of the stage
//            (nvshmem_put, or a peer not mapped);
//   wait     thread 0 waits for the block's own view of that pulse's signal to reach the exchange's epoch,
//            with a timeout;
//   use      the block unpacks its share (coordinates, once the next pulse is sent; also the sorted float
//            record the non-bonded kernel reads) or adds it (forces).
// The home atoms' coordinates are usually packed already: the update kernel of the step before wrote them
// into their slots as it computed them (comm::HaloPrepackDev, StateDev::prepacked), and only the forwarded
// atoms are left to pack here; a pulse that forwards none the update has released too, so this kernel only
// waits for it (HALOMD_HALO_PREPACK).
// Coordinates forwarded by a later pulse are read from the earlier pulse's receive buffer (complete once its
// signal came), so the coordinate kernel needs no barrier between pulses. The force kernel has one grid
// barrier between pulses: a pulse's received atoms may have been sent in the pulse just handled, and must
// have its forces added before they are packed again (the same additions, in the same order, as the
// host-orchestrated transports). Where no pulse of this PE forwards anything (ConfigDev::independent: direct
// pulses, domdec/halo_plan.h, and chained plans of one pulse, or whose later pulses happen to forward
// nothing here; decided per PE, which the argument below allows) both kernels send every pulse first and
// then wait for each in turn, so the pulses
// travel together (the force adds keep their order and barriers); the waits below then depend on packs that
// come before every wait, which only makes the argument that follows easier.
// The exchange's epoch is read by every block at its start and advanced by the last block to leave; the
// signals are SET to it and waited for with >=: a signal is never reset, so a wait of step n + 1 can never
// take step n's value for an arrival.
//
// Why it should not deadlock (several PEs on one GPU under MPS, or one PE per GPU):
// - The only kernels that spin are the exchange kernels here, B = Launch::blocks blocks of Launch::threads
//   (the reduction: one block), and a PE has at most one of them running at a time (stream order; with
//   HALOMD_DD_OVERLAP=2 and 3 the force halo runs on a stream of its own, and the update, which precedes
//   the next exchange, waits for it: cuda_dd_executor.cpp enqueue_step; with 3 the interior rows beside the
//   coordinate kernel are an ordinary kernel that ends by itself). A pulse is
//   released only when all B blocks have packed it, and a block packs pulse k + 1 only after its own wait
//   for pulse k (with independent pulses, ConfigDev::independent, every pack comes before any wait, and a
//   pulse still needs all B blocks' packs), so every block of every PE's exchange kernel must be resident at
//   the same time; other
//   kernels (a big non-bonded kernel) end by themselves and free their SMs. This is an assumption about the
//   hardware, not a guarantee: by registers an H200 holds 3 coordinate-kernel blocks of 256 threads per SM
//   (66 registers), yet 4 PEs x 64 blocks under MPS deadlocked (signals never came) while 4 x 16 never did in
//   ~40 runs (bench/NOTES.md, seventh session), consistent with at most one block per SM per client. B is
//   therefore at most 16 and at most SMs / PEs (nvshmem_halo.cpp). NVSHMEM itself promises progress for
//   several PEs per GPU only when their MPS thread percentages add up to at most 100; the scripts override
//   that check (NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1), which measured faster for GROMACS
//   (DEVICE.md).
// - The dependencies are acyclic: the wait of (step n, pulse k, direction) needs the peer's pack of the same
//   (n, k, direction), which in the peer's stream comes after only waits of earlier (n, k, direction)
//   triples (coordinates before forces, pulses in their order, steps in theirs). By induction every wait is
//   eventually satisfied, as long as every PE enqueues the same sequence of exchanges (they are collective).
// - A block whose wait times out sets the state's `failed` flag and leaves; every other wait and the grid
//   barrier return at once when they see it, so one lost peer ends the kernel with one error.
// MPS makes the kernels of different processes run at the same time; without it (LIMITED_MPG, refused by
// nvshmem::initialise) a spinning kernel would hold the GPU until its time slice ends.
//
// Why a receive buffer is never overwritten while its owner still reads it: the sender S of pulse k packs
// step n + 1's coordinates into R's buffer only after S's wait for R's forces of pulse k at step n, which R
// sends after unpacking the coordinates of pulse k at step n (stream order on R; and a later pulse of step
// n on R that forwards from that buffer reads it before R's force kernel starts). S's update kernel, which
// packs the home atoms of step n + 1 (HaloPrepackDev), runs after S's whole force exchange of step n, so the
// same chain covers it. The forces go the other way round the same chain (R's force buffer of pulse k is
// written by S at step n + 1 only after R's coordinates of step n + 1 reached S, sent after R added step
// n's forces). The put stage is reused under the same chain (the data arrived, so the stage was read).
#include <nvshmem.h>
#include <nvshmemx.h>

#include "comm/gpu/gpu_halo_device.cuh"
#include "comm/nvshmem/nvshmem_halo_kernels.h"
#include "core/errors.h"

namespace halomd::comm::nvshmem {
namespace {

constexpr int kThreads = 256;  // the reduction's block
// The grid of every exchange kernel is Launch::blocks blocks of Launch::threads: fixed for the transport's
// life (so a captured graph stays valid whatever the counts), small next to the GPU (the co-residency
// argument above), grid-stride over the atoms.

__device__ inline uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// A diagnostic stamp (ConfigDev::stamps) of exchange `epoch`; called by one thread.
__device__ inline void stamp(const ConfigDev& c, uint64_t epoch, int slot) {
  if (c.stamps) c.stamps[(epoch % kStampSteps) * kStamps + slot] = global_ns();
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

// A release or acquire fence at system scope (a peer on another GPU) or device scope (this GPU's).
__device__ inline void fence_scope(bool system) {
  if (system) {
    __threadfence_system();
  } else {
    __threadfence();
  }
}

// Waits until *signal >= epoch (nvshmem_signal_wait_until has no timeout). False when it timed out (recorded)
// or an earlier wait had (so that one lost peer gives one error, not a cascade of timeouts). system: the peer
// is on another GPU, so the acquire after the signal is at system scope.
__device__ bool wait_ge(const Launch& l, uint64_t* signal, uint64_t epoch, int kind, int pulse, int peer,
                        bool system) {
  if (failed(l.state)) return false;
  const uint64_t t0 = global_ns();
  while (nvshmem_uint64_test(signal, NVSHMEM_CMP_GE, epoch) == 0) {
    if (failed(l.state)) return false;
    if (global_ns() - t0 > static_cast<uint64_t>(l.timeout_ns)) {
      record_timeout(l, kind, pulse, peer);
      return false;
    }
  }
  fence_scope(system);  // what the signal released is read after it
  return true;
}

// The end of a pack kernel: true in the one block that finishes last, after every block's packed data is
// visible (system scope when it went straight to a peer on another GPU). That block resets the counter for
// the next pack kernel (stream order: nobody else touches it meanwhile).
__device__ bool last_block_done(unsigned int* counter, bool system) {
  fence_scope(system);
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) {
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
    if (last) {
      *counter = 0;
      __threadfence();  // acquire: the other blocks' stage writes are read by the put below
    }
  }
  __syncthreads();
  return last;
}

// Every block of the kernel waits here until all have arrived (they are all resident: see "Why it cannot
// deadlock"). False when a wait of this transport failed meanwhile (a block that gave up never arrives).
__device__ bool grid_barrier(StateDev* s) {
  __syncthreads();
  __shared__ bool ok;
  if (threadIdx.x == 0) {
    volatile unsigned int* gen = &s->barrier_gen;
    const unsigned int g = *gen;  // read before arriving: the release below comes after every arrival
    __threadfence();
    ok = true;
    if (atomicAdd(&s->barrier_count, 1u) == gridDim.x - 1) {
      s->barrier_count = 0;
      __threadfence();
      atomicAdd(&s->barrier_gen, 1u);
    } else {
      while (*gen == g) {
        if (failed(s)) {
          ok = false;
          break;
        }
      }
    }
    __threadfence();
  }
  __syncthreads();
  return ok;
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

// The coordinate value packed for local atom l in pulse k: an atom received in an earlier pulse is read from
// that pulse's receive buffer (complete, as this block waited for its signal), not from x, which other
// blocks of the fused kernel may still be unpacking. The same double either way.
__device__ inline double forwarded_x(const ConfigDev& c, int k, int l, int d) {
  for (int j = 0; j < k; ++j) {
    const HaloPulseDev& p = c.pulse[j].p;
    if (l >= p.recv_start && l < p.recv_start + p.recv_count)
      return c.pulse[j].x_recv[3 * (l - p.recv_start) + d];
  }
  return c.a.x[d][l];
}

// A thread's share (from `first`, every `stride`) of pulse k's received coordinates, unpacked.
__device__ inline void unpack_x_share(const ConfigDev& c, int k, int first, int stride) {
  const PulseDev& b = c.pulse[k];
  for (int i = first; i < b.p.recv_count; i += stride) unpack_x_atom(c.a, b.p, i, b.x_recv);
}

// The whole coordinate exchange in one launch: per pulse, pack (straight into the peer's buffer or into the
// stage), the last block releases the receiver, every block unpacks its share of the pulse before (while
// this one travels) and waits for its own arrival; the last pulse is unpacked at the end. No barrier
// between pulses: a later pulse reads forwarded atoms from the earlier pulses' receive buffers.
// The epoch is read by every block at the start and advanced by the last block to leave.
__global__ void exchange_x_kernel(Launch l) {
  const ConfigDev& c = *l.config;
  const GpuLocalArrays a = c.a;
  __shared__ uint64_t epoch;
  __shared__ bool arrived;
  __shared__ int prepacked;
  if (threadIdx.x == 0) {
    epoch = *reinterpret_cast<volatile unsigned long long*>(&l.state->epoch_x) + 1;
    prepacked = *reinterpret_cast<volatile int*>(&l.state->prepacked);
    if (blockIdx.x == 0) stamp(c, epoch, 0);
  }
  __syncthreads();
  const int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  for (int k = 0; k < c.num_pulses; ++k) {
    const PulseDev& q = c.pulse[k];
    const HaloPulseDev p = q.p;
    double* wire = q.x_direct ? q.x_direct : q.x_stage;
    if (prepacked) {  // the update kernel packed the home atoms (their writes are done: it ended before)
      for (int j = first; j < q.fwd_count; j += stride) {
        const int i = q.fwd[j], s = p.send[i];
        for (int d = 0; d < 3; ++d) wire[3 * i + d] = forwarded_x(c, k, s, d) + p.shift[d];
      }
    } else {
      for (int i = first; i < p.send_count; i += stride) {
        const int s = p.send[i];
        for (int d = 0; d < 3; ++d)
          wire[3 * i + d] = (s < c.num_home ? a.x[d][s] : forwarded_x(c, k, s, d)) + p.shift[d];
      }
    }
    // A pulse the update released itself (packed and signalled) needs nothing more here. Its "sent" stamp
    // is this kernel's entry (the update's release came before).
    if (prepacked && q.update_signals && blockIdx.x == 0 && threadIdx.x == 0 && k < kStampPulses)
      stamp(c, epoch, 1 + 2 * k);
    if (!(prepacked && q.update_signals) &&
        last_block_done(&l.state->pulse_done[k], q.x_direct != nullptr && q.x_system)) {
      if (q.x_direct || p.send_count == 0) {
        if (threadIdx.x == 0) {
          if (q.x_direct && q.x_system) __threadfence_system();
          nvshmemx_signal_op(q.x_signal, epoch, NVSHMEM_SIGNAL_SET, q.send_to);
        }
      } else {
        nvshmemx_putmem_signal_nbi_block(q.x_recv, q.x_stage, sizeof(double) * 3 * p.send_count, q.x_signal,
                                         epoch, NVSHMEM_SIGNAL_SET, q.send_to);
      }
      if (threadIdx.x == 0 && k < kStampPulses) stamp(c, epoch, 1 + 2 * k);
    }
    if (c.independent) continue;  // every pulse is sent first, then waited for (below)
    // The pulse before is unpacked while this one travels: what this one forwards of it was read from its
    // receive buffer, and the unpack writes only the received atoms' entries.
    if (k > 0) unpack_x_share(c, k - 1, first, stride);
    if (threadIdx.x == 0) {
      arrived = wait_ge(l, q.x_signal, epoch, kErrorCoordinates, k, q.recv_from, q.f_system != 0);
      if (blockIdx.x == 0 && k < kStampPulses) stamp(c, epoch, 2 + 2 * k);
    }
    __syncthreads();
    if (!arrived) return;
    __syncthreads();  // `arrived` is written again for the next pulse
  }
  // Pulses that forward nothing (direct pulses) were all sent above; each block now waits for each in turn
  // and unpacks its share of it, so the pulses travel at once instead of one after the other.
  for (int k = 0; c.independent && k < c.num_pulses; ++k) {
    const PulseDev& q = c.pulse[k];
    if (threadIdx.x == 0) {
      arrived = wait_ge(l, q.x_signal, epoch, kErrorCoordinates, k, q.recv_from, q.f_system != 0);
      if (blockIdx.x == 0 && k < kStampPulses) stamp(c, epoch, 2 + 2 * k);
    }
    __syncthreads();
    if (!arrived) return;
    unpack_x_share(c, k, first, stride);
    __syncthreads();  // `arrived` is written again for the next pulse
  }
  if (c.num_pulses > 0 && !c.independent) unpack_x_share(c, c.num_pulses - 1, first, stride);
  if (last_block_done(&l.state->exit_done, false) && threadIdx.x == 0) {
    l.state->epoch_x = epoch;
    if (prepacked) {
      l.state->prepacked = 0;
      ++l.state->prepacked_exchanges;
      bool released = false;
      for (int k = 0; k < c.num_pulses; ++k) released = released || c.pulse[k].update_signals;
      if (released) ++l.state->released_exchanges;
    }
    stamp(c, epoch, kStampsPerDirection - 1);
  }
}

// The whole force exchange in one launch, pulses in reverse: pack the received atoms' forces, the last block
// releases their owner, every block waits for the forces of its sent atoms and adds its share; a grid
// barrier before the next pulse, whose received atoms may have been sent (and just had forces added) in this
// one. The same additions in the same order as the host-orchestrated transports make.
__global__ void exchange_f_kernel(Launch l) {
  const ConfigDev& c = *l.config;
  const GpuLocalArrays a = c.a;
  __shared__ uint64_t epoch;
  __shared__ bool arrived;
  if (threadIdx.x == 0) {
    epoch = *reinterpret_cast<volatile unsigned long long*>(&l.state->epoch_f) + 1;
    if (blockIdx.x == 0) stamp(c, epoch, kStampsPerDirection);
  }
  __syncthreads();
  const int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  // Pulses that forward nothing (direct pulses): their received atoms are never sent, so no pulse's
  // returned forces change what another packs, and every pulse is packed and released before the waits.
  auto pack_release = [&](int k) {
    const PulseDev& q = c.pulse[k];
    const HaloPulseDev p = q.p;
    float* wire = q.f_direct ? q.f_direct : q.f_stage;
    for (int i = first; i < p.recv_count; i += stride) pack_f_atom(a, p, i, wire);
    if (last_block_done(&l.state->pulse_done[k], q.f_direct != nullptr && q.f_system)) {
      if (q.f_direct || p.recv_count == 0) {
        if (threadIdx.x == 0) {
          if (q.f_direct && q.f_system) __threadfence_system();
          nvshmemx_signal_op(q.f_signal, epoch, NVSHMEM_SIGNAL_SET, q.recv_from);
        }
      } else {
        nvshmemx_putmem_signal_nbi_block(q.f_recv, q.f_stage, sizeof(float) * 3 * p.recv_count, q.f_signal,
                                         epoch, NVSHMEM_SIGNAL_SET, q.recv_from);
      }
      if (threadIdx.x == 0 && k < kStampPulses) stamp(c, epoch, kStampsPerDirection + 1 + 2 * k);
    }
  };
  if (c.independent)
    for (int k = c.num_pulses - 1; k >= 0; --k) pack_release(k);
  for (int k = c.num_pulses - 1; k >= 0; --k) {
    const PulseDev& q = c.pulse[k];
    const HaloPulseDev p = q.p;
    if (!c.independent) pack_release(k);
    // The adds stay pulse by pulse, with the grid barrier between them: an atom near an edge is sent in
    // several pulses, and their additions into its f_halo entry keep the order of every transport.
    if (threadIdx.x == 0) {
      arrived = wait_ge(l, q.f_signal, epoch, kErrorForces, k, q.send_to, q.x_system != 0);
      if (blockIdx.x == 0 && k < kStampPulses) stamp(c, epoch, kStampsPerDirection + 2 + 2 * k);
    }
    __syncthreads();
    if (!arrived) return;
    for (int i = first; i < p.send_count; i += stride) add_f_atom(a, p, i, q.f_recv);
    if (k > 0 && !grid_barrier(l.state)) return;
  }
  if (last_block_done(&l.state->exit_done, false) && threadIdx.x == 0) {
    l.state->epoch_f = epoch;
    stamp(c, epoch, 2 * kStampsPerDirection - 1);
  }
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
    if (pe != me && !wait_ge(l, c.red_signal + pe, epoch, kErrorSums, -1, pe, c.red_system != 0)) lost = 1;
  }
  // As in sum_grid_kernel: a put to a peer off this node delivered before the next reduction's can overtake
  // it.
  for (int pe = threadIdx.x; pe < npes; pe += blockDim.x)
    if (pe != me && !c.red_peer[pe]) nvshmem_quiet();
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

__global__ void sum_grid_kernel(Launch l, GridDev g, unsigned long long* values) {
  const int me = g.me, npes = g.npes, b = blockIdx.x;
  const uint64_t epoch = l.state->epoch_g + 1;  // every block reads it before the last one advances it
  const size_t parity = epoch & 1;
  const size_t begin = b * g.chunk, end = begin + g.chunk < g.count ? begin + g.chunk : g.count;
  const size_t mine_at = (parity * npes + me) * g.count;
  unsigned long long* mine = g.slots + mine_at;
  bool any_put = false;
  for (int pe = 0; pe < npes; ++pe) any_put = any_put || (pe != me && !g.peer[pe]);
  for (size_t t = begin + threadIdx.x; t < end; t += blockDim.x) {
    const unsigned long long v = values[t];
    if (any_put) mine[t] = v;  // the put's source must be symmetric
    for (int pe = 0; pe < npes; ++pe)
      if (pe != me && g.peer[pe]) g.peer[pe][mine_at + t] = v;
  }
  fence_scope(g.system != 0);
  __syncthreads();
  uint64_t* const my_signal = g.signal + static_cast<size_t>(me) * g.blocks + b;
  for (int pe = 0; pe < npes; ++pe) {
    if (pe == me) continue;
    if (g.peer[pe]) {
      if (threadIdx.x == 0) nvshmemx_signal_op(my_signal, epoch, NVSHMEM_SIGNAL_SET, pe);
    } else if (end > begin) {
      nvshmemx_putmem_signal_nbi_block(mine + begin, mine + begin, (end - begin) * sizeof(unsigned long long),
                                       my_signal, epoch, NVSHMEM_SIGNAL_SET, pe);
    } else if (threadIdx.x == 0) {
      nvshmemx_signal_op(my_signal, epoch, NVSHMEM_SIGNAL_SET, pe);
    }
  }
  __shared__ int lost;
  if (threadIdx.x == 0) lost = 0;
  __syncthreads();
  for (int pe = threadIdx.x; pe < npes; pe += blockDim.x)
    if (pe != me && !wait_ge(l, g.signal + static_cast<size_t>(pe) * g.blocks + b, epoch, kErrorGrid, b, pe,
                             g.system != 0))
      lost = 1;
  __syncthreads();
  if (!lost) {
    for (size_t t = begin + threadIdx.x; t < end; t += blockDim.x) {
      unsigned long long s = values[t];  // integers modulo 2^64: exact in any order
      for (int pe = 0; pe < npes; ++pe)
        if (pe != me) s += g.slots[(parity * npes + pe) * g.count + t];
      values[t] = s;
    }
  }
  // Put-with-signal to a peer off this node is not ordered with the next sum's: its data and signal are
  // delivered before the kernel ends, so that the next sum's signal cannot overtake them.
  if (any_put) nvshmem_quiet();
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(&l.state->grid_done, 1u) == gridDim.x - 1) {
    l.state->grid_done = 0;
    l.state->epoch_g = epoch;
  }
}

// [begin, end) of chunk b of slab s, clipped to the grid.
__device__ inline void slab_chunk(const GridSlabsDev& g, int s, int b, size_t& begin, size_t& end) {
  const size_t slab_end = (static_cast<size_t>(s) + 1) * g.slab < g.count ? (s + 1) * g.slab : g.count;
  begin = s * g.slab + b * g.chunk;
  end = begin + g.chunk < slab_end ? begin + g.chunk : slab_end;
  if (begin > end) begin = end;
}

__global__ void sum_grid_slabs_kernel(Launch l, GridSlabsDev g, unsigned long long* values) {
  const int me = g.me, npes = g.npes, b = blockIdx.x;
  const uint64_t epoch = l.state->epoch_g + 1;  // every block reads it before the last one advances it
  const size_t parity = epoch & 1;
  bool any_put = false;
  for (int pe = 0; pe < npes; ++pe) any_put = any_put || (pe != me && (!g.rs_peer[pe] || !g.real_peer[pe]));
  // Reduce-scatter: chunk b of every other PE's slab to that PE, zeroed here for the next spread. The
  // slot of a sender in its receiver is [parity][sender], at the chunk's place within the slab.
  const size_t from_me = (parity * npes + me) * g.slab;
  for (int s = 0; s < npes; ++s) {
    if (s == me) continue;
    size_t begin, end;
    slab_chunk(g, s, b, begin, end);
    unsigned long long* const to = g.rs_peer[s] ? g.rs_peer[s] + from_me : nullptr;  // slab s's start there
    for (size_t t = begin + threadIdx.x; t < end; t += blockDim.x) {
      const unsigned long long v = values[t];
      values[t] = 0;
      if (to) {
        to[t - s * g.slab] = v;
      } else {
        g.stage[t] = v;  // the put's source must be symmetric
      }
    }
  }
  fence_scope(g.system != 0);
  __syncthreads();
  uint64_t* const rs_mine = g.rs_signal + static_cast<size_t>(me) * g.blocks + b;
  for (int s = 0; s < npes; ++s) {
    if (s == me) continue;
    size_t begin, end;
    slab_chunk(g, s, b, begin, end);
    if (g.rs_peer[s] || end == begin) {
      if (threadIdx.x == 0) nvshmemx_signal_op(rs_mine, epoch, NVSHMEM_SIGNAL_SET, s);
    } else {
      nvshmemx_putmem_signal_nbi_block(g.rs_slots + from_me + (begin - s * g.slab), g.stage + begin,
                                       (end - begin) * sizeof(unsigned long long), rs_mine, epoch,
                                       NVSHMEM_SIGNAL_SET, s);
    }
  }
  __shared__ int lost;
  if (threadIdx.x == 0) lost = 0;
  __syncthreads();
  for (int pe = threadIdx.x; pe < npes; pe += blockDim.x)
    if (pe != me && !wait_ge(l, g.rs_signal + static_cast<size_t>(pe) * g.blocks + b, epoch, kErrorGrid, b,
                             pe, g.system != 0))
      lost = 1;
  __syncthreads();
  // Chunk b of this PE's slab: summed (integers modulo 2^64, exact in any order), in float as the one-grid
  // path's conversion (cuda/pme_mesh.cu), zeroed.
  size_t begin, end;
  slab_chunk(g, me, b, begin, end);
  if (!lost) {
    for (size_t t = begin + threadIdx.x; t < end; t += blockDim.x) {
      unsigned long long v = values[t];
      values[t] = 0;
      for (int pe = 0; pe < npes; ++pe)
        if (pe != me) v += g.rs_slots[(parity * npes + pe) * g.slab + (t - me * g.slab)];
      const float r = static_cast<float>(static_cast<double>(static_cast<long long>(v)) * g.inv_scale);
      g.real[t] = r;
      for (int pe = 0; pe < npes; ++pe)
        if (pe != me && g.real_peer[pe]) g.real_peer[pe][t] = r;
    }
  }
  // All-gather: the float chunk to every peer's grid at the same place.
  fence_scope(g.system != 0);
  __syncthreads();
  uint64_t* const ag_mine = g.ag_signal + static_cast<size_t>(me) * g.blocks + b;
  for (int s = 0; s < npes; ++s) {
    if (s == me) continue;
    if (g.real_peer[s] || end == begin) {
      if (threadIdx.x == 0) nvshmemx_signal_op(ag_mine, epoch, NVSHMEM_SIGNAL_SET, s);
    } else {
      nvshmemx_putmem_signal_nbi_block(g.real + begin, g.real + begin, (end - begin) * sizeof(float), ag_mine,
                                       epoch, NVSHMEM_SIGNAL_SET, s);
    }
  }
  __syncthreads();
  for (int pe = threadIdx.x; pe < npes; pe += blockDim.x)
    if (pe != me && !wait_ge(l, g.ag_signal + static_cast<size_t>(pe) * g.blocks + b, epoch, kErrorGrid, b,
                             pe, g.system != 0))
      lost = 1;
  // As in sum_grid_kernel: puts delivered before the next sum's signals can overtake them.
  if (any_put) nvshmem_quiet();
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(&l.state->grid_done, 1u) == gridDim.x - 1) {
    l.state->grid_done = 0;
    l.state->epoch_g = epoch;
  }
}

}  // namespace

void launch_sum_grid_slabs(gpu::GpuCalls& calls, const Launch& l, const GridSlabsDev& g,
                           unsigned long long* values) {
  calls.launch("nvshmem sum_grid_slabs_kernel", sum_grid_slabs_kernel, g.blocks, l.threads, 0, l, g, values);
}

void launch_sum_grid(gpu::GpuCalls& calls, const Launch& l, const GridDev& g, unsigned long long* values) {
  calls.launch("nvshmem sum_grid_kernel", sum_grid_kernel, g.blocks, l.threads, 0, l, g, values);
}

void launch_exchange_x(gpu::GpuCalls& calls, const Launch& l) {
  calls.launch("nvshmem exchange_x_kernel", exchange_x_kernel, l.blocks, l.threads, 0, l);
}
__global__ void skip_epoch_kernel(StateDev* s) {
  ++s->epoch_x;
  ++s->epoch_f;  // not needed by the forces; keeps a step's two epochs equal for the stamps
}
void launch_skip_epoch(gpu::GpuCalls& calls, const Launch& l) {
  calls.launch("nvshmem skip_epoch_kernel", skip_epoch_kernel, 1, 1, 0, l.state);
}
void launch_exchange_f(gpu::GpuCalls& calls, const Launch& l) {
  calls.launch("nvshmem exchange_f_kernel", exchange_f_kernel, l.blocks, l.threads, 0, l);
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
