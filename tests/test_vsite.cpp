// Virtual sites (GROMACS's vsite2, vsite3, vsite3out) on the CPU: TIP4P and TIP5P water from oplsaa.ff
// against GROMACS 2022 (gmx_d, tests/make_vsite_refdata.sh): every step-0 term and the pressure with reaction
// field to the printed digits, with PME to 2e-7 (Coulomb (SR) is 6e-8 off gmx_d's, cause not found: see
// below), the Verlet buffer's rlist (the sites' effective masses), the same on 4 domains, a 100-step NVE
// path; the force spreading as the chain rule of each construction with its virial; input errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <sstream>

#include "core/errors.h"
#include "cpu/vsite.h"
#include "io/top.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

// reference.txt's "case term value" lines of one case.
std::map<std::string, double> read_case(const std::string& model, const std::string& which) {
  return read_case_terms(data_path("vsite/" + model + "/reference.txt"), which);
}

// halomd's step 0 of <model>/<mdp> (args: the executor) against the case's terms: energies within rel (and
// 2e-5 kJ/mol, the printed digits), the pressure within p_tol bar.
void expect_step0(const std::string& model, const std::string& mdp, const std::string& which,
                  const std::string& args, double rel, double p_tol) {
  SCOPED_TRACE(model + " " + mdp + " " + args);
  const auto ref = read_case(model, which);
  ASSERT_GT(ref.size(), 5u);
  const std::string out = make_temp_dir("vsite_step0");
  std::string log;
  ASSERT_EQ(run_halomd("vsite/" + model, mdp, {}, out + "/run", "--threads 2 " + args, &log), 0) << log;
  auto e = read_csv(out + "/run/energy.csv");
  const std::pair<const char*, const char*> terms[] = {
      {"LJ_(SR)", "lj_sr"},           {"Coulomb_(SR)", "coulomb_sr"}, {"Coul._recip.", "coul_recip"},
      {"Disper._corr.", "disp_corr"}, {"Potential", "potential"},     {"Kinetic_En.", "kinetic"},
      {"Temperature", "temperature"}};
  for (const auto& [gmx, csv] : terms) {
    if (!ref.count(gmx)) continue;
    ASSERT_TRUE(e.count(csv)) << csv;
    EXPECT_NEAR(e[csv][0], ref.at(gmx), rel * std::fabs(ref.at(gmx)) + kPrintedEnergyAbsTol) << gmx;
  }
  EXPECT_NEAR(e["pressure"][0], ref.at("Pressure"), p_tol);
  if (which == model) {  // the PME case carries grompp's rlist
    const double rlist = read_case(model, model).at("rlist_1x1");
    EXPECT_NE(read_text(out + "/run/run.json").find(fmt::format("\"rlist_nm\": {:.6f}", rlist)),
              std::string::npos)
        << rlist;
  }
}

