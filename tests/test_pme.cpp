// coulombtype = PME on the CPU reference: step-0 energies, pressure and PME grid against GROMACS 2022 (gmx_d,
// tests/make_pme_refdata.sh) over grid spacings, explicit grids, B-spline orders 3-8, ewald-rtol, epsilon-r,
// coulomb-modifier and a rectangular box; forces and virial against finite differences of the energy; an NVE
// run against GROMACS's mean and drift; thread count and continuation leave every bit unchanged; domains
// follow the single-domain run (one GPU runs it: test_cuda_executor, test_cuda_run; GPU domains:
// test_cuda_dd_mpi).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <sstream>

#include "core/errors.h"
#include "core/units.h"
#include "cpu/pme.h"
#include "io/checkpoint.h"
#include "io/gro.h"
#include "io/mdp.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

struct Case {
  std::string name, system;
  int grid[3] = {};
  double lj_sr = 0, coulomb_sr = 0, coul_recip = 0, potential = 0, pressure = 0;
  std::string dir() const { return system == "rect" ? "pme/rect" : system; }
  std::string mdp() const { return (system == "rect" ? "../" : "../pme/") + name + ".mdp"; }
};

std::vector<Case> read_cases() {
  std::vector<Case> cases;
  for (const std::string& row : read_rows(data_path("pme/reference.txt"))) {
    std::istringstream words(row);
    Case c;
    words >> c.name >> c.system >> c.grid[0] >> c.grid[1] >> c.grid[2] >> c.lj_sr >> c.coulomb_sr >>
        c.coul_recip >> c.potential >> c.pressure;
    cases.push_back(c);
  }
  return cases;
}

double rel_diff(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

TEST(Pme, GridIsTheOneGromppChooses) {
  const std::vector<Case> cases = read_cases();
  ASSERT_EQ(cases.size(), 7u);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const MdParams mdp = io::read_mdp(data_path("pme/" + c.name + ".mdp"));
    const io::GroFile gro = io::read_gro(data_path(c.dir() + "/conf.gro"));
    const std::array<int, 3> n = pme_grid_size(gro.box.len, mdp);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(n[d], c.grid[d]) << "dimension " << d;
  }
  // calcFftGrid's own examples at 0.12 nm: lengths 3, 4, 5, 6, 7, 9, 10, 12 nm give these sizes, and the
  // 2 (order - 1) minimum lifts a 0.5 nm box.
  MdParams mdp;
  const double lengths[] = {3, 4, 5, 6, 7, 9, 10, 12};
  const int sizes[] = {25, 36, 42, 52, 60, 80, 84, 100};
  for (size_t k = 0; k < std::size(lengths); ++k)
    EXPECT_EQ(pme_grid_size({lengths[k], lengths[k], lengths[k]}, mdp)[0], sizes[k]) << lengths[k];
  mdp.pme_order = 8;
  EXPECT_EQ(pme_grid_size({0.5, 0.5, 0.5}, mdp)[0], 14);
}

TEST(Pme, Step0EnergiesAndPressureMatchGromacs) {
  for (const Case& c : read_cases()) {
    SCOPED_TRACE(c.name);
    const std::string out = make_temp_dir("pme_" + c.name);
    std::string log;
    ASSERT_EQ(run_halomd(c.dir(), c.mdp(), {}, out + "/run", "--threads 2", &log), 0) << log;
    auto e = read_csv(out + "/run/energy.csv");
    ASSERT_EQ(e["step"].size(), 1u);
    const std::string grid = fmt::format("\"pme_grid\": [{}, {}, {}]", c.grid[0], c.grid[1], c.grid[2]);
    EXPECT_NE(read_text(out + "/run/run.json").find(grid), std::string::npos) << grid;
    const std::pair<const char*, double> terms[] = {{"lj_sr", c.lj_sr},
                                                    {"coulomb_sr", c.coulomb_sr},
                                                    {"coul_recip", c.coul_recip},
                                                    {"potential", c.potential}};
    for (const auto& [term, ref] : terms)
      EXPECT_NEAR(e[term][0], ref, kPmeEnergyRelTol * std::fabs(ref) + kPrintedEnergyAbsTol) << term;
    EXPECT_NEAR(e["pressure"][0], c.pressure, kPressureAbsTol);
  }
}

