#include "io/ndx.h"

#include <fstream>
#include <sstream>

#include "core/errors.h"

namespace halomd::io {

std::vector<IndexGroup> read_ndx(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "cannot open the index file");
  std::vector<IndexGroup> groups;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string code = line.substr(0, line.find(';'));
    const size_t open = code.find('[');
    if (open != std::string::npos) {
      const size_t close = code.find(']', open);
      if (close == std::string::npos) throw InputError(path, number, "a group header without ']'");
      std::istringstream name(code.substr(open + 1, close - open - 1));
      IndexGroup g;
      if (!(name >> g.name)) throw InputError(path, number, "a group header without a name");
      groups.push_back(std::move(g));
      continue;
    }
    std::istringstream words(code);
    std::string word;
    while (words >> word) {
      if (groups.empty()) throw InputError(path, number, "atom numbers before the first [ group ] header");
      size_t used = 0;
      long atom = 0;
      try {
        atom = std::stol(word, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != word.size() || atom < 1)
        throw InputError(path, number, "'" + word + "' is not an atom number (1, 2, ...)");
      groups.back().atoms.push_back(static_cast<int>(atom - 1));
    }
  }
  return groups;
}

}  // namespace halomd::io
