// What CUDA devices this process sees (the first piece of the CUDA backend; the executor follows).
#pragma once

#include <string>

namespace halomd::cuda {

// One line per device: name, compute capability, SMs, memory; or why none could be used.
std::string describe_devices();

}  // namespace halomd::cuda
