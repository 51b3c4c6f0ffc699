// The buffered Verlet pair list of the CPU reference: every non-excluded pair within rlist, found on a cell
// grid and rebuilt every nstlist steps; interactions are evaluated only below the cut-off (PHYSICS.md).
#pragma once

#include <span>
#include <vector>

#include "core/box.h"
#include "core/topology.h"
#include "core/vec3.h"
#include "domdec/grid.h"

namespace halomd {

// Pair (i, j) is stored once, under i < j, and each i's neighbours are sorted: the list is canonical (the
// same pairs in the same order whichever thread count or step built it), which keeps runs reproducible.
struct PairList {
  std::vector<int> start;  // size N+1: the neighbours of i are j[start[i] .. start[i+1])
  std::vector<int> j;
  double rlist = 0.0;
  int num_atoms() const { return start.empty() ? 0 : static_cast<int>(start.size()) - 1; }
  size_t num_pairs() const { return j.size(); }
};

// Positions may lie outside the box (halomd keeps them unwrapped); distances use the minimum image, so
// rlist must stay below half the smallest box edge.
void build_pair_list(const std::vector<Vec3>& x, const Box& box, double rlist, const Topology& top,
                     int threads, PairList& list);

// The atoms a pair search runs over: the whole system (above), or one domain's local atoms (home atoms
// and halo) under the eighth-shell rule of domdec/zones.h.
struct PairSearchAtoms {
  std::span<const Vec3> x;
  Box box;
  // 1/L per dimension for the minimum image; 0 for plain differences (a decomposed dimension, where the
  // local positions are already in the domain's frame: domdec::pair_delta).
  Vec3 inv_len;
  std::span<const int> global;          // global index per atom, for the exclusions; empty: identity
  std::span<const domdec::IVec3> zone;  // zone offset per atom; empty: every pair is a candidate
};

// The same canonical list over `atoms` (indices local to it): every non-excluded pair within rlist, and
// with zones only the pairs zone_pair_computed accepts.
void build_pair_list(const PairSearchAtoms& atoms, double rlist, const Topology& top, int threads,
                     PairList& list);

// The inv_len of PairSearchAtoms for a domain grid: plain differences where the grid has several domains.
inline Vec3 pair_inv_len(const Box& box, const domdec::DdGrid& grid) {
  Vec3 inv;
  for (int d = 0; d < 3; ++d) inv[d] = grid.n[d] > 1 ? 0.0 : 1.0 / box.len[d];
  return inv;
}

// Minimum-image difference a - b in a rectangular box. Rounding uses the 1.5*2^52 trick (round to nearest
// with two additions), exact for |d/L| < 2^51 and free of library calls in the inner loop. inv_len == 0
// gives d itself (plain difference, bit for bit).
inline double minimum_image(double d, double len, double inv_len) {
  constexpr double kRound = 6755399441055744.0;
  const double k = (d * inv_len + kRound) - kRound;
  return d - k * len;
}

}  // namespace halomd
