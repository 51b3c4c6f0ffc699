// Reading a GROMACS .mdp file into MdParams: options we implement, options we accept at their default, and a
// clear refusal of anything else.
#pragma once

#include <string>

#include "core/md_params.h"

namespace halomd::io {

// Throws InputError (file, line, option name, what was expected) for a malformed line, an unknown option,
// or an option set to a value halomd does not implement.
MdParams read_mdp(const std::string& path);

}  // namespace halomd::io
