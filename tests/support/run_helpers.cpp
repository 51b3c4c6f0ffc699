#include "support/run_helpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "io/checkpoint.h"
#include "io/gro.h"
#include "io/top.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

std::string normalise_key(std::string k) {
  std::string out;
  for (char c : k) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

void write_mdp_with(const std::string& src, const std::string& dst,
                    const std::map<std::string, std::string>& set) {
  std::ifstream in(src);
  std::ofstream out(dst);
  std::map<std::string, std::string> pending;
  for (const auto& [k, v] : set) pending[normalise_key(k)] = v;
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos && line.find(';') > eq) {
      const std::string key = normalise_key(line.substr(0, eq));
      auto it = pending.find(key);
      if (it != pending.end()) {
        out << key << " = " << it->second << "\n";
        pending.erase(it);
        continue;
      }
    }
    out << line << "\n";
  }
  for (const auto& [k, v] : pending) out << k << " = " << v << "\n";
}

int run_halomd(const std::string& system, const std::string& mdp,
               const std::map<std::string, std::string>& set, const std::string& outdir,
               const std::string& extra_args, std::string* output) {
  return run_halomd_under("", system, mdp, set, outdir, extra_args, output);
}

int run_halomd_under(const std::string& launcher, const std::string& system, const std::string& mdp,
                     const std::map<std::string, std::string>& set, const std::string& outdir,
                     const std::string& extra_args, std::string* output) {
  const std::string dir = data_path(system);
  const std::string mdp_out = outdir + ".mdp";
  write_mdp_with(dir + "/" + mdp, mdp_out, set);
  const std::string cmd = launcher + std::string(HALOMD_BIN) + " run -c " + dir + "/conf.gro -p " + dir +
                          "/topol.top -f " + mdp_out + " -o " + outdir + " " + extra_args;
  return run_command(cmd, output);
}

Vec3 com_velocity(const std::string& confout, const std::string& system, int first, int last) {
  const io::GroFile gro = io::read_gro(confout);
  const Topology top = io::read_top(data_path(system) + "/topol.top");
  EXPECT_EQ(gro.v.size(), static_cast<size_t>(top.num_atoms())) << confout << " has no velocities?";
  Vec3 p{};
  double m = 0.0;
  for (int a = first; a < last && a < static_cast<int>(gro.v.size()); ++a) {
    p += gro.v[a] * top.mass[a];
    m += top.mass[a];
  }
  return m > 0.0 ? p * (1.0 / m) : Vec3{};
}

void expect_comm_groups_at_rest(const std::string& confout, bool rest, const std::string& cpu_out,
                                const std::string& mdp) {
  const char* const sys = "bonded/solvated";
  const Vec3 protein = com_velocity(confout, sys, 0, 132), water = com_velocity(confout, sys, 132, 1 << 30);
  EXPECT_LT(std::sqrt(norm2(protein)), 1e-4) << protein.x << " " << protein.y << " " << protein.z;
  if (!rest) {
    EXPECT_LT(std::sqrt(norm2(water)), 1e-4) << water.x << " " << water.y << " " << water.z;
    return;
  }
  std::string log;
  ASSERT_EQ(run_halomd(sys, mdp, {}, cpu_out, "--threads 2", &log), 0) << log;
  const Vec3 cpu = com_velocity(cpu_out + "/confout.gro", sys, 132, 1 << 30);
  EXPECT_GT(std::sqrt(norm2(cpu)), 1e-3) << "the water should keep a drift";
  EXPECT_LT(std::sqrt(norm2(water - cpu)), 1e-4) << water.x << " " << water.y << " " << water.z;
}

void expect_comm_run_like_gromacs(const std::string& run_dir, const std::string& name, double energy_rel_tol,
                                  double t_rel_tol) {
  auto e = read_csv(run_dir + "/energy.csv");
  expect_tc_path_like_gromacs(
      e, "tcgroups/reference_" + std::string(name == "comm_groups" ? "comm" : "comm_rest") + ".txt",
      "t_Protein", "t_Non-Protein", energy_rel_tol, t_rel_tol);
  expect_comm_groups_at_rest(run_dir + "/confout.gro", name == "comm_rest", run_dir + "_cpu",
                             "../../tcgroups/" + name + ".mdp");
}

