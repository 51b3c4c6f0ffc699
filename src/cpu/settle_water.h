// SETTLE for one rigid 3-site water (Miyamoto and Kollman, J. Comput. Chem. 13, 952, 1992): the arithmetic
// that the CPU reference (settle.cpp) and the CUDA update kernel share, in double precision.
#pragma once

#include <cmath>

#include "core/host_device.h"
#include "core/vec3.h"

namespace halomd {

// Moves the unconstrained positions a1 (O), b1, c1 (H) onto the rigid geometry (O-H d_oh, H-H d_hh, nm;
// masses mo, mh in amu). b0 = h1_old - o_old and c0 = h2_old - o_old are the old bond vectors, which span the
// plane the constraint forces act in. Writes the constrained positions to a, b, c and returns true, or
// returns false when the water cannot be solved (it moved too far).
HALOMD_HOST_DEVICE inline bool settle_water(double mo, double mh, double d_oh, double d_hh, const Vec3& b0,
                                            const Vec3& c0, const Vec3& a1, const Vec3& b1, const Vec3& c1,
                                            Vec3& a, Vec3& b, Vec3& c) {
  const double wohh = mo + 2.0 * mh;
  // Geometry of the rigid water in its own frame: O on the y axis, H's symmetric about it.
  const double rc = 0.5 * d_hh;
  const double height = sqrt(d_oh * d_oh - rc * rc);
  const double ra = 2.0 * mh * height / wohh;  // centre of mass to O
  const double rb = height - ra;               // centre of mass to the H-H midpoint

  const Vec3 com = (a1 * mo + (b1 + c1) * mh) * (1.0 / wohh);
  const Vec3 a1c = a1 - com, b1c = b1 - com, c1c = c1 - com;

  // Frame: z normal to the old plane, x perpendicular to z and the new O position.
  Vec3 ez = cross(b0, c0);
  Vec3 ex = cross(a1c, ez);
  Vec3 ey = cross(ez, ex);
  ez *= 1.0 / sqrt(norm2(ez));
  ex *= 1.0 / sqrt(norm2(ex));
  ey *= 1.0 / sqrt(norm2(ey));

  const double xb0 = dot(b0, ex), yb0 = dot(b0, ey);
  const double xc0 = dot(c0, ex), yc0 = dot(c0, ey);
  const double za1 = dot(a1c, ez);
  const double xb1 = dot(b1c, ex), yb1 = dot(b1c, ey), zb1 = dot(b1c, ez);
  const double xc1 = dot(c1c, ex), yc1 = dot(c1c, ey), zc1 = dot(c1c, ez);

  const double sinphi = za1 / ra;
  const double cosphi2 = 1.0 - sinphi * sinphi;
  if (!(cosphi2 > 0.0)) return false;
  const double cosphi = sqrt(cosphi2);
  const double sinpsi = (zb1 - zc1) / (2.0 * rc * cosphi);
  const double cospsi2 = 1.0 - sinpsi * sinpsi;
  if (!(cospsi2 > 0.0)) return false;
  const double cospsi = sqrt(cospsi2);

  const double ya2 = ra * cosphi;
  const double xb2 = -rc * cospsi;
  const double t1 = -rb * cosphi, t2 = rc * sinpsi * sinphi;
  const double yb2 = t1 - t2, yc2 = t1 + t2;

  // Rotation about z that matches the old and new orientations (the theta of the paper).
  const double alpha = xb2 * (xb0 - xc0) + yb0 * yb2 + yc0 * yc2;
  const double beta = xb2 * (yc0 - yb0) + xb0 * yb2 + xc0 * yc2;
  const double gamma = xb0 * yb1 - xb1 * yb0 + xc0 * yc1 - xc1 * yc0;
  const double ab2 = alpha * alpha + beta * beta;
  const double disc = ab2 - gamma * gamma;
  if (!(disc >= 0.0)) return false;
  const double sinthe = (alpha * gamma - beta * sqrt(disc)) / ab2;
  const double costhe = sqrt(1.0 - sinthe * sinthe);

  const Vec3 a3{-ya2 * sinthe, ya2 * costhe, za1};
  const Vec3 b3{xb2 * costhe - yb2 * sinthe, xb2 * sinthe + yb2 * costhe, zb1};
  const Vec3 c3{-xb2 * costhe - yc2 * sinthe, -xb2 * sinthe + yc2 * costhe, zc1};
  // Back to the lab frame: com + ex p.x + ey p.y + ez p.z.
  a = com + ex * a3.x + ey * a3.y + ez * a3.z;
  b = com + ex * b3.x + ey * b3.y + ez * b3.z;
  c = com + ex * c3.x + ey * c3.y + ez * c3.z;
  return true;
}

}  // namespace halomd
