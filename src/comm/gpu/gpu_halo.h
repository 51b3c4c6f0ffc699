// GPU halo transports: the per-step halo exchange of the domain-decomposed CUDA executor, between the device
// arrays of one domain per MPI rank. Three ways behind one interface, consuming the same domdec plan:
//   mpi_staged   pack on the GPU, copy to host, synchronise, MPI_Isend/Irecv in host memory, copy back,
//                unpack (the CPU-orchestrated baseline; the MPI on the GPU machine is not CUDA-aware);
//   cuda_ipc     the same orchestration, but the pack lands in the peer's receive buffer through CUDA IPC
//                (cudaMemcpyAsync peer copy) and MPI carries only the notices;
//   nvshmem,     device-initiated: kernels pack straight into the peer's symmetric receive buffer (direct
//   nvshmem_put  stores through nvshmem_ptr + release fence + signal, or put-with-signal; nvshmem_put always
//                uses put-with-signal) and wait for their own signals on the device; no host involvement,
//                so the whole step can live in one CUDA graph.
// The host-side work of a neighbour-search step (migration, plan building, reductions, gathers) goes through
// `host()`, an ordinary HaloTransport (the mpi transport). Needs CUDA; built with CUDA and MPI. Host code
// (.cpp, C++20): the kernels (.cu) keep to C++17 and see only gpu_halo_arrays.h and gpu_halo_device.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

#include "comm/gpu/gpu_halo_arrays.h"
#include "comm/halo_transport.h"
#include "domdec/halo_plan.h"
#include "gpu/gpu_calls.h"

namespace halomd::comm {

class GpuHaloTransport {
 public:
  virtual ~GpuHaloTransport() = default;
  virtual std::string name() const = 0;  // mpi_staged, cuda_ipc, nvshmem, nvshmem_put
  // The transport for the host-side work of search steps; one domain per rank (its set_grid checks that).
  virtual HaloTransport& host() = 0;
  // True when exchange_x/exchange_f/reduce only enqueue device work (no host waits, no MPI): the executor
  // then captures them into its per-step CUDA graph.
  virtual bool device_initiated() const = 0;

  // At every search step, after the plan is built, by every rank (collective): binds this rank's plan (kept
  // by pointer until the next bind) and the executor's arrays, uploads the send lists, and grows the buffers
  // when the plan outgrows them (for nvshmem: sized by the largest pulse over all ranks, grow-only). May
  // block (it is outside the regular steps).
  virtual void bind(const domdec::DomainPlan& plan, const GpuLocalArrays& arrays, gpu::GpuCalls& calls) = 0;

  // Every step, enqueued on calls.stream() through `calls` (so launches and host syncs are counted there):
  // the coordinate pulses in plan order: x[d][recv_start + i] = peer's x[d][send[i]] + shift[d]
  // (the peer being recv_from). When it returns, the work is enqueued (device-initiated) or done up to the
  // unpack, which is enqueued (host-driven).
  virtual void exchange_x(gpu::GpuCalls& calls) = 0;
  // The force pulses in reverse plan order: each rank returns f[sorted_of[l]] + f_halo[l] (x, y, z) of its
  // received atoms l = recv_start + i to recv_from, which adds them in float into f_halo[send[i]], pulse by
  // pulse, in the send order (so every transport gives the same bits). f is only read (GpuLocalArrays).
  virtual void exchange_f(gpu::GpuCalls& calls) = 0;
  // values[0, count) (device memory) summed over ranks in place, exactly (integers). device_initiated(): the
  // kernels read *active (device memory) and do nothing when it is 0, every rank alike. Host-driven: nothing
  // is done when !host_active.
  virtual void reduce(gpu::GpuCalls& calls, long long* values, int count, const int* active,
                      bool host_active) = 0;

  // PME's charge grid on GPU domains (coulombtype = PME): every rank spreads its home atoms' charges in
  // 64-bit fixed point, and sum_grid sums values[0, count) (device memory) over the ranks exactly (modulo
  // 2^64, so the same bits as one domain's spread of all the atoms). reserve_grid (collective, once, before
  // the first sum) fixes count for the transport's life and returns where the sum goes: null when sum_grid
  // leaves it in `values`, in place; otherwise a float grid of count values (device memory, the transport's)
  // into which sum_grid writes the sum times 1 / scale, as the caller would convert it, zeroing `values` (the
  // slab form of nvshmem, HALOMD_GRID_SUM=slabs). device_initiated(): a kernel that puts, signals and waits
  // on the device; host-driven: one host sync and one mpi_wait.
  virtual float* reserve_grid(size_t count, double scale) = 0;
  virtual void sum_grid(gpu::GpuCalls& calls, unsigned long long* values) = 0;
  // How sum_grid sums, for run.json: "host" (through the host), "all" (every grid to every PE) or "slabs".
  virtual const char* grid_sum_form() const { return "host"; }

  // After the executor has synchronised the stream: throws RuntimeError when a device-side wait timed out
  // (naming the pulse, the direction and the peer) or another transport error was recorded.
  virtual void check_errors() = 0;
  // mpi_waits and halo_bytes of the per-step exchange plus host()'s counters (host_syncs and launches are
  // counted by the executor's GpuCalls).
  virtual CallCounters counters() const = 0;
  // Times the device buffers were (re)allocated.
  virtual int64_t allocations() const = 0;
  // Where the update kernel packs the home atoms of the next coordinate halo (gpu_halo_arrays.h
  // HaloPrepackDev; device memory, the same address for the transport's life, its contents rewritten at
  // bind), or null when this transport packs them itself.
  virtual const HaloPrepackDev* prepack() const { return nullptr; }
  // Coordinate exchanges that found their home atoms packed by the update (reads the device: after a sync).
  virtual int64_t prepacked_exchanges() const { return 0; }
  // ... and those of them with some pulse the update also released (signalled).
  virtual int64_t released_exchanges() const { return 0; }
  // Peers this rank's device-side waits and stores treat as on another GPU (system scope); 0 for the
  // host-orchestrated transports.
  virtual int peers_on_other_gpus() const { return 0; }
};

// Factories; each needs MPI started (mpirun). The timeout bounds every wait on a peer (device-side signal
// waits and host-side waits alike): past it the run stops with an error naming the pulse and the peer.
std::unique_ptr<GpuHaloTransport> make_mpi_staged_transport(int timeout_ms);
std::unique_ptr<GpuHaloTransport> make_cuda_ipc_transport(int timeout_ms);
// nvshmem::initialise() first. put_only: always put-with-signal (nvshmem_put), else direct stores where
// nvshmem_ptr reaches the peer.
std::unique_ptr<GpuHaloTransport> make_nvshmem_transport(bool put_only, int timeout_ms);

}  // namespace halomd::comm
