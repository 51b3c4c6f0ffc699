// Tests of the .top reader: the preprocessor, the directives, combination rules, exclusions, GROMACS's own
// OPLS-AA files, the check against a .gro, the replicated .top of genconf, and every error with its
// file:line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "io/top.h"
#include "io/top_preprocessor.h"
#include "support/test_support.h"

namespace halomd::io {
namespace {

namespace fs = std::filesystem;

const char* const kOplsDir = "/usr/share/gromacs/top/oplsaa.ff";

std::string write_text(const std::string& dir, const std::string& name, const std::string& text) {
  const fs::path path = fs::path(dir) / name;
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
  return path.string();
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

// Exclusions of atom i as a list.
std::vector<int> excl_of(const Topology& t, int i) {
  return std::vector<int>(t.excl.begin() + t.excl_start[i], t.excl.begin() + t.excl_start[i + 1]);
}

// The fields of the first line in `path` whose first field is `first`, outside "#ifdef skip_block" parts.
std::vector<std::string> itp_fields(const std::string& path, const std::string& first,
                                    const std::string& skip_block) {
  std::ifstream in(path);
  bool skipping = false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ss(line.substr(0, line.find(';')));
    std::vector<std::string> f;
    for (std::string w; ss >> w;) f.push_back(w);
    if (f.empty()) continue;
    if (f[0] == "#ifdef" && f.size() > 1 && f[1] == skip_block) skipping = true;
    if (f[0] == "#else" || f[0] == "#endif") skipping = false;
    if (!skipping && f[0] == first) return f;
  }
  return {};
}

// The fields of the first entry after the directive `header` ("[ bonds ]") of an .itp.
std::vector<std::string> first_entry_after(const std::string& path, const std::string& header) {
  std::ifstream in(path);
  bool found = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(header, 0) == 0) found = true;
    std::istringstream ss(line.substr(0, line.find(';')));
    std::vector<std::string> f;
    for (std::string w; ss >> w;) f.push_back(w);
    if (found && !f.empty() && f[0][0] != '[') return f;
  }
  return {};
}

const std::string kWaterTypes =
    "[ defaults ]\n1 3 yes 0.5 0.5\n"
    "[ atomtypes ]\nOW 8 15.9994 -0.82 A 0.316557 0.650194\nHW 1 1.008 0.41 A 0 0\n";
const std::string kWaterMolecule =
    "[ moleculetype ]\nSOL 2\n"
    "[ atoms ]\n1 OW 1 SOL OW 1 -0.8476\n2 HW 1 SOL HW1 1 0.4238\n3 HW 1 SOL HW2 1 0.4238\n"
    "[ settles ]\n1 1 0.1 0.1633\n[ exclusions ]\n1 2 3\n2 1 3\n3 1 2\n";

TEST(Top, ReferenceWaterTopology) {
  const Topology t = read_top(test::data_path("spce_1k5/topol.top"));
  ASSERT_EQ(t.num_atoms(), 1530);
  EXPECT_EQ(t.num_molecules(), 510);
  EXPECT_EQ(t.system_name, "SPC/E water");
  EXPECT_TRUE(t.unsupported.empty());
  ASSERT_EQ(t.num_types(), 2);
  EXPECT_EQ(t.type_names[0], "opls_116");
  EXPECT_DOUBLE_EQ(t.charge[3], -0.8476);
  EXPECT_DOUBLE_EQ(t.charge[5], 0.4238);
  EXPECT_DOUBLE_EQ(t.mass[3], 15.9994);  // from the atom type: [ atoms ] has no mass column
  EXPECT_DOUBLE_EQ(t.mass[4], 1.008);
  EXPECT_EQ(t.atom_name[4], "HW1");
  EXPECT_EQ(t.residue_name[4], "SOL");
  EXPECT_EQ(t.molecule[1529], 509);
  const double s = 0.316557, eps = 0.650194;
  EXPECT_NEAR(t.c6_of(0, 0), 4 * eps * std::pow(s, 6), 1e-15);
  EXPECT_NEAR(t.c12_of(0, 0), 4 * eps * std::pow(s, 12), 1e-18);
  EXPECT_EQ(t.c6_of(0, 1), 0.0);
  EXPECT_EQ(t.c12_of(1, 1), 0.0);
  EXPECT_EQ(excl_of(t, 3), (std::vector<int>{4, 5}));
  EXPECT_EQ(excl_of(t, 4), (std::vector<int>{3, 5}));
  ASSERT_EQ(t.settles.size(), 510u);
  EXPECT_EQ(t.settles[509].o, 1527);
  EXPECT_EQ(t.settles[509].h2, 1529);
  ASSERT_EQ(t.molecules.size(), 1u);
  EXPECT_EQ(t.molecules[0].count, 510);
  EXPECT_EQ(t.molecules[0].atoms_per_molecule, 3);
}

