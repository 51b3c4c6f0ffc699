#include "cpu/bonded.h"

#include <algorithm>
#include <cmath>

#include "core/units.h"

namespace halomd {
namespace {

int num_atoms_of(BondedKind k) {
  switch (k) {
    case BondedKind::Bond:
    case BondedKind::G96Bond:
    case BondedKind::Pair14:
      return 2;
    case BondedKind::Angle:
    case BondedKind::G96Angle:
    case BondedKind::UreyBradley:
      return 3;
    default:
      return 4;
  }
}

// A harmonic (or G96) spring between two atoms: returns the energy, adds the force along d = x_i - x_j.
double spring(bool g96, double b0, double kb, const Vec3& d, Vec3& fi) {
  const double r2 = norm2(d);
  if (g96) {  // V = 1/4 kb (r^2 - b0^2)^2, F_i = -kb (r^2 - b0^2) d
    const double dr2 = r2 - b0 * b0;
    fi = d * (-kb * dr2);
    return 0.25 * kb * dr2 * dr2;
  }
  const double r = std::sqrt(r2);
  const double dr = r - b0;
  fi = r > 0.0 ? d * (-kb * dr / r) : Vec3{};
  return 0.5 * kb * dr * dr;
}

// The angle i-j-k from r_ij = x_i - x_j and r_kj = x_k - x_j, and the forces on i and k for dV/dcos(theta).
struct AngleGeometry {
  double cos_t = 0.0;
  Vec3 dcos_i, dcos_k;  // d cos(theta) / d x_i, d x_k
};
AngleGeometry angle_geometry(const Vec3& rij, const Vec3& rkj) {
  AngleGeometry g;
  const double inv_ij = 1.0 / std::sqrt(norm2(rij));
  const double inv_kj = 1.0 / std::sqrt(norm2(rkj));
  g.cos_t = std::clamp(dot(rij, rkj) * inv_ij * inv_kj, -1.0, 1.0);
  g.dcos_i = (rkj * (inv_ij * inv_kj)) - (rij * (g.cos_t * inv_ij * inv_ij));
  g.dcos_k = (rij * (inv_ij * inv_kj)) - (rkj * (g.cos_t * inv_kj * inv_kj));
  return g;
}

// The dihedral i-j-k-l in GROMACS's convention (IUPAC: 0 is cis; the sign of r_ij . (r_kj x r_kl)).
struct DihedralGeometry {
  Vec3 rij, rkj, rkl, m, n;
  double phi = 0.0;
};
DihedralGeometry dihedral_geometry(const Vec3& rij, const Vec3& rkj, const Vec3& rkl) {
  DihedralGeometry g{rij, rkj, rkl, cross(rij, rkj), cross(rkj, rkl), 0.0};
  const double phi = std::atan2(std::sqrt(norm2(cross(g.m, g.n))), dot(g.m, g.n));
  g.phi = dot(rij, g.n) < 0.0 ? -phi : phi;
  return g;
}

// Forces of a dihedral potential with dV/dphi = ddphi (Bekker's distribution, as GROMACS's do_dih_fup):
// f[0..3] on i, j, k, l.
void dihedral_forces(const DihedralGeometry& g, double ddphi, Vec3 f[4]) {
  const double nrkj2 = norm2(g.rkj);
  const double nrkj = std::sqrt(nrkj2);
  // Three atoms in a line leave the angle undefined: no force, as GROMACS's do_dih_fup.
  constexpr double kEps = 2.2e-16;
  if (norm2(g.m) <= nrkj2 * kEps || norm2(g.n) <= nrkj2 * kEps) {
    for (int k = 0; k < 4; ++k) f[k] = Vec3{};
    return;
  }
  const Vec3 fi = g.m * (-ddphi * nrkj / norm2(g.m));
  const Vec3 fl = g.n * (ddphi * nrkj / norm2(g.n));
  const double p = dot(g.rij, g.rkj) / nrkj2;
  const double q = dot(g.rkl, g.rkj) / nrkj2;
  const Vec3 s = fi * p - fl * q;
  f[0] = fi;
  f[1] = s - fi;
  f[2] = (fl + s) * -1.0;
  f[3] = fl;
}

}  // namespace

BondedCpu::BondedCpu(const Topology& top, double epsilon_r)
    : terms_(top.bonded), coulomb_factor_(units::kCoulomb / epsilon_r) {}

void BondedCpu::compute(const std::vector<Vec3>& x, const Box& box, std::vector<Vec3>& f,
                        BondedEnergies* energies) const {
  for (const BondedTerm& t : terms_) {
    const int* a = t.atoms;
    const double* p = t.p;
    Vec3 fa[4];
    double v = 0.0, v_coulomb = 0.0;
    switch (t.kind) {
      case BondedKind::Bond:
      case BondedKind::G96Bond: {
        v = spring(t.kind == BondedKind::G96Bond, p[0], p[1], minimum_image(x[a[0]], x[a[1]], box), fa[0]);
        fa[1] = fa[0] * -1.0;
        break;
      }
      case BondedKind::Angle:
      case BondedKind::G96Angle:
      case BondedKind::UreyBradley: {
        const Vec3 rij = minimum_image(x[a[0]], x[a[1]], box);
        const Vec3 rkj = minimum_image(x[a[2]], x[a[1]], box);
        const AngleGeometry g = angle_geometry(rij, rkj);
        double dv_dcos = 0.0;
        if (t.kind == BondedKind::G96Angle) {
          const double dc = g.cos_t - p[0];
          v = 0.5 * p[1] * dc * dc;
          dv_dcos = p[1] * dc;
        } else {
          // dV/dcos = dV/dtheta * (-1 / sin theta); sin is kept off zero as GROMACS does for straight angles.
          const double theta = std::acos(g.cos_t);
          const double dt = theta - p[0];
          v = 0.5 * p[1] * dt * dt;
          const double sin_t = std::sqrt(std::max(1.0 - g.cos_t * g.cos_t, 1e-24));
          dv_dcos = -p[1] * dt / sin_t;
        }
        fa[0] = g.dcos_i * -dv_dcos;
        fa[2] = g.dcos_k * -dv_dcos;
        if (t.kind == BondedKind::UreyBradley) {
          Vec3 f13;
          v += spring(false, p[2], p[3], minimum_image(x[a[0]], x[a[2]], box), f13);
          fa[0] += f13;
          fa[2] -= f13;
        }
        fa[1] = (fa[0] + fa[2]) * -1.0;
        break;
      }
      case BondedKind::ProperDih:
      case BondedKind::PeriodicImproper:
      case BondedKind::RyckaertBell:
      case BondedKind::ImproperDih: {
        const DihedralGeometry g =
            dihedral_geometry(minimum_image(x[a[0]], x[a[1]], box), minimum_image(x[a[2]], x[a[1]], box),
                              minimum_image(x[a[2]], x[a[3]], box));
        double ddphi = 0.0;
        if (t.kind == BondedKind::RyckaertBell) {
          // psi = phi - 180 deg: cos psi = -cos phi, sin psi = -sin phi.
          const double c = -std::cos(g.phi), s = -std::sin(g.phi);
          double cn = 1.0, dv_dc = 0.0;
          v = p[0];
          for (int k = 1; k < 6; ++k) {
            dv_dc += k * p[k] * cn;
            cn *= c;
            v += p[k] * cn;
          }
          ddphi = -dv_dc * s;
        } else if (t.kind == BondedKind::ImproperDih) {
          double dp = g.phi - p[0];
          if (dp >= units::kPi)
            dp -= 2.0 * units::kPi;
          else if (dp < -units::kPi)
            dp += 2.0 * units::kPi;
          v = 0.5 * p[1] * dp * dp;
          ddphi = p[1] * dp;
        } else {
          const double arg = p[2] * g.phi - p[0];
          v = p[1] * (1.0 + std::cos(arg));
          ddphi = -p[1] * p[2] * std::sin(arg);
        }
        dihedral_forces(g, ddphi, fa);
        break;
      }
      case BondedKind::Pair14: {
        const Vec3 d = minimum_image(x[a[0]], x[a[1]], box);
        const double rinv2 = 1.0 / norm2(d);
        const double rinv6 = rinv2 * rinv2 * rinv2;
        const double rinv = std::sqrt(rinv2);
        v = p[1] * rinv6 * rinv6 - p[0] * rinv6;
        v_coulomb = coulomb_factor_ * p[2] * rinv;
        const double fscal = (12.0 * p[1] * rinv6 * rinv6 - 6.0 * p[0] * rinv6 + v_coulomb) * rinv2;
        fa[0] = d * fscal;
        fa[1] = d * -fscal;
        break;
      }
    }
    const int n = num_atoms_of(t.kind);
    for (int k = 0; k < n; ++k) f[a[k]] += fa[k];
    if (energies) {
      energies->term[bonded_term_of(t.kind)] += v;
      if (t.kind == BondedKind::Pair14)
        energies->term[static_cast<int>(BondedTermIndex::Coulomb14)] += v_coulomb;
      // -1/2 sum_a r_a (x) F_a with r_a relative to the first atom (the forces of one interaction sum to 0).
      for (int k = 1; k < n; ++k)
        add_outer(energies->virial, minimum_image(x[a[k]], x[a[0]], box), fa[k], -0.5);
    }
  }
}

}  // namespace halomd
