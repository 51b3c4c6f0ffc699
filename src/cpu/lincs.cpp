#include "cpu/lincs.h"

#include <algorithm>
#include <cmath>

#include "core/units.h"

namespace halomd {

LincsCpu::LincsCpu(const Topology& top, int order, int iterations, double warn_angle_deg, bool frozen_pairs)
    : con_(top.constraints),
      order_(order),
      iterations_(iterations),
      cos_warn_(std::cos(warn_angle_deg * units::kPi / 180.0)) {
  inv_mass_.resize(top.num_atoms());
  // A fully frozen atom (freezegrps) takes GROMACS's ALMOST_ZERO, not 0: a constraint between two of them
  // stays solvable, and a free partner takes the whole correction.
  for (int i = 0; i < top.num_atoms(); ++i)
    inv_mass_[i] = top.fully_frozen(i) ? 1e-30 : top.mass[i] > 0 ? 1.0 / top.mass[i] : 0.0;
  if (!frozen_pairs && !top.frozen.empty())
    std::erase_if(con_, [&](const Constraint& c) { return top.frozen_pair(c.a, c.b); });
  const int n = static_cast<int>(con_.size());
  blc_.resize(n);
  for (int i = 0; i < n; ++i) blc_[i] = 1.0 / std::sqrt(inv_mass_[con_[i].a] + inv_mass_[con_[i].b]);
  // Constraints sharing an atom are coupled: the sign is -1 where the shared atom has the same role (first
  // or second) in both, as GROMACS's blmf.
  std::vector<std::vector<int>> of_atom(top.num_atoms());
  for (int i = 0; i < n; ++i) {
    of_atom[con_[i].a].push_back(i);
    of_atom[con_[i].b].push_back(i);
  }
  coupling_start_.assign(1, 0);
  for (int i = 0; i < n; ++i) {
    for (int atom : {con_[i].a, con_[i].b})
      for (int j : of_atom[atom]) {
        if (j == i) continue;
        const bool first_i = con_[i].a == atom, first_j = con_[j].a == atom;
        const double sign = first_i == first_j ? -1.0 : 1.0;
        coupling_.push_back({j, sign * inv_mass_[atom] * blc_[i] * blc_[j]});
      }
    coupling_start_.push_back(static_cast<int>(coupling_.size()));
  }
}

void LincsCpu::expand(const std::vector<Vec3>& r, std::vector<double>& rhs, std::vector<double>& sol) const {
  const int n = static_cast<int>(con_.size());
  sol = rhs;
  std::vector<double> next(n);
  for (int k = 0; k < order_; ++k) {
    for (int i = 0; i < n; ++i) {
      double s = 0.0;
      for (int c = coupling_start_[i]; c < coupling_start_[i + 1]; ++c)
        s += coupling_[c].coef * dot(r[i], r[coupling_[c].other]) * rhs[coupling_[c].other];
      next[i] = s;
    }
    rhs.swap(next);
    for (int i = 0; i < n; ++i) sol[i] += rhs[i];
  }
}

int LincsCpu::apply(const std::vector<Vec3>& x_old, std::vector<Vec3>& x_new, std::vector<Vec3>* v, double dt,
                    Tensor* virial, const Box& box) const {
  const int n = static_cast<int>(con_.size());
  if (n == 0) return -1;
  std::vector<Vec3> r(n);
  std::vector<double> rhs(n), sol(n), mlambda(n, 0.0);
  for (int i = 0; i < n; ++i) {
    const Vec3 d = minimum_image(x_old[con_[i].a], x_old[con_[i].b], box);
    r[i] = d * (1.0 / std::sqrt(norm2(d)));
  }
  std::vector<Vec3> x_start;
  if (v) x_start = x_new;
  // Moves each constraint's atoms along its old direction by blc_i sol_i, weighted by their inverse masses.
  auto update = [&]() {
    for (int i = 0; i < n; ++i) {
      const double mvb = blc_[i] * sol[i];
      mlambda[i] += mvb;
      x_new[con_[i].a] -= r[i] * (inv_mass_[con_[i].a] * mvb);
      x_new[con_[i].b] += r[i] * (inv_mass_[con_[i].b] * mvb);
    }
  };
  // The projection of the new bond on the old direction to the constraint length.
  for (int i = 0; i < n; ++i)
    rhs[i] = blc_[i] * (dot(r[i], minimum_image(x_new[con_[i].a], x_new[con_[i].b], box)) - con_[i].length);
  expand(r, rhs, sol);
  update();
  // Corrections for the rotational lengthening: the projection that gives the full length, p = sqrt(2 d^2 -
  // l^2) where l is the current length.
  int failed = -1;
  for (int it = 0; it < iterations_; ++it) {
    for (int i = 0; i < n; ++i) {
      const double len = con_[i].length;
      const double dlen2 = 2.0 * len * len - norm2(minimum_image(x_new[con_[i].a], x_new[con_[i].b], box));
      if (dlen2 < 0.0 && failed < 0) failed = con_[i].a;
      rhs[i] = blc_[i] * (len - (dlen2 > 0.0 ? std::sqrt(dlen2) : 0.0));
    }
    expand(r, rhs, sol);
    update();
  }
  // A constraint that turned further than lincs-warnangle in one step: the step is not trustworthy.
  for (int i = 0; i < n && failed < 0; ++i) {
    const Vec3 d = minimum_image(x_new[con_[i].a], x_new[con_[i].b], box);
    if (dot(d, r[i]) < cos_warn_ * std::sqrt(norm2(d))) failed = con_[i].a;
  }
  if (v)
    for (size_t a = 0; a < x_new.size(); ++a) (*v)[a] += (x_new[a] - x_start[a]) * (1.0 / dt);
  if (virial)
    // F_a = -mlambda r / dt^2 on the first atom and the opposite on the second, at distance length along r.
    for (int i = 0; i < n; ++i) add_outer(*virial, r[i], r[i], 0.5 * con_[i].length * mlambda[i] / (dt * dt));
  return failed;
}

void LincsCpu::project(const std::vector<Vec3>& x, std::vector<Vec3>& f, Tensor* virial,
                       const Box& box) const {
  const int n = static_cast<int>(con_.size());
  if (n == 0) return;
  std::vector<Vec3> r(n);
  std::vector<double> rhs(n), sol(n);
  for (int i = 0; i < n; ++i) {
    const Vec3 d = minimum_image(x[con_[i].a], x[con_[i].b], box);
    r[i] = d * (1.0 / std::sqrt(norm2(d)));
    rhs[i] = blc_[i] * dot(r[i], f[con_[i].a] - f[con_[i].b]);
  }
  expand(r, rhs, sol);
  for (int i = 0; i < n; ++i) {
    const double mvb = blc_[i] * sol[i];
    f[con_[i].a] -= r[i] * (inv_mass_[con_[i].a] * mvb);
    f[con_[i].b] += r[i] * (inv_mass_[con_[i].b] * mvb);
    if (virial) add_outer(*virial, r[i], r[i], 0.5 * con_[i].length * mvb);
  }
}

double LincsCpu::rms_deviation(const std::vector<Vec3>& x, const Box& box) const {
  if (con_.empty()) return 0.0;
  double sum = 0.0;
  for (const Constraint& c : con_) {
    const double dev = std::sqrt(norm2(minimum_image(x[c.a], x[c.b], box))) / c.length - 1.0;
    sum += dev * dev;
  }
  return std::sqrt(sum / static_cast<double>(con_.size()));
}

}  // namespace halomd
