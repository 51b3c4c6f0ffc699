// What a run reports at its end: run.json (BENCH.md counters included) and the printed phase table.
#pragma once

#include <string>

#include "core/executor.h"
#include "core/phase_timers.h"
#include "engine/energies.h"
#include "engine/md_run.h"
#include "engine/run_options.h"
#include "engine/setup.h"
#include "engine/step_counters.h"

namespace halomd {

class RunReport {
 public:
  RunReport(const RunOptions& options, const SimulationInputs& inputs, int atoms);
  void add_energy(const EnergyRow& row);
  // Writes run.json and prints the phase table and average energies to stdout.
  void finish(const RunSummary& summary, const PhaseTimers& timers, const std::string& json_path,
              const Executor& exec, const StepCounters& counted);

 private:
  const RunOptions& options_;
  const SimulationInputs& inputs_;
  int atoms_;
  int rows_ = 0;
  EnergyRow sum_;
  EnergyRow last_;
};

}  // namespace halomd
