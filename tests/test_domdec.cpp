// Property tests of the halo plan (src/domdec): home atoms, halo contents and extent, eighth-shell pairs,
// on random boxes, grids and cut-offs with 1, 2 and 3 pulses per dimension.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/errors.h"
#include "domdec/assignment.h"
#include "domdec/halo_plan.h"
#include "domdec/zones.h"
#include "support/test_support.h"

namespace halomd::domdec {
namespace {

using test::random_system;
using test::TestSystem;

Vec3 min_image(Vec3 dx, const Box& box) {
  for (int d = 0; d < 3; ++d) dx[d] -= box.len[d] * std::nearbyint(dx[d] / box.len[d]);
  return dx;
}

// All pairs a < b within rlist, minimum image, by brute force.
std::vector<std::pair<int, int>> brute_force_pairs(const TestSystem& s, double rlist) {
  std::vector<std::pair<int, int>> pairs;
  for (size_t a = 0; a < s.x.size(); ++a) {
    for (size_t b = a + 1; b < s.x.size(); ++b) {
      if (norm2(min_image(s.x[b] - s.x[a], s.box)) < rlist * rlist) pairs.emplace_back(a, b);
    }
  }
  return pairs;
}

using LocalKey = std::tuple<int, int, int, int>;  // global, zone x, y, z
LocalKey key(int global, const IVec3& z) { return {global, z.x, z.y, z.z}; }

// Checks (1)-(4) of the issue for one system, grid and rlist; the plan built goes to *out.
void check_plan(const TestSystem& s, const DdGrid& grid, double rlist, DdPlan* out = nullptr) {
  std::vector<std::vector<Vec3>> xl;
  DdPlan local_plan;
  DdPlan& plan = out ? *out : local_plan;
  plan = build_plan(grid, s.box, s.x, s.molecule, rlist, &xl);
  const std::vector<int> first = first_atoms(s.molecule);
  const int n = static_cast<int>(s.x.size());
  const double eps = 1e-9, margin = plan.range.margin, send_range = plan.range.send_range();
  SCOPED_TRACE("grid " + grid.str() + " box " + std::to_string(s.box.len.x) + " " +
               std::to_string(s.box.len.y) + " " + std::to_string(s.box.len.z) + " rlist " +
               std::to_string(rlist));
  bool has_molecules = false;
  for (int g = 0; g < n; ++g) has_molecules |= first[g] != g;
  EXPECT_NEAR(margin, has_molecules ? 0.1 : 0.0, 1e-6);  // the 3-atom molecules' 0.1 nm

  // (1) every atom is home in exactly one domain, whole molecules, the first atom inside the domain's cell.
  std::vector<int> home_of(n, -1);
  for (const DomainPlan& dp : plan.domains) {
    for (int i = 0; i < dp.num_home; ++i) {
      const int g = dp.global[i];
      ASSERT_EQ(home_of[g], -1) << "atom " << g << " is home twice";
      home_of[g] = dp.domain;
      if (i > 0) {
        EXPECT_LT(dp.global[i - 1], g) << "home atoms not ascending";
      }
    }
  }
  for (int g = 0; g < n; ++g) {
    ASSERT_GE(home_of[g], 0) << "atom " << g << " is home nowhere";
    EXPECT_EQ(home_of[g], home_of[first[g]]) << "molecule of atom " << g << " split";
  }
  for (const DomainPlan& dp : plan.domains) {
    for (int i = 0; i < dp.num_home; ++i) {
      if (first[dp.global[i]] != dp.global[i]) continue;
      for (int d = 0; d < 3; ++d) {
        EXPECT_GE(xl[dp.domain][i][d], dp.lo[d]);
        EXPECT_LE(xl[dp.domain][i][d], dp.hi[d]);
      }
    }
  }

  // (3) halo extent: atoms at zone offset o > 0 lie in [hi + (o - 1) w - margin, hi + rlist + margin) in that
  // dimension; at o == 0 within margin of the cell; each (atom, zone) at most once; zone <= pulses.
  std::vector<std::map<LocalKey, int>> local_of(plan.domains.size());
  for (const DomainPlan& dp : plan.domains) {
    for (int i = 0; i < dp.num_local(); ++i) {
      const Vec3& x = xl[dp.domain][i];
      EXPECT_TRUE(local_of[dp.domain].emplace(key(dp.global[i], dp.zone[i]), i).second) << "duplicate copy";
      for (int d = 0; d < 3; ++d) {
        const int o = dp.zone[i][d];
        const double w = s.box.len[d] / grid.n[d];
        EXPECT_LE(o, plan.pulses[d]);
        EXPECT_NEAR(dp.shift[i][d], dp.image[i][d] * s.box.len[d], 1e-12);
        EXPECT_NEAR(x[d], s.x[dp.global[i]][d] + dp.shift[i][d], 1e-12);
        if (o > 0) {
          EXPECT_LT(x[d] - dp.hi[d], send_range + eps) << "halo atom beyond rlist + margin";
          EXPECT_GE(x[d] - dp.hi[d], (o - 1) * w - margin - eps);
        } else {
          EXPECT_GE(x[d], dp.lo[d] - margin - eps);
          EXPECT_LT(x[d], dp.hi[d] + margin + eps);
        }
      }
    }
  }

  // (2) for every pair within rlist, the domain the eighth-shell rule names holds both atoms at the zones and
  // images that give the minimum-image displacement.
  const auto pairs = brute_force_pairs(s, rlist);
  for (const auto& [a, b] : pairs) {
    const IVec3 ka = wrap_image(s.x[first[a]], s.box), kb = wrap_image(s.x[first[b]], s.box);
    const Vec3 fa = shifted(s.x[first[a]], ka, s.box), fb = shifted(s.x[first[b]], kb, s.box);
    const Vec3 xa = shifted(s.x[a], ka, s.box), xb = shifted(s.x[b], kb, s.box);
    const Vec3 delta = min_image(xb - xa, s.box);
    IVec3 dom, za{0, 0, 0}, zb{0, 0, 0};
    for (int d = 0; d < 3; ++d) {
      const int nd = grid.n[d];
      const int ca = cell_of(fa[d], nd, s.box.len[d]), cb = cell_of(fb[d], nd, s.box.len[d]);
      const int j = static_cast<int>(std::nearbyint((xa[d] + delta[d] - xb[d]) / s.box.len[d]));
      const int o = cb + j * nd - ca;  // owner cell of b's image relative to a's, along the unwrapped line
      dom[d] = o >= 0 ? ca : cb;
      (o >= 0 ? zb : za)[d] = nd == 1 ? 0 : std::abs(o);
    }
    const int D = grid.index(dom);
    const auto ia = local_of[D].find(key(a, za)), ib = local_of[D].find(key(b, zb));
    ASSERT_TRUE(ia != local_of[D].end() && ib != local_of[D].end())
        << "pair " << a << " " << b << " missing from domain " << D;
    const Vec3 local_delta = pair_delta(xl[D][ia->second], xl[D][ib->second], grid, s.box);
    EXPECT_NEAR(norm2(local_delta - delta), 0.0, 1e-18);
  }

  // (4) summed over domains, every pair within rlist is computed exactly once and no other pair is.
  std::map<std::pair<int, int>, int> computed;
  for (const DomainPlan& dp : plan.domains) {
    const std::vector<Vec3>& x = xl[dp.domain];
    for (int i = 0; i < dp.num_local(); ++i) {
      for (int j = i + 1; j < dp.num_local(); ++j) {
        if (zone_pair_computed(dp.zone[i], dp.zone[j]) &&
            norm2(pair_delta(x[i], x[j], grid, s.box)) < rlist * rlist) {
          ++computed[std::minmax(dp.global[i], dp.global[j])];
        }
      }
    }
  }
  EXPECT_EQ(computed.size(), pairs.size());
  for (const auto& p : pairs) EXPECT_EQ(computed[p], 1) << "pair " << p.first << " " << p.second;
}

TEST(DomdecPlan, SingleDomainHasNoPulses) {
  std::mt19937_64 rng(1);
  const TestSystem s = random_system(rng, Box{{3.0, 3.5, 4.0}}, 150);
  DdPlan plan;
  check_plan(s, DdGrid{{1, 1, 1}}, 1.2, &plan);
  EXPECT_EQ(plan.num_pulses(), 0);
  EXPECT_EQ(plan.domains[0].num_local(), static_cast<int>(s.x.size()));
}

TEST(DomdecPlan, OneTwoAndThreePulses) {
  struct Case {
    Vec3 box;
    IVec3 grid;
    double rlist;
    IVec3 pulses;
  };
  const Case cases[] = {
      {{4.0, 4.0, 4.0}, {2, 2, 2}, 1.0, {1, 1, 1}},  // width 2.0 >= rlist + 2 * 0.1
      {{3.0, 3.2, 3.4}, {3, 1, 1}, 0.9, {2, 0, 0}},  // width 1.0 < 1.1
      {{2.8, 3.3, 3.3}, {4, 1, 1}, 1.3, {3, 0, 0}},  // width 0.7: 1.5 / 0.7 -> 3
      {{2.8, 3.0, 4.0}, {4, 3, 2}, 1.3, {3, 2, 1}},  // 3, 2 and 1 pulses in one plan
      {{3.2, 2.8, 4.4}, {2, 4, 3}, 1.3, {1, 3, 2}}, {{4.5, 4.5, 2.8}, {3, 3, 4}, 1.2, {1, 1, 3}},
  };
  std::mt19937_64 rng(2);
  for (const Case& c : cases) {
    const TestSystem s = random_system(rng, Box{c.box}, 300);
    DdPlan plan;
    check_plan(s, DdGrid{c.grid}, c.rlist, &plan);
    EXPECT_EQ(plan.pulses.x, c.pulses.x);
    EXPECT_EQ(plan.pulses.y, c.pulses.y);
    EXPECT_EQ(plan.pulses.z, c.pulses.z);
    for (const DomainPlan& dp : plan.domains)
      EXPECT_EQ(static_cast<int>(dp.pulses.size()), plan.num_pulses());
  }
}

TEST(DomdecPlan, RandomBoxesGridsAndCutoffs) {
  const IVec3 grids[] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 2, 1}, {2, 1, 2}, {2, 2, 2},
                         {3, 1, 1}, {1, 3, 1}, {3, 2, 1}, {4, 1, 1}, {1, 1, 4}, {2, 3, 2}, {4, 2, 1},
                         {3, 3, 1}, {5, 1, 1}, {6, 1, 1}, {2, 2, 3}, {3, 3, 3}, {4, 4, 1}};
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> edge(2.0, 6.0), cutoff(0.6, 1.4);
  std::uniform_int_distribution<int> pick(0, std::size(grids) - 1), count(100, 500);
  int valid = 0, max_pulses = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Box box{{edge(rng), edge(rng), edge(rng)}};
    const DdGrid grid{grids[pick(rng)]};
    const double rlist = cutoff(rng);
    const TestSystem s = random_system(rng, box, count(rng));
    try {
      validate_grid(grid, grid.num_domains(), box, HaloRange{rlist, 0.1 + kMarginSlack});
    } catch (const InputError&) {
      continue;
    }
    DdPlan plan;
    check_plan(s, grid, rlist, &plan);
    ++valid;
    max_pulses = std::max({max_pulses, plan.pulses.x, plan.pulses.y, plan.pulses.z});
    if (HasFailure()) break;
  }
  EXPECT_GE(valid, 150);
  EXPECT_GE(max_pulses, 3);
}

