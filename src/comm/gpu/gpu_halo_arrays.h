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

}  // namespace halomd::comm
