// Which backends this build has: the one place that knows what was compiled in (STYLE.md point 3).
#pragma once

#include <string>
#include <vector>

namespace halomd {

std::vector<std::string> available_backends();
// A description of the GPUs this process sees, or a line saying the build has no GPU backend.
std::string describe_gpus();

}  // namespace halomd
