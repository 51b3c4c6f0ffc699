// Migration (src/domdec/migration.h): after random moves every atom is home exactly once, counts are
// conserved, per-atom state travels with its atom, and the new homes are those build_plan assigns.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "domdec/assignment.h"
#include "domdec/halo_plan.h"
#include "domdec/migration.h"
#include "support/test_support.h"

namespace halomd::domdec {
namespace {

using test::random_system;
using test::TestSystem;

struct State {  // what a rank keeps per home atom besides x
  Vec3 v;
  int tag = 0;
};

std::vector<std::vector<int>> homes_of(const DdPlan& plan) {
  std::vector<std::vector<int>> home;
  for (const DomainPlan& dp : plan.domains)
    home.emplace_back(dp.global.begin(), dp.global.begin() + dp.num_home);
  return home;
}

TEST(DomdecMigration, AtomsMoveWithTheirStateAndEndHomeOnce) {
  const IVec3 grids[] = {{2, 1, 1}, {2, 2, 2}, {3, 2, 1}, {4, 1, 1}, {3, 3, 2}, {1, 1, 5}};
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> step(-0.6, 0.6);
  for (const IVec3& gn : grids) {
    const DdGrid grid{gn};
    TestSystem s = random_system(rng, Box{{4.0, 4.5, 5.0}}, 500);
    const std::vector<int> first = first_atoms(s.molecule);
    const DdPlan before = build_plan(grid, s.box, s.x, s.molecule, 1.0);
    std::vector<std::vector<int>> home = homes_of(before);
    std::vector<std::vector<State>> state(home.size());
    for (size_t dom = 0; dom < home.size(); ++dom) {
      for (int g : home[dom]) state[dom].push_back({Vec3{g * 1.0, -g * 2.0, g * 0.5}, g});
    }
    for (int round = 0; round < 3; ++round) {
      // Move whole molecules (rigid translation), some by a box length, as an MD window would.
      std::vector<Vec3> move(s.x.size());
      for (size_t i = 0; i < s.x.size(); ++i) {
        if (first[i] == static_cast<int>(i))
          move[i] = {step(rng), step(rng), step(rng) + (i % 7 == 0 ? 5.0 : 0.0)};
        s.x[i] += move[first[i]];
      }
      const auto leaving = plan_migration(grid, s.box, home, s.x, first);
      size_t num_leaving = 0;
      for (size_t dom = 0; dom < leaving.size(); ++dom) {
        for (const Departure& d : leaving[dom]) {
          ++num_leaving;
          EXPECT_NE(d.to, static_cast<int>(dom));
          EXPECT_EQ(home[dom][d.index], d.atom);
          EXPECT_EQ(d.to, owner_of(grid, s.box, s.x[first[d.atom]]).domain);
        }
      }
      EXPECT_GT(num_leaving, 0u) << "no migration happened in grid " << grid.str();
      std::vector<std::vector<int>> new_home;
      state = carry_state(home, leaving, state, new_home);
      home = new_home;

      std::vector<int> seen(s.x.size(), 0);
      size_t total = 0;
      for (size_t dom = 0; dom < home.size(); ++dom) {
        ASSERT_EQ(home[dom].size(), state[dom].size());
        total += home[dom].size();
        for (size_t i = 0; i < home[dom].size(); ++i) {
          const int g = home[dom][i];
          ++seen[g];
          EXPECT_EQ(state[dom][i].tag, g);
          EXPECT_EQ(state[dom][i].v.y, -g * 2.0);
        }
      }
      EXPECT_EQ(total, s.x.size());
      for (int c : seen) ASSERT_EQ(c, 1);
      // The same homes as a plan built from scratch at the new positions.
      EXPECT_EQ(home, homes_of(build_plan(grid, s.box, s.x, s.molecule, 1.0)));
    }
  }
}

// x with each molecule moved by a random vector of components in [-step, step] (whole molecules).
std::vector<Vec3> moved_rigidly(const std::vector<Vec3>& x, const std::vector<int>& first, double step,
                                std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(-step, step);
  std::vector<Vec3> moved = x;
  for (size_t i = 0; i < moved.size(); ++i) {
    if (first[i] == static_cast<int>(i))
      moved[i] += Vec3{d(rng), d(rng), d(rng)};
    else
      moved[i] += moved[first[i]] - x[first[i]];
  }
  return moved;
}

TEST(DomdecMigration, DeparturesDoNotDependOnTheImageOfAMolecule) {
  std::mt19937_64 rng(22);
  const DdGrid grid{{3, 2, 2}};
  TestSystem s = random_system(rng, Box{{4.0, 4.0, 4.0}}, 300);
  const std::vector<int> first = first_atoms(s.molecule);
  const DdPlan plan = build_plan(grid, s.box, s.x, s.molecule, 1.0);
  const std::vector<Vec3> moved = moved_rigidly(s.x, first, 0.7, rng);
  for (const DomainPlan& dp : plan.domains) {
    std::vector<int> home(dp.global.begin(), dp.global.begin() + dp.num_home);
    std::vector<Vec3> x_global, x_local;  // the rank's frame: shifted by the molecule's image
    for (int i = 0; i < dp.num_home; ++i) {
      x_global.push_back(moved[home[i]]);
      x_local.push_back(shifted(moved[home[i]], dp.image[i], s.box));
    }
    const auto a = departures(grid, s.box, dp.domain, home, x_global, first);
    const auto b = departures(grid, s.box, dp.domain, home, x_local, first);
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k].to, b[k].to);
  }
}