TEST(Pme, EwaldCoefficientGivesTheTolerance) {
  for (double rc : {0.9, 1.0, 1.2})
    for (double rtol : {1e-4, 1e-5, 1e-6}) {
      const double beta = ewald_coefficient(rc, rtol);
      EXPECT_NEAR(std::erfc(beta * rc) / rtol, 1.0, 1e-9) << rc << " " << rtol;
    }
}

TEST(Pme, BsplineWeightsAreTheCardinalBsplines) {
  // M_n by its definition (Essmann eq. 4.1), straight from the recursion.
  std::function<double(int, double)> m = [&](int n, double u) -> double {
    if (n == 2) return (u < 0 || u > 2) ? 0.0 : 1.0 - std::fabs(u - 1.0);
    return (u * m(n - 1, u) + (n - u) * m(n - 1, u - 1.0)) / (n - 1);
  };
  for (int order = 3; order <= 8; ++order)
    for (double w : {0.0, 0.137, 0.5, 0.999}) {
      std::vector<double> theta(order), dtheta(order), tp(order), dp(order), tm(order), dm(order);
      bspline_weights(w, order, theta.data(), dtheta.data());
      const double h = 1e-6;
      bspline_weights(std::min(w + h, 1.0 - 1e-12), order, tp.data(), dp.data());
      bspline_weights(std::max(w - h, 0.0), order, tm.data(), dm.data());
      const double span = std::min(w + h, 1.0 - 1e-12) - std::max(w - h, 0.0);
      double sum = 0.0;
      for (int j = 0; j < order; ++j) {
        SCOPED_TRACE(::testing::Message() << "order " << order << " w " << w << " j " << j);
        EXPECT_NEAR(theta[j], m(order, w + order - 1 - j), 1e-14);
        EXPECT_NEAR(dtheta[j], (tp[j] - tm[j]) / span, 1e-5);  // one-sided at w = 0
        sum += theta[j];
      }
      EXPECT_NEAR(sum, 1.0, 1e-14);
    }
}

// A neutral random set of charges in a rectangular box, for finite differences.
struct Charges {
  Box box{{2.1, 2.4, 2.7}};
  std::vector<Vec3> x;
  std::vector<double> q;
};

Charges random_charges(int n) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 3.0), uq(-1.0, 1.0);
  Charges c;
  double total = 0.0;
  for (int i = 0; i < n; ++i) {
    c.x.push_back({u(rng), u(rng), u(rng)});  // unwrapped: several box images
    c.q.push_back(uq(rng));
    total += c.q.back();
  }
  for (double& q : c.q) q -= total / n;
  return c;
}

MdParams pme_params(int order) {
  MdParams mdp;
  mdp.coulombtype = CoulombType::Pme;
  mdp.rcoulomb = mdp.rvdw = 0.9;
  mdp.pme_order = order;
  mdp.fourier_spacing = 0.15;
  return mdp;
}

double mesh_energy(const MdParams& mdp, const Box& box, const std::vector<Vec3>& x,
                   const std::vector<double>& q) {
  PmeCpu pme(mdp, box, q, 1);
  std::vector<Vec3> f(x.size());
  PmeEnergies e;
  pme.compute(x, true, f, e);
  return e.energy;
}

TEST(Pme, ForcesAreMinusTheEnergyGradient) {
  const Charges c = random_charges(40);
  for (int order : {4, 5}) {
    SCOPED_TRACE(order);
    const MdParams mdp = pme_params(order);
    PmeCpu pme(mdp, c.box, c.q, 2);
    std::vector<Vec3> f(c.x.size());
    PmeEnergies e;
    pme.compute(c.x, true, f, e);
    double rms = 0.0;
    for (const Vec3& fi : f) rms += dot(fi, fi);
    rms = std::sqrt(rms / f.size());
    const double h = 1e-5;
    for (int i : {0, 7, 23, 39})
      for (int d = 0; d < 3; ++d) {
        std::vector<Vec3> xp = c.x, xm = c.x;
        xp[i][d] += h;
        xm[i][d] -= h;
        const double fd = -(mesh_energy(mdp, c.box, xp, c.q) - mesh_energy(mdp, c.box, xm, c.q)) / (2 * h);
        EXPECT_NEAR(f[i][d], fd, 1e-6 * rms) << "atom " << i << " dimension " << d;
      }
  }
}