double linear_slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double a : v) s += a;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

double checkpoint_position_difference(const std::string& cpt_a, const std::string& cpt_b) {
  const io::Checkpoint a = io::read_checkpoint(cpt_a), b = io::read_checkpoint(cpt_b);
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.x.size(), b.x.size());
  double worst = 0.0;
  for (size_t i = 0; i < a.x.size() && i < b.x.size(); ++i)
    for (int d = 0; d < 3; ++d) worst = std::max(worst, std::fabs(a.x[i][d] - b.x[i][d]));
  return worst;
}

void expect_nve_like_gromacs(std::map<std::string, std::vector<double>>& e,
                             const std::map<std::string, double>& ref) {
  ASSERT_EQ(e["step"].size(), static_cast<size_t>(ref.at("nve_steps")) + 1);
  const double total_mean = mean(e["total"]);
  EXPECT_LT(std::fabs(total_mean - ref.at("nve_total_mean")) / std::fabs(ref.at("nve_total_mean")),
            kNveMeanRelTol)
      << total_mean << " vs " << ref.at("nve_total_mean");
  // Drift from step 10 on: the first constraint step absorbs the rounding of the 3-decimal .gro (a jump
  // GROMACS shows too, tests/data/README.md), which is no drift.
  const std::vector<double> t(e["time_ps"].begin() + 10, e["time_ps"].end());
  const std::vector<double> tot(e["total"].begin() + 10, e["total"].end());
  const double drift = linear_slope(t, tot);
  const double gmx_drift = ref.at("nve_total_drift_per_ps_from_step10");
  const double allowed =
      std::max(kDriftFactor * std::fabs(gmx_drift), kDriftRelPerPs * std::fabs(total_mean));
  EXPECT_LT(std::fabs(drift), allowed) << "drift " << drift << " kJ/mol/ps, GROMACS " << gmx_drift;
}

std::string expect_threads_and_continuation_change_no_bit(const std::string& system, const std::string& mdp,
                                                          const std::map<std::string, std::string>& set,
                                                          int stop_at, const std::vector<std::string>& files,
                                                          const std::string& args) {
  const std::string out = make_temp_dir("bits");
  std::string log;
  EXPECT_EQ(run_halomd(system, mdp, set, out + "/one", args + " --threads 1", &log), 0) << log;
  EXPECT_EQ(run_halomd(system, mdp, set, out + "/three", args + " --threads 3", &log), 0) << log;
  EXPECT_NE(run_halomd(system, mdp, set, out + "/part",
                       args + " --threads 2 --stop-at-step " + std::to_string(stop_at), &log),
            0);
  EXPECT_EQ(run_halomd(system, mdp, set, out + "/part",
                       args + " --threads 2 --cpi " + out + "/part/state.cpt", &log),
            0)
      << log;
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const std::string one = read_text(out + "/one/" + file);
    EXPECT_FALSE(one.empty());
    EXPECT_EQ(one, read_text(out + "/three/" + file));
    EXPECT_EQ(one, read_text(out + "/part/" + file));
  }
  return out;
}

void expect_tc_path_like_gromacs(std::map<std::string, std::vector<double>>& e, const std::string& ref_file,
                                 const std::string& t1, const std::string& t2, double energy_rel_tol,
                                 double t_rel_tol, double t_abs) {
  expect_group_rows_like_gromacs(e, ref_file, t1, t2, energy_rel_tol, t_rel_tol, t_abs);
  if (::testing::Test::HasFatalFailure()) return;
  EXPECT_LT(e[t1].back() / e[t1].front(), e[t2].back() / e[t2].front());
}

