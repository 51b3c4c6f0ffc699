#include "cpu/dispersion_correction.h"

#include <cmath>

#include "core/units.h"

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
