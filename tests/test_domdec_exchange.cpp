// The in-process halo exchange (src/domdec/exchange.h): forward positions bit-identical to a direct gather,
// reverse force reduction equal to the direct per-atom sum (integer-valued forces, so exact), also when the
// returned forces are summed apart (reduce_f_apart, the GPU transports' form); with chained and with direct
// pulses (halo_plan.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "domdec/exchange.h"
#include "support/test_support.h"

namespace halomd::domdec {
namespace {

using test::random_system;
using test::TestSystem;

struct Case {
  Vec3 box;
  IVec3 grid;
  double rlist;
};
const Case kCases[] = {
    {{4.0, 4.0, 4.0}, {2, 2, 2}, 1.0},  // 1 pulse per dimension
    {{3.0, 3.2, 3.4}, {3, 1, 1}, 0.9},  // 2 pulses in x
    {{2.8, 3.0, 4.0}, {4, 3, 2}, 1.3},  // 3, 2, 1 pulses
    {{4.5, 4.5, 2.8}, {3, 3, 4}, 1.2},  // 1, 1, 3 pulses
    {{5.0, 2.6, 3.1}, {1, 2, 1}, 1.0},  // 2 domains: the same neighbour above and below
    {{4.2, 4.6, 3.0}, {2, 2, 1}, 1.0},  // 1 pulse in x and y (direct pulses: x, y, xy)
    {{6.3, 4.4, 4.8}, {3, 2, 2}, 1.0},  // 1 pulse per dimension, 3 domains in x
};

TEST(DomdecExchange, ForwardPositionsMatchDirectGatherBitForBit) {
  std::mt19937_64 rng(11);
  for (const Case& c : kCases) {
    for (const bool direct : {false, true}) {
      const TestSystem s = random_system(rng, Box{c.box}, 400);
      std::vector<std::vector<Vec3>> x_built;
      const DdPlan plan = build_plan(DdGrid{c.grid}, s.box, s.x, s.molecule, c.rlist, &x_built, direct);
      std::vector<std::vector<Vec3>> x_local(plan.domains.size());
      for (const DomainPlan& dp : plan.domains) {
        x_local[dp.domain].assign(dp.num_local(), Vec3{NAN, NAN, NAN});  // the halo part must all be written
        place_home(dp, s.box, s.x, x_local[dp.domain]);
      }
      exchange_x(plan, x_local);
      int halo = 0, off_by_rounding = 0;
      for (const DomainPlan& dp : plan.domains) {
        const std::vector<Vec3> gathered = gather_local_x(plan, dp, s.x);
        for (int i = 0; i < dp.num_local(); ++i) {
          const Vec3& got = x_local[dp.domain][i];
          for (int d = 0; d < 3; ++d) {
            ASSERT_EQ(got[d], gathered[i][d])
                << "domain " << dp.domain << " local atom " << i << " dim " << d;
            ASSERT_EQ(got[d], x_built[dp.domain][i][d])
                << "the builder's positions differ from the exchange's";
            const double direct = s.x[dp.global[i]][d] + dp.shift[i][d];
            EXPECT_NEAR(got[d], direct, 1e-12);
            off_by_rounding += got[d] != direct;
          }
          halo += i >= dp.num_home;
        }
      }
      EXPECT_GT(halo, 0);
      RecordProperty("halo_coordinates_one_rounding_from_x_plus_shift", off_by_rounding);
    }
  }
}

template <class F>
void check_reverse_reduction(std::mt19937_64& rng, const Case& c, bool direct) {
  const TestSystem s = random_system(rng, Box{c.box}, 400);
  const DdPlan plan = build_plan(DdGrid{c.grid}, s.box, s.x, s.molecule, c.rlist, nullptr, direct);
  std::uniform_int_distribution<int> value(-1000000, 1000000);
  std::vector<std::vector<F>> f(plan.domains.size());
  std::vector<F> expected(s.x.size(), F{0, 0, 0});
  for (const DomainPlan& dp : plan.domains) {
    f[dp.domain].resize(dp.num_local());
    for (int i = 0; i < dp.num_local(); ++i) {
      F v;
      for (int d = 0; d < 3; ++d) v[d] = value(rng);
      f[dp.domain][i] = v;
      expected[dp.global[i]] += v;  // every copy of the atom contributes once
    }
  }
  // The GPU transports' form: f is only read, the returned forces are summed apart, home f + received is
  // the same total.
  const std::vector<std::vector<F>> f_before = f;
  std::vector<std::vector<F>> received(plan.domains.size());
  for (const DomainPlan& dp : plan.domains) received[dp.domain].assign(dp.num_local(), F{0, 0, 0});
  reduce_f_apart(plan, f, received);
  reduce_f(plan, f);
  std::vector<int> seen(s.x.size(), 0);
  for (const DomainPlan& dp : plan.domains) {
    for (int i = 0; i < dp.num_home; ++i) {
      const int g = dp.global[i];
      ++seen[g];
      const F apart = f_before[dp.domain][i] + received[dp.domain][i];
      for (int d = 0; d < 3; ++d) {
        ASSERT_EQ(f[dp.domain][i][d], expected[g][d]) << "atom " << g << " dim " << d;
        ASSERT_EQ(apart[d], expected[g][d]) << "summed apart: atom " << g << " dim " << d;
      }
    }
  }
  for (int count : seen) ASSERT_EQ(count, 1);
}

TEST(DomdecExchange, ReverseReductionEqualsDirectSum) {
  std::mt19937_64 rng(12);
  for (const Case& c : kCases) {
    for (const bool direct : {false, true}) {
      check_reverse_reduction<Vec3>(rng, c, direct);  // forces in double, integer values: exact
      check_reverse_reduction<Vec3T<std::int64_t>>(rng, c, direct);  // fixed point, as the CPU executor sums
    }
  }
}

TEST(DomdecExchange, PulsesAgreeBetweenSenderAndReceiver) {
  std::mt19937_64 rng(13);
  for (const Case& c : kCases) {
    for (const bool direct : {false, true}) {
      const TestSystem s = random_system(rng, Box{c.box}, 300);
      const DdPlan plan = build_plan(DdGrid{c.grid}, s.box, s.x, s.molecule, c.rlist, nullptr, direct);
      EXPECT_EQ(plan.direct, direct && direct_pulses_possible(plan.grid, plan.pulses));
      for (const DomainPlan& dp : plan.domains) {
        ASSERT_EQ(dp.pulses.size(), static_cast<size_t>(plan.num_pulses()));
        int expected_start = dp.num_home;
        for (size_t k = 0; k < dp.pulses.size(); ++k) {
          const Pulse& p = dp.pulses[k];
          const Pulse& r = plan.domains[p.send_to].pulses[k];
          EXPECT_EQ(r.recv_from, dp.domain);
          EXPECT_EQ(r.dim, p.dim);
          EXPECT_EQ(r.pulse, p.pulse);
          EXPECT_EQ(r.offset, p.offset);
          EXPECT_EQ(r.recv_count, static_cast<int>(p.send.size()));
          EXPECT_EQ(p.recv_start, expected_start);  // ranges follow each other in pulse order
          expected_start += p.recv_count;
          for (int i : p.send) EXPECT_LT(i, p.recv_start) << "a pulse sends only what arrived before it";
          if (plan.direct) {
            EXPECT_EQ(p.offset, direct_offsets(plan.grid)[k]);
            for (int i : p.send) EXPECT_LT(i, dp.num_home) << "a direct pulse sends home atoms only";
          } else {
            IVec3 unit;
            unit[p.dim] = 1;
            EXPECT_EQ(p.offset, unit);
          }
          // Every atom it brings has the pulse's offset as its zone (one pulse per dimension), and the
          // receiver is the domain at coords + offset.
          const IVec3 above = plan.grid.coords(p.recv_from);
          for (int d = 0; d < 3; ++d) {
            EXPECT_EQ(p.shift[d], p.offset[d] != 0 && dp.coords[d] == 0 ? s.box.len[d] : 0.0);
            EXPECT_EQ(above[d], (dp.coords[d] + p.offset[d]) % plan.grid.n[d]);
          }
          if (plan.direct) {
            for (int i = p.recv_start; i < p.recv_start + p.recv_count; ++i) EXPECT_EQ(dp.zone[i], p.offset);
          }
        }
        EXPECT_EQ(expected_start, dp.num_local());
      }
    }
  }
}

// Direct pulses carry what the chained pulses carry, atom for atom and bit for bit: the same global
// indices, images, zones, shifts and positions in the same local order; only the pulses differ (x, y, xy, z,
// xz, yz, xyz on a 3D grid, against x, y, z). Where a dimension needs two pulses the plan stays chained.
TEST(DomdecExchange, DirectPulsesCarryTheChainedPlansAtomsBitForBit) {
  std::mt19937_64 rng(14);
  int direct_plans = 0;
  for (const Case& c : kCases) {
    const TestSystem s = random_system(rng, Box{c.box}, 500);
    std::vector<std::vector<Vec3>> x_chained, x_direct;
    const DdPlan chained = build_plan(DdGrid{c.grid}, s.box, s.x, s.molecule, c.rlist, &x_chained, false);
    const DdPlan direct = build_plan(DdGrid{c.grid}, s.box, s.x, s.molecule, c.rlist, &x_direct, true);
    ASSERT_FALSE(chained.direct);
    const bool possible = direct_pulses_possible(chained.grid, chained.pulses);
    ASSERT_EQ(direct.direct, possible);
    direct_plans += possible;
    int decomposed = 0;
    for (int d = 0; d < 3; ++d) decomposed += c.grid[d] > 1;
    for (size_t dom = 0; dom < chained.domains.size(); ++dom) {
      const DomainPlan& a = chained.domains[dom];
      const DomainPlan& b = direct.domains[dom];
      EXPECT_EQ(b.pulses.size(), possible ? (size_t{1} << decomposed) - 1 : a.pulses.size());
      ASSERT_EQ(a.num_home, b.num_home);
      ASSERT_EQ(a.global, b.global) << "domain " << dom;
      ASSERT_EQ(a.image, b.image) << "domain " << dom;
      ASSERT_EQ(a.zone, b.zone) << "domain " << dom;
      ASSERT_EQ(a.shift, b.shift) << "domain " << dom;
      ASSERT_EQ(x_chained[dom], x_direct[dom]) << "domain " << dom;
      EXPECT_GT(a.num_local(), a.num_home);
    }
  }
  EXPECT_GE(direct_plans, 3);  // 2x2x2, 1x2x1, 2x2x1 and 3x2x2 need one pulse per dimension
}

// Messages name a pulse by the dimensions it crosses (timeouts of the GPU transports).
TEST(DomdecExchange, PulsesAreNamedByTheirDimensions) {
  std::mt19937_64 rng(15);
  const TestSystem s = random_system(rng, Box{{4.0, 4.0, 4.0}}, 400);
  const DdPlan direct = build_plan(DdGrid{{2, 2, 2}}, s.box, s.x, s.molecule, 1.0, nullptr, true);
  std::vector<std::string> names;
  for (const Pulse& p : direct.domains[0].pulses) names.push_back(pulse_name(p));
  EXPECT_EQ(names, (std::vector<std::string>{"x", "y", "xy", "z", "xz", "yz", "xyz"}));
  const TestSystem t = random_system(rng, Box{{3.0, 3.2, 3.4}}, 400);
  const DdPlan chained = build_plan(DdGrid{{3, 1, 1}}, t.box, t.x, t.molecule, 0.9);
  names.clear();
  for (const Pulse& p : chained.domains[0].pulses) names.push_back(pulse_name(p));
  EXPECT_EQ(names, (std::vector<std::string>{"x", "x 2"}));
}

}  // namespace
}  // namespace halomd::domdec
