// A CMAP correction map as grompp 2022 prepares it from [ cmaptypes ] (grompp.cpp's setup_cmap): the grid's
// values and, at each point, dV/dphi, dV/dpsi and d2V/dphi dpsi from natural cubic splines through the grid
// laid out twice over (from -360 degrees), so that the bicubic interpolation of cpu/cmap.h reproduces
// GROMACS's CMAP Dih. energies.
#pragma once

#include <vector>

#include "core/topology.h"

namespace halomd::io {

// values: spacing x spacing energies (kJ/mol), V(phi_i, psi_j) at index i * spacing + j, phi_i = -180 + i 360
// / spacing degrees (psi likewise), as [ cmaptypes ] lists them.
CmapGrid make_cmap_grid(int spacing, const std::vector<double>& values);

}  // namespace halomd::io
