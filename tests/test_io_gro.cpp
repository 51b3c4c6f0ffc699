// Tests of the .gro reader and writer: gmx's exact format, round trips, numbers wrapping past 99,999,
// optional velocities, the box line, and every error with its file:line.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "core/errors.h"
#include "io/gro.h"
#include "support/test_support.h"

namespace halomd::io {
namespace {

namespace fs = std::filesystem;

std::string write_text(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// The message of the InputError that `fn` throws, or a note that it threw none.
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

GroFile small_water(bool velocities) {
  GroFile g;
  g.title = "two waters t= 0.0";
  const char* names[3] = {"OW", "HW1", "HW2"};
  for (int i = 0; i < 6; ++i) {
    g.residue_number.push_back(i / 3 + 1);
    g.residue_name.push_back("SOL");
    g.atom_name.push_back(names[i % 3]);
    g.x.push_back({0.1234 * i + 0.0004, 1.5 - 0.25 * i, -0.0456 * i});
    if (velocities) g.v.push_back({0.01234 * i - 0.3, 0.5 + 0.11112 * i, -1.23456});
  }
  g.box.len = {2.5, 3.0, 3.5};
  return g;
}

TEST(Gro, WritesGmxFormatExactly) {
  const std::string dir = test::make_temp_dir("gro_format");
  GroFile g = small_water(true);
  g.atom_name[0] = "OWLONGNAME";  // cut to 5 characters, as gmx does
  write_gro(dir + "/out.gro", g);
  const std::string text = test::read_text(dir + "/out.gro");
  const std::string expected =
      "two waters t= 0.0\n"
      "    6\n"
      "    1SOL  OWLON    1   0.000   1.500  -0.000 -0.3000  0.5000 -1.2346\n"
      "    1SOL    HW1    2   0.124   1.250  -0.046 -0.2877  0.6111 -1.2346\n"
      "    1SOL    HW2    3   0.247   1.000  -0.091 -0.2753  0.7222 -1.2346\n"
      "    2SOL     OW    4   0.371   0.750  -0.137 -0.2630  0.8334 -1.2346\n"
      "    2SOL    HW1    5   0.494   0.500  -0.182 -0.2506  0.9445 -1.2346\n"
      "    2SOL    HW2    6   0.617   0.250  -0.228 -0.2383  1.0556 -1.2346\n"
      "   2.50000   3.00000   3.50000\n";
  EXPECT_EQ(text, expected);
  EXPECT_FALSE(fs::exists(dir + "/out.gro.tmp"));
}

TEST(Gro, RoundTripKeepsEverythingToTheWrittenPrecision) {
  const std::string dir = test::make_temp_dir("gro_roundtrip");
  const GroFile g = small_water(true);
  write_gro(dir + "/a.gro", g);
  const GroFile r = read_gro(dir + "/a.gro");
  ASSERT_EQ(r.num_atoms(), 6);
  ASSERT_TRUE(r.has_velocities());
  EXPECT_EQ(r.title, g.title);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(r.residue_number[i], g.residue_number[i]);
    EXPECT_EQ(r.residue_name[i], "SOL");
    EXPECT_EQ(r.atom_name[i], g.atom_name[i]);
    for (int d = 0; d < 3; ++d) {
      EXPECT_NEAR(r.x[i][d], g.x[i][d], 0.0005 + 1e-12);
      EXPECT_NEAR(r.v[i][d], g.v[i][d], 0.00005 + 1e-12);
    }
  }
  EXPECT_EQ(r.box.len.x, 2.5);
  EXPECT_EQ(r.box.len.z, 3.5);
  // Writing what was read gives the same bytes.
  write_gro(dir + "/b.gro", r);
  EXPECT_EQ(test::read_text(dir + "/a.gro"), test::read_text(dir + "/b.gro"));
}

TEST(Gro, ReadsTheReferenceWaterBox) {
  const GroFile g = read_gro(test::data_path("spce_1k5/conf.gro"));
  ASSERT_EQ(g.num_atoms(), 1530);
  ASSERT_TRUE(g.has_velocities());
  EXPECT_EQ(g.atom_name[0], "OW");
  EXPECT_EQ(g.atom_name[2], "HW2");
  EXPECT_EQ(g.residue_name[1529], "SOL");
  EXPECT_EQ(g.residue_number[1529], 510);
  EXPECT_DOUBLE_EQ(g.x[0].x, 2.417);
  EXPECT_DOUBLE_EQ(g.v[0].z, 0.4811);
  EXPECT_DOUBLE_EQ(g.box.len.y, 2.5);
  // Written back, the file gmx mdrun wrote comes out byte for byte.
  const std::string dir = test::make_temp_dir("gro_reference");
  write_gro(dir + "/conf.gro", g);
  EXPECT_EQ(test::read_text(dir + "/conf.gro"), test::read_text(test::data_path("spce_1k5/conf.gro")));
}

TEST(Gro, NumbersWrapPastTheFiveDigitColumns) {
  const std::string dir = test::make_temp_dir("gro_wrap");
  GroFile g;
  const int n = 100005;
  for (int i = 0; i < n; ++i) {
    g.residue_number.push_back(i + 1);
    g.residue_name.push_back("AR");
    g.atom_name.push_back("AR");
    g.x.push_back({0.001 * (i % 1000), 0.5, 1.0 * (i / 1000) / 100.0});
  }
  g.box.len = {10, 10, 10};
  write_gro(dir + "/big.gro", g);
  std::ifstream in(dir + "/big.gro");
  std::string line;
  for (int l = 0; l < 2 + 100000; ++l) std::getline(in, line);  // line of atom 100,000
  EXPECT_EQ(line.substr(0, 20), "    0AR      AR    0");
  std::getline(in, line);
  EXPECT_EQ(line.substr(0, 20), "    1AR      AR    1");

  const GroFile r = read_gro(dir + "/big.gro");
  ASSERT_EQ(r.num_atoms(), n);
  EXPECT_FALSE(r.has_velocities());
  EXPECT_EQ(r.residue_number[99998], 99999);
  EXPECT_EQ(r.residue_number[99999], 0);
  EXPECT_EQ(r.residue_number[100004], 5);
  EXPECT_NEAR(r.x[100004].x, 0.004, 1e-12);
  EXPECT_NEAR(r.x[100004].z, 1.0, 1e-12);
}

TEST(Gro, VelocitiesAreOptional) {
  const std::string dir = test::make_temp_dir("gro_novel");
  write_gro(dir + "/x.gro", small_water(false));
  const std::string text = test::read_text(dir + "/x.gro");
  EXPECT_NE(text.find("    1SOL     OW    1   0.000   1.500  -0.000\n"), std::string::npos) << text;
  const GroFile r = read_gro(dir + "/x.gro");
  EXPECT_EQ(r.num_atoms(), 6);
  EXPECT_FALSE(r.has_velocities());
  EXPECT_TRUE(r.v.empty());
}

TEST(Gro, ReadsOtherPrecisionsFromTheDecimalPointSpacing) {
  const std::string dir = test::make_temp_dir("gro_prec");
  // %10.5f positions and %10.6f velocities, as old GROMACS wrote with -ndec 5.
  const std::string path =
      write_text(dir, "p.gro",
                 "precise\n 1\n"
                 "    1SOL     OW    1   1.23456  -0.00001  12.34567 -0.123456  1.000000  0.000001\n"
                 "   3.00000   3.00000   3.00000\n");
  const GroFile r = read_gro(path);
  ASSERT_TRUE(r.has_velocities());
  EXPECT_DOUBLE_EQ(r.x[0].x, 1.23456);
  EXPECT_DOUBLE_EQ(r.x[0].y, -0.00001);
  EXPECT_DOUBLE_EQ(r.x[0].z, 12.34567);
  EXPECT_DOUBLE_EQ(r.v[0].x, -0.123456);
  EXPECT_DOUBLE_EQ(r.v[0].z, 0.000001);
}

TEST(Gro, NineNumberBoxWithZeroOffDiagonalIsRectangular) {
  const std::string dir = test::make_temp_dir("gro_box9");
  const std::string path =
      write_text(dir, "b.gro",
                 "t\n1\n    1AR      AR    1   0.100   0.200   0.300\n"
                 "   2.00000   3.00000   4.00000   0.00000   0.00000   0.00000   0.00000   0.00000"
                 "   0.00000\n");
  const GroFile r = read_gro(path);
  EXPECT_DOUBLE_EQ(r.box.len.x, 2.0);
  EXPECT_DOUBLE_EQ(r.box.len.y, 3.0);
  EXPECT_DOUBLE_EQ(r.box.len.z, 4.0);
}

TEST(Gro, TriclinicBoxIsRefused) {
  const std::string dir = test::make_temp_dir("gro_tric");
  const std::string path =
      write_text(dir, "t.gro",
                 "t\n1\n    1AR      AR    1   0.100   0.200   0.300\n"
                 "   2.00000   2.00000   2.00000   0.00000   0.00000   1.00000   0.00000   1.00000"
                 "   1.00000\n");
  EXPECT_EQ(error_of([&] { read_gro(path); }),
            path + ":4: triclinic boxes are not supported (the off-diagonal box elements must be 0)");
}

TEST(Gro, EveryErrorNamesFileAndLine) {
  const std::string dir = test::make_temp_dir("gro_errors");
  const std::string atom = "    1AR      AR    1   0.100   0.200   0.300\n";
  const std::string box = "   2.00000   2.00000   2.00000\n";
  // The file's text, and the message after "path:".
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", " the file is empty (expected a title line)"},
      {"title\n", "1: expected the number of atoms on line 2, the file ends at line 1"},
      {"title\nabc\n", "2: expected the number of atoms (a non-negative integer), got 'abc'"},
      {"title\n-3\n", "2: expected the number of atoms (a non-negative integer), got '-3'"},
      {"title\n3\n" + atom, "3: expected 3 atom lines, file ends at line 3"},
      {"title\n1\n" + atom, "3: expected the box line after 1 atom lines, file ends at line 3"},
      {"title\n1\n    1AR      AR    1   0.100   0.2x0   0.300\n" + box,
       "3: expected position y as a number in columns 29-36, got '   0.2x0'"},
      {"title\n1\n  x1AR      AR    1   0.100   0.200   0.300\n" + box,
       "3: expected a residue number in columns 1-5, got '  x1A'"},
      {"title\n1\n    1AR      AR    1   0.100   0.200\n" + box,
       "3: expected x, y and z with decimal points in fixed columns from column 21, got "
       "'    1AR      AR    1   0.100   0.200'"},
      {"title\n1\n    1AR      AR    1   0.100   0.200   0.300 -0.1000  0.2000\n" + box,
       "3: expected velocity z as a number in columns 61-68, got ''"},
      {"title\n2\n" + atom + "    2AR      AR    2   0.100   0.200   0.300 -0.1000  0.2000  0.3000\n" + box,
       "4: this atom line has velocities but the first atom line has none (expected velocities for all atoms "
       "or none)"},
      {"title\n1\n" + atom + "   2.00000   2.00000\n", "4: expected 3 or 9 numbers on the box line, got 2"},
      {"title\n1\n" + atom + "   2.00000   2.0a000   2.00000\n",
       "4: expected the box as numbers, got '2.0a000'"},
      {"title\n1\n" + atom + "   2.00000   0.00000   2.00000\n",
       "4: expected positive box edge lengths, got 0.000000"},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    const std::string path = write_text(dir, "bad" + std::to_string(k) + ".gro", cases[k].first);
    EXPECT_EQ(error_of([&] { read_gro(path); }), path + ":" + cases[k].second) << "case " << k;
  }
  EXPECT_EQ(error_of([&] { read_gro(dir + "/missing.gro"); }),
            dir + "/missing.gro: cannot open the .gro file");
}

TEST(Gro, WriteReplacesAnExistingFileAndRefusesInconsistentArrays) {
  const std::string dir = test::make_temp_dir("gro_write");
  write_text(dir, "c.gro", "old contents\n");
  write_gro(dir + "/c.gro", small_water(false));
  EXPECT_EQ(read_gro(dir + "/c.gro").num_atoms(), 6);
  GroFile bad = small_water(true);
  bad.v.pop_back();
  EXPECT_NE(error_of([&] { write_gro(dir + "/d.gro", bad); }).find("differ in length"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/d.gro"));
}

}  // namespace
}  // namespace halomd::io
