// Owning buffers of device memory and of page-locked host memory (the staging area of asynchronous copies).
// Allocation happens outside the MD steps (load, first search); running out of memory stops with a message
// that says what was being allocated, how much, and how much the GPU has free.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>

#include "core/errors.h"
#include "gpu/cuda_check.h"

namespace halomd::gpu {

inline std::string mib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f MiB", static_cast<double>(bytes) / 1048576.0);
  return buf;
}

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  ~DeviceBuffer() { release(); }

  // (Re)allocates n elements, contents undefined; `what` names the buffer in an out-of-memory message.
  void allocate(size_t n, const std::string& what) {
    release();
    if (n == 0) return;
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, n * sizeof(T));
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: clear it before asking how much is free
      size_t free_b = 0, total_b = 0;
      (void)cudaMemGetInfo(&free_b, &total_b);
      throw RuntimeError(-1, -1,
                         "out of GPU memory: " + what + " needs " + mib(n * sizeof(T)) + ", the GPU has " +
                             mib(free_b) + " free of " + mib(total_b));
    }
    check(err, "cudaMalloc for " + what);
    p_ = static_cast<T*>(p);
    n_ = n;
  }
  T* get() const { return p_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }

 private:
  void release() {
    if (p_) (void)cudaFree(p_);  // at teardown or reallocation only, never inside a step
    p_ = nullptr;
    n_ = 0;
  }
  T* p_ = nullptr;
  size_t n_ = 0;
};

template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (p_) (void)cudaFreeHost(p_);
  }
  void allocate(size_t n, const std::string& what) {
    if (p_) (void)cudaFreeHost(p_);
    p_ = nullptr;
    n_ = 0;
    if (n == 0) return;
    void* p = nullptr;
    check(cudaMallocHost(&p, n * sizeof(T)), "cudaMallocHost for " + what + " (" + mib(n * sizeof(T)) + ")");
    p_ = static_cast<T*>(p);
    n_ = n;
  }
  T* get() const { return p_; }
  T& operator[](size_t i) const { return p_[i]; }
  size_t size() const { return n_; }
  // Gives the memory up without freeing it (something that cannot be stopped may still write into it):
  // left to the end of the process.
  void leak() {
    p_ = nullptr;
    n_ = 0;
  }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

}  // namespace halomd::gpu