TEST(Top, GromacsOplsaaSpceWater) {
  if (!fs::exists(kOplsDir)) GTEST_SKIP() << kOplsDir << " not installed";
  const std::string dir = test::make_temp_dir("top_opls");
  const std::string top =
      write_text(dir, "topol.top",
                 "#include \"oplsaa.ff/forcefield.itp\"\n#include \"oplsaa.ff/spce.itp\"\n"
                 "[ system ]\nwater\n[ molecules ]\nSOL 2\n");
  const Topology t = read_top(top);
  // Reference numbers read from GROMACS's files here.
  const auto o_type = itp_fields(std::string(kOplsDir) + "/ffnonbonded.itp", "opls_116", "HEAVY_H");
  const auto h_type = itp_fields(std::string(kOplsDir) + "/ffnonbonded.itp", "opls_117", "HEAVY_H");
  const auto o_atom = itp_fields(std::string(kOplsDir) + "/spce.itp", "1", "FLEXIBLE");
  const auto h_atom = itp_fields(std::string(kOplsDir) + "/spce.itp", "2", "FLEXIBLE");
  ASSERT_EQ(o_type.size(), 8u);
  ASSERT_EQ(h_type.size(), 8u);
  ASSERT_GE(o_atom.size(), 7u);
  ASSERT_GE(h_atom.size(), 7u);
  ASSERT_EQ(t.num_atoms(), 6);
  for (int m = 0; m < 2; ++m) {
    EXPECT_DOUBLE_EQ(t.charge[3 * m], std::stod(o_atom[6]));
    EXPECT_DOUBLE_EQ(t.charge[3 * m + 1], std::stod(h_atom[6]));
    EXPECT_DOUBLE_EQ(t.charge[3 * m + 2], std::stod(h_atom[6]));
    EXPECT_DOUBLE_EQ(t.mass[3 * m], std::stod(o_type[3]));
    EXPECT_DOUBLE_EQ(t.mass[3 * m + 2], std::stod(h_type[3]));
  }
  const double sigma = std::stod(o_type[6]), eps = std::stod(o_type[7]);
  const int o = t.type[0];
  EXPECT_DOUBLE_EQ(t.c6_of(o, o), 4 * eps * std::pow(sigma, 6));
  EXPECT_DOUBLE_EQ(t.c12_of(o, o), 4 * eps * std::pow(sigma, 12));
  EXPECT_EQ(excl_of(t, 0), (std::vector<int>{1, 2}));  // O-H of one water excluded
  for (int j : excl_of(t, 0)) EXPECT_NE(j, 3);         // O-O of two waters not
  ASSERT_EQ(t.settles.size(), 2u);
  EXPECT_EQ(t.settles[1].o, 3);
  EXPECT_EQ(t.settles[1].h1, 4);
  EXPECT_DOUBLE_EQ(t.settles[0].d_oh, 0.1);
  EXPECT_DOUBLE_EQ(t.settles[0].d_hh, 0.1633);
  EXPECT_TRUE(t.unsupported.empty());

  // -DHEAVY_H picks the other masses of ffnonbonded.itp; -DFLEXIBLE the [ bonds ] and [ angles ] of
  // spce.itp (A and B state written out: the A state is used).
  TopOptions options;
  options.defines = {"HEAVY_H", "FLEXIBLE=1"};
  const Topology flex = read_top(top, options);
  EXPECT_DOUBLE_EQ(flex.mass[0], 9.9514);
  EXPECT_TRUE(flex.unsupported.empty()) << flex.unsupported;
  EXPECT_TRUE(flex.settles.empty());
  const auto bond = first_entry_after(std::string(kOplsDir) + "/spce.itp", "[ bonds ]");
  const auto angle = first_entry_after(std::string(kOplsDir) + "/spce.itp", "[ angles ]");
  ASSERT_GE(bond.size(), 5u);
  ASSERT_GE(angle.size(), 6u);
  ASSERT_EQ(flex.bonded.size(), 6u);  // per water two O-H bonds and the H-O-H angle
  EXPECT_EQ(flex.bonded[3].kind, BondedKind::Bond);
  EXPECT_EQ(flex.bonded[3].atoms[0], 3);
  EXPECT_EQ(flex.bonded[3].atoms[1], 4);
  EXPECT_DOUBLE_EQ(flex.bonded[3].p[0], std::stod(bond[3]));
  EXPECT_DOUBLE_EQ(flex.bonded[3].p[1], std::stod(bond[4]));
  EXPECT_EQ(flex.bonded[5].kind, BondedKind::Angle);
  EXPECT_EQ(flex.bonded[5].atoms[1], 3);
  EXPECT_DOUBLE_EQ(flex.bonded[5].p[0], std::stod(angle[4]) * M_PI / 180.0);
  EXPECT_DOUBLE_EQ(flex.bonded[5].p[1], std::stod(angle[5]));
  EXPECT_EQ(excl_of(flex, 1), (std::vector<int>{0, 2}));  // nrexcl 2 over the two O-H bonds
}

