// Reading a GROMACS .top topology through its preprocessor (#include, #define, #ifdef, ...) into a Topology.
#pragma once

#include <string>
#include <vector>

#include "core/topology.h"
#include "io/gro.h"

namespace halomd::io {

struct TopOptions {
  // Searched for #include after the including file's folder; read_top also appends $GMXLIB (colon
  // separated) and, when present, the GROMACS share folder (/usr/share/gromacs/top).
  std::vector<std::string> include_dirs;
  std::vector<std::string> defines;  // "NAME" or "NAME=VALUE", as -D on the grompp command line
};

// Throws InputError naming the file and line (of the included file where the error is) and what was expected.
Topology read_top(const std::string& path, const TopOptions& options = {});

// Checks the topology against the coordinates: atom count, molecule order and atom names per molecule
// (a name mismatch is only counted, as grompp warns). Throws InputError naming both files.
void check_topology_matches(const Topology& top, const std::string& top_path, const GroFile& gro,
                            const std::string& gro_path);

// For `halomd genconf`: copies the .top text at in_path to out_path with its [ molecules ] list repeated
// `copies` times (consecutive entries of the same molecule merged), so it matches a replicated .gro.
void write_replicated_top(const std::string& in_path, const std::string& out_path, int copies);

}  // namespace halomd::io
