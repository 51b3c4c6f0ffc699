#include "cpu/update.h"

#include <algorithm>
#include <cmath>

#include "cpu/fixed_point.h"

namespace halomd {

namespace {

// The leap-frog step of every atom, with the v-rescale factor lambda_of(i) of atom i.
template <class LambdaOf>
void leapfrog(const std::vector<Vec3>& x, std::vector<Vec3>& v, const std::vector<Vec3>& f,
              const std::vector<double>& inv_mass, LambdaOf lambda_of, double dt, std::vector<Vec3>& x_new,
              int threads) {
  const int n = static_cast<int>(x.size());
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static)
  for (int i = 0; i < n; ++i) {
    const double im = inv_mass[i];
    if (im == 0.0) {
      x_new[i] = x[i];
      continue;
    }
    v[i] = v[i] * lambda_of(i) + f[i] * (im * dt);
    x_new[i] = x[i] + v[i] * dt;
  }
}

// fn(i, d) for each frozen dimension d of the n atoms (atom i is global[i], or i where `global` is empty).
template <class Fn>
void for_each_frozen_dimension(const std::vector<uint8_t>& frozen, std::span<const int> global, size_t n,
                               Fn fn) {
  if (frozen.empty()) return;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t bits = frozen[global.empty() ? i : static_cast<size_t>(global[i])];
    for (int d = 0; d < 3; ++d)
      if (bits & (1u << d)) fn(i, d);
  }
}

}  // namespace

void leapfrog_coupled(const std::vector<Vec3>& x, std::vector<Vec3>& v, const std::vector<Vec3>& f,
                      const std::vector<double>& inv_mass, const std::vector<double>& lambda,
                      const std::vector<double>& factor, const std::vector<int>* group, const Vec3& pr_scale,
                      double dt, std::vector<Vec3>& x_new, int threads) {
  const int n = static_cast<int>(x.size());
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static)
  for (int i = 0; i < n; ++i) {
    const double im = inv_mass[i];
    if (im == 0.0) {
      x_new[i] = x[i];
      continue;
    }
    const int g = group ? (*group)[i] : 0;
    const double lg = lambda[g], fnh = factor[g];
    for (int d = 0; d < 3; ++d)
      v[i][d] = (lg * v[i][d] + (f[i][d] * (im * dt) - fnh * v[i][d] - pr_scale[d] * v[i][d])) / (1.0 + fnh);
    x_new[i] = x[i] + v[i] * dt;
  }
}

void leapfrog_update(const std::vector<Vec3>& x, std::vector<Vec3>& v, const std::vector<Vec3>& f,
                     const std::vector<double>& inv_mass, double lambda, double dt, std::vector<Vec3>& x_new,
                     int threads) {
  leapfrog(
      x, v, f, inv_mass, [lambda](int) { return lambda; }, dt, x_new, threads);
}

void leapfrog_update(const std::vector<Vec3>& x, std::vector<Vec3>& v, const std::vector<Vec3>& f,
                     const std::vector<double>& inv_mass, const std::vector<double>& lambdas,
                     const std::vector<int>& group, double dt, std::vector<Vec3>& x_new, int threads) {
  leapfrog(
      x, v, f, inv_mass, [&](int i) { return lambdas[group[i]]; }, dt, x_new, threads);
}

void keep_frozen_dimensions(const std::vector<uint8_t>& frozen, std::span<const int> global,
                            const std::vector<Vec3>& x, std::vector<Vec3>& v, std::vector<Vec3>& x_new) {
  for_each_frozen_dimension(frozen, global, x.size(), [&](size_t i, int d) {
    v[i][d] = 0.0;
    x_new[i][d] = x[i][d];
  });
}

void zero_frozen_velocities(const std::vector<uint8_t>& frozen, std::span<const int> global,
                            std::vector<Vec3>& v) {
  for_each_frozen_dimension(frozen, global, v.size(), [&](size_t i, int d) { v[i][d] = 0.0; });
}

std::vector<int64_t> kinetic_energy_by_group_fixed(const std::vector<Vec3>& v,
                                                   const std::vector<double>& mass,
                                                   const std::vector<int>& group, int groups) {
  std::vector<int64_t> acc(groups, 0);
  for (size_t i = 0; i < v.size(); ++i)
    acc[group[i]] = wrap_add(acc[group[i]], to_fixed(0.5 * mass[i] * norm2(v[i]), kEnergyFixedScale));
  return acc;
}

std::vector<double> kinetic_energy_by_group(const std::vector<Vec3>& v, const std::vector<double>& mass,
                                            const std::vector<int>& group, int groups) {
  const std::vector<int64_t> acc = kinetic_energy_by_group_fixed(v, mass, group, groups);
  std::vector<double> ke(groups);
  for (int g = 0; g < groups; ++g) ke[g] = from_fixed(acc[g], kEnergyFixedScale);
  return ke;
}

Tensor kinetic_energy_tensor(const std::vector<Vec3>& v, const std::vector<double>& mass, int threads) {
  const int n = static_cast<int>(v.size());
  uint64_t acc[9] = {};  // unsigned: the sums wrap (cpu/fixed_point.h), also in OpenMP's reduction
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static) reduction(+ : acc[:9])
  for (int i = 0; i < n; ++i) {
    const double hm = 0.5 * mass[i];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        acc[3 * a + b] += static_cast<uint64_t>(to_fixed(hm * v[i][a] * v[i][b], kEnergyFixedScale));
  }
  Tensor t;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      t.m[a][b] = from_fixed(static_cast<int64_t>(acc[3 * a + b]), kEnergyFixedScale);
  return t;
}

void remove_com_velocity(std::vector<Vec3>& v, const std::vector<double>& mass) {
  Vec3 p{};
  double m = 0.0;
  for (size_t i = 0; i < v.size(); ++i) {
    p += v[i] * mass[i];
    m += mass[i];
  }
  if (m <= 0.0) return;
  const Vec3 vcm = p * (1.0 / m);
  for (size_t i = 0; i < v.size(); ++i)
    if (mass[i] > 0.0) v[i] -= vcm;
}

void remove_com_velocity(std::vector<Vec3>& v, const std::vector<double>& mass, const std::vector<int>& group,
                         int groups) {
  std::vector<Vec3> p(groups);
  std::vector<double> m(groups, 0.0);
  for (size_t i = 0; i < v.size(); ++i) {
    if (group[i] < 0) continue;
    p[group[i]] += v[i] * mass[i];
    m[group[i]] += mass[i];
  }
  for (int g = 0; g < groups; ++g) p[g] = m[g] > 0.0 ? p[g] * (1.0 / m[g]) : Vec3{};
  for (size_t i = 0; i < v.size(); ++i)
    if (group[i] >= 0 && mass[i] > 0.0) v[i] -= p[group[i]];
}

int find_runaway_atom(const std::vector<Vec3>& x, const std::vector<Vec3>& x_new, double max_nm) {
  const double max2 = max_nm * max_nm;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d2 = norm2(x_new[i] - x[i]);
    if (!(d2 < max2)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace halomd