TEST(TopPreprocessor, IncludesDefinesConditionalsAndContinuations) {
  const std::string dir = test::make_temp_dir("top_pp");
  write_text(dir, "ff/main.itp", "#include \"sub/inner.itp\"\n#define FROM_FF 2.5\n");
  write_text(dir, "ff/sub/inner.itp", "inner line ; comment\n");
  write_text(dir, "inc/sys.itp", "from include dir\n");
  write_text(dir, "lib/gmxlib.itp", "from the second folder\n");
  const std::string top = write_text(dir, "t.top",
                                     "#include \"ff/main.itp\"\n"
                                     "#include <sys.itp>\n"
                                     "#include \"gmxlib.itp\"\n"
                                     "#define SIG 0.3\n"
                                     "SIGMA SIG xSIG SIG_2 SIG FROM_FF\n"
                                     "#ifdef NOT_DEFINED\n#include \"missing.itp\"\nhidden\n"
                                     "#ifndef SIG\nhidden too\n#endif\n#else\nshown\n#endif\n"
                                     "#ifndef NOT_DEFINED\n#ifdef SIG\nnested\n#else\nno\n#endif\n#endif\n"
                                     "#undef SIG\nSIG\n"
                                     "a b \\\n  c d ; comment \\\n"
                                     "e\n"
                                     "OPT VAL FLAG\n");
  const PreprocessedTop pp = preprocess_top(top, {dir + "/inc", dir + "/lib"}, {"OPT", "VAL=42"});
  std::vector<std::string> texts;
  for (const TopLine& l : pp.lines) texts.push_back(l.text);
  const std::vector<std::string> expected = {"inner line",
                                             "from include dir",
                                             "from the second folder",
                                             "SIGMA 0.3 xSIG SIG_2 0.3 2.5",
                                             "shown",
                                             "nested",
                                             "SIG",
                                             "a b c d",
                                             "e",
                                             "42 FLAG"};  // OPT is defined empty
  EXPECT_EQ(texts, expected);
  EXPECT_EQ(pp.file_of(pp.lines[0]), dir + "/ff/sub/inner.itp");
  EXPECT_EQ(pp.lines[0].line, 1);
  EXPECT_EQ(pp.file_of(pp.lines[1]), dir + "/inc/sys.itp");
  EXPECT_EQ(pp.file_of(pp.lines[3]), top);
  EXPECT_EQ(pp.lines[3].line, 5);
  EXPECT_EQ(pp.lines[7].line, 24);  // a continued line keeps its first line
  EXPECT_EQ(pp.lines[8].line, 26);
}

