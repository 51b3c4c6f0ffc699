#include "cpu/nonbonded.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/errors.h"
#include "core/units.h"
#include "cpu/fixed_point.h"
#include "cpu/pme.h"

namespace halomd {
namespace {

// A pair force beyond this (kJ/mol/nm) means atoms on top of each other: stop rather than overflow.
constexpr double kMaxPairForce = 1e8;

}  // namespace

PairParams make_pair_params(const MdParams& mdp) {
  PairParams p;
  const double rc = mdp.rcoulomb;
  p.rc2 = rc * rc;
  const double eps_rf = mdp.epsilon_rf;
  const double eps_r = mdp.epsilon_r;
  if (mdp.coulombtype == CoulombType::Pme) {
    // Real-space Ewald, shifted by its value at the cut-off with Potential-shift (GROMACS's Verlet scheme).
    p.ewald_beta = ewald_coefficient(rc, mdp.ewald_rtol);
    p.sh_ewald = mdp.coulomb_modifier == CoulombModifier::None ? 0.0 : std::erfc(p.ewald_beta * rc) / rc;
    p.c_rf = 0.0;
  } else if (mdp.coulombtype == CoulombType::CutOff) {
    // GROMACS's Verlet scheme runs plain cut-off as reaction field with k_rf = 0 (epsilon-rf = epsilon-r),
    // shifted by 1/rc with coulomb-modifier = Potential-shift and not at all with None.
    p.k_rf = 0.0;
    p.c_rf = mdp.coulomb_modifier == CoulombModifier::None ? 0.0 : 1.0 / rc;
  } else {
    if (eps_rf == 0.0)
      p.k_rf = 1.0 / (2.0 * rc * rc * rc);
    else
      p.k_rf = (eps_rf - eps_r) / ((2.0 * eps_rf + eps_r) * rc * rc * rc);
    p.c_rf = 1.0 / rc + p.k_rf * rc * rc;
  }
  p.epsfac = units::kCoulomb / eps_r;
  if (mdp.vdw_modifier == VdwModifier::PotentialShift) {
    const double rv6 = std::pow(mdp.rvdw, 6);
    p.sh_six = 1.0 / rv6;
    p.sh_twelve = 1.0 / (rv6 * rv6);
  }
  if (mdp.vdw_modifier == VdwModifier::ForceSwitch) {
    const double r1 = mdp.rvdw_switch, rc = mdp.rvdw, w = rc - r1;
    // The constants of PairParams's force switch for r^-a.
    auto constants = [&](double a, double& ca, double& cb, double& cc) {
      ca = -a * ((a + 4.0) * rc - (a + 1.0) * r1) / (std::pow(rc, a + 2.0) * w * w);
      cb = a * ((a + 3.0) * rc - (a + 1.0) * r1) / (std::pow(rc, a + 2.0) * w * w * w);
      cc = 1.0 / std::pow(rc, a) - ca / 3.0 * w * w * w - cb / 4.0 * w * w * w * w;
    };
    p.fsw_r1 = r1 > 0.0 ? r1 : 1e-300;  // r1 = 0 switches from the origin: still on
    constants(6.0, p.fsw_a6, p.fsw_b6, p.fsw_c6);
    constants(12.0, p.fsw_a12, p.fsw_b12, p.fsw_c12);
  }
  if (mdp.vdw_modifier == VdwModifier::PotentialSwitch) {
    p.psw_r1 = mdp.rvdw_switch;
    p.psw_w = mdp.rvdw - mdp.rvdw_switch;
  }
  return p;
}

double coulomb_self_energy(const PairParams& p, double q2) {
  return p.ewald_beta > 0.0 ? -p.ewald_beta / std::sqrt(std::numbers::pi) * p.epsfac * q2
                            : -0.5 * p.c_rf * p.epsfac * q2;
}

NonbondedCpu::NonbondedCpu(const Topology& top, const MdParams& mdp, int threads)
    : top_(top), params_(make_pair_params(mdp)), threads_(std::max(1, threads)) {
  double q2 = 0.0;
  for (double q : top.charge) q2 += q * q;
  self_energy_ = coulomb_self_energy(params_, q2);
  f_thread_.resize(threads_);
}

void NonbondedCpu::compute(const PairList& list, const std::vector<Vec3>& x, const Box& box, bool want_energy,
                           int64_t step, std::vector<Vec3>& f, NonbondedEnergies& energies) {
  NonbondedAtoms atoms;
  atoms.x = x;
  atoms.charge = top_.charge;
  atoms.type = top_.type;
  atoms.excl_start = top_.excl_start;
  atoms.excl = top_.excl;
  atoms.len = box.len;
  atoms.inv_len = {1.0 / box.len.x, 1.0 / box.len.y, 1.0 / box.len.z};
  f_fixed_.resize(x.size());
  NonbondedFixedSums sums;
  compute_fixed(list, atoms, want_energy, step, f_fixed_, sums);
  for (size_t i = 0; i < x.size(); ++i)
    for (int d = 0; d < 3; ++d) f[i][d] = from_fixed(f_fixed_[i][d], kForceFixedScale);
  if (want_energy) energies = to_energies(sums, self_energy_);
}

NonbondedEnergies to_energies(const NonbondedFixedSums& total, double self_energy) {
  NonbondedEnergies energies;
  energies.lj = from_fixed(total.lj, kEnergyFixedScale);
  energies.coulomb = from_fixed(total.coul, kEnergyFixedScale) + self_energy;
  // Xi = -1/2 sum d (x) F with d = x_i - x_j and F the force on i.
  const int idx[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      energies.virial.m[a][b] = -0.5 * from_fixed(total.vir[idx[a][b]], kEnergyFixedScale);
  return energies;
}

void NonbondedCpu::compute_fixed(const PairList& list, const NonbondedAtoms& atoms, bool want_energy,
                                 int64_t step, std::span<FixedVec3> f, NonbondedFixedSums& total) {
  const std::span<const Vec3> x = atoms.x;
  const int natoms = static_cast<int>(x.size());
  const int ntypes = top_.num_types();
  const PairParams p = params_;
  // Loop-invariant: the compiler keeps the two kernels apart.
  const bool ewald = p.ewald_beta > 0.0;
  const Vec3 len = atoms.len;
  const Vec3 inv = atoms.inv_len;
  const double* charge = atoms.charge.data();
  const int* type = atoms.type.data();
  const double* c6 = top_.c6.data();
  const double* c12 = top_.c12.data();
  const bool have_excl = !atoms.excl_start.empty();
  const int* excl_start = atoms.excl_start.data();
  const int* excl = atoms.excl.data();
  std::vector<NonbondedFixedSums> sums(threads_);
  std::vector<int> bad_atom(threads_, -1);

#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    std::vector<int64_t>& fb = f_thread_[t];
    fb.assign(3 * static_cast<size_t>(natoms), 0);
    NonbondedFixedSums s;
    // Pairs of the list (i < j, not excluded).
#pragma omp for schedule(dynamic, 64) nowait
    for (int i = 0; i < natoms; ++i) {
      const Vec3 xi = x[i];
      const double qi = charge[i];
      const int ti = type[i] * ntypes;
      double fix = 0, fiy = 0, fiz = 0, elj = 0, ecoul = 0;
      double v[6] = {0, 0, 0, 0, 0, 0};
      for (int k = list.start[i]; k < list.start[i + 1]; ++k) {
        const int j = list.j[k];
        // d = x_i - x_j, so the force on i is f_over_r * d.
        const double dx = minimum_image(xi.x - x[j].x, len.x, inv.x);
        const double dy = minimum_image(xi.y - x[j].y, len.y, inv.y);
        const double dz = minimum_image(xi.z - x[j].z, len.z, inv.z);
        const double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= p.rc2) continue;
        PairResult r;
        if (ewald)
          pair_lj_ewald<double>(p, r2, c6[ti + type[j]], c12[ti + type[j]], qi * charge[j], r);
        else
          pair_lj_rf<double>(p, r2, c6[ti + type[j]], c12[ti + type[j]], qi * charge[j], r);
        // Each thread keeps the lowest atom it found, and the lowest over threads is reported: the same atom
        // whatever the thread count and scheduling.
        if (!(std::fabs(r.f_over_r) * std::sqrt(r2) < kMaxPairForce) && (bad_atom[t] < 0 || i < bad_atom[t]))
          bad_atom[t] = i;
        const double fx = r.f_over_r * dx, fy = r.f_over_r * dy, fz = r.f_over_r * dz;
        fix += fx;
        fiy += fy;
        fiz += fz;
        fb[3 * j] = wrap_sub(fb[3 * j], to_fixed(fx, kForceFixedScale));
        fb[3 * j + 1] = wrap_sub(fb[3 * j + 1], to_fixed(fy, kForceFixedScale));
        fb[3 * j + 2] = wrap_sub(fb[3 * j + 2], to_fixed(fz, kForceFixedScale));
        if (want_energy) {
          elj += r.v_lj;
          ecoul += r.v_coul;
          v[0] += fx * dx;
          v[1] += fy * dy;
          v[2] += fz * dz;
          v[3] += fx * dy;
          v[4] += fx * dz;
          v[5] += fy * dz;
        }
      }
      fb[3 * i] = wrap_add(fb[3 * i], to_fixed(fix, kForceFixedScale));
      fb[3 * i + 1] = wrap_add(fb[3 * i + 1], to_fixed(fiy, kForceFixedScale));
      fb[3 * i + 2] = wrap_add(fb[3 * i + 2], to_fixed(fiz, kForceFixedScale));
      if (want_energy) {
        s.lj = wrap_add(s.lj, to_fixed(elj, kEnergyFixedScale));
        s.coul = wrap_add(s.coul, to_fixed(ecoul, kEnergyFixedScale));
        for (int c = 0; c < 6; ++c) s.vir[c] = wrap_add(s.vir[c], to_fixed(v[c], kEnergyFixedScale));
      }
    }
    // Reaction-field (or Ewald) correction of excluded pairs within the cut-off (each pair once, i < j).
#pragma omp for schedule(static) nowait
    for (int i = 0; i < natoms; ++i) {
      if (!have_excl || charge[i] == 0.0) continue;
      double ecoul = 0;
      double v[6] = {0, 0, 0, 0, 0, 0};
      for (int k = excl_start[i]; k < excl_start[i + 1]; ++k) {
        const int j = excl[k];
        if (j <= i || charge[j] == 0.0) continue;
        const double dx = minimum_image(x[i].x - x[j].x, len.x, inv.x);
        const double dy = minimum_image(x[i].y - x[j].y, len.y, inv.y);
        const double dz = minimum_image(x[i].z - x[j].z, len.z, inv.z);
        const double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= p.rc2) continue;
        PairResult r;
        if (ewald)
          pair_ewald_exclusion<double>(p, r2, charge[i] * charge[j], r);
        else
          pair_rf_exclusion<double>(p, r2, charge[i] * charge[j], r);
        const double fx = r.f_over_r * dx, fy = r.f_over_r * dy, fz = r.f_over_r * dz;
        fb[3 * i] = wrap_add(fb[3 * i], to_fixed(fx, kForceFixedScale));
        fb[3 * i + 1] = wrap_add(fb[3 * i + 1], to_fixed(fy, kForceFixedScale));
        fb[3 * i + 2] = wrap_add(fb[3 * i + 2], to_fixed(fz, kForceFixedScale));
        fb[3 * j] = wrap_sub(fb[3 * j], to_fixed(fx, kForceFixedScale));
        fb[3 * j + 1] = wrap_sub(fb[3 * j + 1], to_fixed(fy, kForceFixedScale));
        fb[3 * j + 2] = wrap_sub(fb[3 * j + 2], to_fixed(fz, kForceFixedScale));
        ecoul += r.v_coul;
        v[0] += fx * dx;
        v[1] += fy * dy;
        v[2] += fz * dz;
        v[3] += fx * dy;
        v[4] += fx * dz;
        v[5] += fy * dz;
      }
      if (want_energy) {
        s.coul = wrap_add(s.coul, to_fixed(ecoul, kEnergyFixedScale));
        for (int c = 0; c < 6; ++c) s.vir[c] = wrap_add(s.vir[c], to_fixed(v[c], kEnergyFixedScale));
      }
    }
    sums[t] = s;
#pragma omp barrier
    // Sum the thread buffers atom by atom: integer sums, so the thread count does not matter.
#pragma omp for schedule(static)
    for (int a = 0; a < 3 * natoms; ++a) {
      int64_t acc = 0;
      for (int u = 0; u < threads_; ++u) acc = wrap_add(acc, f_thread_[u][a]);
      f[a / 3][a % 3] = acc;
    }
  }

  int bad = -1;
  for (int t = 0; t < threads_; ++t)
    if (bad_atom[t] >= 0 && (bad < 0 || bad_atom[t] < bad)) bad = bad_atom[t];
  if (bad >= 0) {
    const int atom = atoms.global.empty() ? bad : atoms.global[bad];
    throw RuntimeError(step, atom, "non-finite or extreme non-bonded force (atoms overlapping?)");
  }

  total = NonbondedFixedSums{};
  if (want_energy) {
    for (const NonbondedFixedSums& s : sums) {
      total.lj = wrap_add(total.lj, s.lj);
      total.coul = wrap_add(total.coul, s.coul);
      for (int c = 0; c < 6; ++c) total.vir[c] = wrap_add(total.vir[c], s.vir[c]);
    }
  }
}

}  // namespace halomd
