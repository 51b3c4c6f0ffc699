#include "cuda/gpu_timing.h"

#include <string>

#include "fmt/format.h"
#include "gpu/cuda_check.h"

namespace halomd::cuda {

GpuTiming::~GpuTiming() {
  for (Sample& s : samples_)
    for (cudaEvent_t e : s.ev)
      if (e) (void)cudaEventDestroy(e);
}

void GpuTiming::create(int samples) {
  samples_.resize(samples);
  for (int i = 0; i < samples; ++i) {
    for (cudaEvent_t& e : samples_[i].ev) HALOMD_CUDA_CHECK(cudaEventCreate(&e));
    free_.push_back(i);
  }
}

GpuTiming::Sample* GpuTiming::begin(const PhaseTable& phases) {
  if (free_.empty()) return nullptr;
  const int i = free_.back();
  free_.pop_back();
  pending_.push_back(i);
  samples_[i].phases = &phases;
  return &samples_[i];
}

void GpuTiming::add(const std::string& phase, cudaEvent_t a, cudaEvent_t b) {
  float ms = 0.f;
  HALOMD_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  Sum& s = sums_[phase];
  s.us += 1e3 * ms;
  ++s.n;
}

void GpuTiming::harvest() {
  for (int i : pending_) {
    const Sample& s = samples_[i];
    for (const Phase& ph : *s.phases) add(ph.name, s.ev[ph.from], s.ev[ph.to]);
    free_.push_back(i);
  }
  pending_.clear();
}

double GpuTiming::mean_us(const std::string& phase) const {
  const auto it = sums_.find(phase);
  return it == sums_.end() || it->second.n == 0 ? 0.0 : it->second.us / it->second.n;
}

std::string GpuTiming::json() const {
  std::string us, n;
  for (const auto& [phase, sum] : sums_) {
    us += fmt::format("{}\"{}\": {:.3f}", us.empty() ? "" : ", ", phase, sum.us / sum.n);
    n += fmt::format("{}\"{}\": {}", n.empty() ? "" : ", ", phase, sum.n);
  }
  return fmt::format("\"gpu_phase_us\": {{{}}},\n  \"gpu_phase_samples\": {{{}}}", us, n);
}

}  // namespace halomd::cuda