// #include looks in the including file's folder, then -I folders, then $GMXLIB (colon separated).
TEST(Top, IncludeSearchOrder) {
  const std::string dir = test::make_temp_dir("top_search");
  const auto types = [](double mass) {
    return "[ defaults ]\n1 1\n[ atomtypes ]\nAR " + std::to_string(mass) + " 0 A 0.006 1e-05\n";
  };
  write_text(dir, "i1/ar.itp", types(1.0));
  write_text(dir, "lib2/ar.itp", types(2.0));
  write_text(dir, "lib2/only_lib.itp", "[ moleculetype ]\nAR 0\n[ atoms ]\n1 AR 1 AR AR 1\n");
  const std::string body = "#include \"ar.itp\"\n#include \"only_lib.itp\"\n[ molecules ]\nAR 1\n";
  const std::string top = write_text(dir, "t/topol.top", body);
  TopOptions options;
  options.include_dirs = {dir + "/i1"};
  setenv("GMXLIB", (dir + "/lib1::" + dir + "/lib2").c_str(), 1);
  EXPECT_DOUBLE_EQ(read_top(top, options).mass[0], 1.0);
  EXPECT_DOUBLE_EQ(read_top(top).mass[0], 2.0);
  write_text(dir, "t/ar.itp", types(3.0));
  EXPECT_DOUBLE_EQ(read_top(top, options).mass[0], 3.0);
  unsetenv("GMXLIB");
  EXPECT_NE(error_of([&] { read_top(top); }).find(top + ":2: #include \"only_lib.itp\": file not found"),
            std::string::npos);
}

TEST(TopPreprocessor, ErrorsNameTheFileAndLine) {
  const std::string dir = test::make_temp_dir("top_pp_err");
  const std::string inc = write_text(dir, "inc.itp", "x\n#ifdef A\ny\n");
  std::string top = write_text(dir, "a.top", "\n#include \"inc.itp\"\n");
  EXPECT_EQ(error_of([&] { preprocess_top(top, {}, {}); }),
            inc + ":2: #ifdef A is not closed: expected #endif before the end of the file");
  top = write_text(dir, "b.top", "a\n#include \"nothere.itp\"\n");
  EXPECT_EQ(error_of([&] {
              preprocess_top(top, {dir + "/x", "/y"}, {});
            }),
            top + ":2: #include \"nothere.itp\": file not found (searched: " + dir + ", " + dir + "/x, /y)");
  top = write_text(dir, "c.top", "#endif\n");
  EXPECT_EQ(error_of([&] { preprocess_top(top, {}, {}); }), top + ":1: #endif without #ifdef or #ifndef");
  top = write_text(dir, "d.top", "\n#else\n");
  EXPECT_EQ(error_of([&] { preprocess_top(top, {}, {}); }), top + ":2: #else without #ifdef or #ifndef");
  top = write_text(dir, "e.top", "#ifdef X\n#else\n#else\n#endif\n");
  EXPECT_EQ(error_of([&] { preprocess_top(top, {}, {}); }),
            top + ":3: second #else for the #ifdef X on line 1");
  top = write_text(dir, "f.top", "#if 1\n");
  EXPECT_EQ(
      error_of([&] { preprocess_top(top, {}, {}); }),
      top +
          ":1: unknown preprocessor directive '#if' (expected #include, #define, #undef, #ifdef, #ifndef, "
          "#else or #endif)");
  top = write_text(dir, "g.top", "#include nothing\n");
  EXPECT_EQ(error_of([&] { preprocess_top(top, {}, {}); }),
            top + ":1: expected #include \"file\" or #include <file>, got '#include nothing'");
  top = write_text(dir, "self.top", "#include \"self.top\"\n");
  EXPECT_NE(error_of([&] { preprocess_top(top, {}, {}); }).find("nested more than 64 deep"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { preprocess_top(dir + "/none.top", {}, {}); }),
            dir + "/none.top: cannot open the topology file");
}

