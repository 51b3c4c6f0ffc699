// The regular MD step as one CUDA graph: recorded from the stream once, replayed every step, and recorded
// again when what it was recorded with changes (a search's new plan, a reallocated buffer). A re-recording
// with the same shape updates the instantiated graph in place (cudaGraphExecUpdate) instead of
// instantiating a new one.
#pragma once

#include <cuda_runtime.h>

#include "gpu/cuda_check.h"
#include "gpu/gpu_calls.h"

namespace halomd::gpu {

class StepGraph {
 public:
  StepGraph() = default;
  StepGraph(const StepGraph&) = delete;
  StepGraph& operator=(const StepGraph&) = delete;
  ~StepGraph() {
    if (exec_) (void)cudaGraphExecDestroy(exec_);
  }

  // The next launch records the step again.
  void invalidate() { current_ = false; }
  // Run the kernels at the priorities of the streams they were recorded from (the stream capture copies a
  // stream's priority into its kernel nodes) instead of the launch stream's; takes effect at the next
  // instantiation.
  void use_node_priority(bool on) { flags_ = on ? cudaGraphInstantiateFlagUseNodePriority : 0; }
  int64_t instantiations() const { return instantiations_; }
  int64_t updates() const { return updates_; }

  // Records the step (record(calls) enqueues it) when invalidated, so that what follows (a timing event,
  // the launch) sees no recording in between.
  template <class Record>
  void prepare(GpuCalls& calls, Record&& record) {
    if (!current_) rerecord(calls, record);
  }

  // Launches the step, recording it first when invalidated.
  template <class Record>
  void launch(GpuCalls& calls, Record&& record) {
    prepare(calls, record);
    calls.launch_graph(exec_);
  }

 private:
  template <class Record>
  void rerecord(GpuCalls& calls, Record& record) {
    calls.begin_capture();
    cudaGraph_t graph = nullptr;
    try {
      record(calls);
    } catch (...) {
      graph = calls.end_capture();
      if (graph) (void)cudaGraphDestroy(graph);
      throw;
    }
    graph = calls.end_capture();
    bool updated = false;
    if (exec_) {
      cudaGraphExecUpdateResultInfo info{};
      updated = cudaGraphExecUpdate(exec_, graph, &info) == cudaSuccess;
      if (!updated) {
        (void)cudaGetLastError();  // the shape changed: instantiate instead
        (void)cudaGraphExecDestroy(exec_);
        exec_ = nullptr;
      }
    }
    if (!updated) {
      const cudaError_t err = cudaGraphInstantiate(&exec_, graph, flags_);
      (void)cudaGraphDestroy(graph);
      HALOMD_CUDA_CHECK(err);
      ++instantiations_;
    } else {
      (void)cudaGraphDestroy(graph);
      ++updates_;
    }
    current_ = true;
  }

  cudaGraphExec_t exec_ = nullptr;
  bool current_ = false;
  unsigned long long flags_ = 0;
  int64_t instantiations_ = 0, updates_ = 0;
};

}  // namespace halomd::gpu
