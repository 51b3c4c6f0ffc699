// XDR (RFC 4506) encoding as GROMACS's file formats use it: big-endian 4-byte words, 8-byte hypers and
// doubles, opaque data and strings padded to a multiple of 4 bytes. Shared by the .xtc, .trr and .edr code.
#pragma once

#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace halomd::io {

class XdrOut {
 public:
  void put_uint(uint32_t u) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes_.push_back(static_cast<uint8_t>(u >> shift));
  }
  void put_int(int32_t v) { put_uint(static_cast<uint32_t>(v)); }
  void put_int64(int64_t v) {
    put_uint(static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32));
    put_uint(static_cast<uint32_t>(static_cast<uint64_t>(v)));
  }
  void put_float(float v) { put_uint(std::bit_cast<uint32_t>(v)); }
  void put_double(double v) { put_int64(std::bit_cast<int64_t>(v)); }
  void put_opaque(const uint8_t* data, size_t n) {
    bytes_.insert(bytes_.end(), data, data + n);
    bytes_.resize(bytes_.size() + (4 - n % 4) % 4, 0);
  }
  void put_opaque(const std::vector<uint8_t>& data) { put_opaque(data.data(), data.size()); }
  // xdr_string: the length, then the characters padded to 4 (no terminating zero).
  void put_string(const std::string& s) {
    put_uint(static_cast<uint32_t>(s.size()));
    put_opaque(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// Thrown by XdrIn when the data ends before what is asked for.
class XdrCutShort : public std::runtime_error {
 public:
  XdrCutShort() : std::runtime_error("the frame is cut short (truncated file)") {}
};

class XdrIn {
 public:
  explicit XdrIn(const std::vector<uint8_t>& bytes, size_t pos = 0) : bytes_(bytes), pos_(pos) {}
  bool at_end() const { return pos_ >= bytes_.size(); }
  size_t pos() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  uint64_t get_word(int size) {
    need(static_cast<size_t>(size));
    uint64_t u = 0;
    for (int k = 0; k < size; ++k) u = (u << 8) | bytes_[pos_++];
    return u;
  }
  int32_t get_int() { return static_cast<int32_t>(static_cast<uint32_t>(get_word(4))); }
  int64_t get_int64() { return static_cast<int64_t>(get_word(8)); }
  float get_float() { return std::bit_cast<float>(static_cast<uint32_t>(get_word(4))); }
  double get_double() { return std::bit_cast<double>(get_word(8)); }
  // A real of `size` bytes: 4 (float) or 8 (double), as GROMACS's files of either precision hold them.
  double get_real(int size) { return size == 8 ? get_double() : get_float(); }
  std::vector<uint8_t> get_opaque(size_t n) {
    const size_t padded = n + (4 - n % 4) % 4;
    need(padded);
    std::vector<uint8_t> out(bytes_.begin() + static_cast<std::ptrdiff_t>(pos_),
                             bytes_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += padded;
    return out;
  }
  std::string get_string() {
    const uint32_t n = static_cast<uint32_t>(get_word(4));
    const std::vector<uint8_t> chars = get_opaque(n);
    return std::string(chars.begin(), chars.end());
  }
  void skip(size_t n) {
    need(n);
    pos_ += n;
  }

 private:
  void need(size_t n) const {
    if (remaining() < n) throw XdrCutShort();
  }
  const std::vector<uint8_t>& bytes_;
  size_t pos_ = 0;
};

}  // namespace halomd::io
