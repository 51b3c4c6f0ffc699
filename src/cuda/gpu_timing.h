// GPU time per phase of the step, from CUDA events recorded between the kernels of NS and energy steps
// (and of every step with HALOMD_GPU_TIMING=1, which launches regular steps kernel by kernel instead of as
// a graph). Events are read only when the host waits for the device anyway, so timing adds no host sync.
// The caller numbers its marks (at most kMaxMarks) and names the phases between them in a PhaseTable.
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <string>
#include <vector>

namespace halomd::cuda {

class GpuTiming {
 public:
  static constexpr int kMaxMarks = 8;
  struct Phase {
    const char* name;
    int from, to;  // marks
  };
  using PhaseTable = std::vector<Phase>;
  struct Sample {
    cudaEvent_t ev[kMaxMarks] = {};
    const PhaseTable* phases = nullptr;
  };

  GpuTiming() = default;
  GpuTiming(const GpuTiming&) = delete;
  GpuTiming& operator=(const GpuTiming&) = delete;
  ~GpuTiming();
  void create(int samples);
  // A free event set for one step whose phases `phases` names (it must outlive the harvest), or nullptr
  // when every set waits to be read (the step goes untimed).
  Sample* begin(const PhaseTable& phases);
  // Reads every recorded set; call after the stream was synchronised.
  void harvest();
  // `"gpu_phase_us": {...}, "gpu_phase_samples": {...}` for run.json.
  std::string json() const;
  double mean_us(const std::string& phase) const;

 private:
  void add(const std::string& phase, cudaEvent_t a, cudaEvent_t b);
  std::vector<Sample> samples_;
  std::vector<int> free_, pending_;
  struct Sum {
    double us = 0.0;
    long long n = 0;
  };
  std::map<std::string, Sum> sums_;
};

}  // namespace halomd::cuda
