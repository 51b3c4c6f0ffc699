#include "engine/backends.h"

#if HALOMD_HAVE_CUDA
#include "cuda/device_info.h"
#endif

namespace halomd {

std::vector<std::string> available_backends() { return {"cpu"}; }

std::string describe_gpus() {
#if HALOMD_HAVE_CUDA
  return cuda::describe_devices();
#else
  return "this build has no CUDA backend (configure with -DHALOMD_ENABLE_CUDA=ON)\n";
#endif
}

}  // namespace halomd
