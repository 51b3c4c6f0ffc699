// The local transport against domdec's in-process reference: plans built pulse by pulse through the
// transport equal build_plan_with's, and its coordinate and force pulses reproduce exchange_x and reduce_f
// bit for bit; buffers are re-allocated only when a plan outgrows them.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "comm/halo_transport.h"
#include "comm/plan_build.h"
#include "core/parallel.h"
#include "cpu/dd_domain.h"
#include "domdec/assignment.h"
#include "domdec/exchange.h"
#include "support/test_support.h"

namespace halomd::comm {
namespace {

using domdec::DdGrid;
using domdec::DomainPlan;
using domdec::IVec3;

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
    {{5.0, 2.6, 3.1}, {1, 2, 1}, 1.0},  // 2 domains: the same neighbour above and below
    {{6.3, 4.4, 4.8}, {3, 2, 2}, 1.0},  // 1 pulse per dimension, 3 domains in x
};

void expect_same_bits(const std::vector<Vec3>& a, const std::vector<Vec3>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    for (int d = 0; d < 3; ++d) ASSERT_EQ(a[i][d], b[i][d]) << what << ": local atom " << i << " dim " << d;
}

// Each domain's plan built through `transport` (set to `grid`) with `threads` threads per loop, from the
// home atoms domdec's assignment gives.
void build_through(HaloTransport& transport, const DdGrid& grid, const TestSystem& s,
                   const domdec::HaloRange& range, std::span<const int> first, int threads,
                   std::vector<DomainPlan>& plans, std::vector<std::vector<Vec3>>& x_built,
                   bool direct = false) {
  const domdec::HomeAssignment owner = domdec::assign_home(grid, s.box, s.x, first);
  const int nd = grid.num_domains();
  std::vector<std::vector<IVec3>> images(nd);
  std::vector<std::vector<Vec3>> frames(nd);
  std::vector<HomeAtoms> home(nd);
  for (int d = 0; d < nd; ++d) {
    for (int g : owner.home[d]) {
      images[d].push_back(owner.image[g]);
      frames[d].push_back(domdec::shifted(s.x[g], owner.image[g], s.box));
    }
    home[d] = {owner.home[d], images[d], frames[d]};
  }
  build_plans(transport, grid, s.box, range, home, plans, x_built, nullptr, threads, direct);
}

// The plans and local positions equal domdec's reference, bit for bit.
void expect_reference_plans(const std::vector<DomainPlan>& plans,
                            const std::vector<std::vector<Vec3>>& x_built, const domdec::DdPlan& ref,
                            const std::vector<std::vector<Vec3>>& x_ref) {
  ASSERT_EQ(plans.size(), ref.domains.size());
  for (size_t d = 0; d < plans.size(); ++d) {
    const DomainPlan& a = plans[d];
    const DomainPlan& b = ref.domains[d];
    ASSERT_EQ(a.global, b.global);
    ASSERT_EQ(a.pulses.size(), b.pulses.size());
    for (size_t k = 0; k < a.pulses.size(); ++k) {
      EXPECT_EQ(a.pulses[k].send, b.pulses[k].send);
      EXPECT_EQ(a.pulses[k].send_to, b.pulses[k].send_to);
      EXPECT_EQ(a.pulses[k].recv_from, b.pulses[k].recv_from);
      EXPECT_EQ(a.pulses[k].offset, b.pulses[k].offset);
      EXPECT_EQ(a.pulses[k].recv_start, b.pulses[k].recv_start);
      EXPECT_EQ(a.pulses[k].recv_count, b.pulses[k].recv_count);
    }
    ASSERT_EQ(a.shift.size(), a.global.size());
    for (int i = 0; i < a.num_local(); ++i) {
      for (int k = 0; k < 3; ++k) {
        ASSERT_EQ(a.zone[i][k], b.zone[i][k]);
        ASSERT_EQ(a.image[i][k], b.image[i][k]);
        ASSERT_EQ(a.shift[i][k], b.shift[i][k]);
      }
    }
    expect_same_bits(x_built[d], x_ref[d], "positions of the plan build");
  }
}

// With chained pulses and with direct ones (domdec/halo_plan.h), where the grid allows them.
TEST(LocalTransport, PlansAndPulsesReproduceDomdecBitForBit) {
  std::mt19937_64 rng(23);
  for (const Case& c : kCases) {
    for (const bool direct : {false, true}) {
      SCOPED_TRACE(DdGrid{c.grid}.str() + (direct ? " direct" : " chained"));
      const TestSystem s = random_system(rng, Box{c.box}, 400);
      const DdGrid grid{c.grid};
      const std::vector<int> first = domdec::first_atoms(s.molecule);
      const domdec::HaloRange range{c.rlist, domdec::molecule_margin(s.x, first) + domdec::kMarginSlack};
      std::vector<std::vector<Vec3>> x_ref;
      const domdec::DdPlan ref = domdec::build_plan_with(grid, s.box, s.x, first, range, &x_ref, direct);

      auto transport = make_local_transport();
      transport->set_grid(grid);
      const int nd = grid.num_domains();
      std::vector<DomainPlan> plans;
      std::vector<std::vector<Vec3>> x_built;
      build_through(*transport, grid, s, range, first, 1, plans, x_built, direct);
      expect_reference_plans(plans, x_built, ref, x_ref);
      std::vector<const DomainPlan*> bound;
      for (int d = 0; d < nd; ++d) bound.push_back(&plans[d]);
      EXPECT_GT(transport->counters().halo_bytes, 0);

      // One MD step's pulses: the halo part must all be written, and equal what domdec's exchange writes.
      transport->allocate(bound);
      const int64_t allocations = transport->allocations();
      EXPECT_EQ(transport->device_handle(0).num_pulses, 0);  // a host-driven transport
      std::vector<std::vector<Vec3>> x(nd);
      std::vector<Vec3*> xp(nd);
      for (int d = 0; d < nd; ++d) {
        x[d].assign(plans[d].num_local(), Vec3{NAN, NAN, NAN});
        domdec::place_home(plans[d], s.box, s.x, x[d]);
        xp[d] = x[d].data();
      }
      const int np = static_cast<int>(plans[0].pulses.size());
      for (int k = 0; k < np; ++k) {
        transport->post_x(k, xp);
        transport->wait_x(k, xp);
      }
      for (int d = 0; d < nd; ++d) expect_same_bits(x[d], x_ref[d], "positions of the x pulses");

      // Forces back: integer-valued, so the sums are exact whatever the order.
      std::uniform_int_distribution<int64_t> value(-(int64_t{1} << 40), int64_t{1} << 40);
      std::vector<std::vector<FixedVec3>> f(nd);
      std::vector<FixedVec3*> fp(nd);
      for (int d = 0; d < nd; ++d) {
        f[d].resize(plans[d].num_local());
        for (FixedVec3& a : f[d]) a = {value(rng), value(rng), value(rng)};
        fp[d] = f[d].data();
      }
      std::vector<std::vector<FixedVec3>> f_ref = f;
      domdec::reduce_f(ref, f_ref);
      for (int k = np - 1; k >= 0; --k) {
        transport->post_f(k, fp);
        transport->wait_f(k, fp);
      }
      for (int d = 0; d < nd; ++d) {
        for (int i = 0; i < plans[d].num_home; ++i) {
          ASSERT_EQ(f[d][i].x, f_ref[d][i].x);
          ASSERT_EQ(f[d][i].y, f_ref[d][i].y);
          ASSERT_EQ(f[d][i].z, f_ref[d][i].z);
        }
      }

      // The same plan again: the buffers fit, nothing is re-allocated.
      transport->allocate(bound);
      EXPECT_EQ(transport->allocations(), allocations);
    }
  }
}

// A repartition's loops on several threads (core/parallel.h) build the serial plans, bit for bit: domains
// of ~6k home and ~10k halo atoms, so that every loop is cut into chunks.
TEST(LocalTransport, PlansBuiltOnThreadsAreTheSerialPlans) {
  std::mt19937_64 rng(41);
  const TestSystem s = random_system(rng, Box{{6.0, 6.0, 6.0}}, 12000);
  const DdGrid grid{{2, 2, 1}};
  const std::vector<int> first = domdec::first_atoms(s.molecule);
  const domdec::HaloRange range{1.2, domdec::molecule_margin(s.x, first) + domdec::kMarginSlack};
  std::vector<std::vector<Vec3>> x_ref;
  const domdec::DdPlan ref = domdec::build_plan_with(grid, s.box, s.x, first, range, &x_ref);
  ASSERT_GE(ref.domains[0].num_home, 2 * static_cast<int>(kMinChunk));  // 2 chunks at least
  for (int threads : {2, 3, 8}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    auto transport = make_local_transport();
    transport->set_grid(grid);
    std::vector<DomainPlan> plans;
    std::vector<std::vector<Vec3>> x_built;
    build_through(*transport, grid, s, range, first, threads, plans, x_built);
    expect_reference_plans(plans, x_built, ref, x_ref);
  }
  {  // direct pulses, whose selections test two or three coordinates
    std::vector<std::vector<Vec3>> x_direct;
    const domdec::DdPlan direct = domdec::build_plan_with(grid, s.box, s.x, first, range, &x_direct, true);
    ASSERT_TRUE(direct.direct);
    auto transport = make_local_transport();
    transport->set_grid(grid);
    std::vector<DomainPlan> plans;
    std::vector<std::vector<Vec3>> x_built;
    build_through(*transport, grid, s, range, first, 3, plans, x_built, true);
    expect_reference_plans(plans, x_built, direct, x_direct);
  }

  // The local topology from a plan: charges, types and exclusions (every pair of a molecule) alike.
  Topology top;
  const int n = static_cast<int>(s.x.size());
  top.molecule = s.molecule;
  top.mass.assign(n, 1.0);
  top.excl_start.push_back(0);
  for (int i = 0; i < n; ++i) {
    top.charge.push_back(0.1 * (i % 7) - 0.3);
    top.type.push_back(i % 3);
    for (int j = first[i]; j < n && s.molecule[j] == s.molecule[i]; ++j)
      if (j != i) top.excl.push_back(j);
    top.excl_start.push_back(static_cast<int>(top.excl.size()));
  }
  for (const DomainPlan& plan : ref.domains) {
    DdDomain serial, threaded;
    for (DdDomain* d : {&serial, &threaded}) {
      d->plan = plan;
      d->home.assign(plan.global.begin(), plan.global.begin() + plan.num_home);
    }
    build_local_interactions(serial, top, 1);
    build_local_interactions(threaded, top, 3);
    EXPECT_GT(serial.excl.size(), 0u);
    EXPECT_EQ(threaded.charge, serial.charge);
    EXPECT_EQ(threaded.type, serial.type);
    EXPECT_EQ(threaded.excl_start, serial.excl_start);
    EXPECT_EQ(threaded.excl, serial.excl);
  }
}

TEST(LocalTransport, MigrationDeliversEveryAtomToItsNewOwner) {
  auto transport = make_local_transport();
  transport->set_grid(DdGrid{{2, 2, 1}});
  std::vector<std::vector<AtomState>> leaving(4), arriving(4);
  leaving[0] = {{7, 3, {1, 2, 3}, {0.1, 0.2, 0.3}}, {9, 1, {}, {}}};
  leaving[2] = {{4, 0, {}, {}}};
  transport->migrate(leaving, arriving);
  ASSERT_EQ(arriving[3].size(), 1u);
  EXPECT_EQ(arriving[3][0].global, 7);
  EXPECT_EQ(arriving[3][0].x.z, 3.0);
  EXPECT_EQ(arriving[3][0].v.y, 0.2);
  ASSERT_EQ(arriving[1].size(), 1u);
  ASSERT_EQ(arriving[0].size(), 1u);
  EXPECT_EQ(arriving[0][0].global, 4);
  EXPECT_TRUE(arriving[2].empty());
}

}  // namespace
}  // namespace halomd::comm
