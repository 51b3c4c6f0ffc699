#include "engine/verlet_buffer.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "core/units.h"
#include "cpu/pme.h"

namespace halomd {
namespace {

// Atoms that move alike in the estimate: same mass, LJ type and charge, and the same SETTLE partner
// (con_mass, con_len: the partner's mass and the O-H distance; GROMACS keeps the heaviest constraint
// partner).
struct BufferType {
  double mass = 0.0, charge = 0.0, con_mass = 0.0, con_len = 0.0;
  int lj_type = 0;
  long long count = 0;
  bool constrained = false;  // the partner weighs more than 0.4 of the atom: it rotates about their centre
  double s2_rot = 0.0;       // variance of the displacement along one dimension from rotation, nm^2
  double s2_com = 0.0;       // ... from translation (the free atom, or the pair's centre of mass), nm^2
  auto key() const { return std::tie(mass, lj_type, charge, constrained, con_mass, con_len); }
};

std::vector<BufferType> buffer_types(const Topology& top) {
  const int n = top.num_atoms();
  std::vector<double> con_mass(n, 0.0), con_len(n, 0.0);
  // LINCS constraints: each atom keeps its heaviest partner (calc_verletbuf.cpp).
  for (const Constraint& c : top.constraints)
    for (auto [self, other] : {std::pair{c.a, c.b}, std::pair{c.b, c.a}})
      if (top.mass[other] > con_mass[self]) {
        con_mass[self] = top.mass[other];
        con_len[self] = c.length;
      }
  for (const Settle& s : top.settles) {
    con_mass[s.o] = top.mass[s.h1];
    con_len[s.o] = s.d_oh;
    for (int h : {s.h1, s.h2}) {
      con_mass[h] = top.mass[s.o];
      con_len[h] = s.d_oh;
    }
  }
  // A virtual site moves with its constructing atoms: the mass whose free motion has the variance of the
  // site's (exact for the linear constructions; the lightest constructing atom otherwise), as
  // calc_verletbuf.cpp's get_vsite_masses.
  std::vector<double> mass = top.mass;
  // A site built from another site takes that one's mass: passes until none is left (sites later in the
  // list than the sites they are built from need one pass).
  for (size_t pass = 0; pass <= top.vsites.size(); ++pass) {
    bool again = false;
    for (const VirtualSite& s : top.vsites) {
      if (mass[s.site] > 0.0) continue;
      const int na = vsite_atom_count(s);
      bool ready = true;
      for (int k = 0; k < na; ++k) ready = ready && mass[s.atoms[k]] > 0.0;
      if (!ready) {
        again = true;
        continue;
      }
      const double m1 = mass[s.atoms[0]], m2 = mass[s.atoms[1]], m3 = mass[s.atoms[2]];
      const double a = s.p[0], b = s.p[1];
      switch (s.kind) {
        case VsiteKind::Two:
          mass[s.site] = m1 * m2 / (m2 * (1.0 - a) * (1.0 - a) + m1 * a * a);
          break;
        case VsiteKind::Three:
          mass[s.site] =
              m1 * m2 * m3 / (m2 * m3 * (1.0 - a - b) * (1.0 - a - b) + m1 * m3 * a * a + m1 * m2 * b * b);
          break;
        case VsiteKind::ThreeOut:
          mass[s.site] = std::min({m1, m2, m3});
          break;
        case VsiteKind::N: {  // 1 / sum_k w_k^2 / m_k, as the linear constructions above
          double inv = 0.0;
          for (int k = 0; k < s.n; ++k) inv += s.p[k] * s.p[k] / mass[s.atoms[k]];
          mass[s.site] = 1.0 / inv;
          break;
        }
      }
    }
    if (!again) break;
  }
  std::vector<BufferType> types;
  for (int i = 0; i < n; ++i) {
    if (mass[i] <= 0.0) continue;  // massless atoms (not virtual sites) do not move on their own
    BufferType t;
    t.mass = mass[i];
    t.charge = top.charge[i];
    t.lj_type = top.type[i];
    t.con_mass = con_mass[i];
    t.con_len = con_len[i];
    t.constrained = t.con_mass > 0.4 * t.mass;
    auto same =
        std::find_if(types.begin(), types.end(), [&t](const BufferType& u) { return u.key() == t.key(); });
    if (same == types.end()) same = types.insert(types.end(), t);
    ++same->count;
  }
  return types;
}

// Displacement variances over the lifetime, kT_fac = k_B T (lifetime dt)^2 (nm^2 amu). A constrained atom
// rotates about the centre of mass of its pair (a rational fit to the mean-squared displacement on the sphere
// of radius d, which saturates) and moves with the pair's centre of mass.
void set_variances(double kt_fac, std::vector<BufferType>& types) {
  constexpr double a = 1.0 / 3.0, b = 2.0 / 45.0;
  for (BufferType& t : types) {
    if (!t.constrained) {
      t.s2_rot = 0.0;
      t.s2_com = kt_fac / t.mass;
      continue;
    }
    const double mf = t.con_mass / (t.mass + t.con_mass);
    const double s2_arc = kt_fac * mf / t.mass;
    const double d = t.con_len * mf;
    const double x = std::min(s2_arc / (d * d), 1.0 / std::sqrt(b));
    t.s2_rot = d * d * x / (1.0 + a * x + b * x * x);
    t.s2_com = kt_fac / (t.mass + t.con_mass);
  }
}

// A constrained atom has two rotational degrees of freedom: its displacement density (an erfc profile) is
// replaced by a Gaussian shifted by `shift` and scaled by `scale`, matched in value and slope at x.
void two_dof_correction(double v, double x, double& shift, double& scale) {
  const double ex = std::exp(-x * x / (2.0 * v));
  const double er = std::erfc(x / std::sqrt(2.0 * v));
  shift = -x + std::sqrt(2.0 * v / units::kPi) * ex / er;
  scale = 0.5 * units::kPi * std::exp(ex * ex / (units::kPi * er * er)) * er;
}

struct Derivatives {
  double md1 = 0.0, d2 = 0.0, md3 = 0.0;  // -V'(rc), V''(rc), -V'''(rc)
};

// The energy (times length) that pairs starting beyond the buffer b and ending inside the cut-off miss, for
// a relative one-dimensional Gaussian displacement of variance s2: Taylor terms of the potential at the
// cut-off integrated over the truncated Gaussian.
double pair_drift(const Derivatives& der, double b, double s2, const BufferType& ti, const BufferType& tj) {
  if (b * b > 2.0 * s2 * 64.0) return 0.0;
  double rsh = b, sc = 1.0;
  for (const BufferType* t : {&ti, &tj}) {
    if (!t->constrained) continue;
    double shift = 0.0, scale = 1.0;
    two_dof_correction(t->s2_rot, b * t->s2_rot / s2, shift, scale);
    rsh += shift;
    sc *= scale;
  }
  const double s = std::sqrt(s2);
  const double c_exp = std::exp(-rsh * rsh / (2.0 * s2)) / std::sqrt(2.0 * units::kPi);
  const double c_erfc = 0.5 * std::erfc(rsh / std::sqrt(2.0 * s2));
  const double r2 = rsh * rsh;
  const double e1 = (r2 + s2) * c_erfc - rsh * s * c_exp;
  const double e2 = s * (r2 + 2.0 * s2) * c_exp - rsh * (r2 + 3.0 * s2) * c_erfc;
  const double e3 = (r2 * r2 + 6.0 * r2 * s2 + 3.0 * s2 * s2) * c_erfc - rsh * s * (r2 + 5.0 * s2) * c_exp;
  return sc * (der.md1 / 2.0 * e1 + der.d2 / 6.0 * e2 + der.md3 / 24.0 * e3);
}

double kt_factor(double temperature, int lifetime, double dt) {
  const double t = lifetime * dt;
  return units::kBoltzmann * temperature * t * t;
}

}  // namespace

double verlet_buffer_temperature(const MdParams& mdp, const Topology& top, const io::GroFile& gro,
                                 double ndf) {
  if (mdp.temperature_coupled())  // the highest reference temperature of the groups, as grompp
    return mdp.ref_ts.empty() ? mdp.ref_t : *std::max_element(mdp.ref_ts.begin(), mdp.ref_ts.end());
  if (mdp.gen_vel) return mdp.gen_temp;
  if (!gro.has_velocities() || ndf <= 0.0) return 0.0;
  double mv2 = 0.0;
  for (int i = 0; i < top.num_atoms(); ++i) mv2 += top.mass[i] * dot(gro.v[i], gro.v[i]);
  return mv2 / (ndf * units::kBoltzmann);
}

namespace {

// The drift of verlet_buffer_drift for the atom types of the topology, their variances set.
double drift_of(const std::vector<BufferType>& types, const MdParams& mdp, const Topology& top,
                const Box& box, int nstlist, double rlist) {
  const double volume = box.len[0] * box.len[1] * box.len[2];

  // LJ (plain or potential-shift: GROMACS 2022 uses the first derivative only), per unit C6 and C12.
  const double rv = mdp.rvdw;
  const double disp_md1 = -6.0 * std::pow(rv, -7.0), rep_md1 = 12.0 * std::pow(rv, -13.0);
  // Force-switch: V, V' and V'' vanish at the cut-off, so only the third derivative is left. grompp 2022's
  // estimate (verletbuf.cpp) takes it as a (a + 1) (a + 2) rc^(a+3) + 2 A' + 6 B' (rc - r1) with the switch
  // constants A', B' of pair_interaction.h divided by a; the mathematical -V'''(rc) has rc^-(a+3) and A, B.
  // halomd follows grompp so that the same inputs get the same rlist (checked against grompp on the LJ
  // fluid, tests/test_forceswitch.cpp).
  const bool fsw = mdp.vdw_modifier == VdwModifier::ForceSwitch;
  auto fsw_md3 = [&](double a) {
    const double r1 = mdp.rvdw_switch, w = rv - r1;
    const double ca = -((a + 4.0) * rv - (a + 1.0) * r1) / (std::pow(rv, a + 2.0) * w * w);
    const double cb = ((a + 3.0) * rv - (a + 1.0) * r1) / (std::pow(rv, a + 2.0) * w * w * w);
    return a * (a + 1.0) * (a + 2.0) * std::pow(rv, a + 3.0) + 2.0 * ca + 6.0 * cb * w;
  };
  double disp_md3 = fsw ? -fsw_md3(6.0) : 0.0, rep_md3 = fsw ? fsw_md3(12.0) : 0.0;
  // Potential-switch: V, V' and V'' vanish at the cut-off as well; the third derivative is the potential
  // times the switch's, -60 / (rc - r1)^3 (grompp 2022's md3_pswf).
  const bool psw = mdp.vdw_modifier == VdwModifier::PotentialSwitch;
  if (psw) {
    const double w = rv - mdp.rvdw_switch, md3_pswf = 60.0 / (w * w * w);
    disp_md3 = -std::pow(rv, -6.0) * md3_pswf;
    rep_md3 = std::pow(rv, -12.0) * md3_pswf;
  }
  // Coulomb, per unit q_i q_j, with the constants GROMACS 2022's estimate uses (not quite the force
  // field's when epsilon-r != 1: it takes e = epsilon-rf / epsilon-r as the reaction-field dielectric);
  // plain cut-off has k_rf = 0.
  const double rc = mdp.rcoulomb, eps_r = mdp.epsilon_r;
  const double elfac = units::kCoulomb / eps_r;
  double k_rf = 0.0, q_md1 = elfac / (rc * rc);
  if (mdp.coulombtype == CoulombType::ReactionField) {
    const double e = mdp.epsilon_rf / eps_r;
    k_rf = e == 0.0 ? 1.0 / (2.0 * rc * rc * rc) : (e - eps_r) / (rc * rc * rc * (2.0 * e + eps_r));
    q_md1 = e > 0.0 ? elfac * (1.0 / (rc * rc) - 2.0 * k_rf * rc) : 0.0;
  }
  double q_d2 = elfac * (2.0 / (rc * rc * rc) + 2.0 * k_rf);
  if (mdp.coulombtype == CoulombType::Pme) {
    // -V'(rc) and V''(rc) of the real-space Ewald potential erfc(beta r)/r.
    const double b = ewald_coefficient(rc, mdp.ewald_rtol), br = b * rc;
    const double gauss = std::exp(-br * br) * 2.0 / std::sqrt(units::kPi);
    q_md1 = elfac * (b * gauss / rc + std::erfc(br) / (rc * rc));
    q_d2 = elfac / (rc * rc) * (2.0 * b * (1.0 + br * br) * gauss + 2.0 * std::erfc(br) / rc);
  }

  double drift = 0.0;
  for (size_t i = 0; i < types.size(); ++i)
    for (size_t j = i; j < types.size(); ++j) {
      const BufferType& ti = types[i];
      const BufferType& tj = types[j];
      const double s2 = ti.s2_rot + ti.s2_com + tj.s2_rot + tj.s2_com;
      Derivatives lj, q;
      if (fsw || psw)
        lj.md3 = top.c6_of(ti.lj_type, tj.lj_type) * disp_md3 + top.c12_of(ti.lj_type, tj.lj_type) * rep_md3;
      else
        lj.md1 = top.c6_of(ti.lj_type, tj.lj_type) * disp_md1 + top.c12_of(ti.lj_type, tj.lj_type) * rep_md1;
      q.md1 = ti.charge * tj.charge * q_md1;
      q.d2 = ti.charge * tj.charge * q_d2;
      // LJ and Coulomb are added with their signs; only the type pair's sum is taken absolute.
      const double pot = pair_drift(lj, rlist - mdp.rvdw, s2, ti, tj) + pair_drift(q, rlist - rc, s2, ti, tj);
      const double pairs = i == j ? 0.5 * static_cast<double>(ti.count) * static_cast<double>(ti.count - 1)
                                  : static_cast<double>(ti.count) * static_cast<double>(tj.count);
      const double shell = 4.0 * units::kPi * std::pow(rlist + std::sqrt(s2), 2) / volume;
      drift += std::abs(pot) * pairs * shell;
    }
  return drift / (nstlist * mdp.dt * top.num_atoms());
}

}  // namespace

double verlet_buffer_drift(const MdParams& mdp, const Topology& top, const Box& box, double temperature,
                           int nstlist, int lifetime, double rlist) {
  const double kt_fac = kt_factor(temperature, lifetime, mdp.dt);
  if (kt_fac <= 0.0) return 0.0;
  std::vector<BufferType> types = buffer_types(top);
  set_variances(kt_fac, types);
  return drift_of(types, mdp, top, box, nstlist, rlist);
}

double verlet_buffer_rlist(const MdParams& mdp, const Topology& top, const Box& box, double temperature,
                           int nstlist, int lifetime, double tolerance) {
  constexpr double kResolution = 0.001;  // nm
  const double rc = std::max(mdp.rvdw, mdp.rcoulomb);
  double m_min = 0.0;
  for (double m : top.mass)
    if (m > 0.0 && (m_min == 0.0 || m < m_min)) m_min = m;
  const double kt_fac = kt_factor(temperature, lifetime, mdp.dt);
  if (m_min == 0.0 || kt_fac <= 0.0) return rc;
  std::vector<BufferType> types = buffer_types(top);  // once: the bisection only changes rlist
  set_variances(kt_fac, types);
  // Bisection over whole steps of the resolution: ib0 is too small (or -1), ib1 large enough.
  int ib0 = -1;
  int ib1 = static_cast<int>(std::floor(5.0 * 2.0 * std::sqrt(kt_fac / m_min) / kResolution)) + 1;
  while (ib1 - ib0 > 1) {
    const int ib = (ib0 + ib1) / 2;
    const double drift = drift_of(types, mdp, top, box, nstlist, rc + ib * kResolution);
    if (std::abs(drift) > tolerance)
      ib0 = ib;
    else
      ib1 = ib;
  }
  return rc + ib1 * kResolution;
}

}  // namespace halomd