void expect_nve_path(const std::string& m, const std::string& args) {
  SCOPED_TRACE(m + " " + args);
  const std::string out = make_temp_dir("vsite_nve");
  std::string log;
  ASSERT_EQ(run_halomd("vsite/" + m, "nve.mdp", {}, out + "/run", "--threads 2 " + args, &log), 0) << log;
  auto e = read_csv(out + "/run/energy.csv");
  const std::vector<std::string> rows = read_rows(data_path("vsite/" + m + "/nve.txt"));
  ASSERT_EQ(e["step"].size(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    std::istringstream w(rows[k]);
    double step = 0, total = 0, pressure = 0;
    w >> step >> total >> pressure;
    SCOPED_TRACE(::testing::Message() << "step " << step);
    EXPECT_NEAR(e["total"][k], total, 1e-8 * std::fabs(total) + kPrintedEnergyAbsTol);
    EXPECT_NEAR(e["pressure"][k], pressure, 1e-3);
  }
}

class Water : public ::testing::TestWithParam<const char*> {};
INSTANTIATE_TEST_SUITE_P(Vsite, Water, ::testing::Values("tip4p", "tip5p"));

TEST_P(Water, Step0MatchesGromacsOnOneDomainAndOnFour) {
  const std::string m = GetParam();
  // Reaction field: the construction, the spreading, its virial and the degrees of freedom, to the digits.
  expect_step0(m, "step0_rf.mdp", m + "_rf", "", kPmeEnergyRelTol, 1e-3);
  expect_step0(m, "step0_rf.mdp", m + "_rf", "--dd 2 2 1", kPmeEnergyRelTol, 1e-3);
  // PME: Coulomb (SR) is 6e-8 relative off gmx_d's (0.0025 of 44005 kJ/mol for TIP4P), while reaction field
  // matches to the digits and SPC/E with PME to 1e-8. Not GROMACS's SIMD approximations: its plain-C
  // kernels (GMX_DISABLE_SIMD_KERNELS=1) print the same value. Not understood yet.
  expect_step0(m, "step0.mdp", m, "", 2e-7, 0.2);
  expect_step0(m, "step0.mdp", m, "--dd 2 2 1", 2e-7, 0.2);
}

// Reaction field with a search every step (nve.mdp), so that no pair list's buffer parts the runs: gmx_d's
// path to its printed digits over 100 steps, with one domain and with four (sites spread after the force
// halo, constructed on each domain's home groups).
TEST_P(Water, NvePathFollowsGromacs) {
  for (const char* args : {"", "--dd 2 2 1"}) expect_nve_path(GetParam(), args);
}

// Sites are built after each update (and saved so): threads and a continuation change no bit.
TEST(Vsite, ThreadCountAndContinuationChangeNoBit) {
  expect_threads_and_continuation_change_no_bit(
      "vsite/tip4p", "nve.mdp", {{"nsteps", "30"}, {"nstlist", "10"}, {"nstcheckpoint", "10"}}, 17,
      {"energy.csv", "confout.gro"});
}

// A site's spread forces are minus the gradient, over the constructing atoms, of an energy of the site's
// position; they sum to the site's force, and the virial's change is -1/2 sum_k (x_k - x_s) (x) f_k.
TEST(Vsite, SpreadForcesAreTheChainRuleOfEachConstruction) {
  const Box box{{3.0, 3.0, 3.0}};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  const VirtualSite sites[] = {{VsiteKind::Two, 3, {0, 1, 0}, {0.3, 0, 0}},
                               {VsiteKind::Three, 3, {0, 1, 2}, {0.128, 0.128, 0}},
                               {VsiteKind::ThreeOut, 3, {0, 1, 2}, {-0.345, -0.345, -6.44}},
                               {VsiteKind::N, 3, {0, 1, 2}, {0.2, 0.3, 0.5}, 3}};
  // E(x_s) = g . x_s + 1/2 k |x_s - c|^2.
  const Vec3 g{1.5, -2.0, 0.7}, c{0.2, 0.1, -0.3};
  const double k = 40.0;
  for (const VirtualSite& s : sites) {
    SCOPED_TRACE(static_cast<int>(s.kind));
    std::vector<Vec3> x = {{0.0, 0.0, 0.0}, {0.0957, 0.0, 0.0}, {-0.024, 0.0927, 0.0}, {}};
    for (Vec3& p : x) p += Vec3{u(rng), u(rng), u(rng)};
    const auto energy = [&](std::vector<Vec3> xs) {
      construct_vsites(std::span(&s, 1), xs, box);
      const Vec3 d = xs[3] - c;
      return dot(g, xs[3]) + 0.5 * k * norm2(d);
    };
    construct_vsites(std::span(&s, 1), x, box);
    std::vector<Vec3> f(4);
    f[3] = (g + (x[3] - c) * k) * -1.0;
    const Vec3 fs = f[3];
    Tensor vir;
    spread_vsite_forces(std::span(&s, 1), x, f, box, &vir);
    EXPECT_EQ(norm2(f[3]), 0.0);
    Vec3 sum;
    Tensor expect;
    const int n = vsite_atom_count(s);
    for (int a = 0; a < n; ++a) {
      sum += f[a];
      add_outer(expect, x[a] - x[3], f[a], -0.5);
    }
    EXPECT_LT(std::sqrt(norm2(sum - fs)), 1e-12);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_NEAR(vir.m[i][j], expect.m[i][j], 1e-12);
    const double h = 1e-6;
    for (int a = 0; a < n; ++a)
      for (int d = 0; d < 3; ++d) {
        std::vector<Vec3> xp = x, xm = x;
        xp[a][d] += h;
        xm[a][d] -= h;
        EXPECT_NEAR(f[a][d], -(energy(xp) - energy(xm)) / (2 * h), 1e-6) << "atom " << a << " dim " << d;
      }
  }
}

TEST(Vsite, InputErrorsNameTheLine) {
  const std::string dir = make_temp_dir("vsite_errors");
  const std::string head =
      "[ defaults ]\n1 2 no 1 1\n[ atomtypes ]\nOW 15.999 0 A 0.3 0.6\nHW 1.008 0.5 A 0 0\nMW 0 -1 D 0 0\n"
      "[ moleculetype ]\nW 2\n[ atoms ]\n1 OW 1 W O 1 0\n2 HW 1 W H1 1 0.5\n3 HW 1 W H2 1 0.5\n4 MW 1 W M 1 "
      "-1\n";
  const std::string tail = "[ system ]\nx\n[ molecules ]\nW 1\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[ virtual_sites3 ]\n4 1 2 3 1 0.128\n",
       ":15: [ virtual_sites3 ]: expected 2 parameters after the function type"},
      {"[ virtual_sites3 ]\n2 1 3 4 1 0.1 0.1\n",
       ":15: [ virtual_sites3 ]: atom 2 is a virtual site but has mass"},
      {"[ virtual_sites2 ]\n4 1 2 1 0.1\n[ virtual_sites3 ]\n4 1 2 3 1 0.1 0.1\n",
       ":17: [ virtual_sites3 ]: atom 4 is constructed twice"},
      {"[ virtual_sitesn ]\n4 4 1 2 3\n", ":15: [ virtual_sitesn ]: function type 4 (expected 1"},
      {"[ virtual_sitesn ]\n4 3 1 1.0 2\n",
       ":15: [ virtual_sitesn ]: expected pairs of an atom and its weight"},
      {"[ virtual_sitesn ]\n4 3 1 0.0 2 0.0\n",
       ":15: [ virtual_sitesn ]: the constructing atoms' weights sum to"},
      {"[ virtual_sitesn ]\n2 1 1 3\n", ":15: [ virtual_sitesn ]: atom 2 is a virtual site but has mass"},
      {"[ virtual_sitesn ]\n4 1 1 2 3 1 2 3 1 2 3\n", ":15: [ virtual_sitesn ]: a site built from 9 atoms"},
  };
  expect_top_errors(dir, head, cases, tail);
  // A massless atom that is no virtual site (grompp refuses it too).
  const std::string massless = write_top(dir, "m.top", head + tail);
  try {
    io::read_top(massless);
    ADD_FAILURE() << "no error for a massless atom";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":8: [ moleculetype ] W: atom 4 (W M) has mass 0"),
              std::string::npos)
        << e.what();
  }
  // A constraint or a bond on a site: grompp refuses the one and removes the other; halomd refuses both,
  // naming the site's entry (TIP4P with the site constrained to the oxygen, or bonded to it).
  const std::string water =
      "#include \"oplsaa.ff/forcefield.itp\"\n[ moleculetype ]\nSOL 2\n[ atoms ]\n1 opls_113 1 SOL OW 1 0.0\n"
      "2 opls_114 1 SOL HW1 1 0.52\n3 opls_114 1 SOL HW2 1 0.52\n4 opls_115 1 SOL MW 1 -1.04\n[ settles ]\n"
      "1 1 0.09572 0.15139\n[ exclusions ]\n1 2 3 4\n2 1 3 4\n3 1 2 4\n4 1 2 3\n[ virtual_sites3 ]\n"
      "4 1 2 3 1 0.128012065 0.128012065\n";
  const std::string molecules = "[ system ]\nx\n[ molecules ]\nSOL 909\n";
  std::string log;
  for (const std::string& extra :
       {std::string("[ constraints ]\n1 4 1 0.015\n"), std::string("[ bonds ]\n1 4 1 0.015 1000\n")}) {
    const std::string top = write_top(dir, "c.top", water + extra + molecules);
    const std::string cmd = std::string(HALOMD_BIN) + " run -c " + data_path("vsite/tip4p/conf.gro") +
                            " -p " + top + " -f " + data_path("vsite/tip4p/step0_rf.mdp") + " -o " + dir +
                            "/c";
    EXPECT_EQ(run_command(cmd, &log), 2) << log;
    EXPECT_NE(log.find(top + ":17: atom 4 is a virtual site and in a "), std::string::npos) << log;
  }
}

