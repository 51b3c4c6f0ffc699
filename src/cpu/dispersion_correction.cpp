#include "cpu/dispersion_correction.h"

#include <cmath>

#include "core/units.h"
#include "cpu/nonbonded.h"
#include "cpu/pair_interaction.h"

namespace halomd {

DispersionCorrection::DispersionCorrection(const Topology& top, const MdParams& mdp) {
  enabled_ = mdp.dispcorr != DispCorr::No;
  pressure_ = mdp.dispcorr == DispCorr::EnerPres;
  num_atoms_ = top.num_atoms();
  if (!enabled_) return;

  // Average C6 over all pairs of atoms, counted by type, minus the excluded pairs.
  const int nt = top.num_types();
  std::vector<double> count(nt, 0.0);
  for (int t : top.type) count[t] += 1.0;
  double csix = 0.0, npair = 0.0;
  for (int ti = 0; ti < nt; ++ti)
    for (int tj = ti; tj < nt; ++tj) {
      const double n = ti == tj ? 0.5 * count[ti] * (count[ti] - 1.0) : count[ti] * count[tj];
      csix += n * top.c6_of(ti, tj);
      npair += n;
    }
  double nexcl = 0.0;
  for (int i = 0; i < top.num_atoms() && !top.excl_start.empty(); ++i)
    for (int k = top.excl_start[i]; k < top.excl_start[i + 1]; ++k) {
      const int j = top.excl[k];
      if (j <= i) continue;
      csix -= top.c6_of(top.type[i], top.type[j]);
      nexcl += 1.0;
    }
  avg_c6_ = npair - nexcl > 0.0 ? csix / (npair - nexcl) : 0.0;

  const double rc3 = mdp.rvdw * mdp.rvdw * mdp.rvdw;
  const double pi = units::kPi;
  // Integral of -C6/r^6 beyond rc over 4 pi r^2 dr; with potential-shift also the constant -C6 (-1/rc^6)
  // shift inside the cut-off, whose integral from 0 counts the self pair once too much (removed below).
  ener_diff_six_ = -4.0 * pi / (3.0 * rc3);
  if (mdp.vdw_modifier == VdwModifier::PotentialShift) {
    ener_shift_six_ = -1.0 / (rc3 * rc3);
    ener_diff_six_ += 4.0 * pi * ener_shift_six_ * rc3 / 3.0;
  }
  vir_diff_six_ = 0.5 * 8.0 * pi / rc3;  // 0.5: GROMACS's virial definition
  if (mdp.vdw_modifier == VdwModifier::ForceSwitch || mdp.vdw_modifier == VdwModifier::PotentialSwitch)
    switched(mdp);
}

// Force-switch and potential-switch (GROMACS's DispersionCorrection::setInteractionParameters): from r0 =
// rvdw-switch the pair kernel's dispersion Vm differs from -1/r^6. The correction is then the constant
// shift s = -1/r0^6 - Vm(r0) inside r0 (force-switch only: the potential-switch leaves V unshifted there),
// over 4 pi r^2 dr from 0 (less the self pair, as ener_shift_six_), plus the integral of -1/r^6 - Vm from r0
// to rc and of -1/r^6 beyond it; the virial likewise with r^3 dV/dr. GROMACS integrates a cubic spline table
// of Vm (2000 points per nm in double precision, exact for the spline); halomd integrates Vm itself by Gauss-
// Legendre quadrature, which agrees to the table's interpolation error (~1e-12 of the correction).
void DispersionCorrection::switched(const MdParams& mdp) {
  const double pi = units::kPi;
  const PairParams p = make_pair_params(mdp);
  // Vm and its derivative at r, per unit C6 (the kernel's LJ with c6 = 1, c12 = 0).
  const auto vm = [&p](double r, double& dv) {
    PairResult out;
    const double f_over_r = pair_lj<double>(p, 1.0 / (r * r), 1.0, 0.0, out);
    dv = -f_over_r * r;
    return out.v_lj;
  };
  const double r0 = mdp.rvdw_switch, rc = mdp.rvdw;
  double dv0 = 0.0;
  ener_shift_six_ = mdp.vdw_modifier == VdwModifier::ForceSwitch ? -std::pow(r0, -6.0) - vm(r0, dv0) : 0.0;
  // 5-point Gauss-Legendre on 256 pieces of [r0, rc].
  const double node[5] = {-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831,
                          0.9061798459386640};
  const double weight[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665,
                            0.2369268850561891};
  const int pieces = 256;
  const double h = (rc - r0) / pieces;
  double ener = 0.0, vir = 0.0;
  for (int k = 0; k < pieces; ++k)
    for (int q = 0; q < 5; ++q) {
      const double r = r0 + h * (k + 0.5 * (node[q] + 1.0));
      double dv = 0.0;
      const double v = vm(r, dv);
      ener += 0.5 * h * weight[q] * r * r * v;
      vir += 0.5 * h * weight[q] * r * r * r * dv;
    }
  const double r03 = r0 * r0 * r0;
  ener_diff_six_ = 4.0 * pi * ener_shift_six_ * r03 / 3.0 - 4.0 * pi * ener - 4.0 * pi / (3.0 * r03);
  vir_diff_six_ = 0.5 * (-4.0 * pi * vir + 8.0 * pi / r03);
}

double DispersionCorrection::energy(const Box& box) const {
  if (!enabled_) return 0.0;
  const double density = num_atoms_ / box.volume();
  return avg_c6_ * 0.5 * num_atoms_ * (density * ener_diff_six_ - ener_shift_six_);
}

double DispersionCorrection::virial_diagonal(const Box& box) const {
  if (!pressure_) return 0.0;
  const double density = num_atoms_ / box.volume();
  return 0.5 * num_atoms_ * density * avg_c6_ * vir_diff_six_ / 3.0;
}

}  // namespace halomd