// The last partition's images spare most molecules the owner rule's arithmetic; whatever the hint (right,
// wrong by box lengths, short, or putting a first atom on a face of the domain's cell), the departures are
// the owner rule's.
TEST(DomdecMigration, ImageHintsNeverChangeTheDepartures) {
  std::mt19937_64 rng(23);
  const DdGrid grid{{3, 2, 1}};
  TestSystem s = random_system(rng, Box{{4.5, 4.0, 4.0}}, 400);
  const std::vector<int> first = first_atoms(s.molecule);
  const DdPlan plan = build_plan(grid, s.box, s.x, s.molecule, 1.0);
  std::vector<Vec3> moved = moved_rigidly(s.x, first, 0.5, rng);
  // Two first atoms exactly on a face of their (old) domain's cell along x, where a hint must not decide.
  int placed = 0;
  for (const DomainPlan& dp : plan.domains) {
    for (int i = 0; i < dp.num_home && placed < 2 * static_cast<int>(plan.domains.size()); ++i) {
      const int g = dp.global[i];
      if (first[g] != g || i % 9 != 0) continue;
      const double face = (placed % 2 == 0 ? dp.lo.x : dp.hi.x) - dp.image[i].x * s.box.len.x;
      const Vec3 d = Vec3{face, moved[g].y, moved[g].z} - moved[g];
      for (int a = g; a < static_cast<int>(moved.size()) && first[a] == g; ++a) moved[a] += d;
      ++placed;
    }
  }
  std::uniform_int_distribution<int> wrong(-2, 2);
  size_t leaving = 0;
  for (const DomainPlan& dp : plan.domains) {
    const std::vector<int> home(dp.global.begin(), dp.global.begin() + dp.num_home);
    std::vector<Vec3> x;
    for (int g : home) x.push_back(moved[g]);
    std::vector<IVec3> right(dp.image.begin(), dp.image.begin() + dp.num_home);
    std::vector<IVec3> off = right, half(right.begin(), right.begin() + right.size() / 2);
    for (IVec3& k : off) k = {k.x + wrong(rng), k.y + wrong(rng), k.z};
    const auto expected = departures(grid, s.box, dp.domain, home, x, first);
    leaving += expected.size();
    for (const std::vector<IVec3>* hint : {&right, &off, &half}) {
      const auto got = departures(grid, s.box, dp.domain, home, x, first, *hint);
      ASSERT_EQ(got.size(), expected.size()) << "domain " << dp.domain;
      for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].atom, expected[k].atom);
        EXPECT_EQ(got[k].index, expected[k].index);
        EXPECT_EQ(got[k].to, expected[k].to);
      }
    }
  }
  EXPECT_GT(leaving, 0u);
  EXPECT_EQ(placed, 2 * static_cast<int>(plan.domains.size()));
}

}  // namespace
}  // namespace halomd::domdec
