#include "io/xtc_codec.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>
#include <utility>

// The scheme (GROMACS src/gromacs/fileio/libxdrf.cpp, xdr3dfcoord): every atom is either "big", written as
// its offset from the frame minimum packed into one mixed-radix integer, or "small", written as its
// difference to the atom before it in a smaller mixed-radix integer. After each big atom come a 1-bit flag
// and, when the run length or the small size changes, 5 bits holding run + is_smaller + 1; then run/3 small
// atoms. The first atom of a run trades places with the big one, so a water O, H1, H2 goes as H1 big, then
// O and H2 as small differences. Bits go most significant first; a mixed-radix integer goes as little-endian
// bytes, the last one shortened to the bits left.

namespace halomd::io::xtc {
namespace {

// Sizes of the small-difference integers, kMagicInts[i]^3 <= 2^i so three fit in i bits (the format's table).
constexpr std::array<int32_t, 73> kMagicInts = {
    0,       0,       0,       0,       0,        0,        0,       0,       0,       8,       10,
    12,      16,      20,      25,      32,       40,       50,      64,      80,      101,     128,
    161,     203,     256,     322,     406,      512,      645,     812,     1024,    1290,    1625,
    2048,    2580,    3250,    4096,    5060,     6501,     8192,    10321,   13003,   16384,   20642,
    26007,   32768,   41285,   52015,   65536,    82570,    104031,  131072,  165140,  208063,  262144,
    330280,  416127,  524287,  660561,  832255,   1048576,  1321122, 1664510, 2097152, 2642245, 3329021,
    4194304, 5284491, 6658042, 8388607, 10568983, 13316085, 16777216};
constexpr int kFirstIdx = 9;  // first usable entry
constexpr int kLastIdx = 72;  // last usable entry (GROMACS can step one past the table; we stop at it)
constexpr int kMaxRun = 24;   // at most 8 small atoms (24 integers) per run: run + 2 fits in 5 bits
constexpr uint32_t kMaxPackedSize = 0xffffff;  // above this, big atoms go as three separate bit fields

class BitWriter {
 public:
  // Appends the low nbits (0..32) of value, most significant first.
  void put(int nbits, uint32_t value) {
    if (nbits == 0) return;
    const uint64_t mask = (uint64_t{1} << nbits) - 1;
    acc_ = (acc_ << nbits) | (value & mask);
    nacc_ += nbits;
    while (nacc_ >= 8) {
      nacc_ -= 8;
      bytes_.push_back(static_cast<uint8_t>(acc_ >> nacc_));
    }
    acc_ &= (uint64_t{1} << nacc_) - 1;
  }
  std::vector<uint8_t> finish() {
    if (nacc_ > 0) bytes_.push_back(static_cast<uint8_t>(acc_ << (8 - nacc_)));
    nacc_ = 0;
    acc_ = 0;
    return std::move(bytes_);
  }

 private:
  std::vector<uint8_t> bytes_;
  uint64_t acc_ = 0;  // the nacc_ bits not yet written out
  int nacc_ = 0;
};

class BitReader {
 public:
  explicit BitReader(const std::vector<uint8_t>& bytes) : bytes_(bytes) {}
  // Next nbits (0..32), most significant first.
  uint32_t get(int nbits) {
    uint64_t value = 0;
    while (nbits > 0) {
      if (byte_ >= bytes_.size()) throw FormatError("compressed coordinates end before the last atom");
      const int avail = 8 - bit_;
      const int take = std::min(avail, nbits);
      const uint32_t chunk = (bytes_[byte_] >> (avail - take)) & ((1u << take) - 1);
      value = (value << take) | chunk;
      nbits -= take;
      bit_ += take;
      if (bit_ == 8) {
        bit_ = 0;
        ++byte_;
      }
    }
    return static_cast<uint32_t>(value);
  }

