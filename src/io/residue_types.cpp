#include "io/residue_types.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace halomd::io {

std::map<std::string, std::string> read_residue_types() {
  std::vector<std::string> dirs;
  if (const char* lib = std::getenv("GMXLIB")) {
    std::stringstream s(lib);
    for (std::string d; std::getline(s, d, ':');)
      if (!d.empty()) dirs.push_back(d);
  }
  dirs.push_back("/usr/share/gromacs/top");
  for (const std::string& d : dirs) {
    std::ifstream in(d + "/residuetypes.dat");
    if (!in) continue;
    std::map<std::string, std::string> types;
    for (std::string line; std::getline(in, line);) {
      std::istringstream w(line);
      std::string name, type;
      if (w >> name >> type) types.emplace(name, type);
    }
    return types;
  }
  return {};
}

}  // namespace halomd::io
