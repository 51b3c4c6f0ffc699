#include "cuda/device_info.h"
#include "fmt/format.h"
#include "gpu/cuda_check.h"

namespace halomd::cuda {

std::string describe_devices() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return fmt::format("no usable CUDA device: {}", cudaGetErrorString(err));
  int driver = 0;
  HALOMD_CUDA_CHECK(cudaDriverGetVersion(&driver));
  std::string out;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    HALOMD_CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    out += fmt::format("GPU {}: {}, sm_{}{}, {} SMs, {:.1f} GiB, CUDA driver {}.{}\n", d, prop.name,
                       prop.major, prop.minor, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0,
                       driver / 1000, (driver % 1000) / 10);
  }
  return out;
}

bool device_available() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) (void)cudaGetLastError();
  return err == cudaSuccess && count > 0;
}

}  // namespace halomd::cuda
