// [ dihedral_restraints ] (GROMACS's dihres: 1/2 k (|phi - phi0| - dphi)^2 beyond the tolerance dphi, in
// degrees on the line, the force constant often a macro switched on by define, as CHARMM-GUI writes them):
// the solvated peptide with six restraints (tests/make_dihres_refdata.sh) follows gmx_d's 40-step NVE path
// term by term (Dih. Rest. included) on one domain and on two; inside the tolerance a restraint costs
// nothing; malformed entries are errors naming the line.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/topology.h"
#include "cpu/listed_term.h"
#include "io/top.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

void expect_path_like_gromacs(const std::string& args) {
  auto e = expect_run_like_gromacs(
      "dihres", "nve.mdp", "--threads 2 " + args, "dihres/reference.txt",
      relative_columns({"dih_rest", "proper_dih", "potential", "total"}, kPcouplPathRelTol));
  ASSERT_FALSE(e["dih_rest"].empty());
  EXPECT_GT(e["dih_rest"].front(), 100.0);  // the restraints act
}

TEST(DihedralRestraints, NvePathMatchesGromacs) { expect_path_like_gromacs(""); }

TEST(DihedralRestraints, NvePathOnDomainsMatchesGromacs) { expect_path_like_gromacs("--dd 2 1 1"); }

// Without the define the restraints are not there, and the terms are the peptide's own.
TEST(DihedralRestraints, LeftOutWithoutTheirDefine) {
  const std::string out = make_temp_dir("dihres_off");
  std::string log;
  ASSERT_EQ(run_halomd("dihres", "nve.mdp", {{"define", ""}, {"nsteps", "0"}}, out + "/run", "", &log), 0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  EXPECT_EQ(e.count("dih_rest"), 0U);
  const auto ref = read_number_rows(data_path("dihres/reference.txt"));
  EXPECT_NEAR(e["proper_dih"][0], ref[0][2], kPcouplPathRelTol * ref[0][2]);
  EXPECT_NEAR(e["potential"][0], ref[0][3] - ref[0][1], kPcouplPathRelTol * std::fabs(ref[0][3]));
}

// Flat within dphi of phi0 (energy and force zero), harmonic in the excess beyond, across the +-180 seam.
TEST(DihedralRestraints, FlatInsideTheToleranceHarmonicBeyondIt) {
  BondedTerm t;
  t.kind = BondedKind::DihRestraint;
  for (int k = 0; k < 4; ++k) t.atoms[k] = k;
  const double deg = units::kPi / 180.0;
  t.p[0] = 170.0 * deg;
  t.p[1] = 15.0 * deg;
  t.p[2] = 100.0;
  // phi of i-j-k-l with j, k on the x axis: i in the xy plane, l rotated by phi about x.
  auto energy = [&](double phi_deg, Vec3 f[5]) {
    const double phi = phi_deg * deg;
    const Vec3 x[4] = {{0, 1, 0}, {0, 0, 0}, {1, 0, 0}, {1, std::cos(phi), std::sin(phi)}};
    double v = 0.0, vc = 0.0;
    listed_term(
        t, 1.0, [&](int i, int j) { return j < 0 ? x[i] : x[i] - x[j]; }, f, v, vc);
    return v;
  };
  Vec3 f[5];
  for (double inside : {160.0, 170.0, 180.0, -176.0}) {  // -176 is 14 degrees from 170 across the seam
    EXPECT_EQ(energy(inside, f), 0.0) << inside;
    for (int k = 0; k < 4; ++k) EXPECT_EQ(norm2(f[k]), 0.0) << inside;
  }
  const double phi = std::atan2(std::sin(-165.0 * deg), std::cos(-165.0 * deg)) / deg;
  const double excess = (360.0 + phi - 170.0 - 15.0) * deg;  // 10 degrees beyond
  EXPECT_NEAR(energy(-165.0, f), 0.5 * 100.0 * excess * excess, 1e-9);
  EXPECT_NEAR(energy(140.0, f), 0.5 * 100.0 * (15.0 * deg) * (15.0 * deg), 1e-9);
  EXPECT_GT(norm2(f[0]), 0.0);
}

TEST(DihedralRestraints, MalformedEntriesNameTheLine) {
  const std::string dir = make_temp_dir("dihres_errors");
  const std::string head =
      "[ defaults ]\n1 2 yes 0.5 0.8333\n[ atomtypes ]\nCT 12.01 0.0 A 0.34 0.45\n[ moleculetype ]\nM 3\n"
      "[ atoms ]\n1 CT 1 R A 1 0\n2 CT 1 R B 2 0\n3 CT 1 R C 3 0\n4 CT 1 R D 4 0\n[ dihedral_restraints ]\n";
  const std::string tail = "[ system ]\nx\n[ molecules ]\nM 1\n";
  expect_top_errors(
      dir, head,
      {{"1 2 3 4 1 60 10\n", ":13: [ dihedral_restraints ]: a dihedral restraint needs phi dphi kfac"},
       {"1 2 3 4 1\n", ":13: [ dihedral_restraints ]: a dihedral restraint needs phi dphi kfac"}},
      tail);
  // Another function type is marked unsupported (a run refuses it, naming this line).
  const std::string path = write_top(dir, "type2.top", head + "1 2 3 4 2 60 10 100\n" + tail);
  const Topology top = io::read_top(path);
  EXPECT_NE(top.unsupported.find(path + ":13: [ dihedral_restraints ] function type 2"), std::string::npos)
      << top.unsupported;
}

}  // namespace
}  // namespace halomd::test
