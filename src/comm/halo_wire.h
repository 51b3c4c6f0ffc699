// The byte layout of a halo atom at a neighbour-search step (domdec::HaloAtoms, one record per atom), shared
// by the transports so that they count and send the same bytes.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "domdec/halo_plan.h"

namespace halomd::comm {

struct HaloAtomRecord {
  int32_t global = 0;
  int32_t image[3] = {0, 0, 0};
  int32_t zone[3] = {0, 0, 0};
  int32_t pad = 0;
  double x[3] = {0.0, 0.0, 0.0};
};
static_assert(std::is_trivially_copyable_v<HaloAtomRecord> && sizeof(HaloAtomRecord) == 56);

// Into `out` (resized; a buffer kept between searches: fresh pages cost the host more than the copy).
inline void to_records(const domdec::HaloAtoms& atoms, std::vector<HaloAtomRecord>& out) {
  out.resize(atoms.global.size());
  for (size_t i = 0; i < out.size(); ++i) {
    HaloAtomRecord& r = out[i];
    r.global = atoms.global[i];
    for (int d = 0; d < 3; ++d) {
      r.image[d] = atoms.image[i][d];
      r.zone[d] = atoms.zone[i][d];
      r.x[d] = atoms.x[i][d];
    }
  }
}

inline void from_records(std::span<const HaloAtomRecord> records, domdec::HaloAtoms& out) {
  const size_t n = records.size();
  out.global.resize(n);
  out.image.resize(n);
  out.zone.resize(n);
  out.x.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const HaloAtomRecord& r = records[i];
    out.global[i] = r.global;
    for (int d = 0; d < 3; ++d) {
      out.image[i][d] = r.image[d];
      out.zone[i][d] = r.zone[d];
      out.x[i][d] = r.x[d];
    }
  }
}

}  // namespace halomd::comm
