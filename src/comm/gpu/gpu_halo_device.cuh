// Device-side pieces shared by the GPU halo transports (gpu_halo.h): one pulse as its kernels see it and
// the per-atom pack, unpack and force-add steps, so that every transport does the same arithmetic and the
// trajectories are bitwise identical whichever carries the data (domdec::reduce_f_apart is the host's
// reference of the force side). Wire formats: coordinates 3 doubles per atom, forces 3 floats per atom, in
// the pulse's send order.
#pragma once

#include <cuda_runtime.h>

#include "comm/gpu/gpu_halo_arrays.h"

namespace halomd::comm {

__device__ inline void pack_x_atom(const GpuLocalArrays& a, const HaloPulseDev& p, int i, double* wire) {
  const int k = p.send[i];
  for (int d = 0; d < 3; ++d) wire[3 * i + d] = a.x[d][k] + p.shift[d];
}

__device__ inline void unpack_x_atom(const GpuLocalArrays& a, const HaloPulseDev& p, int i,
                                     const double* wire) {
  const int l = p.recv_start + i;
  double v[3];
  for (int d = 0; d < 3; ++d) a.x[d][l] = v[d] = wire[3 * i + d];
  a.f_halo[l] = make_float4(0.f, 0.f, 0.f, 0.f);
  if (a.xq) {
    const int4 k = a.img[l];
    a.xq[a.sorted_of[l]] =
        make_float4(static_cast<float>(v[0] - k.x * a.len[0]), static_cast<float>(v[1] - k.y * a.len[1]),
                    static_cast<float>(v[2] - k.z * a.len[2]), a.qs[l]);
  }
}

// The force on received atom i, to go back to its owner: its own (non-bonded) force plus what later pulses
// brought back for it, if it was forwarded.
__device__ inline void pack_f_atom(const GpuLocalArrays& a, const HaloPulseDev& p, int i, float* wire) {
  const int l = p.recv_start + i;
  const float4 f = a.f[a.sorted_of[l]], h = a.f_halo[l];
  wire[3 * i + 0] = f.x + h.x;
  wire[3 * i + 1] = f.y + h.y;
  wire[3 * i + 2] = f.z + h.z;
}

// Adds the returned force of sent atom i into its f_halo entry (each atom appears once in a pulse's send
// list, so no race).
__device__ inline void add_f_atom(const GpuLocalArrays& a, const HaloPulseDev& p, int i, const float* wire) {
  float4& h = a.f_halo[p.send[i]];
  h.x += wire[3 * i + 0];
  h.y += wire[3 * i + 1];
  h.z += wire[3 * i + 2];
}

}  // namespace halomd::comm
