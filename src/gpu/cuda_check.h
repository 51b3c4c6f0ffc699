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
