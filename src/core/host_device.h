// HALOMD_HOST_DEVICE marks functions that both the CPU reference and CUDA kernels call.
#pragma once

#if defined(__CUDACC__)
#define HALOMD_HOST_DEVICE __host__ __device__
#define HALOMD_INLINE __forceinline__
#else
#define HALOMD_HOST_DEVICE
#define HALOMD_INLINE inline
#endif
