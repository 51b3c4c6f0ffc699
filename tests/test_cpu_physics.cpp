// Properties of the CPU reference's pieces: forces, SETTLE, dispersion correction, pair list.
#include <gtest/gtest.h>

#include <cmath>

#include "core/units.h"
#include "cpu/nonbonded.h"
#include "cpu/pairlist.h"
#include "cpu/settle.h"
#include "cpu/thermostat.h"
#include "cpu/update.h"
#include "engine/setup.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

SimulationInputs load(const std::string& sys, const std::string& mdp) {
  RunOptions opt;
  opt.conf = data_path(sys + "/conf.gro");
  opt.top = data_path(sys + "/topol.top");
  opt.mdp = data_path(sys + "/" + mdp);
  return load_inputs(opt);
}

struct Forces {
  std::vector<Vec3> f;
  NonbondedEnergies e;
};

Forces forces_of(const SimulationInputs& in, const std::vector<Vec3>& x, int threads, double rlist) {
  PairList list;
  build_pair_list(x, in.gro.box, rlist, in.top, threads, list);
  NonbondedCpu nb(in.top, in.mdp, threads);
  Forces out;
  out.f.resize(x.size());
  nb.compute(list, x, in.gro.box, true, 0, out.f, out.e);
  return out;
}

TEST(Nonbonded, NetForceVanishesAndThreadCountDoesNotChangeAnyBit) {
  const SimulationInputs in = load("spce_1k5", "nve.mdp");
  const Forces a = forces_of(in, in.gro.x, 1, in.mdp.rlist);
  const Forces b = forces_of(in, in.gro.x, 3, in.mdp.rlist);
  Vec3 net{};
  double sum2 = 0;
  for (size_t i = 0; i < a.f.size(); ++i) {
    net += a.f[i];
    sum2 += norm2(a.f[i]);
    ASSERT_EQ(a.f[i].x, b.f[i].x);
    ASSERT_EQ(a.f[i].y, b.f[i].y);
    ASSERT_EQ(a.f[i].z, b.f[i].z);
  }
  const double rms = std::sqrt(sum2 / a.f.size());
  EXPECT_LT(std::sqrt(norm2(net)), kNetForceRel * rms * a.f.size());
  EXPECT_EQ(a.e.lj, b.e.lj);
  EXPECT_EQ(a.e.coulomb, b.e.coulomb);
}

TEST(Nonbonded, EnergiesDoNotDependOnRlistOrOnTranslation) {
  const SimulationInputs in = load("spce_1k5", "nve.mdp");
  const Forces a = forces_of(in, in.gro.x, 2, in.mdp.rlist);
  const Forces b = forces_of(in, in.gro.x, 2, in.mdp.rlist + 0.1);
  EXPECT_EQ(a.e.lj, b.e.lj);
  EXPECT_EQ(a.e.coulomb, b.e.coulomb);
  std::vector<Vec3> shifted = in.gro.x;
  for (Vec3& p : shifted) p += Vec3{0.37, -1.21, 5.3};
  const Forces c = forces_of(in, shifted, 2, in.mdp.rlist);
  EXPECT_NEAR(c.e.lj, a.e.lj, kTranslationRelTol * std::fabs(a.e.lj));
  EXPECT_NEAR(c.e.coulomb, a.e.coulomb, kTranslationRelTol * std::fabs(a.e.coulomb));
}

TEST(Nonbonded, ForceIsMinusEnergyGradient) {
  const SimulationInputs in = load("spce_1k5", "nve.mdp");
  const Forces a = forces_of(in, in.gro.x, 2, in.mdp.rlist);
  // Central difference on a few atoms; h small against the smallest pair distance.
  const double h = 1e-6;
  for (int atom : {0, 1, 500, 1000}) {
    for (int d = 0; d < 3; ++d) {
      std::vector<Vec3> xp = in.gro.x, xm = in.gro.x;
      xp[atom][d] += h;
      xm[atom][d] -= h;
      const Forces fp = forces_of(in, xp, 2, in.mdp.rlist);
      const Forces fm = forces_of(in, xm, 2, in.mdp.rlist);
      const double grad = ((fp.e.lj + fp.e.coulomb) - (fm.e.lj + fm.e.coulomb)) / (2 * h);
      EXPECT_NEAR(-grad, a.f[atom][d], 1e-3 * std::max(1.0, std::fabs(a.f[atom][d])))
          << "atom " << atom << " dim " << d;
    }
  }
}

