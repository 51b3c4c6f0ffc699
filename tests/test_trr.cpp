// traj.trr (nstxout, nstvout, nstfout): the frames GROMACS 2022 writes for the same .mdp (gmx_d run here,
// 10 steps of spce_1k5), with its x, v and forces at step 0; a continuation writes the file bit for bit;
// domains write the single domain's forces.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/box.h"
#include "io/checkpoint.h"
#include "io/trr.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

const std::map<std::string, std::string> kTrr = {
    {"nsteps", "10"}, {"nstxout", "4"}, {"nstvout", "6"}, {"nstfout", "5"}, {"nstenergy", "5"}};

// What a frame holds, as "x", "xv", "vf", ...
std::string parts(const io::TrrFrame& f) {
  return std::string(f.x.empty() ? "" : "x") + (f.v.empty() ? "" : "v") + (f.f.empty() ? "" : "f");
}

double rms(const std::vector<Vec3>& a) {
  double s = 0.0;
  for (const Vec3& p : a) s += norm2(p);
  return std::sqrt(s / a.size());
}

TEST(Trr, FramesPositionsVelocitiesAndForcesAreGromacss) {
  if (run_command("command -v gmx_d") != 0) GTEST_SKIP() << "gmx_d not installed";
  const std::string out = make_temp_dir("trr_gmx");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", kTrr, out + "/h", "--threads 2", &log), 0) << log;
  // GROMACS on the same .mdp (run_halomd wrote it beside the output folder).
  const std::string sys = data_path("spce_1k5");
  ASSERT_EQ(
      run_command("cd " + out + " && gmx_d grompp -f h.mdp -c " + sys + "/conf.gro -p " + sys +
                      "/topol.top -o g.tpr -maxwarn 0 && gmx_d mdrun -ntmpi 1 -ntomp 2 -pin off -s g.tpr "
                      "-deffnm g",
                  &log),
      0)
      << log;
  const std::vector<io::TrrFrame> h = io::read_trr(out + "/h/traj.trr");
  const std::vector<io::TrrFrame> g = io::read_trr(out + "/g.trr");
  ASSERT_EQ(h.size(), g.size());
  for (size_t k = 0; k < h.size(); ++k) {
    SCOPED_TRACE("frame " + std::to_string(k));
    EXPECT_EQ(h[k].step, g[k].step);
    EXPECT_EQ(parts(h[k]), parts(g[k]));
    EXPECT_NEAR(h[k].time_ps, g[k].time_ps, 1e-7);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(h[k].box.len[d], g[k].box.len[d], 1e-6);
  }
  ASSERT_EQ(parts(h[0]), "xvf");
  const Box box = h[0].box;
  // Step 0: the same positions (halomd shows molecules whole, GROMACS atoms in the box: equal modulo the
  // box) and velocities, written in float; and GROMACS's forces, within float rounding of both.
  for (size_t i = 0; i < h[0].x.size(); ++i)
    for (int d = 0; d < 3; ++d) {
      double dx = h[0].x[i][d] - g[0].x[i][d];
      dx -= box.len[d] * std::round(dx / box.len[d]);
      ASSERT_LT(std::fabs(dx), 1e-6) << "atom " << i;
      ASSERT_NEAR(h[0].v[i][d], g[0].v[i][d], 1e-6) << "atom " << i;
    }
  double err = 0.0;
  for (size_t i = 0; i < h[0].f.size(); ++i) err += norm2(h[0].f[i] - g[0].f[i]);
  err = std::sqrt(err / h[0].f.size());
  EXPECT_LT(err / rms(g[0].f), 1e-6) << "RMS force " << rms(g[0].f) << ", RMS difference " << err;
}

TEST(Trr, ContinuationWritesTheSameFileAndDomainsTheSameForces) {
  std::map<std::string, std::string> set = kTrr;
  set["nsteps"] = "40";
  set["nstcheckpoint"] = "20";
  set["rlist"] = "1.0";
  const std::string out = make_temp_dir("trr_restart");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/full", "", &log), 0) << log;
  EXPECT_NE(run_halomd("spce_1k5", "nve.mdp", set, out + "/part", "--stop-at-step 33", &log), 0);
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/part", "--cpi " + out + "/part/state.cpt", &log),
            0)
      << log;
  const std::string full = read_text(out + "/full/traj.trr");
  EXPECT_FALSE(full.empty());
  EXPECT_EQ(full, read_text(out + "/part/traj.trr"));

  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/dd", "--domains 4 --dd 2 2 1", &log), 0) << log;
  const std::vector<io::TrrFrame> one = io::read_trr(out + "/full/traj.trr");
  const std::vector<io::TrrFrame> dd = io::read_trr(out + "/dd/traj.trr");
  ASSERT_EQ(one.size(), dd.size());
  for (size_t k = 0; k < one.size(); ++k) {
    ASSERT_EQ(parts(one[k]), parts(dd[k]));
    if (one[k].f.empty()) continue;
    double err = 0.0;
    for (size_t i = 0; i < one[k].f.size(); ++i) err += norm2(one[k].f[i] - dd[k].f[i]);
    // Float output of forces that the decomposition changes by fixed-point roundings (and, after steps,
    // trajectories ~1e-10 nm apart): float rounding dominates.
    EXPECT_LT(std::sqrt(err / one[k].f.size()) / rms(one[k].f), 1e-6) << "frame " << k;
  }
}

TEST(Trr, GpuDomainsRefuseForcesNamingTheLine) {
  const std::string out = make_temp_dir("trr_refuse");
  std::string log;
  EXPECT_EQ(run_halomd("spce_1k5", "nve.mdp", kTrr, out + "/g", "--backend cuda --domains 2", &log), 2);
  EXPECT_NE(log.find("g.mdp:"), std::string::npos) << log;
  EXPECT_NE(log.find("nstfout (forces in traj.trr) is written with --backend cpu or on one GPU"),
            std::string::npos)
      << log;
}

}  // namespace
}  // namespace halomd::test
