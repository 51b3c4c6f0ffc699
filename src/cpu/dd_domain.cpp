// One domain's atoms: home set, migration, images and local topology (dd_domain.h).
#include "cpu/dd_domain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/errors.h"
#include "core/parallel.h"
#include "cpu/listed_term.h"
#include "domdec/assignment.h"
#include "domdec/migration.h"
#include "domdec/zones.h"

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

// Calls f(i, position of the first atom of home[i]'s molecule) for every home atom, in order: molecules are
// contiguous in the global numbering and whole in a domain, so that first atom is the last one seen whose
// molecule starts with it.
template <class F>
void for_each_with_first(std::span<const int> home, std::span<const int> first_atom, F&& f) {
  int at = -1;
  for (size_t i = 0; i < home.size(); ++i) {
    const int first = first_atom[home[i]];
    if (first == home[i]) {
      at = static_cast<int>(i);
    } else if (at < 0 || home[at] != first) {
      at = first_position(home, i, first_atom);  // throws: the molecule is not whole here
    }
    f(i, static_cast<size_t>(at));
  }
}

// Moves home atom `from`'s state to place `to` (and its image, when dom.image is kept in step).
void move_home_atom(DdDomain& dom, size_t from, size_t to, bool images) {
  dom.home[to] = dom.home[from];
  dom.x[to] = dom.x[from];
  dom.v[to] = dom.v[from];
  dom.mass[to] = dom.mass[from];
  dom.inv_mass[to] = dom.inv_mass[from];
  if (images) dom.image[to] = dom.image[from];
}

}  // namespace

void set_home(DdDomain& dom, const Topology& top, std::vector<comm::AtomState> atoms) {
  // Usually the kept home atoms (ascending) followed by a few arrivals: sort the tail and merge.
  auto by_global = [](const comm::AtomState& a, const comm::AtomState& b) { return a.global < b.global; };
  const auto tail = std::is_sorted_until(atoms.begin(), atoms.end(), by_global);
  if (tail != atoms.end()) {
    std::sort(tail, atoms.end(), by_global);
    std::inplace_merge(atoms.begin(), tail, atoms.end(), by_global);
  }
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
    dom.inv_mass[i] = top.update_inv_mass(g);
  }
}

void add_arrivals(DdDomain& dom, const Topology& top, std::vector<comm::AtomState> arriving) {
  const size_t kept = dom.home.size(), n = kept + arriving.size();
  dom.x_new.resize(n);  // scratch of the CPU update, sized as set_home does
  dom.f.resize(n);
  if (arriving.empty()) return;
  const bool images = dom.image.size() == kept;  // hints for place_home_atoms, kept in step
  if (images) dom.image.resize(n);
  std::sort(arriving.begin(), arriving.end(),
            [](const comm::AtomState& a, const comm::AtomState& b) { return a.global < b.global; });
  dom.home.resize(n);
  dom.x.resize(n);
  dom.v.resize(n);
  dom.mass.resize(n);
  dom.inv_mass.resize(n);
  // From the back: each kept atom moves up by the arrivals above it, each arrival takes its place.
  size_t i = kept, to = n;
  for (size_t a = arriving.size(); a-- > 0;) {
    const comm::AtomState& s = arriving[a];
    while (i > 0 && dom.home[i - 1] > s.global) move_home_atom(dom, --i, --to, images);
    --to;
    if (images) dom.image[to] = domdec::IVec3{0, 0, 0};  // no hint for an arrival (any value is safe)
    dom.home[to] = s.global;
    dom.x[to] = s.x;
    dom.v[to] = s.v;
    dom.mass[to] = top.mass[s.global];
    dom.inv_mass[to] = top.update_inv_mass(s.global);
  }
}

