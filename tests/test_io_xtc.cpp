// Tests of the .xtc writer and reader: round trips, continuing a trajectory, and files GROMACS and MDAnalysis
// read or write.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "io/xtc.h"
#include "io/xtc_codec.h"
#include "support/test_support.h"

namespace halomd::io {
namespace {

namespace fs = std::filesystem;

// Water-like triples: O uniform in a cube of edge box_nm, each H 0.1 nm from it in a random direction;
// atoms left over after the last whole triple are uniform in the box.
std::vector<Vec3> water_coords(int natoms, double box_nm, std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(0.0, box_nm);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::vector<Vec3> x(natoms);
  for (int a = 0; a < natoms; ++a) {
    x[a] = {uniform(rng), uniform(rng), uniform(rng)};
    if (a % 3 != 0 && a - a % 3 + 2 < natoms) {
      Vec3 dir{gauss(rng), gauss(rng), gauss(rng)};
      x[a] = x[a - a % 3] + dir * (0.1 / std::sqrt(norm2(dir)));
    }
  }
  return x;
}

// A few atoms far from the box, negative among them. huge: more than 2^24 grid steps apart even at precision
// 100, so big atoms are written as three bit fields instead of one packed integer.
void add_outliers(std::vector<Vec3>& x, bool huge) {
  const double far = huge ? 1.0e5 : 120.25;
  const std::vector<Vec3> outliers = {{-45.678, far, -0.001}, {-3.2, -7.7, 33.3}, {far, -far, 2.5}};
  for (size_t k = 0; k < outliers.size() && 3 * k + 1 < x.size(); ++k) x[3 * k + 1] = outliers[k];
}

int64_t file_size(const std::string& path) { return static_cast<int64_t>(fs::file_size(path)); }

bool have_gmx() { return test::run_command("command -v gmx") == 0; }

// Fixed-column .gro of water (SOL OW HW1 HW2) with a cubic box.
void write_gro(const std::string& path, const std::vector<std::vector<Vec3>>& frames, double box_nm) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  const char* names[3] = {"OW", "HW1", "HW2"};
  for (size_t k = 0; k < frames.size(); ++k) {
    std::fprintf(f, "water t= %.1f\n%zu\n", 0.5 * k, frames[k].size());
    for (size_t a = 0; a < frames[k].size(); ++a) {
      const Vec3& x = frames[k][a];
      std::fprintf(f, "%5zu%-5s%5s%5zu%8.3f%8.3f%8.3f\n", (a / 3 + 1) % 100000, "SOL", names[a % 3],
                   (a + 1) % 100000, x.x, x.y, x.z);
    }
    std::fprintf(f, "%10.5f%10.5f%10.5f\n", box_nm, box_nm, box_nm);
  }
  std::fclose(f);
}

struct RoundTripCase {
  int natoms;
  double precision;
};
void PrintTo(const RoundTripCase& c, std::ostream* os) {
  *os << c.natoms << " atoms, precision " << c.precision;
}

class xtcRoundTrip : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(xtcRoundTrip, DecodesWithinHalfAGridStep) {
  const auto [natoms, precision] = GetParam();
  const std::string path = test::make_temp_dir("xtc_round_trip") + "/traj.xtc";
  std::mt19937 rng(1234 + natoms);
  // Frame 0: water only; 1: a few atoms far away, some negative; 2 (compressed frames only: raw floats
  // carry only float precision there): atoms so far apart that the large-integer layout is used.
  std::vector<std::vector<Vec3>> frames;
  frames.push_back(water_coords(natoms, 3.0, rng));
  frames.push_back(water_coords(natoms, 3.0, rng));
  add_outliers(frames.back(), false);
  if (natoms > 9) {
    frames.push_back(water_coords(natoms, 3.0, rng));
    add_outliers(frames.back(), true);
  }
  const std::vector<int64_t> steps = {0, 1000, 2147483647};
  const std::vector<double> times = {0.0, 2.5, 12345.5};
  const std::vector<Box> boxes = {Box{{3.0, 3.0, 3.0}}, Box{{3.125, 2.75, 3.5}}, Box{{3.0, 3.0, 3.0}}};
  int64_t first_frame_bytes = 0;
  {
    XtcWriter writer(path);
    for (size_t k = 0; k < frames.size(); ++k) {
      writer.write_frame(steps[k], times[k], boxes[k], frames[k], precision);
      EXPECT_EQ(writer.size_bytes(), file_size(path)) << "flushed after frame " << k;
      if (k == 0) first_frame_bytes = writer.size_bytes();
    }
  }
  const std::vector<XtcFrame> read = read_xtc(path);
  ASSERT_EQ(read.size(), frames.size());
  const double tol = 0.5 / precision + 1e-6;
  for (size_t k = 0; k < frames.size(); ++k) {
    EXPECT_EQ(read[k].step, steps[k]);
    EXPECT_EQ(read[k].time_ps, times[k]);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(read[k].box.len[d], boxes[k].len[d]);
    EXPECT_EQ(read[k].precision, natoms > 9 ? precision : 0.0) << "raw-float frames carry no precision";
    ASSERT_EQ(read[k].x.size(), frames[k].size());
    double worst = 0.0;
    for (int a = 0; a < natoms; ++a)
      for (int d = 0; d < 3; ++d) worst = std::max(worst, std::fabs(read[k].x[a][d] - frames[k][a][d]));
    EXPECT_LE(worst, tol) << "frame " << k;
  }
  // Water at 0.001 nm takes about 4 bytes per atom in GROMACS's own files; raw floats would take 12.
  if (natoms >= 1000) {
    EXPECT_LT(first_frame_bytes, 6.0 * natoms);
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, xtcRoundTrip,
                         ::testing::Values(RoundTripCase{5, 1000}, RoundTripCase{9, 1000},
                                           RoundTripCase{10, 1000}, RoundTripCase{1000, 1000},
                                           RoundTripCase{3000, 1000}, RoundTripCase{5, 100},
                                           RoundTripCase{9, 100}, RoundTripCase{10, 100},
                                           RoundTripCase{1000, 100}, RoundTripCase{3000, 100}),
                         [](const auto& info) {
                           return "n" + std::to_string(info.param.natoms) + "_prec" +
                                  std::to_string(static_cast<int>(info.param.precision));
                         });

// Steps between neighbours that change scale along the chain make the small-integer size grow and shrink.
TEST(xtcCodec, RoundTripsIntegersExactly) {
  std::mt19937 rng(7);
  const std::vector<int> scales = {2, 40, 700, 3, 12000, 1, 0, 90000, 5, 300};
  for (int n : {1, 2, 3, 11, 500, 5000}) {
    std::vector<int32_t> ints;
    int32_t pos[3] = {0, -500, 1 << 20};
    for (int a = 0; a < n; ++a) {
      const int scale = scales[(a / 37) % scales.size()];
      std::uniform_int_distribution<int> step(-scale, scale);
      for (int d = 0; d < 3; ++d) ints.push_back(pos[d] += step(rng));
    }
    const xtc::CompressedCoords block = xtc::compress_coords(ints);
    EXPECT_EQ(xtc::decompress_coords(block, n), ints) << n << " atoms";
  }
}

TEST(xtcCodec, RejectsATruncatedStream) {
  std::mt19937 rng(8);
  std::vector<int32_t> ints(3 * 300);
  std::uniform_int_distribution<int> uniform(-3000, 3000);
  for (int32_t& v : ints) v = uniform(rng);
  xtc::CompressedCoords block = xtc::compress_coords(ints);
  block.bytes.resize(block.bytes.size() / 2);
  EXPECT_THROW(xtc::decompress_coords(block, 300), xtc::FormatError);
}

TEST(xtcWriter, AtomsAllAtOnePoint) {
  const std::string path = test::make_temp_dir("xtc_one_point") + "/traj.xtc";
  const std::vector<Vec3> x(20, Vec3{1.5, -2.25, 0.0});
  XtcWriter(path).write_frame(3, 0.0, Box{{3, 3, 3}}, x);
  const std::vector<XtcFrame> read = read_xtc(path);
  ASSERT_EQ(read.size(), 1u);
  for (const Vec3& v : read[0].x) EXPECT_TRUE(v.x == 1.5 && v.y == -2.25 && v.z == 0.0);
}

TEST(xtcWriter, TruncatesToACheckpointAndAppends) {
  const std::string path = test::make_temp_dir("xtc_append") + "/traj.xtc";
  std::mt19937 rng(3);
  const std::vector<Vec3> x = water_coords(300, 3.0, rng);
  int64_t after_two = 0;
  {
    XtcWriter writer(path);
    for (int k = 0; k < 3; ++k) {
      writer.write_frame(100 * k, 0.2 * k, Box{{3, 3, 3}}, x);
      if (k == 1) after_two = writer.size_bytes();
    }
  }
  {
    XtcWriter writer(path, after_two);  // the run continues from the checkpoint taken after frame 2
    EXPECT_EQ(writer.size_bytes(), after_two);
    writer.write_frame(777, 0.6, Box{{3, 3, 3}}, x);
    EXPECT_EQ(writer.size_bytes(), file_size(path));
  }
  const std::vector<XtcFrame> read = read_xtc(path);
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read[0].step, 0);
  EXPECT_EQ(read[1].step, 100);
  EXPECT_EQ(read[2].step, 777);
  EXPECT_THROW(XtcWriter(path, file_size(path) + 4), InputError);
}

TEST(xtcWriter, StepBeyondInt32IsARuntimeError) {
  const std::string path = test::make_temp_dir("xtc_step") + "/traj.xtc";
  XtcWriter writer(path);
  const std::vector<Vec3> x(12);
  try {
    writer.write_frame(int64_t{1} << 31, 0.0, Box{{3, 3, 3}}, x);
    FAIL() << "no exception";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(e.step(), int64_t{1} << 31);
    EXPECT_NE(std::string(e.what()).find("step does not fit in an XTC frame"), std::string::npos);
  }
  EXPECT_EQ(writer.size_bytes(), 0);
  EXPECT_THROW(writer.write_frame(0, 0.0, Box{{3, 3, 3}}, std::vector<Vec3>(12, Vec3{3.0e6, 0, 0})),
               RuntimeError);
}

TEST(xtcErrors, NameTheFileAndFrame) {
  const std::string dir = test::make_temp_dir("xtc_errors");
  EXPECT_THROW(XtcWriter(dir + "/missing/traj.xtc"), InputError);
  EXPECT_THROW(read_xtc(dir + "/none.xtc"), InputError);

  const std::string path = dir + "/traj.xtc";
  std::mt19937 rng(5);
  const std::vector<Vec3> x = water_coords(30, 3.0, rng);
  int64_t first = 0;
  {
    XtcWriter writer(path);
    for (int k = 0; k < 3; ++k) {
      writer.write_frame(k, k, Box{{3, 3, 3}}, x);
      if (k == 0) first = writer.size_bytes();
    }
  }
  auto expect_error = [&](const std::string& frame, const std::string& what) {
    try {
      read_xtc(path);
      FAIL() << "no exception for " << what;
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.file(), path);
      EXPECT_NE(msg.find(frame), std::string::npos) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
  };
  fs::resize_file(path, fs::file_size(path) - 6);
  expect_error("frame 3", "truncated");
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(first + 3);
    f.put('\x01');  // magic 1995 -> 1793
  }
  expect_error("frame 2", "magic");
}

