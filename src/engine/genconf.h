// `halomd genconf`: replicate a box NX x NY x NZ times, writing the matching .gro and .top (as gmx genconf).
#pragma once

#include <string>

namespace halomd {

// Writes out_prefix + ".gro" and out_prefix + ".top". Throws InputError for bad input.
void genconf(const std::string& conf, const std::string& top, int nx, int ny, int nz,
             const std::string& out_prefix);

}  // namespace halomd