TEST(PairList, HoldsExactlyThePairsWithinRlist) {
  const SimulationInputs in = load("spce_1k5", "nve.mdp");
  PairList list;
  build_pair_list(in.gro.x, in.gro.box, in.mdp.rlist, in.top, 2, list);
  // Brute force over all pairs with the minimum image.
  size_t expected = 0;
  const auto& x = in.gro.x;
  const Box& box = in.gro.box;
  const int n = in.top.num_atoms();
  for (int i = 0; i < n; ++i) {
    std::vector<int> brute;
    for (int j = i + 1; j < n; ++j) {
      bool excluded = false;
      for (int k = in.top.excl_start[i]; k < in.top.excl_start[i + 1]; ++k) excluded |= in.top.excl[k] == j;
      double r2 = 0;
      for (int d = 0; d < 3; ++d) {
        const double dd = minimum_image(x[j][d] - x[i][d], box.len[d], 1.0 / box.len[d]);
        r2 += dd * dd;
      }
      if (!excluded && r2 < in.mdp.rlist * in.mdp.rlist) brute.push_back(j);
    }
    std::vector<int> got(list.j.begin() + list.start[i], list.j.begin() + list.start[i + 1]);
    ASSERT_EQ(got, brute) << "atom " << i;
    expected += brute.size();
  }
  EXPECT_EQ(list.num_pairs(), expected);
}

TEST(Settle, RestoresGeometryAndConservesMomentum) {
  const SimulationInputs in = load("spce_1k5", "nve.mdp");
  SettleCpu settle(in.top);
  const auto& x0 = in.gro.x;
  std::vector<Vec3> x1 = x0;
  std::vector<Vec3> v(x0.size());
  // A large unconstrained displacement, different for each atom.
  for (size_t i = 0; i < x1.size(); ++i)
    x1[i] += Vec3{0.01 * std::sin(1.3 * i), 0.01 * std::cos(0.7 * i), 0.01 * std::sin(2.1 * i + 1)};
  const std::vector<Vec3> unconstrained = x1;
  Tensor vir;
  ASSERT_EQ(settle.apply(x0, x1, &v, 0.002, &vir, 2), -1);
  for (const Settle& s : in.top.settles) {
    EXPECT_NEAR(std::sqrt(norm2(x1[s.h1] - x1[s.o])), s.d_oh, 1e-10);
    EXPECT_NEAR(std::sqrt(norm2(x1[s.h2] - x1[s.o])), s.d_oh, 1e-10);
    EXPECT_NEAR(std::sqrt(norm2(x1[s.h2] - x1[s.h1])), s.d_hh, 1e-10);
    // Constraint forces are internal: the molecule's mass-weighted displacement is unchanged.
    Vec3 dp{};
    for (int a : {s.o, s.h1, s.h2}) dp += (x1[a] - unconstrained[a]) * in.top.mass[a];
    EXPECT_LT(std::sqrt(norm2(dp)), 1e-12);
  }
}

TEST(Vrescale, ResampledKineticEnergyHasTheCanonicalMeanAndVariance) {
  // With tau = 0 the new kinetic energy is a canonical draw: mean ndf kT/2, variance ndf (kT)^2 / 2.
  const double ndf = 300.0, ref = 0.5 * ndf * 2.5;
  double s = 0, s2 = 0;
  const int n = 20000;
  for (int k = 0; k < n; ++k) {
    const double e = vrescale_resample_kinetic(ref, ref, ndf, 0.0, 11, k);
    s += e;
    s2 += e * e;
  }
  const double m = s / n, var = s2 / n - m * m;
  EXPECT_NEAR(m, ref, 4.0 * std::sqrt(ndf / 2.0) * 2.5 / std::sqrt(n));
  EXPECT_NEAR(var, ndf / 2.0 * 2.5 * 2.5, 0.05 * ndf / 2.0 * 2.5 * 2.5);
}

}  // namespace
}  // namespace halomd::test
