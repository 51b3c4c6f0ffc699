// A host vector into a device buffer sized for it, for the set-up of the executors' constant data.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "gpu/device_buffer.h"
#include "gpu/gpu_calls.h"

namespace halomd::gpu {

// Allocates `dev` for host's elements (at least one, so that a kernel gets a valid pointer for an empty
// list), copies them and waits. Returns the device pointer.
template <class T>
const T* upload(GpuCalls& calls, DeviceBuffer<T>& dev, const std::vector<T>& host, const std::string& what) {
  dev.allocate(std::max<size_t>(host.size(), 1), what);
  if (!host.empty()) calls.copy_sync(dev.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return dev.get();
}

// The same for data uploaded again and again (GPU domains, at each repartition): `dev` is reallocated only
// when host outgrows it, with a quarter more room then, so that repartitions rarely allocate. Copies and
// waits.
template <class T>
const T* upload_grow(GpuCalls& calls, DeviceBuffer<T>& dev, const std::vector<T>& host,
                     const std::string& what) {
  if (dev.size() < std::max<size_t>(host.size(), 1)) dev.allocate(host.size() + host.size() / 4 + 16, what);
  if (!host.empty()) calls.copy_sync(dev.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return dev.get();
}

}  // namespace halomd::gpu
