// Migration at a neighbour-search step: which home atoms left their domain, to which owner, with their state.
//
// The owner rule is assignment.h's (a whole molecule goes where its first atom lies, wrapped into the box),
// so after migrating, every domain's home atoms are exactly those build_plan assigns it from the same
// positions.
#pragma once

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "core/box.h"
#include "domdec/grid.h"

namespace halomd::domdec {

struct Departure {
  int atom = 0;   // global index
  int index = 0;  // position in the leaving domain's home list (where its state is)
  int to = 0;     // new owner
};

// One domain's departures, ascending: home (ascending global index, whole molecules) and the home atoms'
// current positions x_home (home order, any box image per molecule, molecules whole). image_hint (home
// order; may be shorter or empty): a box image per home atom that probably wraps its molecule's first atom
// into the domain (the images of the last partition): where it puts that atom inside the domain's cell, away
// from its faces, the molecule stays without the owner rule's arithmetic, whose answer that is then (any
// other image lies a box length away); a wrong hint only costs the arithmetic.
std::vector<Departure> departures(const DdGrid& grid, const Box& box, int domain, std::span<const int> home,
                                  std::span<const Vec3> x_home, std::span<const int> first_atom,
                                  std::span<const IVec3> image_hint = {});

// All domains at once: home[D] as above, positions indexed by global atom.
std::vector<std::vector<Departure>> plan_migration(const DdGrid& grid, const Box& box,
                                                   const std::vector<std::vector<int>>& home,
                                                   std::span<const Vec3> x_global,
                                                   std::span<const int> first_atom);

// Per-atom state (velocities, anything copyable) moved with its atom: home[D] and state[D] (same order)
// before, the departures of every domain; returns each domain's new state and sets new_home[D]: kept atoms
// and arrivals, ascending global index, state in the same order.
template <class T>
std::vector<std::vector<T>> carry_state(const std::vector<std::vector<int>>& home,
                                        const std::vector<std::vector<Departure>>& leaving,
                                        const std::vector<std::vector<T>>& state,
                                        std::vector<std::vector<int>>& new_home) {
  const size_t nd = home.size();
  std::vector<std::vector<std::pair<int, size_t>>> incoming(nd);  // (global atom, flat source)
  std::vector<std::pair<size_t, size_t>> source;                  // flat source -> (domain, index)
  for (size_t dom = 0; dom < nd; ++dom) {
    std::vector<int> dest(home[dom].size(), static_cast<int>(dom));
    for (const Departure& d : leaving[dom]) dest[d.index] = d.to;
    for (size_t i = 0; i < home[dom].size(); ++i) {
      incoming[dest[i]].emplace_back(home[dom][i], source.size());
      source.emplace_back(dom, i);
    }
  }
  std::vector<std::vector<T>> out(nd);
  new_home.assign(nd, {});
  for (size_t dom = 0; dom < nd; ++dom) {
    std::sort(incoming[dom].begin(), incoming[dom].end());
    for (const auto& [atom, src] : incoming[dom]) {
      new_home[dom].push_back(atom);
      out[dom].push_back(state[source[src].first][source[src].second]);
    }
  }
  return out;
}

}  // namespace halomd::domdec
