// One virtual site's construction and force spreading (GROMACS's vsite2, vsite3 and vsite3out), from the
// constructing atom i and the minimum images r_ij = x_j - x_i, r_ik = x_k - x_i. Host-device: the CPU
// (cpu/vsite.cpp) and the CUDA executor (cuda/vsite_gpu.cu) run the same definitions.
#pragma once

#include "core/host_device.h"
#include "core/topology.h"
#include "core/vec3.h"

namespace halomd {

// The site's position.
HALOMD_HOST_DEVICE inline Vec3 vsite_position(VsiteKind kind, const double* p, const Vec3& xi,
                                              const Vec3& rij, const Vec3& rik) {
  switch (kind) {
    case VsiteKind::Two:
      return xi + rij * p[0];
    case VsiteKind::Three:
      return xi + rij * p[0] + rik * p[1];
    case VsiteKind::ThreeOut:
      return xi + rij * p[0] + rik * p[1] + cross(rij, rik) * p[2];
    case VsiteKind::N:  // any number of atoms: cpu/vsite.cpp
      break;
  }
  return xi;
}

// The site's force fs on its constructing atoms (the chain rule of the construction): fa[0] on i, fa[1] on j,
// fa[2] on k; they sum to fs. Returns the number of constructing atoms (2 or 3; 0 for N, which
// cpu/vsite.cpp spreads itself).
HALOMD_HOST_DEVICE inline int vsite_forces(VsiteKind kind, const double* p, const Vec3& fs, const Vec3& rij,
                                           const Vec3& rik, Vec3* fa) {
  if (kind == VsiteKind::N) return 0;
  const int n = kind == VsiteKind::Two ? 2 : 3;
  switch (kind) {
    case VsiteKind::Two:
      fa[1] = fs * p[0];
      break;
    case VsiteKind::Three:
      fa[1] = fs * p[0];
      fa[2] = fs * p[1];
      break;
    case VsiteKind::ThreeOut:
      // d x_s / d x_j = a + c [r_ik]x, d x_s / d x_k = b - c [r_ij]x (the cross product's derivatives):
      // f_j = a F + c r_ik x F, f_k = b F - c r_ij x F.
      fa[1] = fs * p[0] + cross(rik, fs) * p[2];
      fa[2] = fs * p[1] - cross(rij, fs) * p[2];
      break;
    case VsiteKind::N:  // any number of atoms: cpu/vsite.cpp
      break;
  }
  fa[0] = fs;
  for (int k = 1; k < n; ++k) fa[0] -= fa[k];
  return n;
}

}  // namespace halomd