std::vector<comm::AtomState> take_departures(DdDomain& dom, const domdec::DdGrid& grid, const Box& box,
                                             std::span<const int> first_atom) {
  const std::vector<domdec::Departure> leaving =
      domdec::departures(grid, box, dom.index, dom.home, dom.x, first_atom, dom.image);
  std::vector<comm::AtomState> out;
  out.reserve(leaving.size());
  if (leaving.empty()) return out;
  std::vector<char> gone(dom.home.size(), 0);
  for (const domdec::Departure& d : leaving) {
    out.push_back({d.atom, d.to, dom.x[d.index], dom.v[d.index]});
    gone[d.index] = 1;
  }
  const bool images = dom.image.size() == dom.home.size();  // hints for place_home_atoms, kept in step
  size_t k = 0;
  for (size_t i = 0; i < dom.home.size(); ++i) {
    if (!gone[i]) move_home_atom(dom, i, k++, images);
  }
  for (auto* a : {&dom.x, &dom.v}) a->resize(k);
  dom.image.resize(images ? k : 0);
  dom.home.resize(k);
  dom.mass.resize(k);
  dom.inv_mass.resize(k);
  return out;
}

double home_margin(const DdDomain& dom, std::span<const int> first_atom) {
  double m2 = 0.0;
  for_each_with_first(dom.home, first_atom,
                      [&](size_t i, size_t f) { m2 = std::max(m2, norm2(dom.x[i] - dom.x[f])); });
  return std::sqrt(m2);
}

std::vector<Vec3> place_home_atoms(DdDomain& dom, const Box& box, std::span<const int> first_atom) {
  const size_t n = dom.home.size();
  // dom.image holds the last partition's images (or anything): where one puts a molecule's first atom
  // inside the box, away from its faces, it is the one wrap_image gives (any other image lies a box length
  // away), and the floor and division are spared.
  constexpr double kRim = 1e-6;  // nm, far above rounding
  const auto inside = [&](const Vec3& w) {
    return w.x > kRim && w.x < box.len.x - kRim && w.y > kRim && w.y < box.len.y - kRim && w.z > kRim &&
           w.z < box.len.z - kRim;
  };
  dom.image.resize(n);
  std::vector<Vec3> frame(n);
  for_each_with_first(dom.home, first_atom, [&](size_t i, size_t f) {
    if (f == i) {
      const domdec::IVec3 hint = dom.image[i];
      const Vec3 w = domdec::shifted(dom.x[i], hint, box);
      if (inside(w)) {
        frame[i] = w;
        return;
      }
      dom.image[i] = domdec::wrap_image(dom.x[i], box);
    } else {
      dom.image[i] = dom.image[f];
    }
    frame[i] = domdec::shifted(dom.x[i], dom.image[i], box);
  });
  return frame;
}

namespace {

// Fills `map` (per global atom, -1 elsewhere) with each of `atoms`' position in it; cleared by the guard.
class AtomIndex {
 public:
  AtomIndex(std::vector<int>& map, std::span<const int> atoms, int num_atoms, int threads = 1)
      : map_(map), atoms_(atoms) {
    if (map.size() != static_cast<size_t>(num_atoms)) map.assign(num_atoms, -1);
    parallel_for(static_cast<int64_t>(atoms.size()), threads,
                 [&](int64_t i) { map_[atoms_[i]] = static_cast<int>(i); });
  }
  ~AtomIndex() {
    for (int g : atoms_) map_[g] = -1;
  }
  AtomIndex(const AtomIndex&) = delete;
  AtomIndex& operator=(const AtomIndex&) = delete;
  int operator[](int global) const { return map_[global]; }

