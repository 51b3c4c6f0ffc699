// The domain grid (src/domdec/grid.h): indexing, pulse counts, GROMACS-like choice and validation errors.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.h"
#include "domdec/grid.h"

namespace halomd::domdec {
namespace {

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const InputError& e) {
    EXPECT_TRUE(e.file().empty());
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return {};
}

TEST(DomdecGrid, IndexCoordsAndNeighbours) {
  const DdGrid g{{3, 2, 4}};
  EXPECT_EQ(g.num_domains(), 24);
  for (int dom = 0; dom < 24; ++dom) EXPECT_EQ(g.index(g.coords(dom)), dom);
  EXPECT_EQ(g.index({1, 1, 2}), (1 * 2 + 1) * 4 + 2);
  EXPECT_EQ(g.neighbour(g.index({0, 1, 3}), 0, -1), g.index({2, 1, 3}));
  EXPECT_EQ(g.neighbour(g.index({0, 1, 3}), 2, +1), g.index({0, 1, 0}));
  EXPECT_EQ(g.str(), "3x2x4");
  EXPECT_EQ(cell_bound(3, 3, 7.66), 7.66);
  EXPECT_EQ(cell_bound(0, 3, 7.66), 0.0);
}

TEST(DomdecGrid, PulsesReachRlistPlusTwoMargins) {
  const HaloRange r{1.0, 0.1};
  EXPECT_DOUBLE_EQ(r.send_range(), 1.1);
  EXPECT_DOUBLE_EQ(r.reach(), 1.2);
  EXPECT_EQ(pulses_needed(2.0, r), 1);
  EXPECT_EQ(pulses_needed(1.15, r), 2);  // rlist + margin fits, rlist + 2 margins does not
  EXPECT_EQ(pulses_needed(0.5, r), 3);
  const IVec3 p = pulses_per_dim(DdGrid{{4, 1, 2}}, Box{{2.0, 3.0, 3.0}}, r);
  EXPECT_EQ(p.x, 3);
  EXPECT_EQ(p.y, 0);
  EXPECT_EQ(p.z, 1);
}

TEST(DomdecGrid, HaloVolumeIsGromacsEstimate) {
  const Box box{{6.0, 6.0, 6.0}};
  const HaloRange r{1.1, 0.1};  // send range 1.2
  EXPECT_EQ(halo_volume_fraction(DdGrid{{1, 1, 1}}, box, r), 0.0);
  EXPECT_DOUBLE_EQ(halo_volume_fraction(DdGrid{{2, 1, 1}}, box, r), 0.4);
  EXPECT_DOUBLE_EQ(halo_volume_fraction(DdGrid{{2, 2, 1}}, box, r), 0.8 + 0.16 * M_PI / 4);
}

TEST(DomdecGrid, ChoosesLikeGromacsForTheBenchmarkBox) {
  // 7.5 nm cube (spce_1k5 x 27), rlist 1.1, SPC/E margin 0.1: one pulse everywhere, fewest halo atoms.
  const Box box{{7.5, 7.5, 7.5}};
  const HaloRange r{1.1, 0.1};
  EXPECT_EQ(choose_grid(1, box, r).str(), "1x1x1");
  EXPECT_EQ(choose_grid(2, box, r).str(), "2x1x1");
  EXPECT_EQ(choose_grid(4, box, r).str(), "4x1x1");  // 0.64 of a domain's volume vs 0.72 for 2x2x1
  EXPECT_EQ(choose_grid(8, box, r).str(), "4x2x1");  // 8x1x1 would need 2 pulses
  EXPECT_EQ(choose_grid(16, box, r).str(), "4x4x1");
  EXPECT_EQ(choose_grid(6, box, r).str(), "3x2x1");
}

TEST(DomdecGrid, FollowsTheBoxShape) {
  const HaloRange r{1.0, 0.1};
  EXPECT_EQ(choose_grid(4, Box{{3.0, 3.0, 12.0}}, r).str(), "1x1x4");
  EXPECT_EQ(choose_grid(4, Box{{6.0, 12.0, 6.0}}, r).str(), "1x4x1");
  EXPECT_EQ(choose_grid(4, Box{{6.0, 6.02, 6.0}}, r).str(), "4x1x1");  // within 1%: x first
}

TEST(DomdecGrid, AllowsMorePulsesOnlyWhenNeeded) {
  const HaloRange r{1.0, 0.1};  // reach 1.2
  const Box box{{3.0, 3.0, 3.0}};
  EXPECT_EQ(choose_grid(3, box, r).str(), "3x1x1");  // cells of 1.0 nm: 2 pulses, the only way
  const IVec3 p = pulses_per_dim(choose_grid(3, box, r), box, r);
  EXPECT_EQ(p.x, 2);
  // 9 domains in 3 x 3 x 9 nm: every grid needs 2 pulses somewhere; 1x1x9 has the least halo (1.1 of a
  // domain's volume against 1.78 for 3x1x3).
  EXPECT_EQ(choose_grid(9, Box{{3.0, 3.0, 9.0}}, r).str(), "1x1x9");
}

TEST(DomdecGrid, ErrorsNameWhatIsWrong) {
  const HaloRange r{0.95, 0.1};
  std::string msg = error_of([&] { choose_grid(2, Box{{2.0, 2.0, 2.0}}, r); });
  EXPECT_NE(msg.find("2 domains cannot be arranged"), std::string::npos) << msg;
  EXPECT_NE(msg.find("needs 2 pulses"), std::string::npos) << msg;

  msg = error_of([&] { validate_grid(DdGrid{{2, 2, 2}}, 4, Box{{6.0, 6.0, 6.0}}, r); });
  EXPECT_NE(msg.find("makes 8 domains, but 4 were asked for"), std::string::npos) << msg;

  msg = error_of([&] { validate_grid(DdGrid{{2, 1, 1}}, 2, Box{{6.0, 1.8, 6.0}}, r); });
  EXPECT_NE(msg.find("not below half the box edge in y"), std::string::npos) << msg;

  EXPECT_NO_THROW(validate_grid(DdGrid{{1, 3, 1}}, 3, Box{{6.0, 1.95, 6.0}}, HaloRange{0.9, 0.1}));  // 2 < 3
  msg = error_of([&] { validate_grid(DdGrid{{1, 1, 2}}, 2, Box{{6.0, 6.0, 2.0}}, HaloRange{0.9, 0.1}); });
  EXPECT_NE(msg.find("needs 2 pulses in z (cells 1.000 nm wide), but the grid has only 2 domains there"),
            std::string::npos)
      << msg;

  msg = error_of([&] { choose_grid(0, Box{{6.0, 6.0, 6.0}}, r); });
  EXPECT_NE(msg.find("need at least 1"), std::string::npos) << msg;
  EXPECT_NO_THROW(validate_grid(DdGrid{{4, 2, 1}}, 8, Box{{7.5, 7.5, 7.5}}, HaloRange{1.1, 0.1}));
}

}  // namespace
}  // namespace halomd::domdec
