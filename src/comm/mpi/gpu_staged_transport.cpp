// The CPU-orchestrated GPU halo transports (gpu_halo.h), mpi_staged and cuda_ipc: one class with a mode, so
// that the orchestration of a pulse (pack, carry, synchronise, message, bounded wait, unpack) is written
// once; only how the packed bytes reach the peer differs. Per exchange of P pulses, each direction costs P
// host syncs and P mpi_waits (one per pulse), plus the launches: pack, copy out, copy in and unpack
// (mpi_staged) or pack, peer copy and unpack (cuda_ipc).
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

#include "comm/gpu/gpu_halo.h"
#include "comm/gpu/gpu_halo_kernels.h"
#include "comm/mpi/cuda_ipc_memory.h"
#include "comm/mpi/mpi_transport.h"
#include "core/errors.h"
#include "gpu/device_buffer.h"
#include "gpu/upload_staging.h"

namespace halomd::comm {
namespace {

enum class Mode { kStaged, kIpc };

// Tags on the transport's own communicator: one per pulse and per kind of message.
constexpr int kTagSums = 1;
enum Kind { kX = 0, kF = 1, kBindX = 2, kBindF = 3 };
int tag(int pulse, Kind kind) { return 8 + 4 * pulse + kind; }

// Grow-only, with headroom: a buffer is reallocated only when a plan outgrows it.
template <class Buffer>
void grow(Buffer& buf, size_t n, const char* what, int64_t& allocations) {
  if (buf.size() >= n) return;
  buf.allocate(n + n / 4 + 64, what);
  ++allocations;
}

// cuda_ipc, at bind(): where the sender's copies of one pulse land in the receiver's buffer.
struct IpcTarget {
  cudaIpcMemHandle_t handle;
  uint64_t generation;
  uint64_t offset_bytes;
  uint64_t bytes;  // what the receiver's plan expects, checked against the sender's
};

// cuda_ipc, per pulse: "my copy into your buffer is complete" (sequence: the exchange's number).
struct Notice {
  int64_t sequence;
  uint64_t bytes;
};

// One pulse in one direction, as the carrying code sees it.
struct Leg {
  Kind kind;
  int pulse, to, from;
  const void* out;  // packed on the device, out_bytes
  void* out_host;   // mpi_staged: pinned staging of `out`
  void* remote;     // cuda_ipc: where `out` lands in the peer's receive buffer
  size_t out_bytes;
  void* in;       // device: what arrives, in_bytes
  void* in_host;  // mpi_staged: pinned staging of `in`
  size_t in_bytes;
};

class GpuStagedTransport final : public GpuHaloTransport {
 public:
  GpuStagedTransport(Mode mode, int timeout_ms)
      : mode_(mode), timeout_ms_(timeout_ms), host_(make_mpi_transport()) {
    mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
    mpi_check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    mpi_check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    mpi_check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  }