// [ virtual_sitesn ] (tests/make_vsiten_refdata.sh: three sites on each of martini's chains, the centres of
// geometry, mass and weights, with LJ and a charge): gmx_d's 40-step NVE path on one domain and on three.
void expect_vsiten_path_like_gromacs(const std::string& args) {
  std::vector<RowColumn> columns =
      relative_columns({"lj_sr", "coulomb_sr", "potential", "total"}, kPcouplPathRelTol);
  columns.push_back({"pressure", kPressureAbsTol, false});
  expect_run_like_gromacs("vsiten", "nve.mdp", "--threads 2 " + args, "vsiten/reference.txt", columns);
}

TEST(VsiteN, NvePathMatchesGromacs) { expect_vsiten_path_like_gromacs(""); }

// Sites are built by kind, as GROMACS builds them (vsite2, vsite3, vsite3out, vsiten): a [ virtual_sitesn ]
// site built from a [ virtual_sites3 ] site that the file lists later still finds it placed.
TEST(VsiteN, SitesAreBuiltByKindAsGromacsBuildsThem) {
  const std::string dir = make_temp_dir("vsiten_order");
  const std::string top =
      "[ defaults ]\n1 2 no 1 1\n[ atomtypes ]\nC 12.0 0 A 0.3 0.5\nV 0 0 V 0 0\n[ moleculetype ]\nM 1\n"
      "[ atoms ]\n1 C 1 M A 1 0\n2 C 1 M B 1 0\n3 C 1 M C 1 0\n4 V 1 M D 1 0 0\n5 V 1 M E 1 0 0\n"
      "[ virtual_sitesn ]\n5 1 1 4\n[ virtual_sites3 ]\n4 1 2 3 1 0.3 0.3\n"
      "[ system ]\nx\n[ molecules ]\nM 2\n";
  const Topology t = io::read_top(write_top(dir, "order.top", top));
  ASSERT_EQ(t.vsites.size(), 4U);
  EXPECT_EQ(t.vsites[0].kind, VsiteKind::Three);
  EXPECT_EQ(t.vsites[1].kind, VsiteKind::N);
  EXPECT_EQ(t.vsites[1].site, 4);
  EXPECT_EQ(t.vsite_where[1].substr(t.vsite_where[1].size() - 3), ":15");  // the n-site's line goes with it
  std::vector<Vec3> x = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {}, {}, {5, 5, 5}, {6, 5, 5}, {5, 6, 5}, {}, {}};
  construct_vsites(t.vsites, x, Box{{20.0, 20.0, 20.0}});
  EXPECT_NEAR(x[3].x, 0.3, 1e-12);
  EXPECT_NEAR(x[4].x, 0.15, 1e-12);  // the mean of atom 1 and site 4, once site 4 is placed
}

