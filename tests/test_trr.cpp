// traj.trr (nstxout, nstvout, nstfout): the frames GROMACS 2022 writes for the same .mdp (gmx_d run here,
// 10 steps of spce_1k5), with its x, v and forces at step 0; a continuation writes the file bit for bit;
// domains write the single domain's forces.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
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
  // Every array of the frames up to step 8 (x at 4 and 8, f at 5, v at 6), RMS-relative. Later the two
  // trajectories part: GROMACS's cluster list keeps a pair that halomd's exact-rlist list (built at step 0)
  // leaves out until its next search, which is within the buffer's tolerance but not float-exact.
  auto rms_difference = [&box](const std::vector<Vec3>& a, const std::vector<Vec3>& b, bool periodic) {
    double s = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
      for (int d = 0; d < 3; ++d) {
        double x = a[i][d] - b[i][d];
        if (periodic) x -= box.len[d] * std::round(x / box.len[d]);
        s += x * x;
      }
    return std::sqrt(s / a.size());
  };
  for (size_t k = 0; k < h.size() && h[k].step <= 8; ++k) {
    SCOPED_TRACE("step " + std::to_string(h[k].step));
    if (!h[k].x.empty()) EXPECT_LT(rms_difference(h[k].x, g[k].x, true), 1e-6);
    if (!h[k].v.empty()) EXPECT_LT(rms_difference(h[k].v, g[k].v, false) / rms(g[k].v), 1e-6);
    if (!h[k].f.empty()) EXPECT_LT(rms_difference(h[k].f, g[k].f, false) / rms(g[k].f), 1e-6);
  }
}

// Continuing in place with the trr off keeps the frames up to the checkpoint (and cuts those after it), and a
// later continuation with it on appends to them; a traj.trr the checkpoint does not know is not overwritten.
TEST(Trr, ContinuationsWithTheOutputOffKeepTheFramesAndAppendLater) {
  const std::string out = make_temp_dir("trr_offon");
  std::map<std::string, std::string> set = {{"nsteps", "20"}, {"nstxout", "4"}, {"nstenergy", "10"}};
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/run", "", &log), 0) << log;
  set["nsteps"] = "30";
  set["nstxout"] = "0";
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/run", "--cpi " + out + "/run/state.cpt", &log), 0)
      << log;
  set["nsteps"] = "40";
  set["nstxout"] = "4";
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/run", "--cpi " + out + "/run/state.cpt", &log), 0)
      << log;
  std::vector<int64_t> steps;
  for (const io::TrrFrame& f : io::read_trr(out + "/run/traj.trr")) steps.push_back(f.step);
  EXPECT_EQ(steps, (std::vector<int64_t>{0, 4, 8, 12, 16, 20, 32, 36, 40}));

  // A folder whose checkpoint was written without traj.trr, holding one all the same.
  set = {{"nsteps", "10"}, {"nstenergy", "10"}};
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/other", "", &log), 0) << log;
  const std::string foreign = read_text(out + "/run/traj.trr");
  {
    std::ofstream f(out + "/other/traj.trr", std::ios::binary);
    f << foreign;
  }
  set["nsteps"] = "20";
  set["nstxout"] = "4";
  EXPECT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/other", "--cpi " + out + "/other/state.cpt", &log),
            2);
  EXPECT_NE(log.find("traj.trr: exists, but the checkpoint records no size for it"), std::string::npos)
      << log;
  EXPECT_EQ(read_text(out + "/other/traj.trr"), foreign);
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
  // nstfout is the last line run_halomd adds to the copied .mdp.
  const std::string mdp = read_text(out + "/g.mdp");
  int line = 0, nstfout_line = 0;
  for (size_t at = 0; at < mdp.size(); at = mdp.find('\n', at) + 1) {
    ++line;
    if (mdp.compare(at, 7, "nstfout") == 0) nstfout_line = line;
    if (mdp.find('\n', at) == std::string::npos) break;
  }
  ASSERT_GT(nstfout_line, 0);
  EXPECT_NE(log.find("g.mdp:" + std::to_string(nstfout_line) + ": "), std::string::npos) << log;
  EXPECT_NE(log.find("nstfout (forces in traj.trr) is written with --backend cpu or on one GPU"),
            std::string::npos)
      << log;
}

}  // namespace
}  // namespace halomd::test
