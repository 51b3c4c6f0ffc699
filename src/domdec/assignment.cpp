// Assignment of whole molecules to domains by their first atom (rule in assignment.h).
#include "domdec/assignment.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"

namespace halomd::domdec {

std::vector<int> first_atoms(std::span<const int> molecule_of_atom) {
  const int n = static_cast<int>(molecule_of_atom.size());
  int num_mol = 0;
  for (int i = 0; i < n; ++i) {
    if (molecule_of_atom[i] < 0) throw RuntimeError(-1, i, "negative molecule index");
    num_mol = std::max(num_mol, molecule_of_atom[i] + 1);
  }
  std::vector<int> first_of_mol(num_mol, -1);
  for (int i = 0; i < n; ++i) {
    int& f = first_of_mol[molecule_of_atom[i]];
    if (f < 0) f = i;
  }
  std::vector<int> first(n);
  for (int i = 0; i < n; ++i) first[i] = first_of_mol[molecule_of_atom[i]];
  return first;
}

std::vector<int> update_group_first_atoms(int num_atoms, std::span<const Settle> settles,
                                          std::span<const Constraint> constraints,
                                          std::span<const VirtualSite> vsites) {
  // Union-find whose root is the lowest index of its set.
  std::vector<int> root(num_atoms);
  for (int i = 0; i < num_atoms; ++i) root[i] = i;
  const auto find = [&](int i) {
    while (root[i] != i) i = root[i] = root[root[i]];
    return i;
  };
  const auto join = [&](int a, int b) {
    if (a < 0 || b < 0 || a >= num_atoms || b >= num_atoms)
      throw RuntimeError(-1, a < 0 || a >= num_atoms ? a : b, "a constraint names an atom beyond the system");
    a = find(a);
    b = find(b);
    if (a != b) root[std::max(a, b)] = std::min(a, b);
  };
  for (const Settle& w : settles) {
    join(w.o, w.h1);
    join(w.o, w.h2);
  }
  for (const Constraint& c : constraints) join(c.a, c.b);
  for (const VirtualSite& v : vsites)
    for (int k = 0; k < vsite_atom_count(v); ++k) join(v.site, v.atoms[k]);
  std::vector<int> first(num_atoms);
  for (int i = 0; i < num_atoms; ++i) first[i] = find(i);
  return first;
}

double molecule_margin(std::span<const Vec3> x, std::span<const int> first_atom) {
  double m2 = 0.0;
  for (size_t i = 0; i < x.size(); ++i) m2 = std::max(m2, norm2(x[i] - x[first_atom[i]]));
  return std::sqrt(m2);
}

namespace {

int wrap_image_1d(double x, double len) {
  int k = -static_cast<int>(std::floor(x / len));
  if (shifted(x, k, len) < 0.0) ++k;
  if (shifted(x, k, len) >= len && shifted(x, k - 1, len) >= 0.0) --k;
  return k;
}

}  // namespace

IVec3 wrap_image(const Vec3& x, const Box& box) {
  for (int d = 0; d < 3; ++d) {
    if (!std::isfinite(x[d])) throw RuntimeError(-1, -1, "a position is not finite (nan or inf)");
  }
  return {wrap_image_1d(x.x, box.len.x), wrap_image_1d(x.y, box.len.y), wrap_image_1d(x.z, box.len.z)};
}

int cell_of(double w, int n, double len) {
  int c = std::clamp(static_cast<int>(std::floor(w * n / len)), 0, n - 1);
  // Agree exactly with cell_bound, whatever the rounding of w * n / len.
  while (c > 0 && w < cell_bound(c, n, len)) --c;
  while (c < n - 1 && w >= cell_bound(c + 1, n, len)) ++c;
  return c;
}

Owner owner_of(const DdGrid& grid, const Box& box, const Vec3& x_first) {
  Owner o;
  o.image = wrap_image(x_first, box);
  const Vec3 w = shifted(x_first, o.image, box);
  IVec3 c;
  for (int d = 0; d < 3; ++d) c[d] = cell_of(w[d], grid.n[d], box.len[d]);
  o.domain = grid.index(c);
  return o;
}

HomeAssignment assign_home(const DdGrid& grid, const Box& box, std::span<const Vec3> x,
                           std::span<const int> first_atom) {
  const int n = static_cast<int>(x.size());
  HomeAssignment a;
  a.domain.resize(n);
  a.image.resize(n);
  a.home.assign(grid.num_domains(), {});
  for (int i = 0; i < n; ++i) {
    const int f = first_atom[i];
    if (f == i) {
      const Owner o = owner_of(grid, box, x[i]);
      a.domain[i] = o.domain;
      a.image[i] = o.image;
    } else {  // f < i: the first atom is the lowest index of its molecule
      a.domain[i] = a.domain[f];
      a.image[i] = a.image[f];
    }
    a.home[a.domain[i]].push_back(i);
  }
  return a;
}

}  // namespace halomd::domdec
