#include "io/xtc.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <utility>

#include "core/errors.h"
#include "io/xdr.h"
#include "io/xtc_codec.h"

// Frame layout (XDR, big-endian 4-byte words): int magic 1995, int natoms, int step, float time_ps,
// float box[3][3], int natoms; then natoms <= 9: 3*natoms floats; otherwise float precision,
// int minint[3], int maxint[3], int smallidx, int byte count, the bytes padded to 4 (xtc_codec.h).

namespace halomd::io {
namespace {

constexpr int32_t kMagic = 1995;
constexpr int kMaxUncompressedAtoms = 9;  // GROMACS writes frames this small as plain floats

// x * precision rounded half away from zero, as GROMACS does, in double so no float rounding is added.
std::vector<int32_t> scale_coords(int64_t step, const std::vector<Vec3>& x, double precision) {
  std::vector<int32_t> ints(3 * x.size());
  int64_t lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = std::numeric_limits<int64_t>::max();
    hi[d] = std::numeric_limits<int64_t>::min();
  }
  for (size_t a = 0; a < x.size(); ++a) {
    for (int d = 0; d < 3; ++d) {
      const double v = x[a][d] * precision;
      if (!(std::fabs(v) + 0.5 <= static_cast<double>(xtc::kMaxAbsInt)))
        throw RuntimeError(step, static_cast<int64_t>(a),
                           "coordinate " + std::to_string(x[a][d]) +
                               " nm does not fit in an XTC frame of precision " + std::to_string(precision));
      const int64_t i = std::llround(v);
      ints[3 * a + d] = static_cast<int32_t>(i);
      lo[d] = std::min(lo[d], i);
      hi[d] = std::max(hi[d], i);
    }
  }
  for (int d = 0; d < 3; ++d)
    if (hi[d] - lo[d] >= xtc::kMaxAbsInt)
      throw RuntimeError(
          step, -1,
          "coordinates span too wide a range for an XTC frame of precision " + std::to_string(precision));
  return ints;
}

XtcFrame read_frame(XdrIn& in) {
  XtcFrame f;
  const int32_t magic = in.get_int();
  if (magic != kMagic)
    throw xtc::FormatError("bad magic number " + std::to_string(magic) + " (expected " +
                           std::to_string(kMagic) + ")");
  const int32_t natoms = in.get_int();
  if (natoms < 0) throw xtc::FormatError("negative atom count " + std::to_string(natoms));
  f.step = in.get_int();
  f.time_ps = in.get_float();
  float box[9];
  for (float& b : box) b = in.get_float();
  for (int k : {1, 2, 3, 5, 6, 7})
    if (box[k] != 0.0F) throw xtc::FormatError("triclinic box (off-diagonal elements) is not supported");
  f.box.len = {box[0], box[4], box[8]};
  const int32_t natoms_again = in.get_int();
  if (natoms_again != natoms)
    throw xtc::FormatError("atom count " + std::to_string(natoms) + " in the header but " +
                           std::to_string(natoms_again) + " before the coordinates");
  f.x.resize(natoms);
  if (natoms <= kMaxUncompressedAtoms) {
    for (Vec3& x : f.x)
      for (int d = 0; d < 3; ++d) x[d] = in.get_float();
    return f;  // such frames carry no precision: f.precision stays 0
  }
  const float precision = in.get_float();
  if (!(precision > 0.0F) || !std::isfinite(precision))
    throw xtc::FormatError("bad precision " + std::to_string(precision));
  f.precision = precision;
  xtc::CompressedCoords block;
  for (int32_t& v : block.minint) v = in.get_int();
  for (int32_t& v : block.maxint) v = in.get_int();
  block.smallidx = in.get_int();
  const int32_t nbytes = in.get_int();
  if (nbytes < 0 || static_cast<size_t>(nbytes) > in.remaining())
    throw xtc::FormatError("compressed size " + std::to_string(nbytes) +
                           " bytes runs past the end (truncated file)");
  // Every atom takes at least 2 bits, which bounds what a corrupt atom count can make us allocate.
  if (natoms > 4 * int64_t{nbytes} + 4)
    throw xtc::FormatError(std::to_string(nbytes) + " compressed bytes cannot hold " +
                           std::to_string(natoms) + " atoms");
  block.bytes = in.get_opaque(static_cast<size_t>(nbytes));
  const std::vector<int32_t> ints = xtc::decompress_coords(block, natoms);
  for (int32_t a = 0; a < natoms; ++a)
    for (int d = 0; d < 3; ++d) f.x[a][d] = ints[3 * a + d] / static_cast<double>(precision);
  return f;
}

}  // namespace

void XtcWriter::write_frame(int64_t step, double time_ps, const Box& box, const std::vector<Vec3>& x,
                            double precision) {
  if (step < std::numeric_limits<int32_t>::min() || step > std::numeric_limits<int32_t>::max())
    throw RuntimeError(step, -1, "step does not fit in an XTC frame");
  if (x.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    throw RuntimeError(step, -1, "too many atoms for an XTC frame");
  const auto natoms = static_cast<int32_t>(x.size());

  XdrOut out;
  out.put_int(kMagic);
  out.put_int(natoms);
  out.put_int(static_cast<int32_t>(step));
  out.put_float(static_cast<float>(time_ps));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) out.put_float(r == c ? static_cast<float>(box.len[r]) : 0.0F);
  out.put_int(natoms);
  if (natoms <= kMaxUncompressedAtoms) {
    for (const Vec3& xi : x)
      for (int d = 0; d < 3; ++d) out.put_float(static_cast<float>(xi[d]));
  } else {
    const auto prec = static_cast<float>(precision);
    if (!(prec > 0.0F) || !std::isfinite(prec))
      throw RuntimeError(step, -1, "XTC precision must be positive, got " + std::to_string(precision));
    // Round with the precision as stored, so that decoding with it gives back the nearest grid point.
    const xtc::CompressedCoords block = xtc::compress_coords(scale_coords(step, x, prec));
    out.put_float(prec);
    for (int32_t v : block.minint) out.put_int(v);
    for (int32_t v : block.maxint) out.put_int(v);
    out.put_int(block.smallidx);
    out.put_int(static_cast<int32_t>(block.bytes.size()));
    out.put_opaque(block.bytes);
  }

  file_.write(out.bytes(), step);
}

std::vector<XtcFrame> read_xtc(const std::string& path) {
  // The whole file at once: the decoded frames take several times its size anyway.
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) throw InputError(path, 0, "read error");

  std::vector<XtcFrame> frames;
  XdrIn in(bytes);
  while (!in.at_end()) {
    const size_t offset = in.pos();
    try {
      frames.push_back(read_frame(in));
    } catch (const std::runtime_error& e) {  // xtc::FormatError or XdrCutShort
      throw InputError(path, 0,
                       "frame " + std::to_string(frames.size() + 1) + " (at byte " + std::to_string(offset) +
                           "): " + e.what());
    }
  }
  return frames;
}

}  // namespace halomd::io