TEST(xtcGromacs, GmxCheckAndDumpReadOurFile) {
  if (!have_gmx()) GTEST_SKIP() << "gmx not on PATH";
  const std::string path = test::make_temp_dir("xtc_gmx_check") + "/traj.xtc";
  std::mt19937 rng(11);
  std::vector<std::vector<Vec3>> frames(3, water_coords(3000, 3.0, rng));
  frames[1] = water_coords(3000, 3.0, rng);
  add_outliers(frames[1], false);
  add_outliers(frames[2], true);
  {
    XtcWriter writer(path);
    for (int k = 0; k < 3; ++k) writer.write_frame(50 * k, 0.1 * k, Box{{3, 3, 3}}, frames[k]);
  }
  std::string out;
  ASSERT_EQ(test::run_command("gmx check -f " + path, &out), 0) << out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(# Atoms\s+(\d+))"))) << out;
  EXPECT_EQ(std::stoi(m[1]), 3000);
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(\nCoords\s+(\d+))"))) << out;
  EXPECT_EQ(std::stoi(m[1]), 3);

  // gmx dump prints every coordinate with 6 significant digits.
  // stdout only: gmx's stderr lines would land in the middle of coordinate lines.
  ASSERT_EQ(test::run_command("(gmx -quiet dump -f " + path + " 2>/dev/null)", &out), 0) << out;
  std::istringstream lines(out);
  std::string line;
  int frame = -1, atoms_seen = 0;
  while (std::getline(lines, line)) {
    int a, step;
    double v[3];
    if (std::sscanf(line.c_str(), " natoms= %*d step= %d", &step) == 1) {
      ++frame;
      ASSERT_LT(frame, 3);
      EXPECT_EQ(step, 50 * frame);
    } else if (std::sscanf(line.c_str(), " x[ %d]={ %lf, %lf, %lf}", &a, &v[0], &v[1], &v[2]) == 4) {
      ASSERT_TRUE(frame >= 0 && a >= 0 && a < 3000) << line;
      for (int d = 0; d < 3; ++d) {
        const double expected = frames[frame][a][d];
        const double dev = std::fabs(v[d] - expected);
        EXPECT_LE(dev, 0.5e-3 + 1e-6 + 5e-6 * std::fabs(expected)) << "frame " << frame << " atom " << a;
      }
      ++atoms_seen;
    }
  }
  EXPECT_EQ(atoms_seen, 3 * 3000);
}

TEST(xtcGromacs, ReadsFileWrittenByTrjconv) {
  if (!have_gmx()) GTEST_SKIP() << "gmx not on PATH";
  const std::string dir = test::make_temp_dir("xtc_trjconv");
  std::mt19937 rng(13);
  std::vector<std::vector<Vec3>> frames = {water_coords(999, 3.0, rng), water_coords(999, 3.0, rng)};
  frames[1][4] = {-999.0, 9999.0, 0.5};  // with -ndec 4 these need the large-integer layout
  for (auto& frame : frames)
    for (Vec3& x : frame)
      for (int d = 0; d < 3; ++d) x[d] = std::round(x[d] * 1000.0) / 1000.0;  // what the .gro holds
  write_gro(dir + "/in.gro", frames, 3.0);
  for (int ndec : {3, 4}) {
    const std::string xtc = dir + "/out" + std::to_string(ndec) + ".xtc";
    std::string out;
    ASSERT_EQ(test::run_command("cd " + dir + " && echo 0 | gmx trjconv -f in.gro -s in.gro -o " + xtc +
                                    " -ndec " + std::to_string(ndec),
                                &out),
              0)
        << out;
    const std::vector<XtcFrame> read = read_xtc(xtc);
    ASSERT_EQ(read.size(), frames.size());
    for (size_t k = 0; k < frames.size(); ++k) {
      EXPECT_DOUBLE_EQ(read[k].precision, std::pow(10.0, ndec));
      EXPECT_EQ(read[k].box.len.x, 3.0);
      ASSERT_EQ(read[k].x.size(), frames[k].size());
      for (size_t a = 0; a < frames[k].size(); ++a)
        for (int d = 0; d < 3; ++d)  // GROMACS rounds in float: allow its relative error on large values
          ASSERT_NEAR(read[k].x[a][d], frames[k][a][d], 1e-5 + 2.4e-7 * std::fabs(frames[k][a][d]))
              << "ndec " << ndec << " frame " << k << " atom " << a << " dim " << d;
    }
    // Same grid points, same header: our encoder must reproduce GROMACS's file byte for byte.
    const std::string again = dir + "/again" + std::to_string(ndec) + ".xtc";
    {
      XtcWriter writer(again);
      for (const XtcFrame& f : read) writer.write_frame(f.step, f.time_ps, f.box, f.x, f.precision);
    }
    const std::string ours = test::read_text(again), theirs = test::read_text(xtc);
    EXPECT_TRUE(ours == theirs) << "ndec " << ndec << ": " << ours.size() << " bytes vs " << theirs.size();
  }
}

TEST(xtcMdanalysis, ReadsOurFile) {
  if (test::run_command("python3 -c 'import MDAnalysis'") != 0) GTEST_SKIP() << "MDAnalysis not importable";
  const std::string dir = test::make_temp_dir("xtc_mdanalysis");
  std::mt19937 rng(17);
  std::vector<std::vector<Vec3>> frames(3, water_coords(1200, 3.0, rng));
  add_outliers(frames[1], false);
  add_outliers(frames[2], true);
  write_gro(dir + "/top.gro", {frames[0]}, 3.0);
  std::ofstream expected(dir + "/expected.txt");
  expected.precision(17);
  {
    XtcWriter writer(dir + "/traj.xtc");
    for (int k = 0; k < 3; ++k) {
      writer.write_frame(k, 0.5 * k, Box{{3, 3, 3}}, frames[k]);
      for (const Vec3& x : frames[k]) expected << x.x << ' ' << x.y << ' ' << x.z << '\n';
    }
  }
  expected.close();
  std::string out;
  const int rc =
      test::run_command("python3 " HALOMD_SOURCE_DIR "/tests/xtc_check.py " + dir + "/top.gro " + dir +
                            "/traj.xtc --expected " + dir + "/expected.txt --frames 3 --atol 0.000501",
                        &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("frames 3"), std::string::npos) << out;
  EXPECT_NE(out.find("atoms 1200"), std::string::npos) << out;
}

}  // namespace
}  // namespace halomd::io
