// Host arrays uploaded at a search without a host synchronisation per array: each round copies the arrays
// into one page-locked buffer and enqueues asynchronous copies from it; the next round reuses the buffer
// only after the last round's copies have run (an event, normally long passed by then).
#pragma once

#include <cuda_runtime.h>

#include <cstring>
#include <string>

#include "gpu/device_buffer.h"
#include "gpu/gpu_calls.h"

namespace halomd::gpu {

class UploadStaging {
 public:
  UploadStaging() = default;
  UploadStaging(const UploadStaging&) = delete;
  UploadStaging& operator=(const UploadStaging&) = delete;
  ~UploadStaging() {
    if (done_) (void)cudaEventDestroy(done_);
  }

  // Bytes a round needs for an array of n elements of T (each array starts 256-byte aligned).
  template <class T>
  static size_t room(size_t n) {
    return (n * sizeof(T) + 255) / 256 * 256;
  }

  // Starts a round of at most `bytes` (a sum of room()): waits for the last round, grows the buffer.
  void begin(GpuCalls& calls, size_t bytes, const std::string& what) {
    if (!done_) HALOMD_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
    if (pending_) calls.wait(done_);
    pending_ = false;
    if (bytes > buf_.size()) buf_.allocate(bytes + bytes / 4, what + " (upload staging)");
    used_ = 0;
  }

  // Copies n elements from host src into the buffer and enqueues their copy to the device at dst.
  template <class T>
  void put(GpuCalls& calls, T* dst, const T* src, size_t n) {
    if (n == 0) return;
    const size_t bytes = n * sizeof(T);
    if (used_ + room<T>(n) > buf_.size())
      throw RuntimeError(-1, -1, "upload staging: a round outgrew its size");
    std::memcpy(buf_.get() + used_, src, bytes);
    calls.copy_async(dst, buf_.get() + used_, bytes, cudaMemcpyHostToDevice);
    used_ += room<T>(n);
  }

  // Ends the round: the buffer is free again once the stream has passed this point.
  void end(GpuCalls& calls) {
    calls.record(done_);
    pending_ = true;
  }

 private:
  PinnedBuffer<unsigned char> buf_;
  cudaEvent_t done_ = nullptr;
  bool pending_ = false;
  size_t used_ = 0;
};

}  // namespace halomd::gpu