 private:
  const std::vector<uint8_t>& bytes_;
  size_t byte_ = 0;
  int bit_ = 0;  // bits of bytes_[byte_] already read
};

// A non-negative integer below 2^128 as little-endian bytes; enough for three sizes below 2^24 each.
struct ByteInt {
  std::array<uint8_t, 16> b{};
  int n = 1;  // bytes in use
  void mul_add(uint32_t factor, uint32_t add) {
    uint64_t carry = add;
    for (int j = 0; j < n; ++j) {
      carry += uint64_t{b[j]} * factor;
      b[j] = static_cast<uint8_t>(carry & 0xff);
      carry >>= 8;
    }
    while (carry != 0 && n < static_cast<int>(b.size())) {
      b[n++] = static_cast<uint8_t>(carry & 0xff);
      carry >>= 8;
    }
  }
  // Divides in place, returns the remainder.
  uint32_t div(uint32_t divisor) {
    uint64_t rem = 0;
    for (int j = n - 1; j >= 0; --j) {
      const uint64_t cur = (rem << 8) | b[j];
      b[j] = static_cast<uint8_t>(cur / divisor);
      rem = cur % divisor;
    }
    return static_cast<uint32_t>(rem);
  }
  int bit_length() const {
    int top = n - 1;
    while (top > 0 && b[top] == 0) --top;
    int bits = 0;
    while (bits < 8 && (b[top] >> bits) != 0) ++bits;
    return bits + 8 * top;
  }
};

// Bits that a mixed-radix integer of these three sizes is given: the bit length of their product.
int packed_bits(const uint32_t sizes[3]) {
  ByteInt p;
  p.b[0] = 1;
  for (int d = 0; d < 3; ++d) p.mul_add(sizes[d], 0);
  return p.bit_length();
}

// Bits for values below size (GROMACS sizeofint): the bit length of size.
int bits_for(uint32_t size) {
  int bits = 0;
  while (bits < 32 && (uint64_t{1} << bits) <= size) ++bits;
  return bits;
}

// Writes nums (each below its size) as ((n0 * s1 + n1) * s2 + n2) in nbits: bytes of 8 bits, low byte first,
// the last byte with the bits left over.
void put_packed(BitWriter& out, int nbits, const uint32_t sizes[3], const uint32_t nums[3]) {
  ByteInt v;
  v.b[0] = 0;
  v.mul_add(1, nums[0]);
  v.mul_add(sizes[1], nums[1]);
  v.mul_add(sizes[2], nums[2]);
  int j = 0;
  for (; nbits > 8; nbits -= 8) out.put(8, v.b[j++]);
  out.put(nbits, v.b[j]);
}

void get_packed(BitReader& in, int nbits, const uint32_t sizes[3], uint32_t nums[3]) {
  ByteInt v;
  v.n = 0;
  for (; nbits > 8; nbits -= 8) v.b[v.n++] = static_cast<uint8_t>(in.get(8));
  v.b[v.n++] = static_cast<uint8_t>(in.get(nbits));
  nums[2] = v.div(sizes[2]);
  nums[1] = v.div(sizes[1]);
  uint64_t rest = 0;
  for (int j = v.n - 1; j >= 0; --j) {
    if (rest > (uint64_t{1} << 32)) throw FormatError("compressed integer out of range");
    rest = (rest << 8) | v.b[j];
  }
  if (rest >= sizes[0]) throw FormatError("compressed integer out of range");
  nums[0] = static_cast<uint32_t>(rest);
}

// How the big atoms are written: one mixed-radix integer of `bits`, or (bits == 0) one field per dimension.
struct BigLayout {
  uint32_t sizes[3];
  int field_bits[3] = {0, 0, 0};
  int bits = 0;
  explicit BigLayout(const int32_t minint[3], const int32_t maxint[3]) {
    bool separate = false;
    for (int d = 0; d < 3; ++d) {
      sizes[d] = static_cast<uint32_t>(int64_t{maxint[d]} - minint[d] + 1);
      separate = separate || sizes[d] > kMaxPackedSize;
    }
    if (separate) {
      for (int d = 0; d < 3; ++d) field_bits[d] = bits_for(sizes[d]);
    } else {
      bits = packed_bits(sizes);
    }
  }
};

bool all_within(const int32_t* a, const int32_t* b, int64_t limit) {
  for (int d = 0; d < 3; ++d)
    if (std::llabs(int64_t{a[d]} - b[d]) >= limit) return false;
  return true;
}

}  // namespace

CompressedCoords compress_coords(std::vector<int32_t> c) {
  const int64_t n = static_cast<int64_t>(c.size() / 3);
  CompressedCoords out;
  if (n == 0) return out;
  for (int d = 0; d < 3; ++d) {
    out.minint[d] = c[d];
    out.maxint[d] = c[d];
  }
  // Smallest L1 step between consecutive atoms: where the small-difference size starts.
  int64_t mindiff = INT64_MAX;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t* x = &c[3 * i];
    for (int d = 0; d < 3; ++d) {
      out.minint[d] = std::min(out.minint[d], x[d]);
      out.maxint[d] = std::max(out.maxint[d], x[d]);
    }
    if (i > 0) {
      int64_t diff = 0;
      for (int d = 0; d < 3; ++d) diff += std::llabs(int64_t{x[d]} - x[d - 3]);
      mindiff = std::min(mindiff, diff);
    }
  }
  const BigLayout big(out.minint, out.maxint);

