// The eighth-shell rule: which pairs of its local atoms a domain computes, so that each pair is computed
// once.
//
// Domain D computes the pair (i, j) of its local atoms iff in every dimension at least one of the two has
// zone offset 0 (min(zone_i[d], zone_j[d]) == 0) and the pair lies within the cut-off, measured with plain
// differences of x_local in decomposed dimensions and with the minimum image in the others (pair_delta).
// Why once: take a pair within the cut-off (rlist < L/2, so one image of it) and, in a decomposed dimension
// d, the cells of the two molecules' owners on the unwrapped line through that image. The lower cell's domain
// (in d) holds the other atom at zone offset = the cell difference (<= the pulse count, as the pulses reach
// rlist + 2 margin) and the pair at that image; the upper cell's domain would need the other image, which is
// further than L/2. Doing this per dimension picks exactly one domain and one copy of each atom.
#pragma once

#include <cmath>

#include "core/box.h"
#include "core/host_device.h"
#include "domdec/grid.h"

namespace halomd::domdec {

HALOMD_HOST_DEVICE inline bool zone_pair_computed(const IVec3& zone_i, const IVec3& zone_j) {
  return (zone_i.x == 0 || zone_j.x == 0) && (zone_i.y == 0 || zone_j.y == 0) &&
         (zone_i.z == 0 || zone_j.z == 0);
}

// x_j - x_i of two local atoms as the pair kernel must see it: plain in decomposed dimensions, minimum image
// in dimensions with one domain.
inline Vec3 pair_delta(const Vec3& x_i, const Vec3& x_j, const DdGrid& grid, const Box& box) {
  Vec3 dx = x_j - x_i;
  for (int d = 0; d < 3; ++d) {
    if (grid.n[d] == 1) dx[d] -= box.len[d] * std::nearbyint(dx[d] / box.len[d]);
  }
  return dx;
}

}  // namespace halomd::domdec
