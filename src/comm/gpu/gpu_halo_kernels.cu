#include "comm/gpu/gpu_halo_device.cuh"
#include "comm/gpu/gpu_halo_kernels.h"

namespace halomd::comm {
namespace {

constexpr int kBlock = 256;

int blocks_for(int n) { return n > 0 ? (n + kBlock - 1) / kBlock : 0; }

__global__ void pack_x_kernel(GpuLocalArrays a, HaloPulseDev p, double* wire) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.send_count) pack_x_atom(a, p, i, wire);
}
__global__ void unpack_x_kernel(GpuLocalArrays a, HaloPulseDev p, const double* wire) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.recv_count) unpack_x_atom(a, p, i, wire);
}
__global__ void pack_f_kernel(GpuLocalArrays a, HaloPulseDev p, float* wire) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.recv_count) pack_f_atom(a, p, i, wire);
}
__global__ void add_f_kernel(GpuLocalArrays a, HaloPulseDev p, const float* wire) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.send_count) add_f_atom(a, p, i, wire);
}

}  // namespace

void launch_pack_x(gpu::GpuCalls& calls, const GpuLocalArrays& a, const HaloPulseDev& p, double* wire) {
  if (p.send_count > 0)
    calls.launch("pack_x_kernel", pack_x_kernel, blocks_for(p.send_count), kBlock, 0, a, p, wire);
}
void launch_unpack_x(gpu::GpuCalls& calls, const GpuLocalArrays& a, const HaloPulseDev& p,
                     const double* wire) {
  if (p.recv_count > 0)
    calls.launch("unpack_x_kernel", unpack_x_kernel, blocks_for(p.recv_count), kBlock, 0, a, p, wire);
}
void launch_pack_f(gpu::GpuCalls& calls, const GpuLocalArrays& a, const HaloPulseDev& p, float* wire) {
  if (p.recv_count > 0)
    calls.launch("pack_f_kernel", pack_f_kernel, blocks_for(p.recv_count), kBlock, 0, a, p, wire);
}
void launch_add_f(gpu::GpuCalls& calls, const GpuLocalArrays& a, const HaloPulseDev& p, const float* wire) {
  if (p.send_count > 0)
    calls.launch("add_f_kernel", add_f_kernel, blocks_for(p.send_count), kBlock, 0, a, p, wire);
}

}  // namespace halomd::comm
