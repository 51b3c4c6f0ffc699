// Plain (not device-initiated) kernels of the GPU halo transports: pack a pulse into a contiguous wire
// buffer, unpack it, and the same for forces (gpu_halo_device.cuh has the per-atom arithmetic). Enqueued
// through GpuCalls, so each launch is counted.
#pragma once

#include "comm/gpu/gpu_halo_arrays.h"
#include "gpu/gpu_calls.h"

namespace halomd::comm {

// wire: 3 * send_count doubles.
void launch_pack_x(gpu::GpuCalls& calls, const GpuLocalArrays& a, const HaloPulseDev& p, double* wire);
// wire: 3 * recv_count doubles.
void launch_unpack_x(gpu::GpuCalls& calls, const GpuLocalArrays& a, const HaloPulseDev& p,
                     const double* wire);
// wire: 3 * recv_count floats.
void launch_pack_f(gpu::GpuCalls& calls, const GpuLocalArrays& a, const HaloPulseDev& p, float* wire);
// wire: 3 * send_count floats.
void launch_add_f(gpu::GpuCalls& calls, const GpuLocalArrays& a, const HaloPulseDev& p, const float* wire);

}  // namespace halomd::comm
