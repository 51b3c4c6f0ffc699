// The non-bonded pair interaction, one definition for the CPU reference and the CUDA kernels:
// Lennard-Jones (plain or potential-shift) plus reaction-field Coulomb as GROMACS's Verlet scheme defines
// them, and the real-space part of Ewald (PME) Coulomb for the CPU reference.
#pragma once

#include <cmath>

#include "core/host_device.h"

namespace halomd {

// Parameters that do not depend on the pair (GROMACS manual, "Reaction field" and "Modified non-bonded
// interactions"; PHYSICS.md). Plain cut-off Coulomb is reaction field with epsilon_rf = 1.
struct PairParams {
  double rc2 = 1.0;        // squared interaction cut-off, nm^2 (rvdw == rcoulomb)
  double k_rf = 0.0;       // nm^-3
  double c_rf = 1.0;       // nm^-1
  double epsfac = 1.0;     // f / epsilon_r, kJ/mol nm e^-2
  double sh_six = 0.0;     // 1/rc^6 with potential-shift, else 0
  double sh_twelve = 0.0;  // 1/rc^12 with potential-shift, else 0
  // Ewald (coulombtype = PME): the splitting coefficient beta (nm^-1; 0: reaction field) and the potential
  // shift erfc(beta rc)/rc with coulomb-modifier = Potential-shift, else 0.
  double ewald_beta = 0.0;
  double sh_ewald = 0.0;
  // vdw-modifier = Force-switch (GROMACS manual, "Modified non-bonded interactions"): from r1 = rvdw-switch
  // the force r^-a gains A (r - r1)^2 + B (r - r1)^3 (a = 6, 12) and the potential -A/3 (r - r1)^3 - B/4
  // (r - r1)^4 - C, -C at every r (fsw_r1 0: off; sh_six, sh_twelve are then 0).
  double fsw_r1 = 0.0;
  double fsw_a6 = 0.0, fsw_b6 = 0.0, fsw_c6 = 0.0;
  double fsw_a12 = 0.0, fsw_b12 = 0.0, fsw_c12 = 0.0;
  // vdw-modifier = Potential-switch: from r1 = rvdw-switch the LJ potential is multiplied by
  // S = 1 - 10 t^3 + 15 t^4 - 6 t^5, t = (r - r1) / (rc - r1), and the force is -(V S)' (psw_r1 < 0: off).
  double psw_r1 = -1.0, psw_w = 1.0;  // r1 and rc - r1
};

// The switch function of Potential-switch and its derivative by r, at r (>= r1).
HALOMD_HOST_DEVICE inline void potential_switch(double r, double r1, double w, double& s, double& ds) {
  const double t = (r - r1) / w, t2 = t * t, t3 = t2 * t;
  s = 1.0 - 10.0 * t3 + 15.0 * t3 * t - 6.0 * t3 * t2;
  ds = (-30.0 * t2 + 60.0 * t3 - 30.0 * t3 * t) / w;
}

struct PairResult {
  double v_lj = 0.0;      // kJ/mol
  double v_coul = 0.0;    // kJ/mol
  double f_over_r = 0.0;  // |F|/r, kJ/mol/nm^2: the force on i is f_over_r * (x_i - x_j)
};

// The Lennard-Jones part of a pair with 1/r^2 = rinv2: its energy (potential-shifted by sh_six, sh_twelve)
// into out.v_lj; returns its |F|/r.
template <class Real>
HALOMD_HOST_DEVICE inline Real pair_lj(const PairParams& p, Real rinv2, Real c6, Real c12, PairResult& out) {
  const Real rinv6 = rinv2 * rinv2 * rinv2;
  const Real vrep = c12 * rinv6 * rinv6;
  const Real vdisp = c6 * rinv6;
  if (p.fsw_r1 > 0.0) {  // force-switch: the same at r < r1 up to the constants -C
    const Real r = Real(1) / sqrt(rinv2);
    Real v12 = vrep - c12 * Real(p.fsw_c12), v6 = vdisp - c6 * Real(p.fsw_c6);
    Real f12 = Real(12) * vrep * rinv2, f6 = Real(6) * vdisp * rinv2;  // |F|/r of each
    if (r > Real(p.fsw_r1)) {
      const Real d = r - Real(p.fsw_r1), d2 = d * d, d3 = d2 * d;
      v12 -= c12 * (Real(p.fsw_a12) / Real(3) * d3 + Real(p.fsw_b12) / Real(4) * d3 * d);
      v6 -= c6 * (Real(p.fsw_a6) / Real(3) * d3 + Real(p.fsw_b6) / Real(4) * d3 * d);
      f12 += c12 * (Real(p.fsw_a12) * d2 + Real(p.fsw_b12) * d3) / r;
      f6 += c6 * (Real(p.fsw_a6) * d2 + Real(p.fsw_b6) * d3) / r;
    }
    out.v_lj = v12 - v6;
    return f12 - f6;
  }
  if (p.psw_r1 >= 0.0) {  // potential-switch: V S, |F|/r = (F S - V S') / r
    const Real v = vrep - vdisp, f = (Real(12) * vrep - Real(6) * vdisp) * rinv2;
    const Real r = Real(1) / sqrt(rinv2);
    if (r <= Real(p.psw_r1)) {
      out.v_lj = v;
      return f;
    }
    double s = 1.0, ds = 0.0;
    potential_switch(r, p.psw_r1, p.psw_w, s, ds);
    out.v_lj = v * Real(s);
    return f * Real(s) - v * Real(ds) / r;
  }
  out.v_lj = (vrep - c12 * Real(p.sh_twelve)) - (vdisp - c6 * Real(p.sh_six));
  return (Real(12) * vrep - Real(6) * vdisp) * rinv2;
}

// A non-excluded pair at squared distance r2 < rc2; c6, c12 of the type pair, qq = q_i q_j.
template <class Real>
HALOMD_HOST_DEVICE inline void pair_lj_rf(const PairParams& p, Real r2, Real c6, Real c12, Real qq,
                                          PairResult& out) {
  const Real rinv2 = Real(1) / r2;
  const Real rinv = sqrt(rinv2);
  const Real f_lj = pair_lj(p, rinv2, c6, c12, out);
  const Real qq_eps = qq * Real(p.epsfac);
  out.v_coul = qq_eps * (rinv + Real(p.k_rf) * r2 - Real(p.c_rf));
  out.f_over_r = f_lj + qq_eps * (rinv * rinv2 - Real(2) * Real(p.k_rf));
}

// An excluded pair within the cut-off: only the reaction-field correction qq f/eps_r (k_rf r^2 - c_rf),
// which GROMACS counts in Coulomb (SR); no LJ.
template <class Real>
HALOMD_HOST_DEVICE inline void pair_rf_exclusion(const PairParams& p, Real r2, Real qq, PairResult& out) {
  const Real qq_eps = qq * Real(p.epsfac);
  out.v_lj = 0;
  out.v_coul = qq_eps * (Real(p.k_rf) * r2 - Real(p.c_rf));
  out.f_over_r = -Real(2) * qq_eps * Real(p.k_rf);
}

// 2/sqrt(pi), for the derivative of erfc.
inline constexpr double kTwoOverSqrtPi = 1.1283791670955126;

// Lennard-Jones as pair_lj_rf, and the real-space Ewald Coulomb qq f/eps_r (erfc(beta r)/r - sh_ewald) of a
// non-excluded pair at r2 < rc2.
template <class Real>
HALOMD_HOST_DEVICE inline void pair_lj_ewald(const PairParams& p, Real r2, Real c6, Real c12, Real qq,
                                             PairResult& out) {
  const Real rinv2 = Real(1) / r2;
  const Real rinv = sqrt(rinv2);
  const Real f_lj = pair_lj(p, rinv2, c6, c12, out);
  const Real qq_eps = qq * Real(p.epsfac);
  const Real br = Real(p.ewald_beta) * r2 * rinv;
  const Real erfc_r = erfc(br) * rinv;
  out.v_coul = qq_eps * (erfc_r - Real(p.sh_ewald));
  out.f_over_r = f_lj + qq_eps * (erfc_r + Real(kTwoOverSqrtPi) * Real(p.ewald_beta) * exp(-br * br)) * rinv2;
}

// An excluded pair within the cut-off under Ewald: the reciprocal part's interaction of the pair taken out
// again, -qq f/eps_r erf(beta r)/r, which GROMACS counts in Coulomb (SR); no LJ.
template <class Real>
HALOMD_HOST_DEVICE inline void pair_ewald_exclusion(const PairParams& p, Real r2, Real qq, PairResult& out) {
  const Real qq_eps = qq * Real(p.epsfac);
  if (r2 == Real(0)) {  // two excluded atoms at one place: the limit of erf(beta r)/r, no force
    out.v_lj = 0;
    out.v_coul = -qq_eps * Real(kTwoOverSqrtPi) * Real(p.ewald_beta);
    out.f_over_r = 0;
    return;
  }
  const Real rinv2 = Real(1) / r2;
  const Real rinv = sqrt(rinv2);
  const Real br = Real(p.ewald_beta) * r2 * rinv;
  const Real erf_r = erf(br) * rinv;
  out.v_lj = 0;
  out.v_coul = -qq_eps * erf_r;
  out.f_over_r = -qq_eps * (erf_r - Real(kTwoOverSqrtPi) * Real(p.ewald_beta) * exp(-br * br)) * rinv2;
}

}  // namespace halomd
