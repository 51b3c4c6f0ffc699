// The mpi transport (mpi_transport.h). Every MPI call goes through one checked, counted wrapper per kind of
// call: an error throws RuntimeError naming the call and MPI's message (main then aborts every rank).
#include "comm/mpi/mpi_transport.h"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "comm/halo_wire.h"
#include "core/env.h"
#include "core/errors.h"

namespace halomd::comm {
namespace {

bool g_started = false;          // by mpi_start (and so to be finalised by mpi_stop)
bool g_thread_multiple = false;  // MPI_Init_thread provided MPI_THREAD_MULTIPLE (clone_for_thread)

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw RuntimeError(-1, -1, fmt::format("MPI call failed: {}: {}", call, std::string(text, len)));
}
#define HALOMD_MPI_CHECK(call) check((call), #call)

bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"})
    if (std::getenv(var)) return true;
  return false;
}

// Tags: one per pulse and direction, so that pulses could overlap; NS-step messages have their own.
int tag_x(int pulse) { return 16 + 2 * pulse; }
int tag_f(int pulse) { return 17 + 2 * pulse; }
constexpr int kTagAtoms = 2;
int tag_atoms_batch(int pulse) { return 200 + pulse; }  // exchange_atoms_batch's pulse m

template <class T>
bool ensure_capacity(std::vector<T>& buf, size_t needed) {
  if (buf.size() >= needed) return false;
  buf.resize(needed + needed / 4 + 16);
  return true;
}

