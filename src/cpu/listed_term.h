// One listed interaction's forces and energy (GROMACS manual, "Bonded interactions"), in double precision:
// one definition for the CPU reference (cpu/bonded.cpp) and the CUDA kernel (cuda/listed.cu), as
// cpu/pme_spline.h is for PME's weights. The math functions are called unqualified so that nvcc finds their
// device versions; on the host they are the C library's, as std::'s are for double.
#pragma once

#include <math.h>

#include "core/bonded_terms.h"
#include "core/host_device.h"
#include "core/topology.h"
#include "core/units.h"
#include "core/vec3.h"

namespace halomd {

HALOMD_HOST_DEVICE inline int listed_atom_count(BondedKind k) {
  switch (k) {
    case BondedKind::PosRes:
      return 1;
    case BondedKind::Bond:
    case BondedKind::G96Bond:
    case BondedKind::Harmonic:
    case BondedKind::Pair14:
      return 2;
    case BondedKind::Angle:
    case BondedKind::G96Angle:
    case BondedKind::RestrictedAngle:
    case BondedKind::UreyBradley:
      return 3;
    case BondedKind::Cmap:
      return 5;
    default:
      return 4;
  }
}

namespace listed {

// A harmonic (or G96) spring between two atoms: returns the energy, sets the force on i along d = x_i - x_j.
HALOMD_HOST_DEVICE inline double spring(bool g96, double b0, double kb, const Vec3& d, Vec3& fi) {
  const double r2 = norm2(d);
  if (g96) {  // V = 1/4 kb (r^2 - b0^2)^2, F_i = -kb (r^2 - b0^2) d
    const double dr2 = r2 - b0 * b0;
    fi = d * (-kb * dr2);
    return 0.25 * kb * dr2 * dr2;
  }
  const double r = sqrt(r2);
  const double dr = r - b0;
  fi = r > 0.0 ? d * (-kb * dr / r) : Vec3{};
  return 0.5 * kb * dr * dr;
}

// The angle i-j-k from r_ij = x_i - x_j and r_kj = x_k - x_j, and d cos(theta) / d x_i, d x_k.
struct AngleGeometry {
  double cos_t = 0.0;
  Vec3 dcos_i, dcos_k;
};
HALOMD_HOST_DEVICE inline AngleGeometry angle_geometry(const Vec3& rij, const Vec3& rkj) {
  AngleGeometry g;
  const double inv_ij = 1.0 / sqrt(norm2(rij));
  const double inv_kj = 1.0 / sqrt(norm2(rkj));
  const double c = dot(rij, rkj) * inv_ij * inv_kj;
  g.cos_t = c < -1.0 ? -1.0 : (1.0 < c ? 1.0 : c);
  g.dcos_i = (rkj * (inv_ij * inv_kj)) - (rij * (g.cos_t * inv_ij * inv_ij));
  g.dcos_k = (rij * (inv_ij * inv_kj)) - (rkj * (g.cos_t * inv_kj * inv_kj));
  return g;
}

// The dihedral i-j-k-l in GROMACS's convention (IUPAC: 0 is cis; the sign of r_ij . (r_kj x r_kl)).
struct DihedralGeometry {
  Vec3 rij, rkj, rkl, m, n;
  double phi = 0.0;
};
HALOMD_HOST_DEVICE inline DihedralGeometry dihedral_geometry(const Vec3& rij, const Vec3& rkj,
                                                             const Vec3& rkl) {
  DihedralGeometry g{rij, rkj, rkl, cross(rij, rkj), cross(rkj, rkl), 0.0};
  const double phi = atan2(sqrt(norm2(cross(g.m, g.n))), dot(g.m, g.n));
  g.phi = dot(rij, g.n) < 0.0 ? -phi : phi;
  return g;
}

// An angle difference taken into [-pi, pi), as GROMACS's make_dp_periodic.
HALOMD_HOST_DEVICE inline double periodic_angle(double dp) {
  if (dp >= units::kPi) return dp - 2.0 * units::kPi;
  if (dp < -units::kPi) return dp + 2.0 * units::kPi;
  return dp;
}

// Forces of a dihedral potential with dV/dphi = ddphi (Bekker's distribution, as GROMACS's do_dih_fup):
// f[0..3] on i, j, k, l.
HALOMD_HOST_DEVICE inline void dihedral_forces(const DihedralGeometry& g, double ddphi, Vec3 f[4]) {
  const double nrkj2 = norm2(g.rkj);
  const double nrkj = sqrt(nrkj2);
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

}  // namespace listed

// The forces fa[0..n) on the interaction's atoms (n = listed_atom_count(t.kind)), its energy v and, for a 1-4
// pair, its Coulomb energy v_coulomb (coulomb_factor: f / epsilon_r). dx(i, j) gives the minimum-image
// x_i - x_j of the interaction's atoms i and j (0..3); dx(0, -1) the atom's minus its position restraint's
// reference (t.p[3..5], plus the box-scaled centre of mass with refcoord-scaling = com).
template <class Dx>
HALOMD_HOST_DEVICE inline void listed_term(const BondedTerm& t, double coulomb_factor, Dx dx, Vec3 fa[5],
                                           double& v, double& v_coulomb) {
  using namespace listed;
  const double* p = t.p;
  v = 0.0;
  v_coulomb = 0.0;
  switch (t.kind) {
    case BondedKind::Bond:
    case BondedKind::G96Bond:
    case BondedKind::Harmonic: {
      v = spring(t.kind == BondedKind::G96Bond, p[0], p[1], dx(0, 1), fa[0]);
      fa[1] = fa[0] * -1.0;
      break;
    }
    case BondedKind::Angle:
    case BondedKind::G96Angle:
    case BondedKind::RestrictedAngle:
    case BondedKind::UreyBradley: {
      const AngleGeometry g = angle_geometry(dx(0, 1), dx(2, 1));
      double dv_dcos = 0.0;
      if (t.kind == BondedKind::G96Angle) {
        const double dc = g.cos_t - p[0];
        v = 0.5 * p[1] * dc * dc;
        dv_dcos = p[1] * dc;
      } else if (t.kind == BondedKind::RestrictedAngle) {
        // Bulacu et al., J. Chem. Theory Comput. 9, 3282 (2013): the 1 / sin^2 theta keeps the angle off
        // 180 degrees; dV/dcos = k (c - c0) (1 - c c0) / sin^4 theta.
        const double dc = g.cos_t - p[0];
        const double s2 = 1.0 - g.cos_t * g.cos_t;
        const double inv_s2 = 1.0 / (s2 < 1e-24 ? 1e-24 : s2);
        v = 0.5 * p[1] * dc * dc * inv_s2;
        dv_dcos = p[1] * dc * (1.0 - g.cos_t * p[0]) * inv_s2 * inv_s2;
      } else {
        // dV/dcos = dV/dtheta * (-1 / sin theta); sin is kept off zero as GROMACS does for straight angles.
        const double theta = acos(g.cos_t);
        const double dt = theta - p[0];
        v = 0.5 * p[1] * dt * dt;
        const double s2 = 1.0 - g.cos_t * g.cos_t;
        const double sin_t = sqrt(s2 < 1e-24 ? 1e-24 : s2);
        dv_dcos = -p[1] * dt / sin_t;
      }
      fa[0] = g.dcos_i * -dv_dcos;
      fa[2] = g.dcos_k * -dv_dcos;
      if (t.kind == BondedKind::UreyBradley) {
        Vec3 f13;
        v += spring(false, p[2], p[3], dx(0, 2), f13);
        fa[0] += f13;
        fa[2] -= f13;
      }
      fa[1] = (fa[0] + fa[2]) * -1.0;
      break;
    }
    case BondedKind::ProperDih:
    case BondedKind::PeriodicImproper:
    case BondedKind::RyckaertBell:
    case BondedKind::ImproperDih:
    case BondedKind::DihRestraint: {
      const DihedralGeometry g = dihedral_geometry(dx(0, 1), dx(2, 1), dx(2, 3));
      double ddphi = 0.0;
      if (t.kind == BondedKind::RyckaertBell) {
        // psi = phi - 180 deg: cos psi = -cos phi, sin psi = -sin phi.
        const double c = -cos(g.phi), s = -sin(g.phi);
        double cn = 1.0, dv_dc = 0.0;
        v = p[0];
        for (int k = 1; k < 6; ++k) {
          dv_dc += k * p[k] * cn;
          cn *= c;
          v += p[k] * cn;
        }
        ddphi = -dv_dc * s;
      } else if (t.kind == BondedKind::ImproperDih) {
        const double dp = periodic_angle(g.phi - p[0]);
        v = 0.5 * p[1] * dp * dp;
        ddphi = p[1] * dp;
      } else if (t.kind == BondedKind::DihRestraint) {
        // GROMACS's dihres: only the part of |phi - phi0| beyond dphi is restrained.
        const double dp = periodic_angle(g.phi - p[0]);
        const double beyond = dp > p[1] ? dp - p[1] : (dp < -p[1] ? dp + p[1] : 0.0);
        v = 0.5 * p[2] * beyond * beyond;
        ddphi = p[2] * beyond;
      } else {
        const double arg = p[2] * g.phi - p[0];
        v = p[1] * (1.0 + cos(arg));
        ddphi = -p[1] * p[2] * sin(arg);
      }
      dihedral_forces(g, ddphi, fa);
      break;
    }
    case BondedKind::PosRes: {
      const Vec3 d = dx(0, -1);
      for (int k = 0; k < 3; ++k) {
        v += 0.5 * p[k] * d[k] * d[k];
        fa[0][k] = -p[k] * d[k];
      }
      break;
    }
    case BondedKind::Cmap:  // its grid is not an argument here: cpu/cmap.h (zero forces, energy 0)
      for (int k = 0; k < 5; ++k) fa[k] = Vec3{};
      break;
    case BondedKind::Pair14: {
      const Vec3 d = dx(0, 1);
      const double rinv2 = 1.0 / norm2(d);
      const double rinv6 = rinv2 * rinv2 * rinv2;
      const double rinv = sqrt(rinv2);
      v = p[1] * rinv6 * rinv6 - p[0] * rinv6;
      v_coulomb = coulomb_factor * p[2] * rinv;
      const double fscal = (12.0 * p[1] * rinv6 * rinv6 - 6.0 * p[0] * rinv6 + v_coulomb) * rinv2;
      fa[0] = d * fscal;
      fa[1] = d * -fscal;
      break;
    }
  }
}

// A position restraint's virial (diagonal; GROMACS's posres): -1/2 (dx + rdist) F with rdist = t.p[3..5] (the
// absolute reference with refcoord-scaling = no, the one relative to the centre of mass with com), dx =
// dx(0, -1), the force f on its atom, added to vir[0..2] (xx yy zz).
template <class T>
HALOMD_HOST_DEVICE inline void posres_virial(const BondedTerm& t, const Vec3& dx, const Vec3& f, T* vir) {
  for (int k = 0; k < 3; ++k) vir[k] += -0.5 * (dx[k] + t.p[3 + k]) * f[k];
}

}  // namespace halomd