TEST(Top, CombinationRulesAndNonbondParams) {
  const std::string dir = test::make_temp_dir("top_comb");
  const std::string types = "[ atomtypes ]\nA 10 0 A 0.3 2.0\nB 20 0 A 0.5 0.5\nC 30 0 A 0.4 1.0\n";
  const std::string mols =
      "[ moleculetype ]\nM 1\n[ atoms ]\n1 B 1 R B1 1\n2 A 1 R A1 1\n"
      "[ molecules ]\nM 1\n";
  for (int rule = 1; rule <= 3; ++rule) {
    const std::string top = write_text(dir, "r" + std::to_string(rule) + ".top",
                                       "[ defaults ]\n1 " + std::to_string(rule) + "\n" + types + mols);
    const Topology t = read_top(top);
    ASSERT_EQ(t.num_types(), 2) << "only the used types, in order of first use";
    EXPECT_EQ(t.type_names[0], "B");
    EXPECT_EQ(t.type_names[1], "A");
    EXPECT_DOUBLE_EQ(t.mass[1], 10.0);
    const double vb = 0.5, wb = 0.5, va = 0.3, wa = 2.0;
    double c6 = std::sqrt(va * vb), c12 = std::sqrt(wa * wb);
    if (rule > 1) {
      const double sigma = rule == 2 ? 0.5 * (va + vb) : std::sqrt(va * vb), eps = std::sqrt(wa * wb);
      c6 = 4 * eps * std::pow(sigma, 6);
      c12 = 4 * eps * std::pow(sigma, 12);
    }
    EXPECT_DOUBLE_EQ(t.c6_of(0, 1), c6) << "rule " << rule;
    EXPECT_DOUBLE_EQ(t.c6_of(1, 0), c6);
    EXPECT_DOUBLE_EQ(t.c12_of(1, 0), c12);
  }
  // [ nonbond_params ] replaces one pair, in the convention of the rule.
  std::string top = write_text(
      dir, "nb1.top", "[ defaults ]\n1 1\n" + types + "[ nonbond_params ]\nA B 1 7e-3 8e-6\n" + mols);
  Topology t = read_top(top);
  EXPECT_DOUBLE_EQ(t.c6_of(0, 1), 7e-3);
  EXPECT_DOUBLE_EQ(t.c12_of(1, 0), 8e-6);
  EXPECT_DOUBLE_EQ(t.c6_of(1, 1), 0.3);
  top = write_text(dir, "nb2.top",
                   "[ defaults ]\n1 2\n" + types + "[ nonbond_params ]\nB A 1 0.2 3.0\n" + mols);
  t = read_top(top);
  EXPECT_DOUBLE_EQ(t.c6_of(0, 1), 4 * 3.0 * std::pow(0.2, 6));
  EXPECT_DOUBLE_EQ(t.c12_of(0, 1), 4 * 3.0 * std::pow(0.2, 12));
}

TEST(Top, AtomTypeLayoutsAndAtomDefaults) {
  const std::string dir = test::make_temp_dir("top_layouts");
  const std::string top = write_text(dir, "l.top",
                                     "[ defaults ]\n1 2\n[ atomtypes ]\n"
                                     "T6 12.0 0.1 A 0.31 0.41\n"
                                     "T7 6 12.0 0.1 A 0.31 0.41\n"
                                     "T7b CT 12.0 0.1 A 0.31 0.41\n"
                                     "T8 CT 6 12.0 0.1 A 0.31 0.41\n"
                                     "[ moleculetype ]\nM 0\n[ atoms ]\n"
                                     "1 T6 1 R A 1\n2 T7 1 R B 1 -0.5\n3 T7b 2 S C 2 0.25 3.5\n4 T8 2 S D 2\n"
                                     "[ molecules ]\nM 2\n");
  const Topology t = read_top(top);
  ASSERT_EQ(t.num_atoms(), 8);
  ASSERT_EQ(t.num_types(), 4);
  EXPECT_DOUBLE_EQ(t.charge[0], 0.1);
  EXPECT_DOUBLE_EQ(t.charge[1], -0.5);
  EXPECT_DOUBLE_EQ(t.mass[1], 12.0);
  EXPECT_DOUBLE_EQ(t.mass[2], 3.5);
  EXPECT_DOUBLE_EQ(t.charge[7], 0.1);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_DOUBLE_EQ(t.c6_of(i, j), t.c6_of(0, 0));
  EXPECT_EQ(t.residue_name[2], "S");
  EXPECT_EQ(t.molecule[4], 1);
  EXPECT_TRUE(t.excl.empty());
}

