#include "io/trr.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <limits>

#include "core/errors.h"
#include "io/xdr.h"

// Frame layout (XDR, big-endian 4-byte words; GROMACS's trnio): int magic 1993, the version string
// "GMX_trn_file" (int length + 1, int length, the bytes padded to 4), int sizes of ir, e, box, vir, pres,
// top, sym, x, v, f (bytes; 0 for what the frame lacks), int natoms, int step, int nre, real t, real lambda,
// then box (9 reals), virial and pressure (9 reals each, where present), x, v, f (3 natoms reals each). A
// real is 4 bytes (float) or 8 (double): the sizes tell which.

namespace halomd::io {
namespace {

constexpr int32_t kMagic = 1993;
constexpr char kVersion[] = "GMX_trn_file";

}  // namespace

void TrrWriter::write_frame(int64_t step, double time_ps, const Box& box, const std::vector<Vec3>* x,
                            const std::vector<Vec3>* v, const std::vector<Vec3>* f) {
  if (step < std::numeric_limits<int32_t>::min() || step > std::numeric_limits<int32_t>::max())
    throw RuntimeError(step, -1, "step does not fit in a TRR frame");
  const std::vector<Vec3>* arrays[3] = {x, v, f};
  size_t natoms = 0;
  for (const std::vector<Vec3>* a : arrays)
    if (a) natoms = a->size();
  XdrOut out;
  out.put_int(kMagic);
  const int32_t len = static_cast<int32_t>(sizeof(kVersion) - 1);
  out.put_int(len + 1);
  out.put_string(kVersion);
  const int32_t vec_bytes = static_cast<int32_t>(3 * natoms * sizeof(float));
  const int32_t sizes[] = {0,
                           0,
                           9 * static_cast<int32_t>(sizeof(float)),
                           0,
                           0,
                           0,
                           0,
                           x ? vec_bytes : 0,
                           v ? vec_bytes : 0,
                           f ? vec_bytes : 0};
  for (int32_t s : sizes) out.put_int(s);
  out.put_int(static_cast<int32_t>(natoms));
  out.put_int(static_cast<int32_t>(step));
  out.put_int(0);  // nre
  out.put_float(static_cast<float>(time_ps));
  out.put_float(0.0F);  // lambda
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) out.put_float(a == b ? static_cast<float>(box.len[a]) : 0.0F);
  for (const std::vector<Vec3>* a : arrays)
    if (a)
      for (const Vec3& p : *a)
        for (int d = 0; d < 3; ++d) out.put_float(static_cast<float>(p[d]));
  file_.write(out.bytes(), step);
}

std::vector<TrrFrame> read_trr(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open the .trr file");
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<TrrFrame> frames;
  XdrIn c(bytes);
  while (!c.at_end()) {
    const std::string where = "frame " + std::to_string(frames.size());
    try {
      if (c.get_int() != kMagic) throw InputError(path, 0, where + ": not a .trr frame (magic number)");
      c.get_int();
      const int32_t len = c.get_int();
      if (len < 0 || len > 64) throw InputError(path, 0, where + ": bad version string");
      c.skip(static_cast<size_t>(len + (4 - len % 4) % 4));
      int32_t sizes[10];
      for (int32_t& s : sizes) s = c.get_int();
      const int32_t natoms = c.get_int();
      TrrFrame fr;
      fr.step = c.get_int();
      c.get_int();  // nre
      // The real's size from whichever block the frame has: the box (9 reals), or x, v, f (3 natoms).
      int real = sizes[2] / 9;
      for (int k = 7; k < 10 && sizes[2] == 0 && natoms > 0; ++k)
        if (sizes[k] > 0) real = sizes[k] / (3 * natoms);
      if (real != 4 && real != 8) throw InputError(path, 0, where + ": reals of unknown precision");
      fr.time_ps = c.get_real(real);
      c.get_real(real);  // lambda
      if (sizes[2] > 0)
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) {
            const double value = c.get_real(real);
            if (a == b) fr.box.len[a] = value;
          }
      // The virial and pressure blocks (where present) are not used.
      c.skip(static_cast<size_t>(std::max(0, sizes[3])) + static_cast<size_t>(std::max(0, sizes[4])));
      std::vector<Vec3>* arrays[3] = {&fr.x, &fr.v, &fr.f};
      for (int k = 0; k < 3; ++k) {
        if (sizes[7 + k] == 0) continue;
        if (sizes[7 + k] != 3 * natoms * real) throw InputError(path, 0, where + ": inconsistent array size");
        arrays[k]->resize(natoms);
        for (Vec3& p : *arrays[k])
          for (int d = 0; d < 3; ++d) p[d] = c.get_real(real);
      }
      frames.push_back(std::move(fr));
    } catch (const XdrCutShort&) {
      throw InputError(path, 0, where + ": cut short (truncated file)");
    }
  }
  return frames;
}

}  // namespace halomd::io
