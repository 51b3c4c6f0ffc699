#include "cpu/settle.h"

#include <algorithm>
#include <cmath>

#include "cpu/fixed_point.h"
#include "cpu/settle_water.h"

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
  uint64_t vir_fixed[9] = {};  // unsigned: the sums wrap (cpu/fixed_point.h), also in OpenMP's reduction
  const double inv_dt = 1.0 / dt;
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static) reduction(+ : vir_fixed[:9]) reduction(max : bad)
  for (int w = 0; w < n; ++w) {
    const Settle& s = settles_[w];
    const double mo = m_o_[w], mh = m_h_[w];
    const Vec3 a0 = x_old[s.o];
    const Vec3 b0 = x_old[s.h1] - a0;  // old bond vectors, which span the plane the constraint forces act in
    const Vec3 c0 = x_old[s.h2] - a0;
    const Vec3 a1 = x_new[s.o], b1 = x_new[s.h1], c1 = x_new[s.h2];
    Vec3 a, b, c;
    if (!settle_water(mo, mh, s.d_oh, s.d_hh, b0, c0, a1, b1, c1, a, b, c)) {
      bad = s.o;
      continue;
    }

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
        for (int j = 0; j < 3; ++j)
          vir_fixed[3 * i + j] += static_cast<uint64_t>(to_fixed(t.m[i][j], kEnergyFixedScale));
    }
  }
  if (virial)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        virial->m[i][j] += from_fixed(static_cast<int64_t>(vir_fixed[3 * i + j]), kEnergyFixedScale);
  return bad;
}

void SettleCpu::project(const std::vector<Vec3>& x, std::vector<Vec3>& f, Tensor* virial) const {
  for (size_t w = 0; w < settles_.size(); ++w) {
    const Settle& s = settles_[w];
    const int atom[3] = {s.o, s.h1, s.h2};
    const double inv_m[3] = {1.0 / m_o_[w], 1.0 / m_h_[w], 1.0 / m_h_[w]};
    // Constraints O-H1, O-H2, H1-H2 as (first, second) atom slots and their direction over the target length.
    const int pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    const double len[3] = {s.d_oh, s.d_oh, s.d_hh};
    Vec3 e[3];
    for (int c = 0; c < 3; ++c) e[c] = (x[atom[pair[c][0]]] - x[atom[pair[c][1]]]) * (1.0 / len[c]);
    // (G W G^T) lambda = G f, with G's row c = +e_c on the first atom, -e_c on the second.
    double a[3][3] = {}, b[3];
    for (int c = 0; c < 3; ++c) {
      b[c] = dot(e[c], f[atom[pair[c][0]]] - f[atom[pair[c][1]]]);
      for (int d = 0; d < 3; ++d) {
        double sum = 0.0;
        for (int k : {0, 1})
          for (int l : {0, 1})
            if (pair[c][k] == pair[d][l]) sum += (k == l ? 1.0 : -1.0) * inv_m[pair[c][k]] * dot(e[c], e[d]);
        a[c][d] = sum;
      }
    }
    // Cramer's rule on the 3x3 system.
    auto det3 = [](const double m[3][3]) {
      return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
             m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
             m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    };
    const double det = det3(a);
    double lambda[3];
    for (int c = 0; c < 3; ++c) {
      double m[3][3];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i][j] = j == c ? b[i] : a[i][j];
      lambda[c] = det3(m) / det;
    }
    for (int c = 0; c < 3; ++c) {
      const int i = pair[c][0], j = pair[c][1];
      f[atom[i]] -= e[c] * (inv_m[i] * lambda[c]);
      f[atom[j]] += e[c] * (inv_m[j] * lambda[c]);
      if (virial) add_outer(*virial, x[atom[i]] - x[atom[j]], e[c], 0.5 * lambda[c]);
    }
  }
}

}  // namespace halomd
