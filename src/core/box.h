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

}  // namespace halomd
