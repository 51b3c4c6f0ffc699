// What the domain-decomposed executor reports in run.json: the grid, pulses, halo sizes and bytes, load
// imbalance and migrations, from per-domain figures gathered at every neighbour-search step.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "domdec/grid.h"

namespace halomd {

// One domain's figures at a search, in this order (all_gather-ed as int64 in domain order).
enum DdField { kDdHomeAtoms, kDdHaloAtoms, kDdPairs, kDdDeparted, kDdHaloBytesPerStep, kNumDdFields };

class DdStats {
 public:
  // figures: kNumDdFields per domain, domain order. pulses: per dimension (chained); exchanged: the pulses
  // the plan exchanges (direct pulses where it uses them).
  void add_search(std::span<const int64_t> figures, const domdec::IVec3& pulses, int exchanged);
  void add_exchange_seconds(double s) { exchange_s_ += s; }

  size_t pairs() const { return pairs_; }               // pairs in all domains' lists at the last search
  int64_t migrated_atoms() const { return migrated_; }  // atoms that changed domain, whole run
  int64_t searches() const { return searches_; }
  int64_t home_atoms() const { return home_; }  // at the last search, summed over domains
  const domdec::IVec3& pulses() const { return pulses_; }
  // `"key": value` members for run.json, joined by ",\n  " (core/executor.h's report_json).
  std::string json(const domdec::DdGrid& grid, int ranks) const;

 private:
  struct MaxMean {
    double max = 0.0, mean = 0.0;  // summed over searches
  };
  void add(MaxMean& m, std::span<const int64_t> figures, int field, int nd);

  int64_t searches_ = 0;
  size_t pairs_ = 0;
  int64_t home_ = 0;
  int64_t migrated_ = 0;
  domdec::IVec3 pulses_{0, 0, 0};
  int exchanged_ = 0;
  MaxMean halo_atoms_, halo_bytes_, home_atoms_, pairs_per_domain_;
  double exchange_s_ = 0.0;
};

}  // namespace halomd