TEST(DomdecPlan, MarginNeedsAnExtraPulse) {
  // Cells of 1.15 nm in x, rlist 1.0, margin 0.1: rlist + margin fits in one cell, but the hydrogen of a
  // molecule owned by cell 0 (first atom just below 1.15) and one of a molecule owned by cell 2 (first atom
  // just above 2.3) are 0.95 nm apart: the pulses must reach rlist + 2 x margin.
  TestSystem s;
  s.box = Box{{4.6, 3.0, 3.0}};
  s.x = {{1.149, 1.0, 1.0}, {1.249, 1.0, 1.0}, {1.149, 1.1, 1.0},
         {2.301, 1.0, 1.0}, {2.201, 1.0, 1.0}, {2.301, 1.1, 1.0}};
  s.molecule = {0, 0, 0, 1, 1, 1};
  DdPlan plan;
  check_plan(s, DdGrid{{4, 1, 1}}, 1.0, &plan);
  EXPECT_EQ(plan.pulses.x, 2);
}

TEST(DomdecPlan, AtomsOnCellBoundariesAndBoxEdges) {
  // Positions exactly on boundaries, at 0, at L and at -L: the owner rule and the halo must hold there too.
  const Box box{{3.0, 3.0, 3.0}};
  TestSystem s;
  s.box = box;
  const double coords[] = {0.0, 1.0, 1.5, 2.0, 3.0, -3.0, 6.0, 0.999999999999, 2.9999999999999996};
  int m = 0;
  for (double a : coords) {
    for (double b : coords) {
      s.x.push_back({a, b, 0.5 * (a + b)});
      s.molecule.push_back(m++);
    }
  }
  for (const IVec3 g : {IVec3{3, 1, 1}, IVec3{2, 2, 1}, IVec3{3, 3, 2}}) check_plan(s, DdGrid{g}, 0.9);
}

TEST(DomdecPlan, WrongInputIsRefused) {
  std::mt19937_64 rng(4);
  const TestSystem s = random_system(rng, Box{{3.0, 3.0, 3.0}}, 20);
  ASSERT_GT(molecule_margin(s.x, first_atoms(s.molecule)), 0.09);
  EXPECT_THROW(build_plan(DdGrid{{2, 1, 1}}, s.box, s.x, s.molecule, 1.6), InputError);  // rlist >= L/2
  // Cells of 1.5 nm, rlist 1.45 + 2 x 0.1 margin: 2 pulses, but 2 domains in x.
  try {
    build_plan(DdGrid{{2, 1, 1}}, s.box, s.x, s.molecule, 1.45);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("needs 2 pulses in x"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(build_plan(DdGrid{{4, 1, 1}}, s.box, s.x, s.molecule, 1.45));  // 3 pulses in 4 cells
  std::vector<int> short_list(s.molecule.begin(), s.molecule.end() - 1);
  EXPECT_THROW(build_plan(DdGrid{{2, 1, 1}}, s.box, s.x, short_list, 1.0), RuntimeError);
}

}  // namespace
}  // namespace halomd::domdec
