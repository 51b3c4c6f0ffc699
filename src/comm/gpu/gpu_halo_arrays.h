// The executor's device arrays that a GPU halo transport reads and writes (gpu_halo.h), in a header that the
// kernels (.cu, C++17) can include.
#pragma once

#include <cuda_runtime.h>

namespace halomd::comm {

// Valid until the next bind(). Local atoms are numbered as in the DomainPlan (home atoms first, then each
// pulse's atoms in pulse order).
struct GpuLocalArrays {
  double* x[3] = {nullptr, nullptr, nullptr};  // per local atom, the domain's frame (nm)
  float4* f = nullptr;                         // per sorted slot: force x, y, z (kJ/mol/nm); read only
  // Per local atom: the forces the force halo brought back for it, summed apart from f (0 + the pulses' in
  // reverse pulse order), so that the exchange never writes what a non-bonded pass may still be writing;
  // the update adds f + f_halo. The coordinate unpack zeroes a received atom's entry, the update a home
  // atom's; the executor zeroes the whole array when the plan changes.
  float4* f_halo = nullptr;
  const int* sorted_of = nullptr;  // local atom -> sorted slot
  int num_local = 0;
  // Optional: when xq is set, unpacking a received atom also writes its sorted non-bonded record as the
  // pair search places it (x minus its image shift, in float, with its scaled charge), so the exchange
  // needs no kernel after it.
  float4* xq = nullptr;       // per sorted slot
  const int4* img = nullptr;  // per local atom
  const float* qs = nullptr;  // per local atom
  double len[3] = {0.0, 0.0, 0.0};
};

// One pulse as the kernels see it (device copy of a domdec::Pulse).
struct HaloPulseDev {
  const int* send = nullptr;  // local atoms sent (device memory), send_count of them
  int send_count = 0;
  int recv_start = 0;
  int recv_count = 0;
  double shift[3] = {0.0, 0.0, 0.0};
};

// Most int64 values one reduce() call sums.
inline constexpr int kMaxGpuReduce = 32;

// Most pulses of a plan that a GPU transport takes (comm/halo_transport.h kMaxDevicePulses).
inline constexpr int kMaxGpuPulses = 16;

// The home atoms of the next coordinate halo, packed by the update kernel of the step before
// (GpuHaloTransport::prepack; the nvshmem transports). Once the update has a home atom's new position it
// writes it, shifted, into the atom's slot of every pulse that sends it: straight into the peer's receive
// buffer, or into the put stage. The exchange kernel then packs only the atoms it forwards and signals, so
// the pack of the home atoms leaves the coordinate halo's path, on which the GPU is otherwise idle. Every
// value is the double the exchange kernel would have packed (x + shift): the trajectories keep their bits.
struct PrepackPulseDev {
  const int* slot_of = nullptr;  // per home atom: its slot in the pulse's send list, or -1; null: none sent
  double* wire = nullptr;        // slot i's 3 doubles go to wire[3 i, 3 i + 3)
  double shift[3] = {0.0, 0.0, 0.0};
  int system = 0;  // wire is another GPU's memory: each write is released at system scope
  // Where the update also releases the pulse (every atom it sends is a home atom and the peer is mapped):
  // the peer's signal word, set to the next exchange's epoch by the update's last block; null: the
  // exchange kernel signals.
  unsigned long long* signal = nullptr;
};
struct HaloPrepackDev {
  int num_pulses = 0;  // 0: the update packs nothing (this plan cannot be packed so, or the option is off)
  int num_home = 0;
  int* packed = nullptr;  // set by an update kernel that packed; read and cleared by the next exchange
  const unsigned long long* epoch = nullptr;  // the last coordinate exchange's epoch (the next is + 1)
  int signals = 0;                            // some pulse has a signal
  PrepackPulseDev pulse[kMaxGpuPulses];
};

}  // namespace halomd::comm
