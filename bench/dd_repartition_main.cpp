// Benchmark of a repartition's host work, part by part, as the GPU domains do it (cuda_dd_executor.cpp
// partition: departures, migration, new home set, margin, frame, plan, local topology), for all domains of a
// grid in one process over the local transport: a profile target for that work on a machine without a GPU.
// Atoms are moved by v * window * dt from the .gro, then every repeat partitions the same moved state again
// from the assignment of the unmoved one. Prints one JSON object: the mean time per domain of each part (us).
//
// Usage: dd_repartition CONF.gro TOPOL.top [--rlist NM] [--skin NM] [--domains N] [--repeats N]
//   [--window-steps N] [--threads N] [--heap-reserve-mb N [--huge-pages]] [--direct]   (defaults:
//   rlist 1.094, skin 0.45: the plan range rlist + 2 skin of the GPU domains; 4 domains; 50 repeats; 10 steps
//   of 0.002 ps: atoms moved in straight lines tear rigid waters apart over longer windows)
// HALOMD_BENCH_COLD=1: every repeat starts with the caches flushed (a 256 MB buffer written), as a
//   repartition inside a run finds its data after a window of steps; HALOMD_BENCH_FRESH_PAGES=1: glibc's
//   default malloc (fresh pages for large blocks) instead of halomd's options.
// Build (a CPU build in build/release): g++ -O2 -std=c++20 -fopenmp -I src bench/dd_repartition_main.cpp
//   build/release/libhalomd_{cpu,comm,domdec,io}.a -lfmt -o dd_repartition
// The box: `halomd genconf -c bench/systems/spce_5k6/conf.gro -p bench/systems/spce_5k6/topol.top
//   --nbox 2 2 2 -o spce_45k` (bench/dd_plan.sh makes it the same way).
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm/halo_transport.h"
#include "comm/plan_build.h"
#include "core/heap.h"
#include "cpu/dd_domain.h"
#include "domdec/assignment.h"
#include "domdec/grid.h"
#include "io/gro.h"
#include "io/top.h"