void expect_group_rows_like_gromacs(std::map<std::string, std::vector<double>>& e,
                                    const std::string& ref_file, const std::string& t1, const std::string& t2,
                                    double energy_rel_tol, double t_rel_tol, double t_abs) {
  const std::vector<std::string> rows = read_rows(data_path(ref_file));
  for (const std::string& column : {std::string("step"), t1, t2})
    ASSERT_EQ(e[column].size(), rows.size()) << column;
  for (size_t k = 0; k < rows.size(); ++k) {
    std::istringstream w(rows[k]);
    double step, total, conserved, ta, tb;
    w >> step >> total >> conserved >> ta >> tb;
    SCOPED_TRACE(::testing::Message() << "step " << step);
    EXPECT_NEAR(e["total"][k], total, energy_rel_tol * std::fabs(total));
    EXPECT_NEAR(e["conserved"][k], conserved, energy_rel_tol * std::fabs(conserved));
    EXPECT_NEAR(e[t1][k], ta, t_rel_tol * ta + t_abs);
    EXPECT_NEAR(e[t2][k], tb, t_rel_tol * tb + t_abs);
  }
}

std::map<std::string, std::vector<std::vector<double>>> read_case_rows(const std::string& ref_file) {
  std::map<std::string, std::vector<std::vector<double>>> ref;
  for (const std::string& row : read_rows(data_path(ref_file))) {
    std::istringstream w(row);
    std::string name;
    w >> name;
    std::vector<double> v;
    for (double x = 0; w >> x;) v.push_back(x);
    ref[name].push_back(v);
  }
  return ref;
}

void expect_rows_like_gromacs(std::map<std::string, std::vector<double>>& e,
                              const std::vector<std::vector<double>>& rows,
                              const std::vector<RowColumn>& columns) {
  ASSERT_EQ(e["step"].size(), rows.size());
  for (size_t c = 0; c < columns.size() && !rows.empty() && c + 1 < rows[0].size(); ++c)
    ASSERT_EQ(e[columns[c].name].size(), rows.size()) << columns[c].name;
  for (size_t k = 0; k < rows.size(); ++k) {
    SCOPED_TRACE(::testing::Message() << "step " << rows[k][0]);
    for (size_t c = 0; c < columns.size() && c + 1 < rows[k].size(); ++c) {
      const double want = rows[k][c + 1];
      const double tol = columns[c].relative ? columns[c].tol * std::fabs(want) : columns[c].tol;
      EXPECT_NEAR(e[columns[c].name][k], want, tol) << columns[c].name;
    }
  }
}

std::vector<RowColumn> relative_columns(const std::vector<std::string>& names, double tol) {
  std::vector<RowColumn> out;
  for (const std::string& n : names) out.push_back({n, tol});
  return out;
}

std::map<std::string, std::vector<double>> expect_run_like_gromacs(const std::string& system,
                                                                   const std::string& mdp,
                                                                   const std::string& args,
                                                                   const std::string& ref_file,
                                                                   const std::vector<RowColumn>& columns) {
  std::string trace = system;  // appended: g++ 12 warns falsely (-Wrestrict) on the sum
  trace += " " + args;
  SCOPED_TRACE(trace);
  const std::string out = make_temp_dir("path");
  std::string log;
  if (run_halomd(system, mdp, {}, out + "/run", args, &log) != 0) {
    ADD_FAILURE() << log;
    return {};
  }
  auto e = read_csv(out + "/run/energy.csv");
  expect_rows_like_gromacs(e, read_number_rows(data_path(ref_file)), columns);
  return e;
}

void expect_density_like_gromacs(std::map<std::string, std::vector<double>>& e,
                                 const std::map<std::string, double>& ref) {
  std::vector<double> d;
  for (size_t k = 0; k < e["step"].size(); ++k)
    if (e["time_ps"][k] >= 5.0) d.push_back(e["density"][k]);
  ASSERT_GT(d.size(), 500u);
  const double m = mean(d);
  double var = 0.0;
  for (double x : d) var += (x - m) * (x - m);
  const double sd = std::sqrt(var / d.size());
  EXPECT_NEAR(m, ref.at("density_mean"), kDensityMeanAbsTol);
  EXPECT_GT(sd / ref.at("density_sd"), 1.0 / kDensitySdFactor);
  EXPECT_LT(sd / ref.at("density_sd"), kDensitySdFactor);
}

std::map<std::string, std::vector<std::vector<double>>> read_pcoupl_paths() {
  return read_case_rows("pcoupl/reference.txt");
}

}  // namespace halomd::test