TEST(Top, ExclusionsFromNrexclBondsAndExclusionLines) {
  const std::string dir = test::make_temp_dir("top_excl");
  const std::string top =
      write_text(dir, "e.top",
                 kWaterTypes +
                     "[ moleculetype ]\nCHAIN 2\n[ atoms ]\n"
                     "1 OW 1 C A 1\n2 OW 1 C B 1\n3 OW 1 C C 1\n4 OW 1 C D 1\n5 OW 1 C E 1\n"
                     "[ bonds ]\n1 2 1 0.1 1000\n2 3 5\n[ constraints ]\n3 4 1 0.1\n"
                     "[ pairs ]\n1 4 1 0.001 1e-6\n[ exclusions ]\n1 5\n"
                     "[ moleculetype ]\nUNUSED 1\n[ atoms ]\n1 OW 1 U U 1\n[ angles ]\n1 1 1 3\n" +
                     kWaterMolecule + "[ molecules ]\nSOL 1\nCHAIN 2\nUNUSED 0\n");
  const Topology t = read_top(top);
  ASSERT_EQ(t.num_atoms(), 13);
  // Chain 1-2-3-4 (bond, bond, constraint), atom 5 unbonded but excluded from 1; second copy from atom 8.
  EXPECT_EQ(excl_of(t, 3), (std::vector<int>{4, 5, 7}));
  EXPECT_EQ(excl_of(t, 4), (std::vector<int>{3, 5, 6}));
  EXPECT_EQ(excl_of(t, 5), (std::vector<int>{3, 4, 6}));
  EXPECT_EQ(excl_of(t, 6), (std::vector<int>{4, 5}));
  EXPECT_EQ(excl_of(t, 7), (std::vector<int>{3}));
  EXPECT_EQ(excl_of(t, 12), (std::vector<int>{8}));
  for (int i = 0; i < t.num_atoms(); ++i)
    for (int j : excl_of(t, i)) {
      const auto back = excl_of(t, j);
      EXPECT_NE(std::find(back.begin(), back.end(), i), back.end()) << i << " " << j;
      EXPECT_NE(i, j);
    }
  // Everything used runs (the unused type's [ angles ] function type 3 would not): the constraint per chain.
  EXPECT_TRUE(t.unsupported.empty()) << t.unsupported;
  ASSERT_EQ(t.constraints.size(), 2u);
  EXPECT_EQ(t.constraints[0].a, 5);
  EXPECT_EQ(t.constraints[0].b, 6);
  EXPECT_EQ(t.constraints[1].a, 10);
  EXPECT_DOUBLE_EQ(t.constraints[1].length, 0.1);
  ASSERT_EQ(t.molecules.size(), 3u);
  EXPECT_EQ(t.molecules[1].first_atom, 3);
  EXPECT_EQ(t.molecules[1].count, 2);
  EXPECT_EQ(t.molecules[2].count, 0);
  EXPECT_EQ(t.molecule[12], 2);
  ASSERT_EQ(t.settles.size(), 1u);
}

TEST(Top, UnusedInteractionsAreFineAndIntermolecularOnesAreNot) {
  const std::string dir = test::make_temp_dir("top_unused");
  const std::string base =
      kWaterTypes + "[ bondtypes ]\nOW HW 1 0.1 1000\n[ implicit_genborn_params ]\nanything goes here\n" +
      "[ moleculetype ]\nX 1\n[ atoms ]\n1 OW 1 X X 1\n2 HW 1 X H 1\n[ bonds ]\n1 2 1\n" + kWaterMolecule +
      "[ system ]\nWater\nbox\n[ molecules ]\nSOL 4\n";
  Topology t = read_top(write_text(dir, "u.top", base));
  EXPECT_TRUE(t.unsupported.empty()) << t.unsupported;
  EXPECT_EQ(t.system_name, "Water box");
  const std::string top =
      write_text(dir, "i.top", base + "[ intermolecular_interactions ]\n[ bonds ]\n1 4 6 0.3 100\n");
  t = read_top(top);
  EXPECT_EQ(t.unsupported, top + ":34: [ intermolecular_interactions ]");
}

