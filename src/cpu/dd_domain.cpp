// One domain's atoms: home set, migration, images and local topology (dd_domain.h).
#include "cpu/dd_domain.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "domdec/assignment.h"
#include "domdec/migration.h"

namespace halomd {
namespace {

// Position in `home` (ascending) of the first atom of home[i]'s molecule: it is the lowest index of its
// molecule, so it comes before i.
int first_position(std::span<const int> home, size_t i, std::span<const int> first_atom) {
  const int first = first_atom[home[i]];
  const auto end = home.begin() + static_cast<std::ptrdiff_t>(i) + 1;
  const auto it = std::lower_bound(home.begin(), end, first);
  if (it == end || *it != first)
    throw RuntimeError(-1, home[i], "a domain holds the atom but not its molecule's first atom");
  return static_cast<int>(it - home.begin());
}

}  // namespace

void set_home(DdDomain& dom, const Topology& top, std::vector<comm::AtomState> atoms) {
  std::sort(atoms.begin(), atoms.end(),
            [](const comm::AtomState& a, const comm::AtomState& b) { return a.global < b.global; });
  const size_t n = atoms.size();
  dom.home.resize(n);
  dom.x.resize(n);
  dom.v.resize(n);
  dom.x_new.resize(n);
  dom.f.resize(n);
  dom.mass.resize(n);
  dom.inv_mass.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const int g = atoms[i].global;
    dom.home[i] = g;
    dom.x[i] = atoms[i].x;
    dom.v[i] = atoms[i].v;
    dom.mass[i] = top.mass[g];
    dom.inv_mass[i] = top.mass[g] > 0 ? 1.0 / top.mass[g] : 0.0;
  }
}

std::vector<comm::AtomState> take_departures(DdDomain& dom, const domdec::DdGrid& grid, const Box& box,
                                             std::span<const int> first_atom) {
  const std::vector<domdec::Departure> leaving =
      domdec::departures(grid, box, dom.index, dom.home, dom.x, first_atom);
  std::vector<comm::AtomState> out;
  out.reserve(leaving.size());
  if (leaving.empty()) return out;
  std::vector<char> gone(dom.home.size(), 0);
  for (const domdec::Departure& d : leaving) {
    out.push_back({d.atom, d.to, dom.x[d.index], dom.v[d.index]});
    gone[d.index] = 1;
  }
  size_t k = 0;
  for (size_t i = 0; i < dom.home.size(); ++i) {
    if (gone[i]) continue;
    dom.home[k] = dom.home[i];
    dom.x[k] = dom.x[i];
    dom.v[k] = dom.v[i];
    dom.mass[k] = dom.mass[i];
    dom.inv_mass[k] = dom.inv_mass[i];
    ++k;
  }
  for (auto* a : {&dom.x, &dom.v}) a->resize(k);
  dom.home.resize(k);
  dom.mass.resize(k);
  dom.inv_mass.resize(k);
  return out;
}

double home_margin(const DdDomain& dom, std::span<const int> first_atom) {
  double m2 = 0.0;
  for (size_t i = 0; i < dom.home.size(); ++i) {
    const int f = first_position(dom.home, i, first_atom);
    m2 = std::max(m2, norm2(dom.x[i] - dom.x[f]));
  }
  return std::sqrt(m2);
}

std::vector<Vec3> place_home_atoms(DdDomain& dom, const Box& box, std::span<const int> first_atom) {
  const size_t n = dom.home.size();
  dom.image.resize(n);
  std::vector<Vec3> frame(n);
  for (size_t i = 0; i < n; ++i) {
    const int f = first_position(dom.home, i, first_atom);
    dom.image[i] = static_cast<size_t>(f) == i ? domdec::wrap_image(dom.x[i], box) : dom.image[f];
    frame[i] = domdec::shifted(dom.x[i], dom.image[i], box);
  }
  return frame;
}

void build_local_topology(DdDomain& dom, const Topology& top) {
  const domdec::DomainPlan& plan = dom.plan;
  const int nl = plan.num_local();
  dom.charge.resize(nl);
  dom.type.resize(nl);
  for (int i = 0; i < nl; ++i) {
    dom.charge[i] = top.charge[plan.global[i]];
    dom.type[i] = top.type[plan.global[i]];
  }
  // Excluded pairs lie inside a molecule, so both atoms are home in the owner's domain: that domain counts
  // their reaction-field correction, once.
  dom.excl_start.assign(nl + 1, 0);
  dom.excl.clear();
  if (!top.excl_start.empty()) {
    const std::span<const int> home(plan.global.data(), plan.num_home);
    for (int i = 0; i < plan.num_home; ++i) {
      const int g = plan.global[i];
      for (int k = top.excl_start[g]; k < top.excl_start[g + 1]; ++k) {
        const auto it = std::lower_bound(home.begin(), home.end(), top.excl[k]);
        if (it == home.end() || *it != top.excl[k])
          throw RuntimeError(-1, g, "an excluded partner is not in the same domain (molecule split?)");
        dom.excl.push_back(static_cast<int>(it - home.begin()));
      }
      dom.excl_start[i + 1] = static_cast<int>(dom.excl.size());
    }
    for (int i = plan.num_home; i < nl; ++i) dom.excl_start[i + 1] = dom.excl_start[i];
  } else {
    dom.excl_start.clear();
  }
  // SettleCpu reads settles and masses: give it the home waters in home-array indices.
  Topology waters;
  waters.mass = dom.mass;
  for (const Settle& s : top.settles) {
    if (!std::binary_search(dom.home.begin(), dom.home.end(), s.o)) continue;
    Settle w = s;
    for (int* a : {&w.o, &w.h1, &w.h2}) {
      const auto it = std::lower_bound(dom.home.begin(), dom.home.end(), *a);
      if (it == dom.home.end() || *it != *a)
        throw RuntimeError(-1, *a, "a water is split between domains (SETTLE needs it whole)");
      *a = static_cast<int>(it - dom.home.begin());
    }
    waters.settles.push_back(w);
  }
  dom.settle.emplace(waters);
  dom.f_local.resize(nl);
}

NonbondedAtoms local_atoms(const DdDomain& dom, const Box& box, const Vec3& inv_len) {
  NonbondedAtoms a;
  a.x = dom.x_local;
  a.charge = dom.charge;
  a.type = dom.type;
  a.excl_start = dom.excl_start;
  a.excl = dom.excl;
  a.global = dom.plan.global;
  a.len = box.len;
  a.inv_len = inv_len;
  return a;
}

}  // namespace halomd
