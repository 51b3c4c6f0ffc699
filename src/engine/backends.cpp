#include "engine/backends.h"

#include "core/errors.h"
#include "cpu/cpu_executor.h"

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

std::unique_ptr<Executor> make_executor(const RunOptions& options, const ExecutorConfig& config) {
  if (options.backend == "cpu") return std::make_unique<CpuExecutor>(config);
  throw InputError("", 0, "backend '" + options.backend + "' is not in this build");
}

}  // namespace halomd
