#include "engine/run_report.h"

#include <array>
#include <cstdio>
#include <fstream>

#include "cpu/pme.h"
#include "fmt/format.h"

namespace halomd {
namespace {

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

RunReport::RunReport(const RunOptions& options, const SimulationInputs& inputs, int atoms)
    : options_(options), inputs_(inputs), atoms_(atoms) {}

void RunReport::add_energy(const EnergyRow& r) {
  ++rows_;
  sum_.potential += r.potential;
  sum_.kinetic += r.kinetic;
  sum_.total += r.total;
  sum_.conserved += r.conserved;
  sum_.temperature += r.temperature;
  sum_.pressure += r.pressure;
  last_ = r;
}

void RunReport::finish(const RunSummary& s, const PhaseTimers& timers, const std::string& json_path,
                       const Executor& exec, const StepCounters& c) {
  const size_t num_pairs = exec.num_pairs();
  const MdParams& p = inputs_.mdp;
  std::string phases;
  double accounted = 0.0;
  for (int i = 0; i < static_cast<int>(Phase::Count); ++i) {
    const double sec = timers.seconds(static_cast<Phase>(i));
    accounted += sec;
    phases += fmt::format("{}\"{}\": {:.6f}", i ? ", " : "", kPhaseNames[i], sec);
  }
  phases += fmt::format(", \"other\": {:.6f}", std::max(0.0, s.wall_s - accounted));

  std::string json = "{\n";
  json += fmt::format("  \"version\": \"{}\",\n", HALOMD_VERSION);
  json += fmt::format("  \"command\": \"{}\",\n", json_escape(options_.command_line));
  json +=
      fmt::format("  \"backend\": \"{}\",\n  \"transport\": \"{}\",\n", options_.backend, exec.transport());
  json += fmt::format("  \"atoms\": {},\n  \"steps\": {},\n", atoms_, s.steps);
  json += fmt::format("  \"first_step\": {},\n  \"last_step\": {},\n", s.first_step, s.last_step);
  json += fmt::format("  \"threads\": {},\n", options_.threads);
  const std::string extra = exec.report_json();
  json += extra.empty() ? std::string("  \"domains\": 1,\n") : "  " + extra + ",\n";
  json += fmt::format("  \"wall_s\": {:.6f},\n  \"ns_per_day\": {:.6f},\n", s.wall_s, s.ns_per_day);
  json += fmt::format("  \"dt_ps\": {},\n  \"nstlist\": {},\n  \"rlist_nm\": {:.6f},\n", p.dt, p.nstlist,
                      p.rlist);
  json += fmt::format("  \"rlist_source\": \"{}\",\n", json_escape(inputs_.rlist_source));
  const char* coulomb_names[] = {"Reaction-Field", "Cut-off", "PME"};
  json += fmt::format("  \"coulombtype\": \"{}\",\n", coulomb_names[static_cast<int>(p.coulombtype)]);
  if (p.coulombtype == CoulombType::Pme) {
    const std::array<int, 3> g = pme_grid_size(inputs_.gro.box.len, p);
    json += fmt::format("  \"pme_grid\": [{}, {}, {}],\n", g[0], g[1], g[2]);
  } else {
    json += "  \"pme_grid\": null,\n";
  }
  json += fmt::format("  \"pairs_in_list\": {},\n  \"degrees_of_freedom\": {},\n", num_pairs, inputs_.ndf);
  if (inputs_.tc_ndf.size() > 1) {  // several tc-grps: each group's degrees of freedom
    json += "  \"tc_groups\": {";
    for (size_t g = 0; g < inputs_.tc_ndf.size(); ++g)
      json += fmt::format("{}\"{}\": {:.6f}", g ? ", " : "", json_escape(p.tc_grps[g]), inputs_.tc_ndf[g]);
    json += "},\n";
  }
  json += fmt::format("  \"phases\": {{{}}},\n", phases);
  const int64_t n = c.regular_steps;
  json += fmt::format("  \"regular_steps\": {},\n  \"ns_steps\": {},\n", n, c.ns_steps);
  json += fmt::format("  \"host_syncs_per_step\": {},\n", StepCounters::per(c.regular.host_syncs, n));
  json += fmt::format("  \"mpi_waits_per_step\": {},\n", StepCounters::per(c.regular.mpi_waits, n));
  json += fmt::format("  \"launches_per_step\": {},\n", StepCounters::per(c.regular.launches, n));
  json += fmt::format("  \"halo_bytes_per_step\": {},\n", StepCounters::per(c.regular.halo_bytes, n));
  json += fmt::format("  \"regular_step_us\": {:.3f},\n", n > 0 ? 1e6 * c.regular_s / n : 0.0);
  json += fmt::format("  \"ns_step_us\": {:.3f}\n}}\n", c.ns_steps > 0 ? 1e6 * c.ns_s / c.ns_steps : 0.0);
  {
    std::ofstream out(json_path + ".tmp");
    out << json;
  }
  std::rename((json_path + ".tmp").c_str(), json_path.c_str());

  std::printf("\n  Phase                  wall (s)      %%\n");
  for (int i = 0; i < static_cast<int>(Phase::Count); ++i) {
    const double sec = timers.seconds(static_cast<Phase>(i));
    std::printf("  %-20s %10.3f  %5.1f\n", std::string(kPhaseNames[i]).c_str(), sec,
                s.wall_s > 0 ? 100.0 * sec / s.wall_s : 0.0);
  }
  std::printf("  %-20s %10.3f  %5.1f\n", "other", std::max(0.0, s.wall_s - accounted),
              s.wall_s > 0 ? 100.0 * std::max(0.0, s.wall_s - accounted) / s.wall_s : 0.0);
  std::printf("  %-20s %10.3f\n", "total", s.wall_s);
  if (rows_ > 0) {
    const double n = rows_;
    std::printf(
        "\n  Averages over %d energy rows: potential %.4f, kinetic %.4f, total %.4f, conserved %.4f "
        "kJ/mol, T %.3f K, P %.3f bar\n",
        rows_, sum_.potential / n, sum_.kinetic / n, sum_.total / n, sum_.conserved / n, sum_.temperature / n,
        sum_.pressure / n);
    std::printf(
        "  Last step %lld: LJ (SR) %.4f, Coulomb (SR) %.4f, Coul. recip. %.4f, Disper. corr. %.4f, Potential "
        "%.4f kJ/mol\n",
        static_cast<long long>(last_.step), last_.lj_sr, last_.coulomb_sr, last_.coul_recip, last_.disp_corr,
        last_.potential);
  }
  std::printf("\n  %lld steps, %.3f s, %.3f ns/day (%d atoms, %d threads)\n", static_cast<long long>(s.steps),
              s.wall_s, s.ns_per_day, atoms_, options_.threads);
}

}  // namespace halomd