class MpiTransport final : public HaloTransport {
 public:
  MpiTransport() {
    if (!g_started) throw RuntimeError(-1, -1, "the mpi transport needs MPI started (mpirun)");
    HALOMD_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm_));
    HALOMD_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    HALOMD_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    HALOMD_MPI_CHECK(MPI_Comm_size(comm_, &size_));
  }
  ~MpiTransport() override {
    // Freeing is collective in principle: skip it while an error unwinds (main aborts every rank then).
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    auto cancel = [](MPI_Request& r) {  // left behind by an error between post and wait
      if (r == MPI_REQUEST_NULL) return;
      MPI_Cancel(&r);
      MPI_Request_free(&r);
    };
    for (MPI_Request& r : req_) cancel(r);
    for (MPI_Request& r : batch_req_) cancel(r);
    if (std::uncaught_exceptions() == 0) MPI_Comm_free(&comm_);
  }

  std::string name() const override { return "mpi"; }
  std::unique_ptr<HaloTransport> clone_for_thread() override {
    // Every rank decides alike (MPI_Comm_dup is collective): a clone only where every rank has MULTIPLE.
    int mine = g_thread_multiple ? 1 : 0, all = 0;
    HALOMD_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm_));
    if (all == 0) return nullptr;
    return std::make_unique<MpiTransport>();
  }
  int rank() const override { return rank_; }
  int num_ranks() const override { return size_; }

  void set_grid(const domdec::DdGrid& grid) override {
    if (grid.num_domains() != size_) {
      throw InputError("", 0,
                       fmt::format("the domain grid {} has {} domains, but mpirun started {} ranks: the mpi "
                                   "transport runs one domain per rank",
                                   grid.str(), grid.num_domains(), size_));
    }
    domains_ = {rank_};
  }

  void allocate(std::span<const domdec::DomainPlan* const> plans) override {
    check_one(plans.size());
    plan_ = plans[0];
    offset_.clear();
    size_t total = 0;
    for (const domdec::Pulse& p : plan_->pulses) {
      offset_.push_back(total);
      total += p.send.size();
    }
    if (ensure_capacity(x_send_, total)) ++allocations_;
    if (ensure_capacity(f_recv_, total)) ++allocations_;
  }

  void post_x(int k, std::span<Vec3* const> x) override {
    check_one(x.size());
    const domdec::Pulse& p = plan_->pulses[k];
    Vec3* buf = x_send_.data() + offset_[k];
    for (size_t i = 0; i < p.send.size(); ++i) buf[i] = x[0][p.send[i]] + p.shift;
    irecv(x[0] + p.recv_start, p.recv_count * sizeof(Vec3), p.recv_from, tag_x(k), &req_[0]);
    isend(buf, p.send.size() * sizeof(Vec3), p.send_to, tag_x(k), &req_[1]);
  }

  void wait_x(int k, std::span<Vec3* const>) override {
    wait_all(plan_->pulses[k].recv_count * sizeof(Vec3));
  }

  void post_f(int k, std::span<FixedVec3* const> f) override {
    check_one(f.size());
    const domdec::Pulse& p = plan_->pulses[k];
    irecv(f_recv_.data() + offset_[k], p.send.size() * sizeof(FixedVec3), p.send_to, tag_f(k), &req_[0]);
    isend(f[0] + p.recv_start, p.recv_count * sizeof(FixedVec3), p.recv_from, tag_f(k), &req_[1]);
  }

  void wait_f(int k, std::span<FixedVec3* const> f) override {
    const domdec::Pulse& p = plan_->pulses[k];
    wait_all(p.send.size() * sizeof(FixedVec3));
    const FixedVec3* buf = f_recv_.data() + offset_[k];
    for (size_t i = 0; i < p.send.size(); ++i) f[0][p.send[i]] += buf[i];
  }

  void exchange_atoms(std::span<const int> to, std::span<const int> from,
                      std::span<const domdec::HaloAtoms> sent,
                      std::span<domdec::HaloAtoms> received) override {
    check_one(sent.size());
    std::vector<HaloAtomRecord>& out = records_out_;
    std::vector<HaloAtomRecord>& in = records_in_;
    to_records(sent[0], out);
    // The records go out at once; the incoming ones are sized by their envelope (receive_records).
    isend(out.data(), out.size() * sizeof(HaloAtomRecord), to[0], kTagAtoms, &req_[1]);
    receive_records(from[0], kTagAtoms, in);
    HALOMD_MPI_CHECK(MPI_Wait(&req_[1], MPI_STATUS_IGNORE));
    from_records(in, received[0]);
  }

  // Every pulse's records go out first; then each pulse's message is received in turn (its size from its
  // envelope), and the sends completed: one wait for the neighbours' plan work instead of one per pulse.
  void exchange_atoms_batch(std::span<const std::vector<int>> to, std::span<const std::vector<int>> from,
                            std::span<const std::vector<domdec::HaloAtoms>> sent,
                            std::span<std::vector<domdec::HaloAtoms>> received) override {
    const size_t np = to.size();
    batch_out_.resize(np);
    batch_req_.assign(np, MPI_REQUEST_NULL);
    for (size_t m = 0; m < np; ++m) {
      check_one(sent[m].size());
      to_records(sent[m][0], batch_out_[m]);
      isend(batch_out_[m].data(), batch_out_[m].size() * sizeof(HaloAtomRecord), to[m][0],
            tag_atoms_batch(static_cast<int>(m)), &batch_req_[m]);
    }
    std::vector<HaloAtomRecord>& in = records_in_;
    for (size_t m = 0; m < np; ++m) {
      receive_records(from[m][0], tag_atoms_batch(static_cast<int>(m)), in);
      from_records(in, received[m][0]);
    }
    HALOMD_MPI_CHECK(MPI_Waitall(static_cast<int>(np), batch_req_.data(), MPI_STATUSES_IGNORE));
  }

  void migrate(std::span<const std::vector<AtomState>> leaving,
               std::span<std::vector<AtomState>> arriving) override {
    check_one(leaving.size());
    std::vector<int> send_bytes(size_, 0), recv_bytes(size_, 0), send_off(size_, 0), recv_off(size_, 0);
    for (const AtomState& a : leaving[0]) {
      if (a.to < 0 || a.to >= size_)
        throw RuntimeError(-1, a.global, fmt::format("migration to domain {}, which does not exist", a.to));
      send_bytes[a.to] += static_cast<int>(sizeof(AtomState));
    }
    for (int r = 1; r < size_; ++r) send_off[r] = send_off[r - 1] + send_bytes[r - 1];
    std::vector<AtomState> out(leaving[0].size());
    std::vector<int> fill = send_off;
    for (const AtomState& a : leaving[0]) {
      out[fill[a.to] / sizeof(AtomState)] = a;
      fill[a.to] += static_cast<int>(sizeof(AtomState));
    }
    ++counters_.mpi_waits;
    HALOMD_MPI_CHECK(MPI_Alltoall(send_bytes.data(), 1, MPI_INT, recv_bytes.data(), 1, MPI_INT, comm_));
    for (int r = 1; r < size_; ++r) recv_off[r] = recv_off[r - 1] + recv_bytes[r - 1];
    const int total_in = recv_off[size_ - 1] + recv_bytes[size_ - 1];
    arriving[0].resize(total_in / sizeof(AtomState));
    ++counters_.mpi_waits;
    HALOMD_MPI_CHECK(MPI_Alltoallv(out.data(), send_bytes.data(), send_off.data(), MPI_BYTE,
                                   arriving[0].data(), recv_bytes.data(), recv_off.data(), MPI_BYTE, comm_));
    for (int r = 0; r < size_; ++r)
      if (r != rank_) counters_.halo_bytes += send_bytes[r];
  }

  void sum(std::span<int64_t> values) override {
    ++counters_.mpi_waits;
    // Summed as unsigned: the same bits as the two's-complement sum, wrapping like the fixed-point sums
    // (core/vec3.h wrap_add) rather than a signed overflow.
    HALOMD_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T,
                                   MPI_SUM, comm_));
  }

  void max(std::span<double> values) override {
    ++counters_.mpi_waits;
    HALOMD_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE,
                                   MPI_MAX, comm_));
  }

  void all_gather(std::span<const int64_t> mine, std::vector<int64_t>& all) override {
    all.resize(mine.size() * size_);
    ++counters_.mpi_waits;
    HALOMD_MPI_CHECK(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_INT64_T, all.data(),
                                   static_cast<int>(mine.size()), MPI_INT64_T, comm_));
  }

  void gather(std::span<const AtomState> mine, std::vector<AtomState>& all) override {
    const int bytes = static_cast<int>(mine.size() * sizeof(AtomState));
    std::vector<int> counts(rank_ == 0 ? size_ : 0), offsets(counts.size(), 0);
    ++counters_.mpi_waits;
    HALOMD_MPI_CHECK(MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_));
    int total = 0;
    for (size_t r = 0; r < counts.size(); ++r) {
      offsets[r] = total;
      total += counts[r];
    }
    all.resize(rank_ == 0 ? total / sizeof(AtomState) : 0);
    ++counters_.mpi_waits;
    HALOMD_MPI_CHECK(MPI_Gatherv(mine.data(), bytes, MPI_BYTE, all.data(), counts.data(), offsets.data(),
                                 MPI_BYTE, 0, comm_));
  }

 private:
  void check_one(size_t n) const {
    if (n != 1)
      throw RuntimeError(-1, -1, fmt::format("mpi transport: {} per-domain entries, one expected", n));
  }
  void isend(const void* buf, size_t bytes, int peer, int tag, MPI_Request* req) {
    counters_.halo_bytes += static_cast<int64_t>(bytes);
    HALOMD_MPI_CHECK(MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, peer, tag, comm_, req));
  }
  void irecv(void* buf, size_t bytes, int peer, int tag, MPI_Request* req) {
    HALOMD_MPI_CHECK(MPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, peer, tag, comm_, req));
  }
  // Receives the halo atom records `peer` sent with `tag` into `in`, their count read from the message's
  // envelope (one round trip, where a count exchanged first took two).
  void receive_records(int peer, int tag, std::vector<HaloAtomRecord>& in) {
    MPI_Status status;
    ++counters_.mpi_waits;
    HALOMD_MPI_CHECK(MPI_Probe(peer, tag, comm_, &status));
    int bytes = 0;
    HALOMD_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &bytes));
    if (bytes % static_cast<int>(sizeof(HaloAtomRecord)) != 0)
      throw RuntimeError(
          -1, -1,
          fmt::format("rank {}: {} bytes of halo atoms from rank {}, not whole records", rank_, bytes, peer));
    in.resize(static_cast<size_t>(bytes) / sizeof(HaloAtomRecord));
    HALOMD_MPI_CHECK(MPI_Recv(in.data(), bytes, MPI_BYTE, peer, tag, comm_, MPI_STATUS_IGNORE));
  }
  // Completes the posted receive (req_[0]) and send (req_[1]); the receive must bring `expected` bytes.
  void wait_all(size_t expected) {
    MPI_Status status[2];
    ++counters_.mpi_waits;
    HALOMD_MPI_CHECK(MPI_Waitall(2, req_, status));
    int got = 0;
    HALOMD_MPI_CHECK(MPI_Get_count(&status[0], MPI_BYTE, &got));
    if (static_cast<size_t>(got) != expected)
      throw RuntimeError(-1, -1,
                         fmt::format("rank {}: received {} bytes from rank {}, the plan expects {}", rank_,
                                     got, status[0].MPI_SOURCE, expected));
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  MPI_Request req_[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  const domdec::DomainPlan* plan_ = nullptr;
  std::vector<Vec3> x_send_;       // packed coordinates of every pulse
  std::vector<FixedVec3> f_recv_;  // forces returned for the sent atoms, every pulse
  std::vector<size_t> offset_;     // per pulse: where it starts in both
  // A search's halo atoms out and in, kept between searches (their pages already mapped).
  std::vector<HaloAtomRecord> records_out_, records_in_;
  std::vector<std::vector<HaloAtomRecord>> batch_out_;  // exchange_atoms_batch: one per pulse
  std::vector<MPI_Request> batch_req_;
};

}  // namespace

