// Writing (and, for tests and restarts, reading) GROMACS .xtc compressed trajectories.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/box.h"
#include "core/vec3.h"
#include "io/frame_file.h"

namespace halomd::io {

class XtcWriter {
 public:
  // keep_bytes < 0: create (or overwrite) path. keep_bytes >= 0: the file is truncated to that many bytes
  // (a frame boundary recorded by a checkpoint) and frames are appended after it.
  explicit XtcWriter(const std::string& path, int64_t keep_bytes = -1) : file_(path, keep_bytes) {}

  // One frame; precision as GROMACS's compressed-x-precision (1000 = 0.001 nm). Flushed to disk on return so
  // that a crash later leaves every frame written so far readable.
  void write_frame(int64_t step, double time_ps, const Box& box, const std::vector<Vec3>& x,
                   double precision = 1000.0);
  // Bytes in the file after the last frame written (what a checkpoint records).
  int64_t size_bytes() const { return file_.size_bytes(); }

 private:
  FrameFile file_;
};

struct XtcFrame {
  int64_t step = 0;
  double time_ps = 0.0;
  Box box;
  std::vector<Vec3> x;  // nm, as decoded (precision of the file)
  double precision = 0.0;
};

// Reads every frame; throws InputError naming the file and frame on a malformed file.
std::vector<XtcFrame> read_xtc(const std::string& path);

}  // namespace halomd::io
