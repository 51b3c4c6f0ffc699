// The per-step figures of ../shared/BENCH.md: counters averaged over regular steps (neither NS nor output
// steps), and the mean wall time of NS steps and of regular steps.
#pragma once

#include <cstdint>

#include "core/executor.h"

namespace halomd {

struct StepCounters {
  int64_t regular_steps = 0;
  int64_t ns_steps = 0;
  CallCounters regular;  // summed over regular steps
  CallCounters ns;       // summed over NS steps
  double regular_s = 0.0;
  double ns_s = 0.0;

  void add(bool ns_step, bool output_step, const CallCounters& before, const CallCounters& after,
           double seconds) {
    CallCounters d{after.host_syncs - before.host_syncs, after.mpi_waits - before.mpi_waits,
                   after.launches - before.launches, after.halo_bytes - before.halo_bytes};
    if (ns_step) {
      ++ns_steps;
      ns_s += seconds;
      accumulate(ns, d);
    } else if (!output_step) {
      ++regular_steps;
      regular_s += seconds;
      accumulate(regular, d);
    }
  }
  static double per(int64_t total, int64_t steps) {
    return steps > 0 ? static_cast<double>(total) / static_cast<double>(steps) : 0.0;
  }

 private:
  static void accumulate(CallCounters& a, const CallCounters& d) {
    a.host_syncs += d.host_syncs;
    a.mpi_waits += d.mpi_waits;
    a.launches += d.launches;
    a.halo_bytes += d.halo_bytes;
  }
};

}  // namespace halomd
