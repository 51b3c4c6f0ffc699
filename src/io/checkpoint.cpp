#include "io/checkpoint.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/errors.h"

namespace halomd::io {
namespace {

constexpr char kMagic[8] = {'H', 'A', 'L', 'O', 'M', 'D', 'C', 'P'};
// Version 2 added trr_bytes (after atoms_hash), version 3 barostat_integral and the temperature groups'
// kinetic energies (after it), version 4 the Nose-Hoover variables (after them), version 5
// Parrinello-Rahman's box velocity and pressure and the run's coupling algorithms (after those), version 6
// edr_bytes (after them); versions 1 to 5 are still read.
constexpr uint32_t kVersion = 6;

// FNV-1a over the payload: catches truncation and corruption.
uint64_t fnv1a(const std::string& data) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

class Writer {
 public:
  template <class T>
  void put(const T& value) {
    buf_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void put_vecs(const std::vector<Vec3>& v) {
    put<uint64_t>(v.size());
    for (const Vec3& a : v) {
      put(a.x);
      put(a.y);
      put(a.z);
    }
  }
  std::string buf_;
};

class Reader {
 public:
  Reader(const std::string& data, const std::string& path) : data_(data), path_(path) {}
  template <class T>
  T get() {
    if (pos_ + sizeof(T) > data_.size()) throw InputError(path_, 0, "checkpoint is truncated");
    T value;
    std::memcpy(&value, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::vector<Vec3> get_vecs() {
    const uint64_t n = get<uint64_t>();
    if (n > (data_.size() - pos_) / 24) throw InputError(path_, 0, "checkpoint is truncated");
    std::vector<Vec3> v(n);
    for (Vec3& a : v) {
      a.x = get<double>();
      a.y = get<double>();
      a.z = get<double>();
    }
    return v;
  }

 private:
  const std::string& data_;
  const std::string& path_;
  size_t pos_ = 0;
};

}  // namespace

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  Writer w;
  w.put(kVersion);
  w.put(c.step);
  w.put(c.dt);
  w.put(c.tinit);
  w.put(c.box.len.x);
  w.put(c.box.len.y);
  w.put(c.box.len.z);
  w.put_vecs(c.x);
  w.put_vecs(c.v);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) w.put(c.ke_half_prev.m[i][j]);
  w.put(c.thermostat_integral);
  w.put(c.ld_seed);
  w.put(c.gen_seed);
  w.put(c.energy_csv_bytes);
  w.put(c.xtc_bytes);
  w.put(c.atoms_hash);
  w.put(c.trr_bytes);
  w.put(c.barostat_integral);
  w.put(static_cast<uint64_t>(c.ke_half_prev_groups.size()));
  for (double k : c.ke_half_prev_groups) w.put(k);
  w.put(static_cast<uint64_t>(c.nh_xi.size()));
  for (size_t g = 0; g < c.nh_xi.size(); ++g) {
    w.put(c.nh_xi[g]);
    w.put(c.nh_vxi[g]);
  }
  for (int d = 0; d < 3; ++d) w.put(c.pr_boxv[d]);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) w.put(c.pr_pres_prev.m[i][j]);
  w.put(c.tcoupl);
  w.put(c.pcoupl);
  w.put(c.edr_bytes);
  const uint64_t sum = fnv1a(w.buf_);

  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(tmp, 0, "cannot write checkpoint");
    out.write(kMagic, sizeof(kMagic));
    out.write(w.buf_.data(), static_cast<std::streamsize>(w.buf_.size()));
    out.write(reinterpret_cast<const char*>(&sum), sizeof(sum));
    out.flush();
    if (!out) throw InputError(tmp, 0, "cannot write checkpoint (disk full?)");
  }
  std::filesystem::rename(tmp, path);
}

Checkpoint read_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open checkpoint");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (all.size() < sizeof(kMagic) + 8 || std::memcmp(all.data(), kMagic, sizeof(kMagic)) != 0)
    throw InputError(path, 0, "not a halomd checkpoint");
  const std::string payload = all.substr(sizeof(kMagic), all.size() - sizeof(kMagic) - 8);
  uint64_t sum;
  std::memcpy(&sum, all.data() + all.size() - 8, 8);
  if (sum != fnv1a(payload))
    throw InputError(path, 0, "checkpoint is corrupted or truncated (checksum mismatch)");

  Reader r(payload, path);
  const uint32_t version = r.get<uint32_t>();
  if (version < 1 || version > kVersion) throw InputError(path, 0, "checkpoint version is not supported");
  Checkpoint c;
  c.step = r.get<int64_t>();
  c.dt = r.get<double>();
  c.tinit = r.get<double>();
  c.box.len.x = r.get<double>();
  c.box.len.y = r.get<double>();
  c.box.len.z = r.get<double>();
  c.x = r.get_vecs();
  c.v = r.get_vecs();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c.ke_half_prev.m[i][j] = r.get<double>();
  c.thermostat_integral = r.get<double>();
  c.ld_seed = r.get<uint64_t>();
  c.gen_seed = r.get<uint64_t>();
  c.energy_csv_bytes = r.get<int64_t>();
  c.xtc_bytes = r.get<int64_t>();
  c.atoms_hash = r.get<int64_t>();
  if (version >= 2) c.trr_bytes = r.get<int64_t>();
  if (version >= 3) {
    c.barostat_integral = r.get<double>();
    const uint64_t groups = r.get<uint64_t>();
    if (groups > 4096) throw InputError(path, 0, "checkpoint is corrupted (temperature groups)");
    for (uint64_t g = 0; g < groups; ++g) c.ke_half_prev_groups.push_back(r.get<double>());
  }
  if (version >= 4) {
    const uint64_t groups = r.get<uint64_t>();
    if (groups > 4096) throw InputError(path, 0, "checkpoint is corrupted (Nose-Hoover groups)");
    for (uint64_t g = 0; g < groups; ++g) {
      c.nh_xi.push_back(r.get<double>());
      c.nh_vxi.push_back(r.get<double>());
    }
  }
  if (version >= 5) {
    for (int d = 0; d < 3; ++d) c.pr_boxv[d] = r.get<double>();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) c.pr_pres_prev.m[i][j] = r.get<double>();
    c.tcoupl = r.get<int32_t>();
    c.pcoupl = r.get<int32_t>();
  }
  if (version >= 6) c.edr_bytes = r.get<int64_t>();
  if (c.v.size() != c.x.size()) throw InputError(path, 0, "checkpoint has different numbers of x and v");
  return c;
}

}  // namespace halomd::io
