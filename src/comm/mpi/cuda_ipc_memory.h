// Device memory shared between processes through CUDA IPC, for the cuda_ipc transport
// (gpu_staged_transport.cpp): receive buffers that peers copy into, and the peers' buffers mapped here.
// Freeing an exported allocation before every importer has closed its mapping is undefined (CUDA runtime
// API, cudaIpcOpenMemHandle), so an outgrown buffer is retired, and freed only when the caller knows that
// every peer has mapped the new one (after a barrier).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"

namespace halomd::comm {

// A device receive buffer (grow-only); exported when peers write into it.
class RecvBuffer {
 public:
  RecvBuffer() = default;
  RecvBuffer(const RecvBuffer&) = delete;
  RecvBuffer& operator=(const RecvBuffer&) = delete;
  ~RecvBuffer() {
    if (leak_) return;  // peers may still map it: left to the end of the process
    free_retired();
    if (ptr_) (void)cudaFree(ptr_);
  }

  // Returns true when it (re)allocated (contents undefined then). Never empty, so that it has a handle.
  bool grow(size_t bytes, bool exported, const std::string& what) {
    if (ptr_ && bytes_ >= bytes) return false;
    const size_t n = std::max<size_t>(bytes + bytes / 4, 256);
    void* p = nullptr;
    gpu::check(cudaMalloc(&p, n), "cudaMalloc for " + what + " (" + gpu::mib(n) + ")");
    if (ptr_ && exported) retired_.push_back(ptr_);
    if (ptr_ && !exported) (void)cudaFree(ptr_);
    ptr_ = static_cast<char*>(p);
    bytes_ = n;
    ++generation_;
    if (exported) gpu::check(cudaIpcGetMemHandle(&handle_, ptr_), "cudaIpcGetMemHandle for " + what);
    return true;
  }
  // Once no peer maps the outgrown allocations any more.
  void free_retired() {
    for (void* p : retired_) (void)cudaFree(p);
    retired_.clear();
  }
  // When peers may still map it at the end (an error, a barrier that did not complete).
  void leak() { leak_ = true; }

  char* get() const { return ptr_; }
  const cudaIpcMemHandle_t& handle() const { return handle_; }
  uint64_t generation() const { return generation_; }  // tells importers when to map it again

 private:
  char* ptr_ = nullptr;
  size_t bytes_ = 0;
  cudaIpcMemHandle_t handle_{};
  uint64_t generation_ = 0;
  std::vector<void*> retired_;
  bool leak_ = false;
};

// The peers' receive buffers mapped into this process, by (peer, which buffer); each handle is opened once
// and opened again only when the peer's buffer changed.
class PeerMappings {
 public:
  PeerMappings() = default;
  PeerMappings(const PeerMappings&) = delete;
  PeerMappings& operator=(const PeerMappings&) = delete;
  ~PeerMappings() { close_all(); }

  // Before the first map() of a bind.
  void begin() {
    for (auto& entry : mappings_) entry.second.used = false;
  }
  char* map(int peer, int buffer, const cudaIpcMemHandle_t& handle, uint64_t generation) {
    Mapping& m = mappings_[{peer, buffer}];
    if (!m.ptr || m.generation != generation) {
      if (m.ptr) gpu::check(cudaIpcCloseMemHandle(m.ptr), "cudaIpcCloseMemHandle");
      m.ptr = nullptr;
      gpu::check(cudaIpcOpenMemHandle(&m.ptr, handle, cudaIpcMemLazyEnablePeerAccess),
                 "cudaIpcOpenMemHandle of rank " + std::to_string(peer) + "'s receive buffer");
      m.generation = generation;
    }
    m.used = true;
    return static_cast<char*>(m.ptr);
  }
  // After the last map() of a bind: what this bind did not map is closed.
  void close_unused() {
    for (auto it = mappings_.begin(); it != mappings_.end();) {
      if (it->second.used) {
        ++it;
        continue;
      }
      gpu::check(cudaIpcCloseMemHandle(it->second.ptr), "cudaIpcCloseMemHandle");
      it = mappings_.erase(it);
    }
  }
  void close_all() {
    for (auto& entry : mappings_) (void)cudaIpcCloseMemHandle(entry.second.ptr);
    mappings_.clear();
  }

 private:
  struct Mapping {
    void* ptr = nullptr;
    uint64_t generation = 0;
    bool used = false;
  };
  std::map<std::pair<int, int>, Mapping> mappings_;
};

}  // namespace halomd::comm
