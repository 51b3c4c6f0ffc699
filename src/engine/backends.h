// Which backends this build has: the one place that knows what was compiled in (STYLE.md point 3).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/executor.h"
#include "engine/run_options.h"

namespace halomd {

std::vector<std::string> available_backends();
// A description of the GPUs this process sees, or a line saying the build has no GPU backend.
std::string describe_gpus();
// The executor for options.backend (and, later, its transport). Throws InputError for a backend this build
// does not have.
std::unique_ptr<Executor> make_executor(const RunOptions& options, const ExecutorConfig& config);

}  // namespace halomd
