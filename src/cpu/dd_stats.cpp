// run.json figures of the domain decomposition (dd_stats.h).
#include "cpu/dd_stats.h"

#include <fmt/format.h>

#include <algorithm>

namespace halomd {

void DdStats::add(MaxMean& m, std::span<const int64_t> figures, int field, int nd) {
  int64_t mx = 0, sum = 0;
  for (int d = 0; d < nd; ++d) {
    const int64_t v = figures[static_cast<size_t>(d) * kNumDdFields + field];
    mx = std::max(mx, v);
    sum += v;
  }
  m.max += static_cast<double>(mx);
  m.mean += static_cast<double>(sum) / nd;
}

void DdStats::add_search(std::span<const int64_t> figures, const domdec::IVec3& pulses, int exchanged) {
  const int nd = static_cast<int>(figures.size() / kNumDdFields);
  ++searches_;
  pulses_ = pulses;
  exchanged_ = exchanged;
  pairs_ = 0;
  home_ = 0;
  for (int d = 0; d < nd; ++d) {
    const int64_t* f = figures.data() + static_cast<size_t>(d) * kNumDdFields;
    pairs_ += static_cast<size_t>(f[kDdPairs]);
    home_ += f[kDdHomeAtoms];
    migrated_ += f[kDdDeparted];
  }
  add(halo_atoms_, figures, kDdHaloAtoms, nd);
  add(halo_bytes_, figures, kDdHaloBytesPerStep, nd);
  add(home_atoms_, figures, kDdHomeAtoms, nd);
  add(pairs_per_domain_, figures, kDdPairs, nd);
}

std::string DdStats::json(const domdec::DdGrid& grid, int ranks) const {
  const double n = searches_ > 0 ? static_cast<double>(searches_) : 1.0;
  auto max_mean = [n](const MaxMean& m) {
    return fmt::format("{{\"max\": {:.1f}, \"mean\": {:.1f}}}", m.max / n, m.mean / n);
  };
  auto imbalance = [](const MaxMean& m) { return m.mean > 0 ? m.max / m.mean : 1.0; };
  std::vector<std::string> items = {
      fmt::format("\"domains\": {}", grid.num_domains()),
      fmt::format("\"dd\": [{}, {}, {}]", grid.n.x, grid.n.y, grid.n.z),
      fmt::format("\"ranks\": {}", ranks),
      fmt::format("\"pulses\": [{}, {}, {}]", pulses_.x, pulses_.y, pulses_.z),
      fmt::format("\"halo_pulses_exchanged\": {}", exchanged_),
      fmt::format("\"halo_direct\": {}", exchanged_ > pulses_.x + pulses_.y + pulses_.z),
      fmt::format("\"halo_atoms_per_domain\": {}", max_mean(halo_atoms_)),
      fmt::format("\"halo_bytes_per_step_per_domain\": {}", max_mean(halo_bytes_)),
      fmt::format("\"home_atoms_per_domain\": {}", max_mean(home_atoms_)),
      fmt::format("\"pairs_per_domain\": {}", max_mean(pairs_per_domain_)),
      fmt::format("\"load_imbalance\": {{\"home_atoms\": {:.4f}, \"pairs\": {:.4f}}}", imbalance(home_atoms_),
                  imbalance(pairs_per_domain_)),
      fmt::format("\"migrated_atoms\": {}", migrated_),
      fmt::format("\"dd_searches\": {}", searches_),
      fmt::format("\"halo_exchange_s\": {:.6f}", exchange_s_)};
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ",\n  " : "") + items[i];
  return out;
}

}  // namespace halomd