TEST(Top, EveryErrorNamesFileAndLine) {
  const std::string dir = test::make_temp_dir("top_errors");
  const std::string mol_head = kWaterTypes + "[ moleculetype ]\nSOL 2\n[ atoms ]\n";  // atoms on line 9
  const std::string water = kWaterTypes + kWaterMolecule;                             // 17 lines
  struct Case {
    std::string text, error;
  };
  const std::vector<Case> cases = {
      {mol_head + "1 OW 1\n",
       "9: [ atoms ]: expected at least 6 fields (nr type resnr residue atom cgnr [charge [mass]]), got 3"},
      {mol_head + "1 OW 1 SOL OW 1 abc\n", "9: [ atoms ]: field 7 (charge) is not a number: 'abc'"},
      {mol_head + "1 OW 1 SOL OW x\n", "9: [ atoms ]: field 6 (cgnr) is not an integer: 'x'"},
      {kWaterTypes + "[ atoms ]\n1 OW 1 SOL OW 1\n",
       "7: [ atoms ]: found before any [ moleculetype ] (expected [ moleculetype ] first)"},
      {mol_head + "1 OX 1 SOL OW 1\n", "9: [ atoms ]: unknown atom type 'OX' (not in any [ atomtypes ])"},
      {mol_head + "2 OW 1 SOL OW 1\n",
       "9: [ atoms ]: atoms must be numbered 1, 2, 3, ... in order: expected 1, got 2"},
      {water + "[ molecules ]\nSOL 1\nWAT 2\n",
       "20: [ molecules ]: unknown molecule 'WAT' (no [ moleculetype ] of that name)"},
      {water + "[ molecules ]\nSOL -1\n", "19: [ molecules ]: count must not be negative, got -1"},
      {water + "[ bonds ]\n1 4\n", "19: [ bonds ]: atom index 4 out of range: the molecule has 3 atoms"},
      {water + "[ settles ]\n2 1 0.1 0.16\n",
       "19: [ settles ]: atom index 2 out of range: the oxygen and the two atoms after it must be within the "
       "3 atoms "
       "of the molecule"},
      {water + "[ exclusions ]\n1 0\n",
       "19: [ exclusions ]: atom index 0 out of range: the molecule has 3 atoms"},
      {water + "[ exclusions ]\n1 5\n",
       "19: [ exclusions ]: atom index 5 out of range: the molecule has 3 atoms"},
      {water + "[ moleculetype ]\nEMPTY 1\n[ molecules ]\nSOL 1\n",
       "19: [ moleculetype ] EMPTY has no [ atoms ] (expected at least one atom)"},
      {water + "[ moleculetype ]\nSOL 1\n",
       "19: [ moleculetype ]: molecule type 'SOL' is defined twice (first at "},
      {water + "[ bondz ]\n", "18: unknown directive [ bondz ]"},
      {water + "[ bonds \n", "18: expected a directive as '[ name ]', got '[ bonds'"},
      {"[ defaults ]\n2 1\n", "2: [ defaults ]: nbfunc = 2 is not supported (expected 1, Lennard-Jones)"},
      {"[ defaults ]\n1 4\n", "2: [ defaults ]: comb-rule = 4: expected 1, 2 or 3"},
      {"[ atomtypes ]\nOW 8 15.9994 -0.82 A 0.3 0.6\n",
       "2: [ atomtypes ]: found before [ defaults ] (expected [ defaults ] first: it sets the combination "
       "rule)"},
      {"[ defaults ]\n1 2\n[ atomtypes ]\nOW 8 15.9994 -0.82 X 0.3 0.6\n",
       "4: [ atomtypes ]: expected the particle type (A, S, V or D) as the third field from the end, got "
       "'X'"},
      {water + "[ system ]\nw\n",
       " the system has no atoms: expected [ molecules ] with at least one molecule"},
      {"[ defaults ]\n1 2\n#include \"missing.itp\"\n",
       "3: #include \"missing.itp\": file not found (searched: "},
      {"[ defaults ]\n#ifdef X\n1 2\n",
       "2: #ifdef X is not closed: expected #endif before the end of the file"},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    const std::string path = write_text(dir, "e" + std::to_string(k) + ".top", cases[k].text);
    const std::string got = error_of([&] { read_top(path); });
    const std::string want = path + ":" + cases[k].error;
    if (cases[k].error.back() == ' ')  // message continues with a folder list or a path
      EXPECT_EQ(got.substr(0, want.size()), want) << "case " << k;
    else
      EXPECT_EQ(got, cases[k].error[0] == ' ' ? path + ":" + cases[k].error : want) << "case " << k;
  }
  // An error inside an included file names that file, as it was opened.
  write_text(dir, "sub/bad.itp", "[ moleculetype ]\nSOL two\n");
  const std::string top = write_text(dir, "inc.top", kWaterTypes + "#include \"sub/bad.itp\"\n");
  EXPECT_EQ(error_of([&] { read_top(top); }),
            dir + "/sub/bad.itp:2: [ moleculetype ]: field 2 (nrexcl) is not an integer: 'two'");
}