// On domains a site is in one update group with its atoms, which makes each chain one group ~1.9 nm across:
// too wide for domains of this 6 nm box, so the box is replicated 3x1x1 (halomd genconf) and 3 domains of it
// follow its one-domain run.
TEST(VsiteN, DomainsFollowOneDomain) {
  const std::string dir = make_temp_dir("vsiten_dd");
  std::string log;
  ASSERT_EQ(
      run_command(std::string(HALOMD_BIN) + " genconf -c " + data_path("vsiten/conf.gro") + " -p " +
                      data_path("vsiten/topol.top") + " --nbox 3 1 1 -o " + dir + "/conf && mv " + dir +
                      "/conf.top " + dir + "/topol.top && cp " + data_path("vsiten/nve.mdp") + " " + dir,
                  &log),
      0)
      << log;
  const std::map<std::string, std::string> set = {{"nsteps", "20"}};
  ASSERT_EQ(run_halomd(dir, "nve.mdp", set, dir + "/one", "--threads 2", &log), 0) << log;
  ASSERT_EQ(run_halomd(dir, "nve.mdp", set, dir + "/three", "--threads 2 --dd 3 1 1", &log), 0) << log;
  auto one = read_csv(dir + "/one/energy.csv"), three = read_csv(dir + "/three/energy.csv");
  ASSERT_EQ(one["step"].size(), 21U);
  ASSERT_EQ(three["step"].size(), 21U);
  for (const char* col : {"lj_sr", "coulomb_sr", "potential", "total"})
    for (size_t k = 0; k < one[col].size(); ++k)
      EXPECT_NEAR(three[col][k], one[col][k], kDdCsvEnergyRelTol * std::fabs(one[col][k]))
          << col << " row " << k;
}

}  // namespace
}  // namespace halomd::test
