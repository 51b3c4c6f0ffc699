// Benchmark of the domain-decomposition plan (src/domdec): for a water box and several domain counts, the
// grid chosen, pulses per dimension, halo atoms and bytes per pulse and per step, and the time to build the
// plan. Built and run by bench/dd_plan.sh; prints a JSON array of records (../shared/BENCH.md) on stdout.
//
// Usage: dd_plan CONF.gro TOPOL.top [--rlist NM] [--domains 2,4,8,16] [--repeats N] [--window-steps N]
//   --window-steps: steps between neighbour searches used to move atoms (x + v * steps * dt) for the
//   migration count (default 10, dt 0.002 ps).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "domdec/assignment.h"
#include "domdec/halo_plan.h"
#include "domdec/migration.h"
#include "io/gro.h"
#include "io/top.h"

namespace {

using namespace halomd;
using namespace halomd::domdec;

constexpr double kBytesPerAtom = 3 * sizeof(double);  // x forward, or f back: 3 doubles

struct Options {
  std::string conf, top;
  double rlist = 1.1;
  std::vector<int> domains{2, 4, 8, 16};
  int repeats = 21;
  int window_steps = 10;
};

Options parse(int argc, char** argv) {
  Options o;
  std::string domains = "2,4,8,16";
  CLI::App app{"The DD halo plan's build time and halo sizes (bench/dd_plan.sh)", "dd_plan"};
  app.add_option("conf", o.conf, "coordinates (.gro)")->required();
  app.add_option("top", o.top, "topology (.top)")->required();
  app.add_option("--rlist", o.rlist, "pair-list radius, nm");
  app.add_option("--domains", domains, "domain counts, comma-separated");
  app.add_option("--repeats", o.repeats, "timed repeats per count");
  app.add_option("--window-steps", o.window_steps, "steps of free flight between searches");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  o.domains.clear();
  std::stringstream ss(domains);
  for (std::string item; std::getline(ss, item, ',');) o.domains.push_back(std::stoi(item));
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct MaxMean {
  double max = 0.0, sum = 0.0;
  int n = 0;
  void add(double v) { max = std::max(max, v), sum += v, ++n; }
  double mean() const { return n ? sum / n : 0.0; }
};

std::string json_list(const IVec3& v) {
  return "[" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + "]";
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string record(const Options& o, int num_domains, int atoms, const std::vector<Vec3>& x,
                   const std::vector<Vec3>& x_later, const std::vector<int>& molecule, const Box& box) {
  const std::vector<int> first = first_atoms(molecule);
  const double margin = molecule_margin(x, first) + kMarginSlack;
  const HaloRange range{o.rlist, margin};
  const DdGrid grid = choose_grid(num_domains, box, range);

  // The plan as an NS step builds it: first atoms (topology), margin, assignment, every pulse of every
  // domain.
  std::vector<double> times;
  DdPlan plan;
  for (int r = 0; r < o.repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    plan = build_plan(grid, box, x, molecule, o.rlist);
    times.push_back(ms_since(t0));
  }
  const double build_ms = median(times);

  // Migration one NS window later (x + v * window): how many atoms change domain, and its cost.
  std::vector<std::vector<int>> home;
  for (const DomainPlan& dp : plan.domains)
    home.emplace_back(dp.global.begin(), dp.global.begin() + dp.num_home);
  std::vector<double> mig_times;
  size_t migrating = 0;
  for (int r = 0; r < o.repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto leaving = plan_migration(grid, box, home, x_later, first);
    std::vector<std::vector<Vec3>> v_state(home.size());
    for (size_t d = 0; d < home.size(); ++d) v_state[d].resize(home[d].size());
    std::vector<std::vector<int>> new_home;
    carry_state(home, leaving, v_state, new_home);
    mig_times.push_back(ms_since(t0));
    migrating = 0;
    for (const auto& l : leaving) migrating += l.size();
  }

  // Per pulse (same index in every domain) and per domain per step.
  std::ostringstream pulses;
  const int np = plan.num_pulses();
  for (int k = 0; k < np; ++k) {
    MaxMean atoms_k;
    for (const DomainPlan& dp : plan.domains) atoms_k.add(static_cast<double>(dp.pulses[k].send.size()));
    const Pulse& p0 = plan.domains[0].pulses[k];
    pulses << (k ? ", " : "") << "{\"dim\": \""
           << "xyz"[p0.dim] << "\", \"pulse\": " << p0.pulse << ", \"atoms_max\": " << num(atoms_k.max)
           << ", \"atoms_mean\": " << num(atoms_k.mean())
           << ", \"x_bytes_max\": " << num(atoms_k.max * kBytesPerAtom)
           << ", \"x_bytes_mean\": " << num(atoms_k.mean() * kBytesPerAtom)
           << ", \"f_bytes_max\": " << num(atoms_k.max * kBytesPerAtom) << "}";
  }
  MaxMean halo, sent, home_atoms;
  for (const DomainPlan& dp : plan.domains) {
    halo.add(dp.num_local() - dp.num_home);
    home_atoms.add(dp.num_home);
    double s = 0;
    for (const Pulse& p : dp.pulses) s += static_cast<double>(p.send.size());
    sent.add(s);
  }
  std::ostringstream r;
  r << "{\"engine\": \"halomd\", \"version\": \"" << HALOMD_BENCH_VERSION << "\", \"backend\": \"cpu\", "
    << "\"transport\": \"local\", \"system\": \"spce_45k\", \"atoms\": " << atoms
    << ", \"gpus\": 0, \"ranks\": 1, "
    << "\"domains\": " << num_domains << ", \"dd\": " << json_list(grid.n)
    << ", \"rlist_nm\": " << num(o.rlist) << ", \"margin_nm\": " << num(margin)
    << ", \"send_range_nm\": " << num(range.send_range())
    << ", \"pulses_per_dim\": " << json_list(plan.pulses) << ", \"pulses_per_step\": " << np
    << ", \"halo_volume_fraction\": " << num(halo_volume_fraction(grid, box, range))
    << ", \"home_atoms_max\": " << num(home_atoms.max) << ", \"home_atoms_mean\": " << num(home_atoms.mean())
    << ", \"halo_atoms_per_domain_max\": " << num(halo.max) << ", \"halo_atoms_per_domain_mean\": "
    << num(halo.mean())
    // x forward and f back, per domain (a record reports the maximum over ranks: BENCH.md)
    << ", \"halo_bytes_per_step\": " << num(2 * sent.max * kBytesPerAtom)
    << ", \"halo_bytes_per_step_mean\": " << num(2 * sent.mean() * kBytesPerAtom)
    << ", \"halo_bytes_per_step_all_domains\": " << num(2 * sent.sum * kBytesPerAtom) << ", \"per_pulse\": ["
    << pulses.str() << "]"
    << ", \"plan_build_ms_median\": " << num(build_ms) << ", \"plan_build_repeats\": " << o.repeats
    << ", \"plan_build_ms_per_domain_estimate\": " << num(build_ms / num_domains)
    << ", \"migrating_atoms_after_window\": " << migrating << ", \"window_steps\": " << o.window_steps
    << ", \"migration_ms_median\": " << num(median(mig_times)) << "}";
  return r.str();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    const io::GroFile gro = io::read_gro(o.conf);
    const Topology top = io::read_top(o.top);
    io::check_topology_matches(top, o.top, gro, o.conf);
    std::vector<Vec3> later = gro.x;
    if (gro.has_velocities()) {
      const double t = o.window_steps * 0.002;  // ps
      for (size_t i = 0; i < later.size(); ++i) later[i] += t * gro.v[i];
    }
    std::printf("[\n");
    for (size_t k = 0; k < o.domains.size(); ++k) {
      std::printf("  %s%s\n",
                  record(o, o.domains[k], gro.num_atoms(), gro.x, later, top.molecule, gro.box).c_str(),
                  k + 1 < o.domains.size() ? "," : "");
    }
    std::printf("]\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dd_plan: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
