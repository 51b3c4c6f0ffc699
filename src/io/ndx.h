// GROMACS index files (.ndx, as gmx make_ndx writes them): named groups of atom numbers, which grompp's -n
// makes the only groups tc-grps and the other group options may name.
#pragma once

#include <string>
#include <vector>

namespace halomd::io {

struct IndexGroup {
  std::string name;
  std::vector<int> atoms;  // 0-based, in file order
};

// The groups of an index file in file order; InputError naming the file and line for an entry that is not
// a positive atom number or comes before any [ name ] header.
std::vector<IndexGroup> read_ndx(const std::string& path);

}  // namespace halomd::io