 private:
  std::vector<int>& map_;
  std::span<const int> atoms_;
};

// Per global atom its index in dom.home (home_of).
class HomeIndex : public AtomIndex {
 public:
  HomeIndex(DdDomain& dom, const Topology& top, int threads = 1)
      : AtomIndex(dom.home_of, dom.home, top.num_atoms(), threads) {}
};

// CSR of items 0..count-1 by the atom key(k) names.
template <class Key>
void index_by_atom(int num_atoms, size_t count, Key key, std::vector<int>& start, std::vector<int>& item) {
  start.assign(num_atoms + 1, 0);
  for (size_t k = 0; k < count; ++k) ++start[key(k) + 1];
  for (int i = 0; i < num_atoms; ++i) start[i + 1] += start[i];
  item.resize(count);
  std::vector<int> at(start.begin(), start.end() - 1);
  for (size_t k = 0; k < count; ++k) item[at[key(k)]++] = static_cast<int>(k);
}

// build_local_interactions' part with update groups (LocalTopologyIndex's rule).
void build_group_interactions(DdDomain& dom, const Topology& top, const LocalTopologyIndex& ix) {
  const domdec::DomainPlan& plan = dom.plan;
  const int nl = plan.num_local(), nh = plan.num_home;
  const AtomIndex local_of(dom.local_of, plan.global, top.num_atoms());
  // Local atoms l and m as the images that interact (not a far image of one of them).
  const auto near = [&](int l, int m) {
    for (int d = 0; d < 3; ++d)
      if (std::fabs(dom.x_local[l][d] - dom.x_local[m][d]) >= ix.far[d]) return false;
    return true;
  };
  // Whether this domain computes an interaction of these (global) atoms.
  const auto computed_here = [&](const int* atoms, int n) {
    domdec::IVec3 low{1 << 30, 1 << 30, 1 << 30};
    for (int k = 0; k < n; ++k) {
      const int l = local_of[atoms[k]];
      if (l < 0) return false;
      for (int d = 0; d < 3; ++d) low[d] = std::min(low[d], plan.zone[l][d]);
    }
    if (low.x != 0 || low.y != 0 || low.z != 0) return false;
    for (int k = 1; k < n; ++k)
      if (!near(local_of[atoms[0]], local_of[atoms[k]])) return false;
    return true;
  };

  dom.excl_start.assign(nl + 1, 0);
  dom.excl.clear();
  if (!top.excl_start.empty()) {
    for (int i = 0; i < nl; ++i) {
      // A halo atom's excluded pairs all lie in its own group (computed by its owner) unless some cross.
      if (i < nh || ix.cross_group_exclusions) {
        const int g = plan.global[i];
        for (int k = top.excl_start[g]; k < top.excl_start[g + 1]; ++k) {
          const int j = local_of[top.excl[k]];
          if (j >= 0 && domdec::zone_pair_computed(plan.zone[i], plan.zone[j]) && near(i, j))
            dom.excl.push_back(j);
        }
      }
      dom.excl_start[i + 1] = static_cast<int>(dom.excl.size());
    }
  }

  dom.listed.clear();
  dom.listed_index.clear();
  for (int i = 0; i < nl; ++i) {
    const int g = plan.global[i];
    for (int k = ix.term_start[g]; k < ix.term_start[g + 1]; ++k) {
      BondedTerm t = top.bonded[ix.term[k]];
      const int n = listed_atom_count(t.kind);
      if (!computed_here(t.atoms, n)) continue;
      for (int a = 0; a < n; ++a) t.atoms[a] = local_of[t.atoms[a]];
      dom.listed.push_back(t);
      dom.listed_index.push_back(ix.term[k]);
    }
  }

  // The home groups' constraints in topology order (LINCS's order), on home-array indices (the plan's home
  // atoms are dom.home, in the same order).
  std::vector<int> mine;
  for (int i = 0; i < nh; ++i) {
    const int g = plan.global[i];
    for (int k = ix.constraint_start[g]; k < ix.constraint_start[g + 1]; ++k)
      mine.push_back(ix.constraint[k]);
  }
  std::sort(mine.begin(), mine.end());
  dom.constraints.clear();
  for (int c : mine) {
    Constraint con = top.constraints[c];
    const int b = local_of[con.b];
    if (b < 0 || b >= nh)
      throw RuntimeError(-1, con.b, "a constraint's atoms are in two domains (its update group is split)");
    con.a = local_of[con.a];
    con.b = b;
    dom.constraints.push_back(con);
  }

  // The home groups' virtual sites in topology order (their construction order), on home-array indices.
  std::vector<int> sites;
  for (int i = 0; i < nh; ++i)
    if (ix.vsite_of[plan.global[i]] >= 0) sites.push_back(ix.vsite_of[plan.global[i]]);
  std::sort(sites.begin(), sites.end());
  dom.vsites.clear();
  for (int s : sites) {
    VirtualSite v = top.vsites[s];
    v.site = local_of[v.site];
    for (int k = 0; k < vsite_atom_count(v); ++k) {
      int& a = v.atoms[k];
      const int l = local_of[a];
      if (l < 0 || l >= nh)
        throw RuntimeError(-1, a,
                           "a virtual site's constructing atom is in another domain (its group is split)");
      a = l;
    }
    dom.vsites.push_back(v);
  }
}

}  // namespace

