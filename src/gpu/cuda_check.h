// One check macro for CUDA runtime calls: throws RuntimeError with the call's text and the error's name.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/errors.h"

#define HALOMD_CUDA_CHECK(call)                                                                              \
  do {                                                                                                       \
    const cudaError_t halomd_err_ = (call);                                                                  \
    if (halomd_err_ != cudaSuccess)                                                                          \
      throw ::halomd::RuntimeError(-1, -1,                                                                   \
                                   std::string(#call) + " failed: " + cudaGetErrorName(halomd_err_) + " (" + \
                                       cudaGetErrorString(halomd_err_) + ")");                               \
  } while (0)

namespace halomd::gpu {

// The same check where the call's text would not say what was called (a kernel launched through a pointer):
// `what` names it.
inline void check(cudaError_t err, const std::string& what) {
  if (err != cudaSuccess)
    throw RuntimeError(-1, -1,
                       what + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

}  // namespace halomd::gpu
