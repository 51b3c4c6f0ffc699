// HaloTransport: how domains exchange what a decomposed step needs (halo coordinates forward, halo forces
// back, the halo plan's atoms and migrating atoms at neighbour-search steps, reductions and gathers). One
// interface for the CPU transports (local, mpi) and the GPU transports that follow (mpi_staged, cuda_ipc,
// nvshmem); the executor consumes domdec's plans and never knows which transport carries them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/executor.h"
#include "core/vec3.h"
#include "domdec/halo_plan.h"

namespace halomd::comm {

// Forces travel as FixedVec3 (core/vec3.h): the reverse reduction adds integers, so it is exact and
// independent of the order in which pulses and domains arrive.

// One home atom with its per-atom state, in the global frame (positions unwrapped, as in MdState): what
// migrates to a new owner at a neighbour-search step and what the output rank gathers.
struct AtomState {
  int32_t global = 0;  // atom index in the topology
  int32_t to = 0;      // destination domain (migration only)
  Vec3 x;              // nm
  Vec3 v;              // nm/ps
};
static_assert(std::is_trivially_copyable_v<AtomState>);

// What a device-initiated transport (nvshmem, nccl_dev) hands to its kernels so that they pack, put,
// signal and wait without the host: plain pointers and integers, copied by value into kernel arguments. The
// pointers are device (or symmetric-heap) addresses owned by the transport and valid until the next
// allocate(). Host-driven transports (local, mpi, mpi_staged, cuda_ipc) return an empty handle
// (num_pulses == 0).
struct DevicePulse {
  const int* send_index = nullptr;  // local atoms to pack, send_count of them
  int send_count = 0;
  int recv_start = 0;  // the received atoms land in [recv_start, recv_start + recv_count)
  int recv_count = 0;
  int send_peer = -1;                 // rank (PE) the coordinates go to; forces come back from it
  int recv_peer = -1;                 // rank (PE) the coordinates come from
  double shift[3] = {0.0, 0.0, 0.0};  // added to the packed coordinates (nm)
  void* x_remote = nullptr;           // where packed coordinates land on send_peer
  void* f_remote = nullptr;           // where returned forces land on recv_peer
  uint64_t* x_signal = nullptr;       // set to the step's epoch when the coordinates have arrived
  uint64_t* f_signal = nullptr;       // set to the step's epoch when the forces have arrived
};
inline constexpr int kMaxDevicePulses = 16;
struct DeviceHandle {
  int num_pulses = 0;
  DevicePulse pulse[kMaxDevicePulses];
  uint64_t epoch = 0;  // signal value of the current step: grows by one per exchange, never reset
};
static_assert(std::is_trivially_copyable_v<DeviceHandle>);

// The transport. A process holds one or more domains ("slots", domains() in order: all of them for local,
// its rank's for mpi); every per-domain argument below is a span with one entry per slot. Calls are
// collective: every process makes the same sequence of calls. Errors throw RuntimeError (the mpi transport
// names the MPI call and its error).
class HaloTransport {
 public:
  virtual ~HaloTransport() = default;
  virtual std::string name() const = 0;
  virtual int rank() const = 0;  // rank 0 writes the outputs
  virtual int num_ranks() const = 0;
  // Fixes the grid; throws InputError when this transport cannot run it (e.g. mpi: one rank per domain).
  virtual void set_grid(const domdec::DdGrid& grid) = 0;
  const std::vector<int>& domains() const { return domains_; }

  // --- Every MD step: host-driven pulses. post() starts a pulse, wait() completes it; pulse k + 1 may send
  // atoms received in pulse k, so a pulse is waited for before the next is posted. ---