  int smallidx = kFirstIdx;
  while (smallidx < kLastIdx && kMagicInts[smallidx] < mindiff) ++smallidx;
  out.smallidx = smallidx;
  // The size may grow by up to 8 steps within the frame and shrink back to where it started.
  const int maxidx = std::min(kLastIdx, smallidx + 8);
  const int minidx = maxidx - 8;
  const int64_t larger = kMagicInts[maxidx] / 2;
  int64_t smaller = kMagicInts[std::max(kFirstIdx, smallidx - 1)] / 2;
  int64_t smallnum = kMagicInts[smallidx] / 2;
  uint32_t sizesmall[3];
  std::fill(sizesmall, sizesmall + 3, static_cast<uint32_t>(kMagicInts[smallidx]));

  BitWriter bits;
  int32_t prev[3] = {0, 0, 0};
  int prevrun = -1;
  uint32_t small[kMaxRun];
  int64_t i = 0;
  while (i < n) {
    int32_t* x = &c[3 * i];
    int is_smaller = 0;
    if (smallidx < maxidx && i >= 1 && all_within(x, prev, larger)) {
      is_smaller = 1;
    } else if (smallidx > minidx) {
      is_smaller = -1;
    }
    // When the next atom is close, write it as the big one and this one as the first small difference
    // (for water: H1 big, then O relative to H1, H2 relative to O).
    bool is_small = false;
    if (i + 1 < n && all_within(x, x + 3, smallnum)) {
      for (int d = 0; d < 3; ++d) std::swap(x[d], x[d + 3]);
      is_small = true;
    }
    uint32_t offset[3];
    for (int d = 0; d < 3; ++d) offset[d] = static_cast<uint32_t>(int64_t{x[d]} - out.minint[d]);
    if (big.bits == 0) {
      for (int d = 0; d < 3; ++d) bits.put(big.field_bits[d], offset[d]);
    } else {
      put_packed(bits, big.bits, big.sizes, offset);
    }
    std::copy(x, x + 3, prev);
    ++i;

    int run = 0;
    if (!is_small && is_smaller == -1) is_smaller = 0;
    while (is_small && run < kMaxRun) {
      const int32_t* s = &c[3 * i];
      int64_t dist2 = 0;
      for (int d = 0; d < 3; ++d) dist2 += (int64_t{s[d]} - prev[d]) * (int64_t{s[d]} - prev[d]);
      if (is_smaller == -1 && dist2 >= smaller * smaller) is_smaller = 0;
      for (int d = 0; d < 3; ++d) small[run++] = static_cast<uint32_t>(int64_t{s[d]} - prev[d] + smallnum);
      std::copy(s, s + 3, prev);
      ++i;
      is_small = i < n && all_within(&c[3 * i], prev, smallnum);
    }
    if (run != prevrun || is_smaller != 0) {
      prevrun = run;
      bits.put(1, 1);
      bits.put(5, static_cast<uint32_t>(run + is_smaller + 1));
    } else {
      bits.put(1, 0);
    }
    for (int k = 0; k < run; k += 3) put_packed(bits, smallidx, sizesmall, &small[k]);
    if (is_smaller != 0) {
      smallidx += is_smaller;
      if (is_smaller < 0) {
        smallnum = smaller;
        smaller = kMagicInts[smallidx - 1] / 2;
      } else {
        smaller = smallnum;
        smallnum = kMagicInts[smallidx] / 2;
      }
      std::fill(sizesmall, sizesmall + 3, static_cast<uint32_t>(kMagicInts[smallidx]));
    }
  }
  out.bytes = bits.finish();
  return out;
}

