// What CUDA devices this process sees.
#pragma once

#include <string>

namespace halomd::cuda {

// One line per device: name, compute capability, SMs, memory; or why none could be used.
std::string describe_devices();
// Whether a CUDA device can be used (tests skip without one).
bool device_available();

}  // namespace halomd::cuda