  // Binds the transport to this NS step's plans (one per slot, kept by pointer until the next call) and
  // sizes its buffers; they are re-allocated only when a plan outgrows them.
  virtual void allocate(std::span<const domdec::DomainPlan* const> plans) = 0;
  // Coordinates, pulse k forward: each domain sends x[send[i]] + shift to send_to; wait_x writes what
  // arrives from recv_from into x[recv_start, recv_start + recv_count).
  virtual void post_x(int pulse, std::span<Vec3* const> x_local) = 0;
  virtual void wait_x(int pulse, std::span<Vec3* const> x_local) = 0;
  // Forces, pulse k in reverse: each domain returns f[recv_start, +recv_count) to recv_from; wait_f adds
  // what comes back from send_to into f[send[i]].
  virtual void post_f(int pulse, std::span<FixedVec3* const> f_local) = 0;
  virtual void wait_f(int pulse, std::span<FixedVec3* const> f_local) = 0;
  // For kernels that exchange by themselves; empty for host-driven transports.
  virtual DeviceHandle device_handle(int /*slot*/) const { return {}; }
  // Times a buffer was (re)allocated since the transport was made.
  int64_t allocations() const { return allocations_; }

  // --- Neighbour-search steps ---

  // One pulse of the plan build: sent[s] goes from domains()[s] to to[s]; received[s] is filled with what
  // from[s] sent to domains()[s].
  virtual void exchange_atoms(std::span<const int> to, std::span<const int> from,
                              std::span<const domdec::HaloAtoms> sent,
                              std::span<domdec::HaloAtoms> received) = 0;
  // Several pulses at once, which do not depend on one another (direct pulses): pulse m as exchange_atoms
  // with to[m], from[m], sent[m], received[m]. A transport may post them all before it waits (one wait for
  // the neighbours instead of one per pulse); by default one after the other.
  virtual void exchange_atoms_batch(std::span<const std::vector<int>> to,
                                    std::span<const std::vector<int>> from,
                                    std::span<const std::vector<domdec::HaloAtoms>> sent,
                                    std::span<std::vector<domdec::HaloAtoms>> received) {
    for (size_t m = 0; m < to.size(); ++m) exchange_atoms(to[m], from[m], sent[m], received[m]);
  }
  // Migration: leaving[s] are the atoms domains()[s] gives away (AtomState::to names the new owner, any
  // domain); arriving[s] receives the atoms sent to domains()[s], in no particular order.
  virtual void migrate(std::span<const std::vector<AtomState>> leaving,
                       std::span<std::vector<AtomState>> arriving) = 0;

  // --- Reductions and gathers over processes (a process has already combined its own slots) ---

  // Element-wise sums of integers (fixed-point energies, momenta): exact and order-independent.
  virtual void sum(std::span<int64_t> values) = 0;
  virtual void max(std::span<double> values) = 0;
  // Every process's `mine` (the same length everywhere) concatenated in rank order, on every rank.
  virtual void all_gather(std::span<const int64_t> mine, std::vector<int64_t>& all) = 0;
  // Every process's atoms concatenated in rank order on rank 0 (left empty elsewhere).
  virtual void gather(std::span<const AtomState> mine, std::vector<AtomState>& all) = 0;

  // A second transport over the same processes, whose calls may run on another thread at the same time as
  // this one's (its own communicator): for a thread that builds the next plan while the steps run.
  // Collective; nullptr where that is not possible (the default; mpi: unless MPI gave MPI_THREAD_MULTIPLE).
  virtual std::unique_ptr<HaloTransport> clone_for_thread() { return nullptr; }

  // host_syncs and launches stay 0 on the CPU; mpi_waits counts calls that block on another rank,
  // halo_bytes the bytes sent to other domains (coordinates, forces and neighbour-search traffic).
  const CallCounters& counters() const { return counters_; }

 protected:
  std::vector<int> domains_;
  CallCounters counters_;
  int64_t allocations_ = 0;
};

// All domains in this process: the transport of `halomd run --domains N --transport local`.
std::unique_ptr<HaloTransport> make_local_transport();

}  // namespace halomd::comm
