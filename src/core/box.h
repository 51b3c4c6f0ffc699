// The periodic simulation box: rectangular only (a triclinic box is refused when read).
#pragma once

#include <cmath>

#include "core/vec3.h"

namespace halomd {

struct Box {
  Vec3 len;  // edge lengths, nm
  double volume() const { return len.x * len.y * len.z; }
  // Smallest half edge: a cut-off must stay below it for the minimum image to be unique.
  double min_half_edge() const { return 0.5 * std::fmin(len.x, std::fmin(len.y, len.z)); }
};

// a - b through the minimum image (for atoms of one molecule or interaction, closer than half an edge).
inline Vec3 minimum_image(const Vec3& a, const Vec3& b, const Box& box) {
  Vec3 d = a - b;
  for (int k = 0; k < 3; ++k) d[k] -= box.len[k] * std::round(d[k] / box.len[k]);
  return d;
}

}  // namespace halomd