TEST(Pme, APositionThatIsNotFiniteStopsNamingStepAndAtom) {
  Charges c = random_charges(40);
  c.x[17].y = std::nan("");
  PmeCpu pme(pme_params(4), c.box, c.q, 2);
  std::vector<Vec3> f(c.x.size());
  PmeEnergies e;
  try {
    pme.compute(c.x, true, f, e, 12);
    FAIL() << "no error";
  } catch (const RuntimeError& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("step 12"), std::string::npos) << what;
    EXPECT_NE(what.find("atom 18"), std::string::npos) << what;  // messages count atoms from 1
  }
}

TEST(Pme, VirialIsHalfTheEnergysStrainDerivative) {
  // Scaling box and positions by (1 + s) along a at a fixed grid: Xi_aa = 1/2 dE/ds.
  const Charges c = random_charges(40);
  const MdParams mdp = pme_params(4);
  PmeCpu pme(mdp, c.box, c.q, 1);
  std::vector<Vec3> f(c.x.size());
  PmeEnergies e;
  pme.compute(c.x, true, f, e);
  MdParams fixed = mdp;
  for (int d = 0; d < 3; ++d) fixed.fourier_n[d] = pme.grid()[d];
  const double h = 1e-6;
  for (int a = 0; a < 3; ++a) {
    double energy[2];
    for (int k = 0; k < 2; ++k) {
      const double s = k == 0 ? h : -h;
      Box box = c.box;
      box.len[a] *= 1 + s;
      std::vector<Vec3> x = c.x;
      for (Vec3& xi : x) xi[a] *= 1 + s;
      energy[k] = mesh_energy(fixed, box, x, c.q);
    }
    EXPECT_NEAR(e.virial.m[a][a], 0.5 * (energy[0] - energy[1]) / (2 * h), 1e-6 * std::fabs(e.energy))
        << "component " << a;
  }
}

// The mesh part against the Ewald sum itself, E = f/(2 pi V) sum_{m != 0} exp(-pi^2 m^2/beta^2)/m^2 |S(m)|^2,
// and its virial -1/2 sum_m E_m (delta - 2 (1 + pi^2 m^2/beta^2) m (x) m / m^2), all nine components, on odd
// grids (~0.08 nm, order 6), where SPME's interpolation error is ~4e-6 of the energy for these random
// charges: 1e-5 of the energy allows it, while a wrong sign, weight or component is O(1).
TEST(Pme, MeshMatchesTheEwaldSumOnOddGrids) {
  const Charges c = random_charges(30);
  MdParams mdp = pme_params(6);
  mdp.fourier_n[0] = 27;
  mdp.fourier_n[1] = 31;
  mdp.fourier_n[2] = 35;
  PmeCpu pme(mdp, c.box, c.q, 2);
  std::vector<Vec3> f(c.x.size());
  PmeEnergies e;
  pme.compute(c.x, true, f, e);

  const double pi = std::numbers::pi, beta = pme.beta(), volume = c.box.volume();
  const double epsfac = units::kCoulomb / mdp.epsilon_r;
  double energy = 0.0;
  double w[3][3] = {};
  const int kmax[3] = {18, 20, 22};  // exp(-pi^2 m^2 / beta^2) < 1e-16 beyond
  for (int kx = -kmax[0]; kx <= kmax[0]; ++kx)
    for (int ky = -kmax[1]; ky <= kmax[1]; ++ky)
      for (int kz = -kmax[2]; kz <= kmax[2]; ++kz) {
        if (kx == 0 && ky == 0 && kz == 0) continue;
        const double m[3] = {kx / c.box.len.x, ky / c.box.len.y, kz / c.box.len.z};
        const double m2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
        double re = 0.0, im = 0.0;
        for (size_t i = 0; i < c.x.size(); ++i) {
          const double arg = 2 * pi * (m[0] * c.x[i].x + m[1] * c.x[i].y + m[2] * c.x[i].z);
          re += c.q[i] * std::cos(arg);
          im += c.q[i] * std::sin(arg);
        }
        const double em =
            epsfac / (2 * pi * volume) * std::exp(-pi * pi * m2 / (beta * beta)) / m2 * (re * re + im * im);
        energy += em;
        const double vf = 2 * (1 + pi * pi * m2 / (beta * beta)) / m2;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) w[a][b] += -0.5 * em * ((a == b ? 1.0 : 0.0) - vf * m[a] * m[b]);
      }
  EXPECT_NEAR(e.energy, energy, 1e-5 * std::fabs(energy));
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) EXPECT_NEAR(e.virial.m[a][b], w[a][b], 1e-5 * std::fabs(energy)) << a << b;
}

