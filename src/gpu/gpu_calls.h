// Every CUDA call that enqueues work on the stream or waits for the device goes through one of these
// wrappers, one per kind of call, so that the counters in run.json are counted by the code
// (../shared/BENCH.md): a launch is a kernel launch, a graph launch (one, whatever its nodes), an async copy
// or an async memset, or a library call that enqueues kernels (cuFFT); a host sync is a call that blocks
// until the device is done. Calls made while a graph is being captured are recorded into the graph, not
// run, so they are not counted.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "gpu/cuda_check.h"

namespace halomd::gpu {

template <class T>
struct Identity {
  using type = T;
};

class GpuCalls {
 public:
  GpuCalls() = default;
  GpuCalls(const GpuCalls&) = delete;
  GpuCalls& operator=(const GpuCalls&) = delete;
  ~GpuCalls() {
    if (stream_) (void)cudaStreamDestroy(stream_);
  }
  // priority: as cudaStreamCreateWithPriority takes it (lower numbers run first; 0 is the default).
  void create_stream(int priority = 0) {
    HALOMD_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, priority));
  }
  cudaStream_t stream() const { return stream_; }

  // A kernel launch; `name` says which kernel in an error message. The arguments are converted to the
  // kernel's parameter types before their addresses are taken.
  template <class... Params>
  void launch(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes,
              typename Identity<Params>::type... args) {
    void* argv[] = {static_cast<void*>(&args)..., nullptr};
    check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, argv, shared_bytes, stream_),
          std::string("launching ") + name);
    count_launch();
  }
  void launch_graph(cudaGraphExec_t graph) {
    HALOMD_CUDA_CHECK(cudaGraphLaunch(graph, stream_));
    count_launch();
  }
  // Copies between device and page-locked host memory (pageable host memory would make the copy
  // synchronous).
  void copy_async(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    if (bytes == 0) return;
    HALOMD_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream_));
    count_launch();
  }
  // A copy from or to pageable host memory, in stream order, waited for (setup only).
  void copy_sync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    if (bytes == 0) return;
    copy_async(dst, src, bytes, kind);
    sync();
  }
  void memset_async(void* dst, int value, size_t bytes) {
    if (bytes == 0) return;
    HALOMD_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, stream_));
    count_launch();
  }
  // Blocks until everything enqueued so far has run; a failed kernel reports here.
  void sync() {
    HALOMD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ++host_syncs_;
  }
  // A library call that enqueues its own kernels on the stream (a cuFFT transform): counted as one launch,
  // as the host makes one call (inside a capture it is part of the graph's one launch).
  void count_library_call() { count_launch(); }
  // Timing events only mark the stream; they enqueue no work and are not counted.
  void record(cudaEvent_t event) { HALOMD_CUDA_CHECK(cudaEventRecord(event, stream_)); }
  // Blocks until the work before `event` has run.
  void wait(cudaEvent_t event) {
    HALOMD_CUDA_CHECK(cudaEventSynchronize(event));
    ++host_syncs_;
  }

  // Concurrent work on a second stream: fork() makes `side` wait for what this stream has enqueued so far;
  // use(side) sends the next calls there (it returns the stream to go back to with use()); join() makes this
  // stream wait for what `side` has enqueued. Inside a capture the side stream's work joins the graph.
  void fork(cudaStream_t side, cudaEvent_t event) {
    HALOMD_CUDA_CHECK(cudaEventRecord(event, stream_));
    HALOMD_CUDA_CHECK(cudaStreamWaitEvent(side, event, 0));
  }
  cudaStream_t use(cudaStream_t stream) {
    const cudaStream_t previous = stream_;
    stream_ = stream;
    return previous;
  }
  // use(stream) for a scope: the previous stream is back when it ends, also when a call in it throws.
  class Use {
   public:
    Use(GpuCalls& calls, cudaStream_t stream) : calls_(calls), previous_(calls.use(stream)) {}
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;
    ~Use() { calls_.use(previous_); }

   private:
    GpuCalls& calls_;
    cudaStream_t previous_;
  };
  void join(cudaStream_t side, cudaEvent_t event) {
    HALOMD_CUDA_CHECK(cudaEventRecord(event, side));
    HALOMD_CUDA_CHECK(cudaStreamWaitEvent(stream_, event, 0));
  }

  void begin_capture() {
    HALOMD_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    capturing_ = true;
  }
  cudaGraph_t end_capture() {
    capturing_ = false;
    cudaGraph_t graph = nullptr;
    HALOMD_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    return graph;
  }

  int64_t launches() const { return launches_; }
  int64_t host_syncs() const { return host_syncs_; }

 private:
  void count_launch() {
    if (!capturing_) ++launches_;
  }
  cudaStream_t stream_ = nullptr;
  bool capturing_ = false;
  int64_t launches_ = 0;
  int64_t host_syncs_ = 0;
};

}  // namespace halomd::gpu