namespace {

using namespace halomd;

struct Options {
  std::string conf, top;
  double rlist = 1.094, skin = 0.45;
  int domains = 4, repeats = 50, window_steps = 10, threads = 1, heap_reserve_mb = 0;
  bool huge_pages = false;
  bool direct = false;
};

Options parse(int argc, char** argv) {
  Options o;
  CLI::App app{"A repartition's host parts, timed (bench/host_repartition.sh)", "dd_repartition"};
  app.add_option("conf", o.conf, "coordinates (.gro)")->required();
  app.add_option("top", o.top, "topology (.top)")->required();
  app.add_option("--rlist", o.rlist, "pair-list radius, nm");
  app.add_option("--skin", o.skin, "DD skin, nm");
  app.add_option("--domains", o.domains, "domains");
  app.add_option("--repeats", o.repeats, "timed repeats");
  app.add_option("--window-steps", o.window_steps, "steps of free flight between searches");
  app.add_option("--heap-reserve-mb", o.heap_reserve_mb, "heap faulted in at start (HALOMD_HEAP_RESERVE_MB)");
  app.add_flag("--huge-pages", o.huge_pages, "the reserve marked for transparent huge pages");
  app.add_flag("--direct", o.direct, "direct halo pulses (HALOMD_DD_DIRECT=1)");
  app.add_option("--threads", o.threads,
                 "OpenMP threads for the plan's and topology's loops (HALOMD_HOST_THREADS)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  return o;
}

enum Part { kDepartures, kMigrate, kSetHome, kMargin, kFrame, kPlan, kTopology, kParts };
constexpr const char* kNames[kParts] = {"departures", "migrate", "set_home", "margin",
                                        "frame",      "plan",    "topology"};

struct Clock {
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
  double us[kParts] = {};
  void lap(int k) {
    const auto now = std::chrono::steady_clock::now();
    us[k] += std::chrono::duration<double, std::micro>(now - last).count();
    last = now;
  }
};

// Writes every cache line of `buffer` (larger than the last-level cache): what was cached is evicted.
void evict_caches(std::vector<char>& buffer) {
  for (size_t i = 0; i < buffer.size(); i += 64) buffer[i] = static_cast<char>(buffer[i] + 1);
}

}  // namespace

int main(int argc, char** argv) {
  // As halomd's main does, unless HALOMD_BENCH_FRESH_PAGES is set.
  if (!std::getenv("HALOMD_BENCH_FRESH_PAGES")) keep_freed_memory();
  try {
    const Options o = parse(argc, argv);
    if (o.heap_reserve_mb > 0) prefault_heap(static_cast<size_t>(o.heap_reserve_mb) << 20, o.huge_pages);
    const io::GroFile gro = io::read_gro(o.conf);
    const Topology top = io::read_top(o.top);
    io::check_topology_matches(top, o.top, gro, o.conf);
    const Box& box = gro.box;
    const int n = gro.num_atoms();
    std::vector<Vec3> v = gro.x, later = gro.x;
    for (int i = 0; i < n; ++i) {
      v[i] = gro.has_velocities() ? gro.v[i] : Vec3{};
      later[i] += o.window_steps * 0.002 * v[i];
    }
    const std::vector<int> first = domdec::first_atoms(top.molecule);
    const double margin0 = domdec::molecule_margin(gro.x, first) + domdec::kMarginSlack;
    const domdec::HaloRange range{o.rlist + 2.0 * o.skin, margin0};
    const domdec::DdGrid grid = domdec::choose_grid(o.domains, box, range);
    const std::unique_ptr<comm::HaloTransport> transport = comm::make_local_transport();
    transport->set_grid(grid);
    const domdec::HomeAssignment owner = domdec::assign_home(grid, box, gro.x, first);
    const int nd = grid.num_domains();

    // HALOMD_BENCH_COLD: every repeat starts from memory, not cache, as a repartition inside a run does (its
    // data was last touched a window of steps before): a buffer larger than the caches is written first.
    const bool cold = std::getenv("HALOMD_BENCH_COLD") != nullptr;
    std::vector<char> evict(cold ? size_t{256} << 20 : 0);
    Clock clock;
    size_t halo_atoms = 0, moved = 0;
    std::vector<DdDomain> dom(nd);
    for (int r = 0; r < o.repeats; ++r) {
      for (int k = 0; k < nd; ++k) {  // the unmoved assignment, moved: not timed
        dom[k].index = k;
        std::vector<comm::AtomState> atoms;
        dom[k].image.clear();
        for (int g : owner.home[k]) {
          atoms.push_back({g, k, later[g], v[g]});
          dom[k].image.push_back(owner.image[g]);  // the images of the partition before, as in a run
        }
        set_home(dom[k], top, std::move(atoms));
      }
      if (cold) evict_caches(evict);
      clock.last = std::chrono::steady_clock::now();
      std::vector<std::vector<comm::AtomState>> leaving(nd), arriving(nd);
      for (int k = 0; k < nd; ++k) leaving[k] = take_departures(dom[k], grid, box, first);
      clock.lap(kDepartures);
      transport->migrate(leaving, arriving);
      clock.lap(kMigrate);
      for (int k = 0; k < nd; ++k) add_arrivals(dom[k], top, std::move(arriving[k]));
      clock.lap(kSetHome);
      double margin = 0.0;
      for (int k = 0; k < nd; ++k) margin = std::max(margin, home_margin(dom[k], first));
      clock.lap(kMargin);
      std::vector<std::vector<Vec3>> frames(nd);
      std::vector<comm::HomeAtoms> home(nd);
      for (int k = 0; k < nd; ++k) {
        frames[k] = place_home_atoms(dom[k], box, first);
        home[k] = {dom[k].home, dom[k].image, frames[k]};
      }
      clock.lap(kFrame);
      std::vector<domdec::DomainPlan> plans;
      std::vector<std::vector<Vec3>> x_local;
      comm::build_plans(*transport, grid, box, {range.rlist, margin + domdec::kMarginSlack}, home, plans,
                        x_local, nullptr, o.threads, o.direct);
      for (int k = 0; k < nd; ++k) {
        dom[k].plan = std::move(plans[k]);
        dom[k].x_local = std::move(x_local[k]);
      }
      clock.lap(kPlan);
      for (int k = 0; k < nd; ++k) {
        build_local_interactions(dom[k], top, o.threads);
        const std::vector<Settle> waters = home_waters(dom[k], top);
        moved += waters.size();
      }
      clock.lap(kTopology);
      for (int k = 0; k < nd; ++k) {
        halo_atoms += dom[k].plan.num_local() - dom[k].plan.num_home;
        moved += leaving[k].size();
      }
    }
    const double per = 1.0 / (static_cast<double>(o.repeats) * nd);
    double total = 0.0;
    std::printf("{\"atoms\": %d, \"domains\": %d, \"grid\": [%d, %d, %d], \"plan_range_nm\": %.3f, ", n, nd,
                grid.n.x, grid.n.y, grid.n.z, range.rlist);
    std::printf("\"threads\": %d, \"direct\": %s, ", o.threads, o.direct ? "true" : "false");
    std::printf("\"halo_atoms_per_domain\": %.0f, \"us_per_domain\": {",
                static_cast<double>(halo_atoms) * per);
    for (int k = 0; k < kParts; ++k) {
      std::printf("%s\"%s\": %.1f", k ? ", " : "", kNames[k], clock.us[k] * per);
      total += clock.us[k] * per;
    }
    std::printf("}, \"total_us_per_domain\": %.1f}\n", total);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dd_repartition: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
