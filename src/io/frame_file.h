// Opening a trajectory file for frames: new, or continued from a checkpoint (cut back to the frame boundary
// the checkpoint recorded, then appended to). Shared by the .xtc and .trr writers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace halomd::io {

// A trajectory file written frame by frame, each frame one write and a flush (a crash later leaves every
// frame before it complete).
class FrameFile {
 public:
  // keep_bytes < 0: create (or overwrite) path. keep_bytes >= 0: the file is truncated to that many bytes,
  // which must be a multiple of 4 (XDR words), and opened for appending. Throws InputError naming the file.
  FrameFile(const std::string& path, int64_t keep_bytes);
  ~FrameFile();
  FrameFile(const FrameFile&) = delete;
  FrameFile& operator=(const FrameFile&) = delete;

  // Appends one frame's bytes; throws InputError naming the file and step when the write fails.
  void write(const std::vector<uint8_t>& bytes, int64_t step);
  // Bytes in the file after the last frame written (what a checkpoint records).
  int64_t size_bytes() const { return size_; }

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
  int64_t size_ = 0;
};

}  // namespace halomd::io
