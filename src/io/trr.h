// Writing (and, for tests, reading) GROMACS .trr full-precision trajectories: x, v and f frames as
// nstxout, nstvout and nstfout ask, in single precision as a mixed-precision gmx mdrun writes them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/box.h"
#include "core/vec3.h"
#include "io/frame_file.h"

namespace halomd::io {

class TrrWriter {
 public:
  // keep_bytes as XtcWriter's (io/frame_file.h).
  explicit TrrWriter(const std::string& path, int64_t keep_bytes = -1) : file_(path, keep_bytes) {}

  // One frame with whichever of x (nm), v (nm/ps) and f (kJ/mol/nm) are given (null: left out; at least
  // one). Flushed on return.
  void write_frame(int64_t step, double time_ps, const Box& box, const std::vector<Vec3>* x,
                   const std::vector<Vec3>* v, const std::vector<Vec3>* f);
  int64_t size_bytes() const { return file_.size_bytes(); }

 private:
  FrameFile file_;
};

struct TrrFrame {
  int64_t step = 0;
  double time_ps = 0.0;
  Box box;
  std::vector<Vec3> x, v, f;  // empty when the frame has none
};

// Reads every frame (single or double precision); throws InputError naming the file and frame on a
// malformed file.
std::vector<TrrFrame> read_trr(const std::string& path);

}  // namespace halomd::io