void mpi_start(bool required) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized || (!required && !launched_by_mpi())) return;
  int provided = 0;
  // MULTIPLE only for the GPU domains' thread that builds the next plan on its own communicator while the
  // main thread runs the steps (HALOMD_DD_AHEAD, off by default: cuda_dd_executor.cpp); without it every
  // plan is built at its search.
  const bool multiple = env_number("HALOMD_DD_AHEAD", 0.0) > 0.0;
  HALOMD_MPI_CHECK(
      MPI_Init_thread(nullptr, nullptr, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided));
  g_thread_multiple = provided >= MPI_THREAD_MULTIPLE;
  HALOMD_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  g_started = true;
}

bool mpi_started() { return g_started; }

int mpi_world_size() {
  if (!g_started) return 1;
  int n = 1;
  HALOMD_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n));
  return n;
}

int mpi_world_rank() {
  if (!g_started) return 0;
  int r = 0;
  HALOMD_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
  return r;
}

uint64_t mpi_broadcast_from_rank0(uint64_t value) {
  if (!g_started || mpi_world_size() == 1) return value;
  HALOMD_MPI_CHECK(MPI_Bcast(&value, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD));
  return value;
}

int mpi_node_local_rank() {
  if (!g_started) return 0;
  int world_rank = 0, local = 0;
  HALOMD_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
  MPI_Comm node = MPI_COMM_NULL;
  HALOMD_MPI_CHECK(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node));
  const int rc = MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  check(rc, "MPI_Comm_rank(node, &local)");
  return local;
}

void mpi_check(int rc, const char* call) { check(rc, call); }

void mpi_stop() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (g_started && !finalized) MPI_Finalize();
}

void mpi_end_after_error(int exit_code) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (!g_started) return;
  // Errors in the inputs are found by every rank alike: they meet in this barrier and finish cleanly. A rank
  // that failed alone finds the others busy (or waiting for it) and ends them all.
  MPI_Request req = MPI_REQUEST_NULL;
  if (MPI_Ibarrier(MPI_COMM_WORLD, &req) == MPI_SUCCESS) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    int done = 0;
    while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done &&
           std::chrono::steady_clock::now() < deadline)
      usleep(1000);
    if (done) return;
  }
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);
}

std::unique_ptr<HaloTransport> make_mpi_transport() { return std::make_unique<MpiTransport>(); }

}  // namespace halomd::comm