Vec3 far_image_distance(const domdec::DdGrid& grid, const Box& box) {
  Vec3 far{1e300, 1e300, 1e300};
  for (int d = 0; d < 3; ++d)
    if (grid.n[d] > 1) far[d] = 0.5 * box.len[d];
  return far;
}

LocalTopologyIndex make_local_topology_index(const Topology& top, std::span<const int> first_atom) {
  LocalTopologyIndex ix;
  const int n = top.num_atoms();
  index_by_atom(
      n, top.bonded.size(), [&](size_t k) { return top.bonded[k].atoms[0]; }, ix.term_start, ix.term);
  index_by_atom(
      n, top.constraints.size(), [&](size_t k) { return top.constraints[k].a; }, ix.constraint_start,
      ix.constraint);
  ix.vsite_of.assign(n, -1);
  for (size_t k = 0; k < top.vsites.size(); ++k) ix.vsite_of[top.vsites[k].site] = static_cast<int>(k);
  if (!top.excl_start.empty())
    for (int i = 0; i < n && !ix.cross_group_exclusions; ++i)
      for (int k = top.excl_start[i]; k < top.excl_start[i + 1]; ++k)
        if (first_atom[top.excl[k]] != first_atom[i]) ix.cross_group_exclusions = true;
  return ix;
}

int64_t local_excluded_pairs(const DdDomain& dom) {
  int64_t n = 0;
  for (size_t i = 0; i + 1 < dom.excl_start.size(); ++i)
    for (int k = dom.excl_start[i]; k < dom.excl_start[i + 1]; ++k)
      n += dom.excl[k] > static_cast<int>(i) ? 1 : 0;
  return n;
}

void check_local_topology(std::span<const DdDomain* const> mine, const Topology& top, comm::HaloTransport& h,
                          int64_t step, double rlist, double margin) {
  int64_t computed[2] = {0, 0};  // listed interactions, excluded pairs
  for (const DdDomain* d : mine) {
    computed[0] += static_cast<int64_t>(d->listed.size());
    computed[1] += local_excluded_pairs(*d);
  }
  h.sum(computed);
  const int64_t want[2] = {static_cast<int64_t>(top.bonded.size()),
                           top.excl_start.empty() ? 0 : static_cast<int64_t>(top.excl.size()) / 2};
  if (computed[0] == want[0] && computed[1] == want[1]) return;
  const int c = computed[0] != want[0] ? 0 : 1;  // the same on every process: so is the branch below
  std::string which;
  if (c == 0) {  // name the first interaction no domain (or two) computes: each counted once over processes
    std::vector<int64_t> count(top.bonded.size(), 0);
    for (const DdDomain* d : mine)
      for (int t : d->listed_index) ++count[t];
    h.sum(count);
    for (size_t t = 0; t < count.size() && which.empty(); ++t)
      if (count[t] != 1) {
        const BondedTerm& term = top.bonded[t];
        which = fmt::format(" (interaction {} of the topology, on atoms", t + 1);
        for (int k = 0; k < listed_atom_count(term.kind); ++k)
          which += " " + std::to_string(term.atoms[k] + 1);
        which += count[t] == 0 ? ", is computed by no domain)" : ", by two)";
      }
  }
  throw RuntimeError(step, -1,
                     fmt::format("the domains compute {} of the {} {}{}: some lie further apart than the "
                                 "halo reaches (rlist {} nm plus the update groups' margin {:.3f} nm); a "
                                 "system that is breaking up, or a grid too fine for its interactions",
                                 computed[c], want[c], c == 0 ? "listed interactions" : "excluded pairs",
                                 which, rlist, margin));
}

