// CHARMM's CMAP correction of one [ cmap ] term (GROMACS's CMAP Dih.): phi the dihedral of atoms 1-2-3-4,
// psi of atoms 2-3-4-5, and V(phi, psi) the bicubic (Hermite) interpolation of the grid's values and
// derivatives (io/cmap_grid.h) in the cell holding (phi, psi), as GROMACS's cmap_dihs; each dihedral's
// derivative goes to its atoms as a proper dihedral's (cpu/listed_term.h). Host-device: the CUDA listed
// kernel runs the same code on a grid in device memory (CmapView).
#pragma once

#include <math.h>

#include "core/host_device.h"
#include "core/topology.h"
#include "core/units.h"
#include "core/vec3.h"
#include "cpu/listed_term.h"

namespace halomd {

// A grid's points as cmap_term reads them: spacing^2 points of value, dV/dphi, dV/dpsi, d2V/dphi dpsi
// (CmapGrid::data's layout), in host or device memory.
struct CmapView {
  int spacing = 0;
  const double* data = nullptr;
};

inline CmapView view_of(const CmapGrid& g) { return {g.spacing, g.data.data()}; }

namespace cmap_detail {

// The cell of angle a (radians, in [-pi, pi]) on a grid of n points from -pi: its index and the position
// in it (0..1), measured in degrees as GROMACS does.
HALOMD_HOST_DEVICE inline void cell_of(double a, int n, int& cell, double& frac) {
  double x = a + units::kPi;
  if (x < 0.0)
    x += 2.0 * units::kPi;
  else if (x >= 2.0 * units::kPi)
    x -= 2.0 * units::kPi;
  cell = static_cast<int>(x / (2.0 * units::kPi / n));
  const double step = 360.0 / n;
  frac = (x * (180.0 / units::kPi) - cell * step) / step;
  if (cell >= n) cell -= n;
}

// Cubic Hermite basis on [0, 1] and its derivatives: value at 0, value at 1, slope at 0, slope at 1.
HALOMD_HOST_DEVICE inline void hermite(double t, double h[4], double dh[4]) {
  const double t2 = t * t, t3 = t2 * t;
  h[0] = 1.0 - 3.0 * t2 + 2.0 * t3;
  h[1] = 3.0 * t2 - 2.0 * t3;
  h[2] = t - 2.0 * t2 + t3;
  h[3] = t3 - t2;
  dh[0] = 6.0 * t2 - 6.0 * t;
  dh[1] = 6.0 * t - 6.0 * t2;
  dh[2] = 1.0 - 4.0 * t + 3.0 * t2;
  dh[3] = 3.0 * t2 - 2.0 * t;
}

}  // namespace cmap_detail

// The forces fa[0..5) and energy v of a CMAP term on grid g; dx(i, j): the minimum-image x_i - x_j of its
// atoms i and j (0..4).
template <class Dx>
HALOMD_HOST_DEVICE inline void cmap_term(const CmapView& g, Dx dx, Vec3 fa[5], double& v) {
  using namespace cmap_detail;
  const listed::DihedralGeometry d1 = listed::dihedral_geometry(dx(0, 1), dx(2, 1), dx(2, 3));
  const listed::DihedralGeometry d2 = listed::dihedral_geometry(dx(1, 2), dx(3, 2), dx(3, 4));
  const int n = g.spacing;
  int i = 0, j = 0;
  double t = 0.0, u = 0.0;
  cell_of(d1.phi, n, i, t);
  cell_of(d2.phi, n, j, u);
  const int i1 = (i + 1) % n, j1 = (j + 1) % n;
  const double step = 360.0 / n;  // degrees: the grid's derivatives are per degree
  // The corners (i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1) as [a][b] with a along phi, b along psi.
  const double* corner[2][2] = {{&g.data[4 * (i * n + j)], &g.data[4 * (i * n + j1)]},
                                {&g.data[4 * (i1 * n + j)], &g.data[4 * (i1 * n + j1)]}};
  double ht[4], dht[4], hu[4], dhu[4];
  hermite(t, ht, dht);
  hermite(u, hu, dhu);
  double e = 0.0, de_dt = 0.0, de_du = 0.0;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      const double* c = corner[a][b];
      // Value, slope along phi, along psi and the cross term, each with its basis functions in t and u.
      const double w[4] = {c[0], c[1] * step, c[2] * step, c[3] * step * step};
      const int ta[4] = {a, 2 + a, a, 2 + a}, ub[4] = {b, b, 2 + b, 2 + b};
      for (int k = 0; k < 4; ++k) {
        e += w[k] * ht[ta[k]] * hu[ub[k]];
        de_dt += w[k] * dht[ta[k]] * hu[ub[k]];
        de_du += w[k] * ht[ta[k]] * dhu[ub[k]];
      }
    }
  v = e;
  const double per_radian = (180.0 / units::kPi) / step;
  Vec3 f1[4], f2[4];
  listed::dihedral_forces(d1, de_dt * per_radian, f1);
  listed::dihedral_forces(d2, de_du * per_radian, f2);
  fa[0] = f1[0];
  fa[1] = f1[1] + f2[0];
  fa[2] = f1[2] + f2[1];
  fa[3] = f1[3] + f2[2];
  fa[4] = f2[3];
}

}  // namespace halomd
