#include "io/frame_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/errors.h"

namespace halomd::io {

FrameFile::FrameFile(const std::string& path, int64_t keep_bytes) : path_(path) {
  if (keep_bytes >= 0) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool exists = fs::exists(path, ec);
    if (!exists && keep_bytes > 0)
      throw InputError(path, 0, "cannot continue the trajectory: the file is missing");
    if (exists) {
      const auto have = static_cast<int64_t>(fs::file_size(path, ec));
      if (ec) throw InputError(path, 0, "cannot continue the trajectory: " + ec.message());
      if (have < keep_bytes)
        throw InputError(path, 0,
                         "has " + std::to_string(have) + " bytes, fewer than the " +
                             std::to_string(keep_bytes) + " recorded by the checkpoint");
      if (keep_bytes % 4 != 0)
        throw InputError(path, 0, std::to_string(keep_bytes) + " bytes is not a frame boundary");
      fs::resize_file(path, static_cast<uintmax_t>(keep_bytes), ec);
      if (ec)
        throw InputError(path, 0,
                         "cannot truncate to " + std::to_string(keep_bytes) + " bytes: " + ec.message());
    }
  }
  file_ = std::fopen(path.c_str(), keep_bytes >= 0 ? "ab" : "wb");
  if (!file_) throw InputError(path, 0, std::string("cannot open for writing: ") + std::strerror(errno));
  size_ = keep_bytes > 0 ? keep_bytes : 0;
}

FrameFile::~FrameFile() {
  if (file_) std::fclose(file_);
}

void FrameFile::write(const std::vector<uint8_t>& bytes, int64_t step) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size() || std::fflush(file_) != 0)
    throw InputError(path_, 0,
                     "cannot write the frame of step " + std::to_string(step) + ": " + std::strerror(errno));
  size_ += static_cast<int64_t>(bytes.size());
}

}  // namespace halomd::io
