// Which home atoms leave their domain at a neighbour-search step (owner rule of assignment.h).
#include "domdec/migration.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "domdec/assignment.h"

namespace halomd::domdec {

std::vector<Departure> departures(const DdGrid& grid, const Box& box, int domain, std::span<const int> home,
                                  std::span<const Vec3> x_home, std::span<const int> first_atom,
                                  std::span<const IVec3> image_hint) {
  std::vector<Departure> out;
  int current_first = -1;  // the molecule whose owner is in `owner`
  int owner = domain;
  // The domain's cell, less a rim far above rounding (positions are O(box) nm, doubles).
  constexpr double kRim = 1e-6;  // nm
  const IVec3 coords = grid.coords(domain);
  Vec3 lo, hi;
  for (int d = 0; d < 3; ++d) {
    lo[d] = cell_bound(coords[d], grid.n[d], box.len[d]) + kRim;
    hi[d] = cell_bound(coords[d] + 1, grid.n[d], box.len[d]) - kRim;
  }
  const auto stays = [&](size_t at) {
    if (at >= image_hint.size()) return false;
    const Vec3 w = shifted(x_home[at], image_hint[at], box);
    return w.x > lo.x && w.x < hi.x && w.y > lo.y && w.y < hi.y && w.z > lo.z && w.z < hi.z;
  };
  for (size_t i = 0; i < home.size(); ++i) {
    const int atom = home[i];
    const int first = first_atom[atom];
    if (first != current_first) {
      // home is ascending and a molecule's first atom is its lowest index: it comes before the others
      // (usually it is this atom: molecules are contiguous).
      const auto it =
          first == atom ? home.begin() + i : std::lower_bound(home.begin(), home.begin() + i + 1, first);
      if (it == home.begin() + i + 1 || *it != first) {
        throw RuntimeError(
            -1, atom,
            fmt::format("domain {} holds the atom but not its molecule's first atom {}", domain, first + 1));
      }
      const size_t at = static_cast<size_t>(it - home.begin());
      owner = stays(at) ? domain : owner_of(grid, box, x_home[at]).domain;
      current_first = first;
    }
    if (owner != domain) out.push_back({atom, static_cast<int>(i), owner});
  }
  return out;
}

std::vector<std::vector<Departure>> plan_migration(const DdGrid& grid, const Box& box,
                                                   const std::vector<std::vector<int>>& home,
                                                   std::span<const Vec3> x_global,
                                                   std::span<const int> first_atom) {
  std::vector<std::vector<Departure>> out(home.size());
  std::vector<Vec3> x_home;
  for (size_t dom = 0; dom < home.size(); ++dom) {
    x_home.resize(home[dom].size());
    for (size_t i = 0; i < home[dom].size(); ++i) x_home[i] = x_global[home[dom][i]];
    out[dom] = departures(grid, box, static_cast<int>(dom), home[dom], x_home, first_atom);
  }
  return out;
}

}  // namespace halomd::domdec