void build_local_interactions(DdDomain& dom, const Topology& top, int threads,
                              const LocalTopologyIndex* index) {
  const domdec::DomainPlan& plan = dom.plan;
  const int nl = plan.num_local();
  dom.charge.resize(nl);
  dom.type.resize(nl);
  parallel_for(nl, threads, [&](int64_t i) {
    dom.charge[i] = top.charge[plan.global[i]];
    dom.type[i] = top.type[plan.global[i]];
  });
  if (index) {
    build_group_interactions(dom, top, *index);
    return;
  }
  // Excluded pairs lie inside a molecule, so both atoms are home in the owner's domain: that domain counts
  // their reaction-field correction, once. The plan's home atoms are dom.home, in the same order.
  if (top.excl_start.empty()) {
    dom.excl_start.clear();
    dom.excl.clear();
    return;
  }
  const HomeIndex home_of(dom, top, threads);
  const int nh = plan.num_home;
  dom.excl_start.assign(nl + 1, 0);
  for (int i = 0; i < nh; ++i) {
    const int g = plan.global[i];
    dom.excl_start[i + 1] = dom.excl_start[i] + top.excl_start[g + 1] - top.excl_start[g];
  }
  for (int i = nh; i < nl; ++i) dom.excl_start[i + 1] = dom.excl_start[i];
  dom.excl.resize(dom.excl_start[nh]);
  // Per chunk the first home atom (in order) with a partner elsewhere, or -1: the serial loop's error.
  const int chunks = chunk_count(nh, threads);
  std::vector<int> split(chunks, -1);
  for_chunks(nh, chunks, [&](int64_t b, int64_t e, int c) {
    for (int64_t i = b; i < e && split[c] < 0; ++i) {
      const int g = plan.global[i];
      int at = dom.excl_start[i];
      for (int k = top.excl_start[g]; k < top.excl_start[g + 1]; ++k) {
        const int j = home_of[top.excl[k]];
        if (j < 0) {
          split[c] = g;
          break;
        }
        dom.excl[at++] = j;
      }
    }
  });
  for (int g : split)
    if (g >= 0) throw RuntimeError(-1, g, "an excluded partner is not in the same domain (molecule split?)");
}

std::vector<Settle> home_waters(DdDomain& dom, const Topology& top) {
  std::vector<Settle> out;
  if (top.settles.empty()) return out;
  if (dom.settle_of_oxygen.size() != static_cast<size_t>(top.num_atoms())) {
    dom.settle_of_oxygen.assign(top.num_atoms(), -1);
    for (size_t s = 0; s < top.settles.size(); ++s)
      dom.settle_of_oxygen[top.settles[s].o] = static_cast<int>(s);
  }
  const HomeIndex home_of(dom, top);
  for (int g : dom.home) {
    const int s = dom.settle_of_oxygen[g];
    if (s < 0) continue;
    Settle w = top.settles[s];
    for (int* a : {&w.o, &w.h1, &w.h2}) {
      const int i = home_of[*a];
      if (i < 0) throw RuntimeError(-1, *a, "a water is split between domains (SETTLE needs it whole)");
      *a = i;
    }
    out.push_back(w);
  }
  return out;
}

void build_local_topology(DdDomain& dom, const Topology& top, int threads, const LocalTopologyIndex* index) {
  build_local_interactions(dom, top, threads, index);
  // SettleCpu reads settles and masses: give it the home waters in home-array indices.
  Topology waters;
  waters.mass = dom.mass;
  waters.settles = home_waters(dom, top);
  dom.settle.emplace(waters);
  dom.f_local.resize(dom.plan.num_local());
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