  ~GpuStagedTransport() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    for (MPI_Request& r : reqs_) {  // left behind by an error between post and wait
      if (r == MPI_REQUEST_NULL || collective_pending_) continue;  // a collective cannot be cancelled
      MPI_Cancel(&r);
      MPI_Request_free(&r);
    }
    if (collective_pending_) grid_h_.leak();  // an unfinished MPI_Iallreduce may still write into it
    mappings_.close_all();
    // Collective, so skipped while an error unwinds (main then ends every rank). cuda_ipc frees its
    // receive buffers only when every rank has closed its mappings of them.
    bool peers_done = mode_ == Mode::kStaged;
    if (std::uncaught_exceptions() == 0) {
      MPI_Request req = MPI_REQUEST_NULL;
      int done = 0;
      if (mode_ == Mode::kIpc && MPI_Ibarrier(comm_, &req) == MPI_SUCCESS) {
        const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms_);
        while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done && Clock::now() < deadline)
          std::this_thread::yield();
        peers_done = done != 0;
      }
      if (mode_ == Mode::kStaged || peers_done) MPI_Comm_free(&comm_);
    }
    if (!peers_done) {
      x_in_.leak();
      f_in_.leak();
    }
  }

  std::string name() const override { return mode_ == Mode::kStaged ? "mpi_staged" : "cuda_ipc"; }
  HaloTransport& host() override { return *host_; }
  bool device_initiated() const override { return false; }

  void bind(const domdec::DomainPlan& plan, const GpuLocalArrays& arrays, gpu::GpuCalls& calls) override {
    plan_ = &plan;
    arrays_ = arrays;
    const int np = static_cast<int>(plan.pulses.size());
    send_off_.assign(np + 1, 0);
    recv_off_.assign(np + 1, 0);
    std::vector<int> lists;
    for (int k = 0; k < np; ++k) {
      const domdec::Pulse& p = plan.pulses[k];
      send_off_[k + 1] = send_off_[k] + p.send.size();
      recv_off_[k + 1] = recv_off_[k] + p.recv_count;
      lists.insert(lists.end(), p.send.begin(), p.send.end());
    }
    const size_t ns = send_off_[np], nr = recv_off_[np];
    grow(send_lists_, ns, "halo send lists", allocations_);
    staging_.begin(calls, gpu::UploadStaging::room<int>(ns), "halo send lists");
    staging_.put(calls, send_lists_.get(), lists.data(), ns);
    staging_.end(calls);
    pulses_.assign(np, HaloPulseDev{});
    for (int k = 0; k < np; ++k) {
      const domdec::Pulse& p = plan.pulses[k];
      HaloPulseDev& d = pulses_[k];
      d.send = send_lists_.get() + send_off_[k];
      d.send_count = static_cast<int>(p.send.size());
      d.recv_start = p.recv_start;
      d.recv_count = p.recv_count;
      for (int c = 0; c < 3; ++c) d.shift[c] = p.shift[c];
    }
    // Wire formats (gpu_halo_device.cuh): 3 doubles per coordinate, 3 floats per force.
    const bool ipc = mode_ == Mode::kIpc;
    grow(x_out_, 3 * ns, "halo coordinates sent", allocations_);
    grow(f_out_, 3 * nr, "halo forces sent", allocations_);
    if (x_in_.grow(3 * nr * sizeof(double), ipc, "halo coordinates received")) ++allocations_;
    if (f_in_.grow(3 * ns * sizeof(float), ipc, "halo forces received")) ++allocations_;
    if (ipc) {
      share_receive_buffers();
      return;
    }
    grow(x_out_h_, 3 * ns, "staged halo coordinates sent", allocations_);
    grow(x_in_h_, 3 * nr, "staged halo coordinates received", allocations_);
    grow(f_out_h_, 3 * nr, "staged halo forces sent", allocations_);
    grow(f_in_h_, 3 * ns, "staged halo forces received", allocations_);
  }

  void exchange_x(gpu::GpuCalls& calls) override {
    require_bound();
    ++x_sequence_;
    for (int k = 0; k < static_cast<int>(pulses_.size()); ++k) {
      const HaloPulseDev& p = pulses_[k];
      const domdec::Pulse& pulse = plan_->pulses[k];
      double* out = x_out_.get() + 3 * send_off_[k];
      double* in = reinterpret_cast<double*>(x_in_.get()) + 3 * recv_off_[k];
      launch_pack_x(calls, arrays_, p, out);
      carry(calls,
            Leg{kX, k, pulse.send_to, pulse.recv_from, out, host_at(x_out_h_, 3 * send_off_[k]),
                x_remote_.empty() ? nullptr : x_remote_[k], 3 * sizeof(double) * p.send_count, in,
                host_at(x_in_h_, 3 * recv_off_[k]), 3 * sizeof(double) * p.recv_count},
            x_sequence_);
      launch_unpack_x(calls, arrays_, p, in);
    }
  }

  // The force pulses in reverse: the forces on this rank's received atoms go back to recv_from, those on
  // its sent atoms come from send_to. In cuda_ipc the notice of force pulse k also tells the sender that
  // the unpack of its coordinates of pulse k is done (it was enqueued before the sync that precedes the
  // notice), so the next exchange_x may overwrite that part of the receive buffer.
  void exchange_f(gpu::GpuCalls& calls) override {
    require_bound();
    ++f_sequence_;
    for (int k = static_cast<int>(pulses_.size()) - 1; k >= 0; --k) {
      const HaloPulseDev& p = pulses_[k];
      const domdec::Pulse& pulse = plan_->pulses[k];
      float* out = f_out_.get() + 3 * recv_off_[k];
      float* in = reinterpret_cast<float*>(f_in_.get()) + 3 * send_off_[k];
      launch_pack_f(calls, arrays_, p, out);
      carry(calls,
            Leg{kF, k, pulse.recv_from, pulse.send_to, out, host_at(f_out_h_, 3 * recv_off_[k]),
                f_remote_.empty() ? nullptr : f_remote_[k], 3 * sizeof(float) * p.recv_count, in,
                host_at(f_in_h_, 3 * send_off_[k]), 3 * sizeof(float) * p.send_count},
            f_sequence_);
      launch_add_f(calls, arrays_, p, in);
    }
  }

  // Every rank sends its values to every other and sums what arrives (integers: exact in any order),
  // instead of one MPI_Allreduce, so that a rank that does not take part can be named when the wait times
  // out. One host sync and one mpi_wait; the copy back is stream-ordered before anything that reads it.
  void reduce(gpu::GpuCalls& calls, long long* values, int count, const int* /*active*/,
              bool host_active) override {
    if (!host_active || count <= 0) return;
    if (count > kMaxGpuReduce)
      throw RuntimeError(-1, -1,
                         fmt::format("{}: {} values to sum, at most {}", name(), count, kMaxGpuReduce));
    grow(sums_h_, static_cast<size_t>(kMaxGpuReduce) * size_, "halo sums", allocations_);
    long long* mine = &sums_h_[static_cast<size_t>(kMaxGpuReduce) * rank_];
    const size_t bytes = count * sizeof(long long);
    calls.copy_async(mine, values, bytes, cudaMemcpyDeviceToHost);
    calls.sync();
    start_requests();
    for (int r = 0; r < size_; ++r)
      if (r != rank_) irecv(&sums_h_[static_cast<size_t>(kMaxGpuReduce) * r], bytes, r, kTagSums);
    for (int r = 0; r < size_; ++r)
      if (r != rank_) isend(mine, bytes, r, kTagSums);
    wait_all([](int) { return std::string("the sums"); });
    for (int i = 0; i < count; ++i) {
      unsigned long long total = 0;  // wraps like the two's-complement sum of MPI_SUM
      for (int r = 0; r < size_; ++r)
        total += static_cast<unsigned long long>(sums_h_[static_cast<size_t>(kMaxGpuReduce) * r + i]);
      mine[i] = static_cast<long long>(total);
    }
    calls.copy_async(values, mine, bytes, cudaMemcpyHostToDevice);
  }

  // The grid through the host (cuda_ipc too: its IPC buffers are the halos') with one MPI_Iallreduce, polled
  // as every wait here. On the GPU machine's 4 ranks (bench/tools/mpi_grid_sum.cpp, 2 MB, 45k atoms) it took
  // 1.3 ms against 2.3 ms for every rank's grid to every other and 0.8 ms for a blocking MPI_Allreduce, which
  // would hang on a stalled rank (bench/NOTES.md, twenty-seventh session). Unsigned sums wrap modulo 2^64 as
  // the device's atomics; integers, so every rank gets the same bits. One host sync and one mpi_wait.
  float* reserve_grid(size_t count, double /*scale*/) override {
    if (count > static_cast<size_t>(std::numeric_limits<int>::max()))
      throw RuntimeError(-1, -1, fmt::format("{}: a PME grid of {} points is too large", name(), count));
    grid_count_ = count;
    grid_h_.allocate(count, "PME grid (host staging)");
    ++allocations_;
    return nullptr;  // the sum in place
  }
  void sum_grid(gpu::GpuCalls& calls, unsigned long long* values) override {
    if (grid_count_ == 0) throw RuntimeError(-1, -1, name() + ": sum_grid before reserve_grid");
    const size_t bytes = grid_count_ * sizeof(unsigned long long);
    calls.copy_async(grid_h_.get(), values, bytes, cudaMemcpyDeviceToHost);
    calls.sync();
    start_requests();
    reqs_.emplace_back(MPI_REQUEST_NULL);
    collective_pending_ = true;
    mpi_check(MPI_Iallreduce(MPI_IN_PLACE, grid_h_.get(), static_cast<int>(grid_count_), MPI_UINT64_T,
                             MPI_SUM, comm_, &reqs_.back()),
              "MPI_Iallreduce");
    wait_all([](int) { return std::string("not every rank summed the PME grid"); });
    collective_pending_ = false;
    calls.copy_async(values, grid_h_.get(), bytes, cudaMemcpyHostToDevice);
  }

  void check_errors() override {}  // every failure has already thrown on the host

  CallCounters counters() const override {
    CallCounters c = host_->counters();
    c.mpi_waits += mpi_waits_;
    return c;
  }
  int64_t allocations() const override { return allocations_; }

 private:
  using Clock = std::chrono::steady_clock;
  void require_bound() const {
    if (!plan_) throw RuntimeError(-1, -1, name() + ": exchange before bind()");
  }
  template <class T>
  static void* host_at(gpu::PinnedBuffer<T>& buf, size_t offset) {
    return buf.get() ? buf.get() + offset : nullptr;
  }
  std::string describe(Kind kind, int pulse) const {
    static const char* what[] = {"coordinates", "forces", "coordinate buffer", "force buffer"};
    return fmt::format("the {} of pulse {} ({})", what[kind], pulse,
                       domdec::pulse_name(plan_->pulses[pulse]));
  }

  // The pulse's bytes to `to` and from `from`. mpi_staged: through pinned host memory and MPI. cuda_ipc:
  // a peer copy into to's receive buffer and an MPI notice each way. The sync makes the pack (and the peer
  // copy) complete before MPI reads or announces it, and everything enqueued earlier (the last reads of
  // the host staging buffers) complete before new data may land in them.
  void carry(gpu::GpuCalls& calls, const Leg& leg, int64_t sequence) {
    const bool staged = mode_ == Mode::kStaged;
    if (staged)
      calls.copy_async(leg.out_host, leg.out, leg.out_bytes, cudaMemcpyDeviceToHost);
    else
      calls.copy_async(leg.remote, leg.out, leg.out_bytes, cudaMemcpyDeviceToDevice);
    calls.sync();
    start_requests();
    const int t = tag(leg.pulse, leg.kind);
    if (staged) {
      irecv(leg.in_host, leg.in_bytes, leg.from, t);
      isend(leg.out_host, leg.out_bytes, leg.to, t);
    } else {
      notice_out_ = {sequence, leg.out_bytes};
      irecv(&notice_in_, sizeof(Notice), leg.from, t);
      isend(&notice_out_, sizeof(Notice), leg.to, t);
    }
    wait_all([&](int) { return describe(leg.kind, leg.pulse); });
    uint64_t got = notice_in_.bytes;
    if (staged) {
      int count = 0;
      mpi_check(MPI_Get_count(&statuses_[0], MPI_BYTE, &count), "MPI_Get_count");
      got = static_cast<uint64_t>(count);
    } else if (notice_in_.sequence != sequence) {
      throw RuntimeError(-1, -1,
                         fmt::format("{}: {} from rank {} belong to exchange {}, this rank is at {}", name(),
                                     describe(leg.kind, leg.pulse), leg.from, notice_in_.sequence, sequence));
    }
    if (got != leg.in_bytes)
      throw RuntimeError(-1, -1,
                         fmt::format("{}: {} from rank {} are {} bytes, the plan expects {}", name(),
                                     describe(leg.kind, leg.pulse), leg.from, got, leg.in_bytes));
    if (staged) calls.copy_async(leg.in, leg.in_host, leg.in_bytes, cudaMemcpyHostToDevice);
  }

  // cuda_ipc, at every bind: each rank tells the senders of each pulse where their data lands (its
  // receive buffers' handles and the pulse's offset), maps the buffers it writes into (again only when the
  // peer reallocated), and closes the mappings it no longer needs. The barrier at the end lets retired
  // buffers go: every rank has closed its mappings of them by then.
  void share_receive_buffers() {
    const int np = static_cast<int>(pulses_.size());
    x_mine_.resize(np);
    f_mine_.resize(np);
    x_theirs_.resize(np);
    f_theirs_.resize(np);
    start_requests();
    for (int k = 0; k < np; ++k) {
      const domdec::Pulse& p = plan_->pulses[k];
      irecv(&x_theirs_[k], sizeof(IpcTarget), p.send_to, tag(k, kBindX));
      irecv(&f_theirs_[k], sizeof(IpcTarget), p.recv_from, tag(k, kBindF));
    }
    for (int k = 0; k < np; ++k) {
      const domdec::Pulse& p = plan_->pulses[k];
      x_mine_[k] = {x_in_.handle(), x_in_.generation(), 3 * sizeof(double) * recv_off_[k],
                    3 * sizeof(double) * p.recv_count};
      f_mine_[k] = {f_in_.handle(), f_in_.generation(), 3 * sizeof(float) * send_off_[k],
                    3 * sizeof(float) * p.send.size()};
      isend(&x_mine_[k], sizeof(IpcTarget), p.recv_from, tag(k, kBindX));
      isend(&f_mine_[k], sizeof(IpcTarget), p.send_to, tag(k, kBindF));
    }
    wait_all([&](int i) { return describe(i % 2 == 0 ? kBindX : kBindF, i / 2); });
    mappings_.begin();
    x_remote_.assign(np, nullptr);
    f_remote_.assign(np, nullptr);
    for (int k = 0; k < np; ++k) {
      const domdec::Pulse& p = plan_->pulses[k];
      x_remote_[k] = map_target(p.send_to, kX, x_theirs_[k], 3 * sizeof(double) * p.send.size(), k);
      f_remote_[k] = map_target(p.recv_from, kF, f_theirs_[k], 3 * sizeof(float) * p.recv_count, k);
    }
    mappings_.close_unused();
    start_requests();
    reqs_.emplace_back(MPI_REQUEST_NULL);
    collective_pending_ = true;
    mpi_check(MPI_Ibarrier(comm_, &reqs_.back()), "MPI_Ibarrier");
    wait_all([](int) { return std::string("not every rank finished bind()"); });
    collective_pending_ = false;
    x_in_.free_retired();
    f_in_.free_retired();
  }

  // Where this rank's bytes of pulse k go in `peer`'s receive buffer of `kind`.
  char* map_target(int peer, Kind kind, const IpcTarget& t, size_t bytes, int k) {
    if (t.bytes != bytes)
      throw RuntimeError(-1, -1,
                         fmt::format("cuda_ipc: rank {} expects {} bytes for {}, this rank sends {}", peer,
                                     t.bytes, describe(kind, k), bytes));
    // A dimension of one domain is never decomposed, so a rank is not its own neighbour; kept for safety.
    if (peer == rank_) return (kind == kX ? x_in_.get() : f_in_.get()) + t.offset_bytes;
    return mappings_.map(peer, kind, t.handle, t.generation) + t.offset_bytes;
  }

  // The requests of one wait: receives first, then sends; peers_ has each one's peer.
  void start_requests() {
    reqs_.clear();
    peers_.clear();
    recvs_ = 0;
  }
  void irecv(void* buf, size_t bytes, int peer, int t) {
    reqs_.emplace_back(MPI_REQUEST_NULL);
    peers_.push_back(peer);
    ++recvs_;
    mpi_check(MPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, peer, t, comm_, &reqs_.back()), "MPI_Irecv");
  }
  void isend(const void* buf, size_t bytes, int peer, int t) {
    reqs_.emplace_back(MPI_REQUEST_NULL);
    peers_.push_back(peer);
    mpi_check(MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, peer, t, comm_, &reqs_.back()), "MPI_Isend");
  }

  // Completes every request by polling (a blocking MPI_Waitall could wait for ever on a rank that
  // stopped); past the timeout, throws naming what did not arrive and from whom: what(i) names the
  // payload of request i. One mpi_wait.
  void wait_all(const std::function<std::string(int)>& what) {
    ++mpi_waits_;
    statuses_.resize(reqs_.size());
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms_);
    for (unsigned spin = 0;; ++spin) {
      int done = 0;
      mpi_check(MPI_Testall(static_cast<int>(reqs_.size()), reqs_.data(), &done, statuses_.data()),
                "MPI_Testall");
      if (done) return;
      if (spin % 64 == 63 && Clock::now() > deadline) break;
      std::this_thread::yield();  // ranks may outnumber cores
    }
    for (size_t i = 0; i < reqs_.size(); ++i) {
      int done = 0;
      mpi_check(MPI_Request_get_status(reqs_[i], &done, MPI_STATUS_IGNORE), "MPI_Request_get_status");
      if (done || i >= peers_.size()) continue;
      const int peer = peers_[i];
      if (static_cast<int>(i) < recvs_)
        throw RuntimeError(-1, -1,
                           fmt::format("{}: {} from rank {} did not arrive within {} ms", name(),
                                       what(static_cast<int>(i)), peer, timeout_ms_));
      throw RuntimeError(-1, -1,
                         fmt::format("{}: rank {} did not take {} within {} ms", name(), peer,
                                     what(static_cast<int>(i) - recvs_), timeout_ms_));
    }
    throw RuntimeError(-1, -1, fmt::format("{}: {} within {} ms", name(), what(0), timeout_ms_));
  }

  const Mode mode_;
  const int timeout_ms_;
  std::unique_ptr<HaloTransport> host_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  int64_t mpi_waits_ = 0;
  int64_t allocations_ = 0;

  const domdec::DomainPlan* plan_ = nullptr;
  GpuLocalArrays arrays_;
  std::vector<HaloPulseDev> pulses_;
  std::vector<size_t> send_off_, recv_off_;     // per pulse: first atom in the send / receive wire buffers
  gpu::DeviceBuffer<int> send_lists_;           // every pulse's send list, concatenated
  gpu::UploadStaging staging_;                  // their upload at bind
  gpu::DeviceBuffer<double> x_out_;             // packed coordinates, every pulse
  gpu::DeviceBuffer<float> f_out_;              // packed forces of the received atoms, every pulse
  RecvBuffer x_in_, f_in_;                      // what arrives (cuda_ipc: written by the peers)
  gpu::PinnedBuffer<double> x_out_h_, x_in_h_;  // mpi_staged: host staging of the four above
  gpu::PinnedBuffer<float> f_out_h_, f_in_h_;
  gpu::PinnedBuffer<long long> sums_h_;           // reduce: kMaxGpuReduce values per rank
  gpu::PinnedBuffer<unsigned long long> grid_h_;  // sum_grid's staging
  size_t grid_count_ = 0;

  // cuda_ipc: the peers' receive buffers mapped here; per pulse, where this rank's copy lands; what bind()
  // tells the peers and hears from them.
  PeerMappings mappings_;
  std::vector<char*> x_remote_, f_remote_;
  std::vector<IpcTarget> x_mine_, f_mine_, x_theirs_, f_theirs_;
  Notice notice_out_{}, notice_in_{};
  int64_t x_sequence_ = 0, f_sequence_ = 0;

  std::vector<MPI_Request> reqs_;
  std::vector<MPI_Status> statuses_;
  std::vector<int> peers_;
  int recvs_ = 0;
  bool collective_pending_ = false;  // reqs_ holds bind()'s barrier or sum_grid's MPI_Iallreduce
};

// The ranks of a node take its GPUs in turn (several ranks on one GPU need the MPS daemon to overlap).
void choose_device(const char* transport) {
  const int local = mpi_node_local_rank();
  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices < 1)
    throw RuntimeError(-1, -1,
                       fmt::format("{}: no CUDA device ({})", transport,
                                   err != cudaSuccess ? cudaGetErrorString(err) : "none found"));
  HALOMD_CUDA_CHECK(cudaSetDevice(local % devices));
}

}  // namespace

std::unique_ptr<GpuHaloTransport> make_mpi_staged_transport(int timeout_ms) {
  choose_device("mpi_staged");
  return std::make_unique<GpuStagedTransport>(Mode::kStaged, timeout_ms);
}

std::unique_ptr<GpuHaloTransport> make_cuda_ipc_transport(int timeout_ms) {
  choose_device("cuda_ipc");
  return std::make_unique<GpuStagedTransport>(Mode::kIpc, timeout_ms);
}

}  // namespace halomd::comm