std::vector<int32_t> decompress_coords(const CompressedCoords& block, int natoms) {
  for (int d = 0; d < 3; ++d) {
    const int64_t range = int64_t{block.maxint[d]} - block.minint[d];
    if (range < 0 || range >= (int64_t{1} << 32) - 1)
      throw FormatError("bad coordinate range (minint " + std::to_string(block.minint[d]) + ", maxint " +
                        std::to_string(block.maxint[d]) + ")");
  }
  const BigLayout big(block.minint, block.maxint);
  int smallidx = block.smallidx;
  auto check_idx = [&] {
    if (smallidx < kFirstIdx || smallidx > kLastIdx)
      throw FormatError("small-integer size index " + std::to_string(smallidx) + " out of range");
  };
  check_idx();

  std::vector<int32_t> c(3 * static_cast<size_t>(natoms));
  BitReader bits(block.bytes);
  int run = 0;
  int64_t i = 0;
  auto store = [&](int64_t atom, const int64_t x[3]) {
    for (int d = 0; d < 3; ++d) {
      if (x[d] < INT32_MIN || x[d] > INT32_MAX) throw FormatError("decoded coordinate out of range");
      c[3 * atom + d] = static_cast<int32_t>(x[d]);
    }
  };
  while (i < natoms) {
    uint32_t offset[3];
    if (big.bits == 0) {
      for (int d = 0; d < 3; ++d) offset[d] = bits.get(big.field_bits[d]);
    } else {
      get_packed(bits, big.bits, big.sizes, offset);
    }
    int64_t big_x[3];
    for (int d = 0; d < 3; ++d) big_x[d] = int64_t{block.minint[d]} + offset[d];

    int is_smaller = 0;
    if (bits.get(1) == 1) {
      const int code = static_cast<int>(bits.get(5));
      is_smaller = code % 3 - 1;
      run = code - code % 3;
    }
    if (run == 0) {
      store(i++, big_x);
    } else {
      if (i + 1 + run / 3 > natoms)
        throw FormatError("a run of small differences goes past atom " + std::to_string(natoms));
      const int64_t smallnum = kMagicInts[smallidx] / 2;
      const uint32_t size = static_cast<uint32_t>(kMagicInts[smallidx]);
      const uint32_t sizesmall[3] = {size, size, size};
      int64_t prev[3] = {big_x[0], big_x[1], big_x[2]};
      for (int k = 0; k < run / 3; ++k) {
        uint32_t diff[3];
        get_packed(bits, smallidx, sizesmall, diff);
        for (int d = 0; d < 3; ++d) prev[d] += int64_t{diff[d]} - smallnum;
        store(i++, prev);
        if (k == 0) store(i++, big_x);  // undo the writer's swap: the big atom came second
      }
    }
    smallidx += is_smaller;
    check_idx();
  }
  return c;
}

}  // namespace halomd::io::xtc
