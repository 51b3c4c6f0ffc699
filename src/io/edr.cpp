#include "io/edr.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/errors.h"
#include "io/xdr.h"

// Layout (XDR; GROMACS's enxio.cpp, format version 5). The names: int -55555, int version, int nre, then
// per term the name and the unit as XDR strings. Each frame: real -2e10 (a real is a float in a
// single-precision file, a double in a double one), int -7777777, int version, double t, int64 step, int
// nsum (energy evaluations summed since the previous frame; 0: no sums), int64 nsteps (steps since the
// previous frame), double dt, int nre, int 0, int nblock, per block int id, int nsub and per sub-block int
// type, int count; int e_size (nre * 4 reals' bytes), int 0, int 0; then per term real e (and with nsum > 0
// real eav, real esum); then the blocks' data.

namespace halomd::io {
namespace {

constexpr int32_t kNamesMagic = -55555;
constexpr int32_t kFrameMagic = -7777777;
constexpr int32_t kVersion = 5;
constexpr double kFirstReal = -2e10;  // marks a frame of version 2 or later (older ones start with t)

// Bytes of one value of an extra block's data type (GROMACS's xdr_datatype: int, float, double, int64,
// char; a char takes a whole XDR word). Strings (5) are not read.
int block_value_bytes(int32_t type) {
  switch (type) {
    case 0:
    case 1:
    case 4:
      return 4;
    case 2:
    case 3:
      return 8;
    default:
      return 0;
  }
}

EdrFrame read_frame(XdrIn& in, int real, size_t nterms) {
  EdrFrame f;
  in.get_real(real);
  if (in.get_int() != kFrameMagic) throw std::runtime_error("not an energy frame (magic number)");
  const int32_t version = in.get_int();
  if (version != kVersion)
    throw std::runtime_error("frame format version " + std::to_string(version) + " (only " +
                             std::to_string(kVersion) + " is read)");
  f.time_ps = in.get_double();
  f.step = in.get_int64();
  const int32_t nsum = in.get_int();
  f.nsteps = in.get_int64();
  f.dt_ps = in.get_double();
  const int32_t nre = in.get_int();
  in.get_int();
  const int32_t nblock = in.get_int();
  if (nre != static_cast<int32_t>(nterms) && nre != 0)
    throw std::runtime_error(std::to_string(nre) + " terms, the names " + std::to_string(nterms));
  if (nblock < 0 || nblock > 1024) throw std::runtime_error("bad block count " + std::to_string(nblock));
  std::vector<std::pair<int32_t, int32_t>> subs;  // type, count
  for (int32_t b = 0; b < nblock; ++b) {
    in.get_int();  // id
    const int32_t nsub = in.get_int();
    if (nsub < 0 || nsub > 1024) throw std::runtime_error("bad sub-block count " + std::to_string(nsub));
    for (int32_t s = 0; s < nsub; ++s) {
      const int32_t type = in.get_int(), count = in.get_int();
      if (block_value_bytes(type) == 0 || count < 0)
        throw std::runtime_error("a block of data type " + std::to_string(type) + " (not read)");
      subs.emplace_back(type, count);
    }
  }
  in.get_int();  // e_size
  in.get_int();
  in.get_int();
  f.values.resize(static_cast<size_t>(nre));
  for (double& v : f.values) {
    v = in.get_real(real);
    if (nsum > 0) in.skip(2 * static_cast<size_t>(real));  // average and sum
  }
  for (const auto& [type, count] : subs)
    in.skip(static_cast<size_t>(count) * static_cast<size_t>(block_value_bytes(type)));
  return f;
}

std::vector<uint8_t> names_bytes(const std::vector<EnergyTermName>& terms) {
  XdrOut out;
  out.put_int(kNamesMagic);
  out.put_int(kVersion);
  out.put_int(static_cast<int32_t>(terms.size()));
  for (const EnergyTermName& t : terms) {
    out.put_string(t.name);
    out.put_string(t.unit);
  }
  return out.bytes();
}

// The step of the last frame of the part of `path` a continuation keeps (-1: none), after checking that
// the file holds `terms`.
int64_t kept_last_step(const std::string& path, const std::vector<EnergyTermName>& terms,
                       int64_t keep_bytes) {
  if (keep_bytes < 0 || !std::filesystem::exists(path)) return -1;
  const EdrFile kept = read_edr(path, keep_bytes);
  if (kept.terms != terms)
    throw InputError(path, 0,
                     "holds other energy terms than this run writes (" + std::to_string(kept.terms.size()) +
                         " against " + std::to_string(terms.size()) +
                         "): continue into a new folder (--cpi with another -o)");
  return kept.frames.empty() ? -1 : kept.frames.back().step;
}

}  // namespace

EdrWriter::EdrWriter(const std::string& path, const std::vector<EnergyTermName>& terms, double dt_ps,
                     int64_t keep_bytes)
    : nterms_(terms.size()),
      dt_ps_(dt_ps),
      last_step_(kept_last_step(path, terms, keep_bytes)),
      file_(path, keep_bytes) {
  if (keep_bytes < 0) file_.write(names_bytes(terms), 0);
}

void EdrWriter::write_frame(int64_t step, double time_ps, const std::vector<double>& values) {
  if (values.size() != nterms_) throw RuntimeError(step, -1, "internal error: an energy frame of wrong size");
  XdrOut out;
  out.put_float(static_cast<float>(kFirstReal));
  out.put_int(kFrameMagic);
  out.put_int(kVersion);
  out.put_double(time_ps);
  out.put_int64(step);
  out.put_int(0);                                         // nsum: no sums
  out.put_int64(last_step_ < 0 ? 1 : step - last_step_);  // as GROMACS: 1 for the first frame
  out.put_double(dt_ps_);
  out.put_int(static_cast<int32_t>(nterms_));
  out.put_int(0);
  out.put_int(0);  // no blocks
  out.put_int(static_cast<int32_t>(nterms_ * 4 * sizeof(float)));
  out.put_int(0);
  out.put_int(0);
  for (double v : values) out.put_float(static_cast<float>(v));
  file_.write(out.bytes(), step);
  last_step_ = step;
}

EdrFile read_edr(const std::string& path, int64_t max_bytes) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (max_bytes >= 0 && static_cast<size_t>(max_bytes) < bytes.size())
    bytes.resize(static_cast<size_t>(max_bytes));
  EdrFile edr;
  XdrIn in(bytes);
  try {
    if (in.get_int() != kNamesMagic) throw std::runtime_error("not a GROMACS energy file (magic number)");
    const int32_t version = in.get_int();
    if (version != kVersion)
      throw std::runtime_error("energy file format version " + std::to_string(version) + " (only " +
                               std::to_string(kVersion) + " is read)");
    const int32_t nre = in.get_int();
    if (nre < 0 || static_cast<size_t>(nre) > in.remaining() / 8)
      throw std::runtime_error("bad term count " + std::to_string(nre));
    for (int32_t k = 0; k < nre; ++k) {
      EnergyTermName t;
      t.name = in.get_string();
      t.unit = in.get_string();
      edr.terms.push_back(std::move(t));
    }
  } catch (const std::runtime_error& e) {
    throw InputError(path, 0, std::string("energy names: ") + e.what());
  }
  while (!in.at_end()) {
    const size_t offset = in.pos();
    try {
      // The frame's precision from its first real: -2e10 as a float, or the first half of a double.
      XdrIn probe(bytes, offset);
      const int real = probe.get_float() < -1e10F ? 4 : 8;
      edr.frames.push_back(read_frame(in, real, edr.terms.size()));
    } catch (const std::runtime_error& e) {
      throw InputError(path, 0,
                       "frame " + std::to_string(edr.frames.size() + 1) + " (at byte " +
                           std::to_string(offset) + "): " + e.what());
    }
  }
  return edr;
}

}  // namespace halomd::io