TEST(Pme, NveRunMatchesGromacsMeanAndDrift) {
  const auto ref = read_reference(data_path("pme/nve_reference.txt"));
  const std::string out = make_temp_dir("pme_nve");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "../pme/nve.mdp", {}, out + "/run", "--threads 2", &log), 0) << log;
  auto e = read_csv(out + "/run/energy.csv");
  expect_nve_like_gromacs(e, ref);
}

TEST(Pme, ThreadCountAndContinuationChangeNoBit) {
  const std::map<std::string, std::string> set = {{"nsteps", "60"},
                                                  {"nstenergy", "5"},
                                                  {"nstcalcenergy", "5"},
                                                  {"nstxout-compressed", "10"},
                                                  {"nstcheckpoint", "30"}};
  const std::string out = expect_threads_and_continuation_change_no_bit(
      "spce_1k5", "../pme/nve.mdp", set, 45, {"energy.csv", "traj.xtc", "confout.gro"});
  // The mesh part is there: a run with reaction field gives other energies.
  auto e = read_csv(out + "/one/energy.csv");
  EXPECT_GT(e["coul_recip"][0], 10.0);
}

// Domains compute the mesh part from all positions (every rank the whole of it): step-0 energies as one
// domain's (the mesh part bit for bit, the pairs within the reduction-order tolerance) and positions after
// 60 steps within the decomposition's tolerance, on 4 domains with one pulse and on 8 with two pulses in x.
TEST(Pme, DomainsFollowTheSingleDomainRun) {
  const std::map<std::string, std::string> set = {{"rlist", "1.0"},
                                                  {"nsteps", "60"},
                                                  {"nstenergy", "30"},
                                                  {"nstcalcenergy", "30"},
                                                  {"nstcheckpoint", "60"}};
  const std::string out = make_temp_dir("pme_dd");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "../pme/nve.mdp", set, out + "/one", "--threads 2", &log), 0) << log;
  auto one = read_csv(out + "/one/energy.csv");
  for (const char* grid : {"2 2 1", "4 2 1"}) {
    SCOPED_TRACE(grid);
    const std::string dir = out + "/dd" + std::string(grid).substr(0, 1);
    const std::string domains = std::string(grid)[0] == '2' ? "4" : "8";
    ASSERT_EQ(run_halomd("spce_1k5", "../pme/nve.mdp", set, dir,
                         "--threads 2 --domains " + domains + " --dd " + grid, &log),
              0)
        << log;
    auto dd = read_csv(dir + "/energy.csv");
    ASSERT_EQ(dd["step"].size(), one["step"].size());
    EXPECT_EQ(dd["coul_recip"][0], one["coul_recip"][0]);
    // Later the positions differ by the reduction order's roundings only (~1e-12 nm).
    for (size_t k = 1; k < dd["step"].size(); ++k)
      EXPECT_LT(rel_diff(dd["coul_recip"][k], one["coul_recip"][k]), kDdCsvEnergyRelTol) << "row " << k;
    for (const char* term : {"lj_sr", "coulomb_sr", "potential", "pressure"})
      EXPECT_LT(rel_diff(dd[term][0], one[term][0]), kDdCsvEnergyRelTol) << term;
    EXPECT_LT(checkpoint_position_difference(out + "/one/state.cpt", dir + "/state.cpt"), kDdPositionTol);
  }
}

}  // namespace
}  // namespace halomd::test
