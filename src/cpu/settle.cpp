#include "cpu/settle.h"

#include <algorithm>
#include <cmath>

#include "cpu/fixed_point.h"

namespace halomd {

SettleCpu::SettleCpu(const Topology& top) : settles_(top.settles) {
  for (const Settle& s : settles_) {
    m_o_.push_back(top.mass[s.o]);
    m_h_.push_back(top.mass[s.h1]);
  }
}

int SettleCpu::apply(const std::vector<Vec3>& x_old, std::vector<Vec3>& x_new, std::vector<Vec3>* v,
                     double dt, Tensor* virial, int threads) const {
  const int n = static_cast<int>(settles_.size());
  int bad = -1;
  // Virial sums in fixed point so that the thread count does not change them.
  int64_t vir_fixed[9] = {};
  const double inv_dt = 1.0 / dt;
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static) reduction(+ : vir_fixed[:9]) reduction(max : bad)
  for (int w = 0; w < n; ++w) {
    const Settle& s = settles_[w];
    const double mo = m_o_[w], mh = m_h_[w], wohh = mo + 2.0 * mh;
    // Geometry of the rigid water in its own frame: O on the y axis, H's symmetric about it.
    const double rc = 0.5 * s.d_hh;
    const double height = std::sqrt(s.d_oh * s.d_oh - rc * rc);
    const double ra = 2.0 * mh * height / wohh;  // centre of mass to O
    const double rb = height - ra;               // centre of mass to the H-H midpoint

    const Vec3 a0 = x_old[s.o];
    const Vec3 b0 = x_old[s.h1] - a0;  // old bond vectors, which span the plane the constraint forces act in
    const Vec3 c0 = x_old[s.h2] - a0;
    const Vec3 a1 = x_new[s.o], b1 = x_new[s.h1], c1 = x_new[s.h2];
    const Vec3 com = (a1 * mo + (b1 + c1) * mh) * (1.0 / wohh);
    const Vec3 a1c = a1 - com, b1c = b1 - com, c1c = c1 - com;

    // Frame: z normal to the old plane, x perpendicular to z and the new O position.
    Vec3 ez = cross(b0, c0);
    Vec3 ex = cross(a1c, ez);
    Vec3 ey = cross(ez, ex);
    ez *= 1.0 / std::sqrt(norm2(ez));
    ex *= 1.0 / std::sqrt(norm2(ex));
    ey *= 1.0 / std::sqrt(norm2(ey));

    const double xb0 = dot(b0, ex), yb0 = dot(b0, ey);
    const double xc0 = dot(c0, ex), yc0 = dot(c0, ey);
    const double za1 = dot(a1c, ez);
    const double xb1 = dot(b1c, ex), yb1 = dot(b1c, ey), zb1 = dot(b1c, ez);
    const double xc1 = dot(c1c, ex), yc1 = dot(c1c, ey), zc1 = dot(c1c, ez);

    const double sinphi = za1 / ra;
    const double cosphi2 = 1.0 - sinphi * sinphi;
    if (!(cosphi2 > 0.0)) {
      bad = s.o;
      continue;
    }
    const double cosphi = std::sqrt(cosphi2);
    const double sinpsi = (zb1 - zc1) / (2.0 * rc * cosphi);
    const double cospsi2 = 1.0 - sinpsi * sinpsi;
    if (!(cospsi2 > 0.0)) {
      bad = s.o;
      continue;
    }
    const double cospsi = std::sqrt(cospsi2);

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
    if (!(disc >= 0.0)) {
      bad = s.o;
      continue;
    }
    const double sinthe = (alpha * gamma - beta * std::sqrt(disc)) / ab2;
    const double costhe = std::sqrt(1.0 - sinthe * sinthe);

    const Vec3 a3{-ya2 * sinthe, ya2 * costhe, za1};
    const Vec3 b3{xb2 * costhe - yb2 * sinthe, xb2 * sinthe + yb2 * costhe, zb1};
    const Vec3 c3{-xb2 * costhe - yc2 * sinthe, -xb2 * sinthe + yc2 * costhe, zc1};
    auto to_lab = [&](const Vec3& p) { return com + ex * p.x + ey * p.y + ez * p.z; };
    const Vec3 a = to_lab(a3), b = to_lab(b3), c = to_lab(c3);

    const Vec3 da = a - a1, db = b - b1, dc = c - c1;
    x_new[s.o] = a;
    x_new[s.h1] = b;
    x_new[s.h2] = c;
    if (v) {
      (*v)[s.o] += da * inv_dt;
      (*v)[s.h1] += db * inv_dt;
      (*v)[s.h2] += dc * inv_dt;
    }
    if (virial) {
      // Constraint forces sum to zero per water, so positions relative to the old O give the same virial.
      const double f = inv_dt * inv_dt;
      Tensor t;
      add_outer(t, b0, db * (mh * f), -0.5);
      add_outer(t, c0, dc * (mh * f), -0.5);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) vir_fixed[3 * i + j] += to_fixed(t.m[i][j], kEnergyFixedScale);
    }
  }
  if (virial)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) virial->m[i][j] += from_fixed(vir_fixed[3 * i + j], kEnergyFixedScale);
  return bad;
}

}  // namespace halomd
