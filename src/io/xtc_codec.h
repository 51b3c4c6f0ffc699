// Bit-level coordinate compression of GROMACS .xtc frames (the xdr3dfcoord scheme), without any file I/O.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace halomd::io::xtc {

// A malformed compressed block; read_xtc turns it into an InputError naming the file and frame.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Largest |coordinate * precision| the format carries: the largest float below INT32_MAX, as GROMACS checks
// (libxdrf.cpp, maxAbsoluteInt). The range max - min of one dimension must stay below it too.
inline constexpr int64_t kMaxAbsInt = 2147483520;

// The compressed coordinates of one frame as they follow the precision in the file.
struct CompressedCoords {
  int32_t minint[3]{};
  int32_t maxint[3]{};
  int32_t smallidx = 0;        // index into the magic-integer table of the starting small-difference size
  std::vector<uint8_t> bytes;  // the bit stream, unpadded (the file pads it to 4 bytes)
};

// Compresses 3*n integer coordinates (x * precision rounded, |value| <= kMaxAbsInt, per-dimension range
// below kMaxAbsInt, n >= 1). Takes a copy: the water-pair swap reorders it while encoding.
CompressedCoords compress_coords(std::vector<int32_t> ints);

// Inverse of compress_coords for natoms atoms: 3*natoms integers. Throws FormatError on a malformed block.
std::vector<int32_t> decompress_coords(const CompressedCoords& block, int natoms);

}  // namespace halomd::io::xtc