TEST(Top, CheckAgainstCoordinates) {
  const std::string dir = test::make_temp_dir("top_check");
  const Topology t =
      read_top(write_text(dir, "w.top", kWaterTypes + kWaterMolecule + "[ molecules ]\nSOL 2\n"));
  GroFile g;
  g.atom_name = {"OW", "HW1", "HW2", "OW", "HW1"};
  g.x.resize(5);
  EXPECT_EQ(error_of([&] { check_topology_matches(t, "topol.top", g, "conf.gro"); }),
            "topol.top: [ molecules ] has 6 atoms, conf.gro has 5");
  g.atom_name.push_back("HW2");
  g.x.resize(6);
  testing::internal::CaptureStderr();
  check_topology_matches(t, "topol.top", g, "conf.gro");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  g.atom_name[1] = "H1";
  g.atom_name[4] = "H1";
  testing::internal::CaptureStderr();
  check_topology_matches(t, "topol.top", g, "conf.gro");
  EXPECT_EQ(
      testing::internal::GetCapturedStderr(),
      "warning: 2 of 6 atom names in conf.gro do not match topol.top (first: atom 2, 'H1' in conf.gro, 'HW1' "
      "in topol.top); the topology's names are used\n");
}

TEST(Top, ReplicatedTopologyReadsBackWithTheRightCounts) {
  const std::string dir = test::make_temp_dir("top_repl");
  write_text(dir, "ff/water.itp", kWaterTypes + kWaterMolecule);
  const std::string in =
      write_text(dir, "in/topol.top",
                 "#include \"../ff/water.itp\"\n[ moleculetype ]\nAR 0\n[ atoms ]\n1 OW 1 AR AR 1\n"
                 "[ system ]\nmix\n\n[ molecules ]\n; name count\nSOL 3\nAR 1 ; one argon\nSOL 2\n");
  const Topology one = read_top(in);
  write_replicated_top(in, dir + "/in/twice.top", 2);
  const Topology same_dir = read_top(dir + "/in/twice.top");
  EXPECT_EQ(same_dir.num_atoms(), 2 * one.num_atoms());
  fs::create_directories(dir + "/out");
  write_replicated_top(in, dir + "/out/eight.top", 8);  // another folder: the #include still resolves
  const Topology eight = read_top(dir + "/out/eight.top");
  EXPECT_EQ(eight.num_atoms(), 8 * one.num_atoms());
  EXPECT_EQ(eight.num_molecules(), 8 * 6);
  EXPECT_EQ(eight.settles.size(), 8 * one.settles.size());
  // SOL 3, AR 1, SOL 2 repeated: the SOL 2 and SOL 3 where copies meet are merged.
  ASSERT_EQ(eight.molecules.size(), 2u * 8 + 1);
  EXPECT_EQ(eight.molecules[0].count, 3);
  EXPECT_EQ(eight.molecules[2].count, 5);
  EXPECT_EQ(eight.molecules.back().count, 2);
  EXPECT_EQ(eight.system_name, "mix");
  EXPECT_FALSE(fs::exists(dir + "/out/eight.top.tmp"));
  EXPECT_EQ(
      error_of([&] { write_replicated_top(dir + "/ff/water.itp", dir + "/x.top", 2); }),
      dir + "/ff/water.itp: no [ molecules ] in this file to replicate (it must not be in an #include)");
}

}  // namespace
}  // namespace halomd::io
