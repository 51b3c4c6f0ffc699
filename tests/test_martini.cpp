// Martini-style coarse-grained topologies (tests/make_martini_refdata.sh): [ bonds ] 6 (harmonic, no
// exclusions: elastic networks) and [ angles ] 10 (restricted bending) beside bonds 1, G96 angles and proper
// dihedrals, reaction field with epsilon-r 15 and 20 fs steps: gmx_d's 40-step NVE path term by term on one
// domain and on three; a bond of type 6 makes no exclusion (the LJ and Coulomb terms would differ), and
// restricted bending's energy grows without bound toward a straight angle.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/topology.h"
#include "cpu/listed_term.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

void expect_nve_path_like_gromacs(const std::string& args) {
  std::vector<RowColumn> columns =
      relative_columns({"bond", "harmonic_pot", "g96angle", "restricted_angles", "proper_dih", "lj_sr",
                        "coulomb_sr", "potential", "total"},
                       kPcouplPathRelTol);
  columns.push_back({"pressure", kPressureAbsTol, false});
  expect_run_like_gromacs("martini", "nve.mdp", "--threads 2 " + args, "martini/reference.txt", columns);
}

TEST(Martini, NvePathMatchesGromacsTermByTerm) { expect_nve_path_like_gromacs(""); }

TEST(Martini, NvePathOnDomainsMatchesGromacs) { expect_nve_path_like_gromacs("--dd 3 1 1"); }

// V = 1/2 k (cos theta - cos theta0)^2 / sin^2 theta: its force is minus its gradient (finite differences),
// and it grows as the angle straightens where the G96 angle stays bounded.
TEST(Martini, RestrictedBendingForceIsMinusTheGradientAndItsEnergyDiverges) {
  BondedTerm t;
  t.kind = BondedKind::RestrictedAngle;
  t.atoms[0] = 0;
  t.atoms[1] = 1;
  t.atoms[2] = 2;
  t.p[0] = std::cos(130.0 * units::kPi / 180.0);
  t.p[1] = 25.0;
  Vec3 x[3] = {{0.31, 0.05, -0.02}, {0.0, 0.0, 0.0}, {-0.2, 0.4, 0.1}};
  auto energy = [&](const Vec3* pos, Vec3 f[5]) {
    double v = 0.0, vc = 0.0;
    listed_term(
        t, 1.0, [&](int i, int j) { return j < 0 ? pos[i] : pos[i] - pos[j]; }, f, v, vc);
    return v;
  };
  Vec3 f[5];
  const double v0 = energy(x, f);
  EXPECT_GT(v0, 0.0);
  constexpr double h = 1e-6;
  for (int a = 0; a < 3; ++a)
    for (int d = 0; d < 3; ++d) {
      Vec3 xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
      xp[a][d] += h;
      xm[a][d] -= h;
      Vec3 unused[5];
      const double grad = (energy(xp, unused) - energy(xm, unused)) / (2 * h);
      EXPECT_NEAR(f[a][d], -grad, 1e-6 * (1.0 + std::fabs(grad))) << "atom " << a << " dim " << d;
    }
  // Toward 180 degrees: 170, 179, 179.9.
  double last = 0.0;
  for (double deg : {170.0, 179.0, 179.9}) {
    const double th = deg * units::kPi / 180.0;
    Vec3 s[3] = {{0.47, 0, 0}, {0, 0, 0}, {0.47 * std::cos(th), 0.47 * std::sin(th), 0}};
    const double v = energy(s, f);
    EXPECT_GT(v, 10.0 * last) << deg;
    last = v;
  }
}

}  // namespace
}  // namespace halomd::test
