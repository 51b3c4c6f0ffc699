// Device side of the nvshmem and nvshmem_put GPU halo transports (nvshmem_halo.cpp is the host side): one
// exchange kernel per direction (all pulses), the reduction kernel, and thin wrappers of the NVSHMEM
// host calls the transport needs, so that the host class (C++20) never includes NVSHMEM's headers. C++17.
//
// Everything a kernel reads that may change at a search step (the plan's pulses, the buffers' addresses)
// lives in a ConfigDev in device memory, and everything that changes from step to step (the signal epochs)
// in a StateDev that the kernels advance themselves. The launch arguments are therefore the same at every
// step and at every bind (pointers fixed for the transport's life, the grid, the timeout): a CUDA graph
// captured once replays correctly whatever the plan (the pulse count is read from the ConfigDev too).
#pragma once

#include <cstddef>
#include <cstdint>

#include "comm/gpu/gpu_halo_arrays.h"
#include "gpu/gpu_calls.h"

namespace halomd::comm::nvshmem {

// Most pulses per plan (equal to kMaxDevicePulses of comm/halo_transport.h, C++20, checked there).
inline constexpr int kMaxHaloPulses = kMaxGpuPulses;

// One pulse and where its data goes. Symmetric addresses (x_recv, f_recv, the stages, the signals) are this
// PE's; the same address names the peer's copy in put calls. *_direct are the peer's copies mapped into this
// process (nvshmem_ptr), null where the peer is not directly reachable or put-with-signal is forced.
struct PulseDev {
  HaloPulseDev p;
  int send_to = -1;              // coordinates go to, forces come back from
  int recv_from = -1;            // coordinates come from, forces go back to
  double* x_recv = nullptr;      // recv_count atoms x 3 doubles arrive here
  double* x_direct = nullptr;    // send_to's x_recv, mapped
  double* x_stage = nullptr;     // send_count x 3 doubles packed here for the put
  float* f_recv = nullptr;       // send_count atoms x 3 floats come back here
  float* f_direct = nullptr;     // recv_from's f_recv, mapped
  float* f_stage = nullptr;      // recv_count x 3 floats packed here for the put
  uint64_t* x_signal = nullptr;  // set on send_to when the coordinates are there
  uint64_t* f_signal = nullptr;  // set on recv_from when the forces are there
  // Direct stores to a peer on another GPU are released at system scope; to a peer on this GPU (another
  // process under MPS), device scope covers every thread that reads them (x for send_to, f for recv_from).
  // The same flags give the scope of the acquire after a wait: f_system for the coordinates that come from
  // recv_from, x_system for the forces that come back from send_to.
  int x_system = 1;
  int f_system = 1;
  // The slots of the atoms this pulse forwards (received in an earlier pulse): all that the exchange
  // packs when the update packed the home atoms (comm::HaloPrepackDev).
  const int* fwd = nullptr;
  int fwd_count = 0;
  // The update kernel also releases this pulse (comm::PrepackPulseDev::signal) when it packed.
  int update_signals = 0;
};

struct ConfigDev {
  GpuLocalArrays a;
  int num_home = 0;  // local atoms [0, num_home) are home, the rest arrive in the pulses
  int num_pulses = 0;
  // No pulse of this PE forwards atoms received in another (direct pulses, domdec/halo_plan.h; also a
  // one-pulse plan): the kernels then send every pulse before they wait for any.
  int independent = 0;
  int me = 0;
  int npes = 1;
  PulseDev pulse[kMaxHaloPulses];
  long long* red_slots = nullptr;        // symmetric [2 parities][npes][kMaxGpuReduce]
  uint64_t* red_signal = nullptr;        // symmetric [npes]: PE p sets [p] on every other PE
  long long* const* red_peer = nullptr;  // device array [npes]: red_slots of PE p mapped, or null
  int red_system = 1;                    // some PE is on another GPU (the sums' acquire scope)
  // HALOMD_HALO_STAMPS=1 (a diagnostic): the fused kernels write GPU global-timer stamps (ns, the same clock
  // for every process on the GPU) of their steps into [kStampSteps][kStamps], by exchange epoch.
  unsigned long long* stamps = nullptr;
};

inline constexpr int kStampSteps = 256;
// Per step: x entry, then per pulse k (in order) sent and arrived, x exit; f entry, per pulse k (in reverse
// order) sent and arrived, f exit. Pulses beyond kStampPulses are not stamped.
inline constexpr int kStampPulses = 3;
inline constexpr int kStampsPerDirection = 2 + 2 * kStampPulses;
inline constexpr int kStamps = 2 * kStampsPerDirection;

// Advanced only by the kernels. Zeroed once when the transport is made.
struct StateDev {
  unsigned long long epoch_x = 0;  // one per exchange_x: the value the coordinate signals are set to
  unsigned long long epoch_f = 0;  // one per exchange_f
  unsigned long long epoch_r = 0;  // one per active reduce
  // The exchange kernels' last-block-done counters (one per pulse, and one as they leave) and grid barrier
  // (arrivals, generation); every counter is back to 0 when a kernel ends.
  unsigned int pulse_done[kMaxHaloPulses] = {};
  unsigned int exit_done = 0;
  unsigned int barrier_count = 0, barrier_gen = 0;
  int failed = 0;  // a wait timed out: every later wait returns at once
  // Set by an update kernel that packed the home atoms of the next exchange_x (comm::HaloPrepackDev), read
  // by every block of that exchange at its start and cleared by its last block; cleared at bind.
  int prepacked = 0;
  unsigned long long epoch_g = 0;              // one per sum_grid, advanced by its last block
  unsigned int grid_done = 0;                  // sum_grid's last-block-done counter, back to 0 when it ends
  unsigned long long prepacked_exchanges = 0;  // exchange_x calls that found it set
  unsigned long long released_exchanges = 0;   // ... of which the update also released some pulse
};

enum : int { kErrorCoordinates = 0, kErrorForces = 1, kErrorSums = 2, kErrorGrid = 3 };

// PME's charge grid summed over PEs (GpuHaloTransport::sum_grid): fixed for the transport's life (made at
// reserve_grid), so a kernel argument that graphs may freeze. Block b of every PE takes values
// [b chunk, (b + 1) chunk): it writes them into every peer's slots [parity][me] (direct stores, or a put
// from its own slot), signals [me][b] there with the sum's epoch, waits for [pe][b] of every peer, and sums
// its chunk over the PEs' slots.
struct GridDev {
  unsigned long long* slots = nullptr;        // symmetric [2 parities][npes][count]
  uint64_t* signal = nullptr;                 // symmetric [npes][blocks]
  unsigned long long* const* peer = nullptr;  // device array [npes]: slots of PE p mapped, or null
  size_t count = 0, chunk = 0;
  int blocks = 1;
  int me = 0, npes = 1;
  int system = 1;  // some PE is on another GPU (release and acquire scope)
};

// In mapped page-locked memory: the host reads it after a stream sync, without a copy. The first wait that
// times out fills it (kind, pulse, peer) and sets `set` last.
struct ErrorRecord {
  int set = 0;
  int kind = 0;
  int pulse = 0;
  int peer = -1;
};

struct Launch {
  const ConfigDev* config = nullptr;
  StateDev* state = nullptr;
  ErrorRecord* error = nullptr;  // device address of the mapped record
  long long timeout_ns = 0;
  int blocks = 16;    // the grid of every exchange kernel (HALOMD_HALO_BLOCKS; nvshmem_halo.cpp caps it)
  int threads = 256;  // per block of an exchange kernel (HALOMD_HALO_THREADS)
};

// The coordinate exchange, pulses 0..num_pulses-1, in one launch: per pulse pack-and-send, wait, unpack.
void launch_exchange_x(gpu::GpuCalls& calls, const Launch& l);
// At bind, on every PE: the coordinate epoch advanced once, so that a signal the update set for the plan
// before (comm::PrepackPulseDev::signal) cannot release the first exchange of the new one.
void launch_skip_epoch(gpu::GpuCalls& calls, const Launch& l);
// The force exchange, pulses num_pulses-1..0, in one launch: per pulse pack-and-send the received atoms'
// forces, wait, add.
void launch_exchange_f(gpu::GpuCalls& calls, const Launch& l);
// One launch of one block: values[0, count) summed over PEs when *active != 0.
void launch_reduce(gpu::GpuCalls& calls, const Launch& l, long long* values, int count, const int* active);

// The slab form of the grid sum (HALOMD_GRID_SUM=slabs): PE p owns slab p of the grid ([p slab, (p + 1)
// slab) of count values). Block b of every PE sends chunk b of every other PE's slab to that PE (into its
// rs_slots [parity][sender], stored or put from `stage`) and signals rs_signal [me][b] there; waits for
// chunk b of its own slab from every peer, sums it, converts it to float (times inv_scale) into `real`, and
// sends that to every peer's `real` (stored or put) with ag_signal [me][b]; then waits for the peers' chunk
// b. Traffic per PE: 2 (npes - 1) / npes grids (the second half in float) instead of npes - 1.
struct GridSlabsDev {
  unsigned long long* rs_slots = nullptr;        // symmetric [2 parities][npes][slab]
  unsigned long long* stage = nullptr;           // symmetric [count]: the put's source
  float* real = nullptr;                         // symmetric [count]: the summed grid, in float
  uint64_t* rs_signal = nullptr;                 // symmetric [npes][blocks]
  uint64_t* ag_signal = nullptr;                 // symmetric [npes][blocks]
  unsigned long long* const* rs_peer = nullptr;  // device array [npes]: rs_slots of PE p mapped, or null
  float* const* real_peer = nullptr;             // device array [npes]: real of PE p mapped, or null
  size_t count = 0, slab = 0, chunk = 0;         // chunk: of a slab, per block
  double inv_scale = 1.0;
  int blocks = 1;
  int me = 0, npes = 1;
  int system = 1;
};

// sum_grid: values[0, g.count) summed over PEs in place (g.blocks blocks, each resident with its peers').
void launch_sum_grid(gpu::GpuCalls& calls, const Launch& l, const GridDev& g, unsigned long long* values);
// The slab form: g.real gets the sum of `values` over PEs times inv_scale; `values` is zeroed.
void launch_sum_grid_slabs(gpu::GpuCalls& calls, const Launch& l, const GridSlabsDev& g,
                           unsigned long long* values);

// NVSHMEM's host calls. sym_malloc and sym_free are collective (same sizes, same order, on every PE).
void* sym_malloc(size_t bytes);
void sym_free(void* p);
void* sym_ptr(const void* p, int pe);  // nvshmem_ptr
void barrier_all();
int my_pe();
int n_pes();

}  // namespace halomd::comm::nvshmem
