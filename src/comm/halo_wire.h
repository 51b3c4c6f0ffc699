// The byte layout of a halo atom at a neighbour-search step (domdec::HaloAtoms, one record per atom), shared
// by the transports so that they count and send the same bytes.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "core/errors.h"
#include "domdec/halo_plan.h"
#include "fmt/format.h"

namespace halomd::comm {

// 40 bytes: images fit 16 bits (a molecule 32,767 boxes from where the run began: checked) and zone offsets
// 8 (they count pulses); 56 bytes with 32-bit fields made a repartition's two exchanges of ~0.9 MB at 45k
// atoms and 4 domains 40% larger.
struct HaloAtomRecord {
  int32_t global = 0;
  int16_t image[3] = {0, 0, 0};
  int8_t zone[3] = {0, 0, 0};
  int8_t pad[3] = {0, 0, 0};
  double x[3] = {0.0, 0.0, 0.0};
};
static_assert(std::is_trivially_copyable_v<HaloAtomRecord> && sizeof(HaloAtomRecord) == 40);

// Into `out` (resized; a buffer kept between searches: fresh pages cost the host more than the copy).
inline void to_records(const domdec::HaloAtoms& atoms, std::vector<HaloAtomRecord>& out) {
  out.resize(atoms.global.size());
  for (size_t i = 0; i < out.size(); ++i) {
    HaloAtomRecord& r = out[i];
    r.global = atoms.global[i];
    for (int d = 0; d < 3; ++d) {
      const int image = atoms.image[i][d], zone = atoms.zone[i][d];
      if (image != static_cast<int16_t>(image) || zone != static_cast<int8_t>(zone))
        throw RuntimeError(-1, atoms.global[i],
                           fmt::format("a halo atom's box image {} or zone offset {} does not fit the plan's "
                                       "wire format (16 and 8 bits)",
                                       image, zone));
      r.image[d] = static_cast<int16_t>(image);
      r.zone[d] = static_cast<int8_t>(zone);
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
