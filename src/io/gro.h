// Reading and writing GROMACS .gro coordinate files (fixed columns, optional velocities, rectangular box).
#pragma once

#include <string>
#include <vector>

#include "core/box.h"
#include "core/vec3.h"

namespace halomd::io {

struct GroFile {
  std::string title;
  std::vector<int> residue_number;  // as written in the file (wraps past 99,999)
  std::vector<std::string> residue_name;
  std::vector<std::string> atom_name;
  std::vector<Vec3> x;  // nm
  std::vector<Vec3> v;  // nm/ps; empty when the file has none
  Box box;
  bool has_velocities() const { return !v.empty(); }
  int num_atoms() const { return static_cast<int>(x.size()); }
};

// Throws InputError naming the file and line; a triclinic box is refused.
GroFile read_gro(const std::string& path);

// Writes gmx's format and precision (%8.3f positions, %8.4f velocities, numbers modulo 100,000).
// Writes to path + ".tmp" then renames, so a crash never leaves half a file.
void write_gro(const std::string& path, const GroFile& gro);

}  // namespace halomd::io
