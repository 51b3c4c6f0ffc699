// The domain grid: how the rectangular box is cut into nx x ny x nz cells, and how that grid is chosen.
#pragma once

#include <string>

#include "core/box.h"
#include "core/vec3.h"

namespace halomd::domdec {

using IVec3 = Vec3T<int>;

// nx x ny x nz domains; domain (cx, cy, cz) has index (cx * ny + cy) * nz + cz and owns the cell
// [c * L / n, (c + 1) * L / n) in each dimension.
struct DdGrid {
  IVec3 n{1, 1, 1};

  int num_domains() const { return n.x * n.y * n.z; }
  int index(const IVec3& c) const { return (c.x * n.y + c.y) * n.z + c.z; }
  IVec3 coords(int domain) const { return {domain / (n.y * n.z), (domain / n.z) % n.y, domain % n.z}; }
  // The domain `step` cells away from `domain` in dimension `dim`, periodic.
  int neighbour(int domain, int dim, int step) const {
    IVec3 c = coords(domain);
    c[dim] = ((c[dim] + step) % n[dim] + n[dim]) % n[dim];
    return index(c);
  }
  std::string str() const;  // "4x2x1"
};

// The lower boundary of cell c of n along an edge of length len (nm); cell_bound(n) is len exactly, so
// every domain computes the same boundaries bit for bit.
inline double cell_bound(int c, int n, double len) { return c == n ? len : c * len / n; }

// The two distances the halo is built from (nm). margin: the largest distance of an atom from its
// molecule's first atom (assignment.h), so a molecule placed in a cell by its first atom has every atom
// within margin of that cell.
struct HaloRange {
  double rlist = 0.0;
  double margin = 0.0;
  // A receiver needs the atoms up to this far above its upper boundary: its own atoms reach margin above
  // it, and a partner within rlist of one of them lies at most rlist + margin above it.
  double send_range() const { return rlist + margin; }
  // Cells whose molecules can hold such a partner: an atom of the cell o cells above lies at least
  // (o - 1) * width - margin above the boundary, hence the pulse count ceil((rlist + 2 margin) / width).
  double reach() const { return rlist + 2.0 * margin; }
};

// Pulses needed in a dimension whose cells are `width` nm wide (at least 1).
int pulses_needed(double width, const HaloRange& range);

// Pulses per dimension for this grid (0 where the grid has one domain: that dimension is not
// communicated and pairs across it use the minimum image).
IVec3 pulses_per_dim(const DdGrid& grid, const Box& box, const HaloRange& range);

// Communicated volume per domain relative to the domain's volume, GROMACS's estimate
// (domdec_setup.cpp, comm_box_frac): faces r/w, edges pi/4 (r/w)^2, corners pi/6 (r/w)^3, r = send range.
double halo_volume_fraction(const DdGrid& grid, const Box& box, const HaloRange& range);

// Checks a grid given by the user (--dd NX NY NZ) or chosen: the product equals num_domains, every
// decomposed dimension needs fewer pulses than it has domains, and rlist is below half of every edge.
// Throws InputError (no file) naming what is wrong.
void validate_grid(const DdGrid& grid, int num_domains, const Box& box, const HaloRange& range);

// The grid GROMACS would choose (domdec_setup.cpp, optimizeDDCells): among the factorisations
// nx * ny * nz = num_domains that validate_grid accepts, those needing the fewest pulses in their worst
// dimension first (1 pulse where possible), then the smallest halo_volume_fraction; when two edges are
// within 1% of each other the lower dimension gets at least as many domains; remaining ties go to more
// domains in x, then in y. Throws InputError (no file) when no arrangement is possible.
DdGrid choose_grid(int num_domains, const Box& box, const HaloRange& range);

}  // namespace halomd::domdec
