// Wall time per phase of the MD step, the table GROMACS prints as cycle accounting.
#pragma once

#include <array>
#include <chrono>
#include <string_view>

namespace halomd {

enum class Phase {
  NeighbourSearch,
  Nonbonded,
  PmeMesh,
  Bonded,
  Update,
  Constraints,
  Energies,
  Output,
  Count
};

inline constexpr std::array<std::string_view, static_cast<int>(Phase::Count)> kPhaseNames = {
    "neighbour_search", "nonbonded", "pme_mesh", "bonded", "update", "constraints", "energies", "output"};

class PhaseTimers {
 public:
  using Clock = std::chrono::steady_clock;
  void start(Phase p) {
    current_ = p;
    t0_ = Clock::now();
  }
  void stop() {
    seconds_[static_cast<int>(current_)] += std::chrono::duration<double>(Clock::now() - t0_).count();
  }
  double seconds(Phase p) const { return seconds_[static_cast<int>(p)]; }

 private:
  std::array<double, static_cast<int>(Phase::Count)> seconds_{};
  Phase current_ = Phase::Output;
  Clock::time_point t0_;
};

}  // namespace halomd
