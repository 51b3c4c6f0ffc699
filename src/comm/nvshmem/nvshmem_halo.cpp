// The nvshmem and nvshmem_put GPU halo transports (comm/gpu/gpu_halo.h): every per-step exchange and
// reduction is kernels only (nvshmem_halo_kernels.cu), which pack into the peers' symmetric buffers, signal
// and wait on the device; the host's part is bind() at search steps (buffer sizes agreed over MPI, symmetric
// allocation, the plan uploaded) and reading the error record after the executor's sync.
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/gpu/gpu_halo.h"
#include "comm/mpi/mpi_transport.h"
#include "comm/nvshmem/nvshmem_halo_kernels.h"
#include "core/env.h"
#include "core/errors.h"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/upload_staging.h"

namespace halomd::comm {
namespace {

namespace nv = comm::nvshmem;
static_assert(nv::kMaxHaloPulses == kMaxDevicePulses);
constexpr int kMaxPulses = kMaxDevicePulses;

// Room for the counts to grow a little between search steps before the (collective, synchronising) symmetric
// allocation has to be done again.
int64_t with_slack(int64_t atoms) { return atoms + atoms / 4 + 16; }

class NvshmemHaloTransport final : public GpuHaloTransport {
 public:
  NvshmemHaloTransport(bool put_only, int timeout_ms)
      : put_only_(put_only), timeout_ms_(timeout_ms), host_(make_mpi_transport()) {
    // Before anything is allocated: a bad value leaks nothing.
    if (prepack_mode_ < 0 || prepack_mode_ > 2)
      throw InputError("", 0, "HALOMD_HALO_PREPACK must be 0, 1 or 2, not " + std::to_string(prepack_mode_));
    launch_.threads = env_int("HALOMD_HALO_THREADS", 256);
    if (launch_.threads < 32 || launch_.threads > 512 || launch_.threads % 32 != 0)
      throw InputError("", 0,
                       "HALOMD_HALO_THREADS must be a multiple of 32 from 32 to 512, not " +
                           std::to_string(launch_.threads));
    me_ = nv::my_pe();
    npes_ = nv::n_pes();
    find_same_gpu();
    HALOMD_CUDA_CHECK(
        cudaHostAlloc(reinterpret_cast<void**>(&error_host_), sizeof(nv::ErrorRecord), cudaHostAllocMapped));
    *error_host_ = nv::ErrorRecord{};
    nv::ErrorRecord* error_dev = nullptr;
    HALOMD_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&error_dev), error_host_, 0));
    state_.allocate(1, name() + " step state");
    config_.allocate(1, name() + " pulse table");
    prepack_.allocate(1, name() + " update's packing table");
    const HaloPrepackDev none;
    HALOMD_CUDA_CHECK(cudaMemcpy(prepack_.get(), &none, sizeof(none), cudaMemcpyHostToDevice));
    HALOMD_CUDA_CHECK(cudaMemset(state_.get(), 0, sizeof(nv::StateDev)));
    HALOMD_CUDA_CHECK(cudaMemset(config_.get(), 0, sizeof(nv::ConfigDev)));

    // The signals and reduction slots do not depend on the plan: allocated once, on every PE alike. The
    // signals start at 0 and are never reset (the epochs only grow).
    signals_ = static_cast<uint64_t*>(symmetric(2 * kMaxPulses * sizeof(uint64_t), "pulse signals"));
    red_signal_ = static_cast<uint64_t*>(symmetric(npes_ * sizeof(uint64_t), "reduction signals"));
    red_slots_ = static_cast<long long*>(
        symmetric(2 * static_cast<size_t>(npes_) * kMaxGpuReduce * sizeof(long long), "reduction slots"));
    HALOMD_CUDA_CHECK(cudaMemset(signals_, 0, 2 * kMaxPulses * sizeof(uint64_t)));
    HALOMD_CUDA_CHECK(cudaMemset(red_signal_, 0, npes_ * sizeof(uint64_t)));
    map_peers(red_slots_, red_peer_, "reduction peers");
    HALOMD_CUDA_CHECK(cudaDeviceSynchronize());
    nv::barrier_all();  // no PE signals another before its signals are zeroed

    launch_.config = config_.get();
    launch_.state = state_.get();
    launch_.error = error_dev;
    launch_.timeout_ns = static_cast<long long>(timeout_ms_) * 1000000LL;
    // Every block of every PE's exchange kernel must be resident at once (nvshmem_halo_kernels.cu). At most
    // 16, and at most one block per multiprocessor per PE (as if all PEs shared this GPU): with 64 and 128
    // blocks, 4 PEs on one H200 under MPS deadlocked (bench/NOTES.md, seventh session), consistent with a
    // limit of one block per SM and client. Fewer are allowed for experiments.
    int device = 0, sms = 1;
    HALOMD_CUDA_CHECK(cudaGetDevice(&device));
    HALOMD_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    budget_blocks_ = std::max(1, sms / std::max(1, npes_));
    const int most = std::min(budget_blocks_, 16);
    launch_.blocks = std::clamp(env_int("HALOMD_HALO_BLOCKS", most), 1, most);
  }

  ~NvshmemHaloTransport() override {
    // nvshmem_free is collective: while an exception unwinds, the other PEs may never come, so the symmetric
    // memory is left to the process's end.
    if (std::uncaught_exceptions() == 0) {
      (void)cudaDeviceSynchronize();
      write_stamps();
      nv::barrier_all();  // no peer's kernel still writes into what is freed
      for (void* p :
           {static_cast<void*>(stage_), static_cast<void*>(f_recv_), static_cast<void*>(x_recv_),
            static_cast<void*>(red_slots_), static_cast<void*>(red_signal_), static_cast<void*>(signals_),
            static_cast<void*>(grid_.slots), static_cast<void*>(grid_.signal),
            static_cast<void*>(slabs_dev_.rs_slots), static_cast<void*>(slabs_dev_.stage),
            static_cast<void*>(slabs_dev_.real), static_cast<void*>(slabs_dev_.rs_signal)})
        if (p) nv::sym_free(p);
    }
    if (error_host_) (void)cudaFreeHost(error_host_);
  }

  // HALOMD_HALO_STAMPS=<prefix>: the fused kernels' timer stamps of the last kStampSteps exchanges, one row
  // per step (row = exchange epoch mod kStampSteps, so the same row is the same step on every PE), into
  // <prefix>_pe<N>.txt at the end of the run (bench/halo_stamps.py reads them).
  void write_stamps() {
    if (stamps_prefix_.empty() || stamps_.size() == 0) return;
    std::vector<unsigned long long> h(stamps_.size());
    if (cudaMemcpy(h.data(), stamps_.get(), h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost) != cudaSuccess)
      return;
    std::FILE* out = std::fopen(fmt::format("{}_pe{}.txt", stamps_prefix_, me_).c_str(), "w");
    if (!out) return;
    for (int r = 0; r < nv::kStampSteps; ++r) {
      for (int k = 0; k < nv::kStamps; ++k) fmt::print(out, "{}{}", k ? " " : "", h[r * nv::kStamps + k]);
      fmt::print(out, "\n");
    }
    std::fclose(out);
  }

  std::string name() const override { return put_only_ ? "nvshmem_put" : "nvshmem"; }
  HaloTransport& host() override { return *host_; }
  bool device_initiated() const override { return true; }

  void bind(const domdec::DomainPlan& plan, const GpuLocalArrays& arrays, gpu::GpuCalls& calls) override {
    const int np = static_cast<int>(plan.pulses.size());
    if (np > kMaxPulses)
      throw RuntimeError(
          -1, -1,
          fmt::format("{}: the plan has {} pulses, at most {} are supported", name(), np, kMaxPulses));
    // The symmetric buffers have the same size on every PE: per pulse the largest count of any PE.
    std::vector<double> m(2 + 2 * kMaxPulses, 0.0);
    m[0] = np;
    m[1] = -np;
    for (int k = 0; k < np; ++k) {
      m[2 + k] = plan.pulses[k].recv_count;
      m[2 + kMaxPulses + k] = static_cast<double>(plan.pulses[k].send.size());
    }
    host_->max(m);
    if (static_cast<int>(m[0]) != np || static_cast<int>(-m[1]) != np)
      throw RuntimeError(-1, -1,
                         fmt::format("{}: the ranks' plans have different pulse counts ({} to {})", name(),
                                     static_cast<int>(-m[1]), static_cast<int>(m[0])));
    bool grow = x_recv_ == nullptr;
    for (int k = 0; k < np; ++k)
      grow = grow || m[2 + k] > static_cast<double>(x_cap_[k]) ||
             m[2 + kMaxPulses + k] > static_cast<double>(f_cap_[k]);
    if (grow) {
      for (int k = 0; k < kMaxPulses; ++k) {
        const auto need_x = static_cast<int64_t>(m[2 + k]),
                   need_f = static_cast<int64_t>(m[2 + kMaxPulses + k]);
        if (need_x > x_cap_[k]) x_cap_[k] = with_slack(need_x);
        if (need_f > f_cap_[k]) f_cap_[k] = with_slack(need_f);
      }
      reallocate(calls);
    }

    // The send lists, all pulses in one device array (grow-only), followed by what the update kernel's
    // packing needs (HaloPrepackDev): per pulse the slots of the forwarded atoms, and a table from home atom
    // to slot for each pulse that sends home atoms. An atom sent twice in one pulse (a box too small for the
    // halo) has no single slot: such a plan is packed by the exchange kernel alone.
    const int nh = plan.num_home;
    std::vector<int> send;
    std::array<size_t, kMaxPulses> send_at{}, fwd_at{}, fwd_count{}, slot_at{};
    std::array<bool, kMaxPulses> sends_home{};
    for (int k = 0; k < np; ++k) {
      send_at[k] = send.size();
      send.insert(send.end(), plan.pulses[k].send.begin(), plan.pulses[k].send.end());
    }
    for (int k = 0; k < np; ++k) {
      fwd_at[k] = send.size();
      const std::vector<int>& list = plan.pulses[k].send;
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i] >= nh) send.push_back(static_cast<int>(i));
        sends_home[k] = sends_home[k] || list[i] < nh;
      }
      fwd_count[k] = send.size() - fwd_at[k];
    }
    bool prepack = prepack_mode_ != 0;
    for (int k = 0; k < np && prepack; ++k) {
      if (!sends_home[k]) continue;
      slot_at[k] = send.size();
      send.resize(send.size() + nh, -1);
      int* slot = send.data() + slot_at[k];
      const std::vector<int>& list = plan.pulses[k].send;
      for (size_t i = 0; i < list.size() && prepack; ++i) {
        if (list[i] >= nh) continue;
        prepack = slot[list[i]] < 0;
        slot[list[i]] = static_cast<int>(i);
      }
    }
    if (send.size() > send_.size()) {
      calls.sync();  // the old list may still be read by enqueued kernels
      send_.allocate(static_cast<size_t>(with_slack(static_cast<int64_t>(send.size()))),
                     name() + " send lists");
    }
    staging_.begin(calls,
                   gpu::UploadStaging::room<int>(send.size()) + gpu::UploadStaging::room<nv::ConfigDev>(1) +
                       gpu::UploadStaging::room<HaloPrepackDev>(1),
                   name() + " plan");
    staging_.put(calls, send_.get(), send.data(), send.size());

    nv::ConfigDev c;
    c.a = arrays;
    c.num_home = plan.num_home;
    if (!stamps_prefix_.empty() && stamps_.size() == 0) {
      stamps_.allocate(static_cast<size_t>(nv::kStampSteps) * nv::kStamps, name() + " stamps");
      HALOMD_CUDA_CHECK(cudaMemset(stamps_.get(), 0, stamps_.size() * sizeof(unsigned long long)));
    }
    c.stamps = stamps_.get();
    c.num_pulses = np;
    c.me = me_;
    c.npes = npes_;
    c.red_slots = red_slots_;
    c.red_signal = red_signal_;
    c.red_peer = red_peer_.get();
    c.red_system = 0;
    for (int pe = 0; pe < npes_; ++pe) c.red_system = c.red_system || (pe != me_ && !same_gpu_[pe]);
    int64_t x_at = 0, f_at = 0;  // atoms before pulse k in the receive buffers (and stages)
    std::array<unsigned long long*, kMaxPulses> update_signal{};
    for (int k = 0; k < np; ++k) {
      const domdec::Pulse& pulse = plan.pulses[k];
      nv::PulseDev& q = c.pulse[k];
      q.p.send = send_.get() + send_at[k];
      q.p.send_count = static_cast<int>(pulse.send.size());
      q.p.recv_start = pulse.recv_start;
      q.p.recv_count = pulse.recv_count;
      for (int d = 0; d < 3; ++d) q.p.shift[d] = pulse.shift[d];
      q.send_to = pulse.send_to;
      q.recv_from = pulse.recv_from;
      // The same offsets on every PE, so this PE's address of a buffer names the peer's copy.
      q.x_recv = x_recv_ + 3 * x_at;
      q.f_recv = f_recv_ + 3 * f_at;
      q.x_stage = x_stage_ + 3 * f_at;  // send_count <= f_cap
      q.f_stage = f_stage_ + 3 * x_at;  // recv_count <= x_cap
      q.x_signal = signals_ + k;
      q.f_signal = signals_ + kMaxPulses + k;
      if (!put_only_) {
        q.x_direct = static_cast<double*>(nv::sym_ptr(q.x_recv, q.send_to));
        q.f_direct = static_cast<float*>(nv::sym_ptr(q.f_recv, q.recv_from));
      }
      q.x_system = same_gpu_[q.send_to] ? 0 : 1;
      q.f_system = same_gpu_[q.recv_from] ? 0 : 1;
      q.fwd = send_.get() + fwd_at[k];
      q.fwd_count = static_cast<int>(fwd_count[k]);
      if (prepack && prepack_mode_ == 2 && fwd_count[k] == 0 && q.x_direct)
        update_signal[k] = static_cast<unsigned long long*>(nv::sym_ptr(q.x_signal, q.send_to));
      q.update_signals = update_signal[k] ? 1 : 0;
      x_at += x_cap_[k];
      f_at += f_cap_[k];
    }
    c.independent = 1;
    for (int k = 0; k < np; ++k) c.independent = c.independent && fwd_count[k] == 0;
    staging_.put(calls, config_.get(), &c, 1);
    HaloPrepackDev h;
    if (prepack) {
      h.num_pulses = np;
      h.num_home = nh;
      h.packed = &state_.get()->prepacked;
      for (int k = 0; k < np; ++k) {
        const nv::PulseDev& q = c.pulse[k];
        PrepackPulseDev& hp = h.pulse[k];
        if (sends_home[k]) hp.slot_of = send_.get() + slot_at[k];
        hp.wire = q.x_direct ? q.x_direct : q.x_stage;
        for (int d = 0; d < 3; ++d) hp.shift[d] = q.p.shift[d];
        hp.system = q.x_direct && q.x_system ? 1 : 0;
        hp.signal = update_signal[k];
        h.signals = h.signals || hp.signal;
      }
      h.epoch = &state_.get()->epoch_x;
    }
    staging_.put(calls, prepack_.get(), &h, 1);
    staging_.end(calls);
    // What the last update packed (and signalled) was for the plan before: the next exchange packs
    // everything itself, and waits for an epoch that no signal of the plan before has reached.
    calls.memset_async(&state_.get()->prepacked, 0, sizeof(int));
    nv::launch_skip_epoch(calls, launch_);
    plan_ = &plan;
  }

  const HaloPrepackDev* prepack() const override { return prepack_mode_ ? prepack_.get() : nullptr; }
  // Both read after the executor's final sync.
  int64_t prepacked_exchanges() const override { return device_count(&state_.get()->prepacked_exchanges); }
  int64_t released_exchanges() const override { return device_count(&state_.get()->released_exchanges); }
  int peers_on_other_gpus() const override {
    int n = 0;
    for (int pe = 0; pe < static_cast<int>(same_gpu_.size()); ++pe) n += pe != me_ && !same_gpu_[pe];
    return n;
  }
  static int64_t device_count(const unsigned long long* at) {
    unsigned long long n = 0;
    HALOMD_CUDA_CHECK(cudaMemcpy(&n, at, sizeof(n), cudaMemcpyDeviceToHost));
    return static_cast<int64_t>(n);
  }

  void exchange_x(gpu::GpuCalls& calls) override {
    require_bound();
    nv::launch_exchange_x(calls, launch_);
  }
  void exchange_f(gpu::GpuCalls& calls) override {
    require_bound();
    nv::launch_exchange_f(calls, launch_);
  }
  void reduce(gpu::GpuCalls& calls, long long* values, int count, const int* active, bool) override {
    if (count < 0 || count > kMaxGpuReduce)
      throw RuntimeError(-1, -1,
                         fmt::format("{}: reduce of {} values, at most {}", name(), count, kMaxGpuReduce));
    if (count == 0) return;
    nv::launch_reduce(calls, launch_, values, count, active);
  }

  // Collective, once. HALOMD_GRID_SUM: "slabs" (the default) a reduce-scatter of slabs and an all-gather of
  // the summed slabs in float (sum_grid_slabs_kernel: 2 (npes - 1) / npes grids per PE); "all" every PE's
  // grid to every other, summed in place (sum_grid_kernel: npes - 1 grids per PE, and every PE converts the
  // whole grid). Measured on one H200 with 4 domains (bench/NOTES.md, twenty-eighth session): slabs gave
  // +7.6% ns/day at 45k atoms and +23.5% at 9k. Blocks of ~16k values, at
  // most 8, and no more than what the exchange kernels leave of the per-PE budget of resident blocks (the
  // constructor's `most`): the sum spins beside them on the mesh stream, and every block of every PE must be
  // resident at once. The form and the block count are agreed over the PEs (max, min).
  float* reserve_grid(size_t count, double scale) override {
    if (grid_count_ > 0) throw RuntimeError(-1, -1, name() + ": reserve_grid called twice");
    // A bad setting is thrown after the agreement, so that no rank is left waiting in it.
    const std::string form = env_string("HALOMD_GRID_SUM");
    const bool bad = !form.empty() && form != "all" && form != "slabs";
    const int room = std::max(1, budget_blocks_ - launch_.blocks);
    const size_t want_blocks = std::clamp<size_t>((count + 16383) / 16384, 1, std::min(8, room));
    double agreed[5] = {form != "all" ? 1.0 : 0.0, -static_cast<double>(want_blocks),
                        static_cast<double>(count), -static_cast<double>(count), bad ? 1.0 : 0.0};
    host_->max(agreed);
    if (bad) throw InputError("", 0, "HALOMD_GRID_SUM must be all or slabs, not " + form);
    if (agreed[4] != 0.0) throw InputError("", 0, "HALOMD_GRID_SUM is not all or slabs on some rank");
    if (agreed[2] != -agreed[3])
      throw RuntimeError(-1, -1, fmt::format("{}: the ranks' PME grids differ in size", name()));
    slabs_ = agreed[0] != 0.0;
    const int blocks = static_cast<int>(-agreed[1]);
    grid_count_ = count;
    int system = 0;
    for (int pe = 0; pe < npes_; ++pe) system = system || (pe != me_ && !same_gpu_[pe]);
    auto set_common = [&](auto& g) {  // the fields both forms have
      g.count = count;
      g.me = me_;
      g.npes = npes_;
      g.blocks = blocks;
      g.system = system;
    };
    float* real = nullptr;
    if (slabs_) {
      nv::GridSlabsDev& g = slabs_dev_;
      set_common(g);
      g.inv_scale = 1.0 / scale;
      g.slab = (count + npes_ - 1) / npes_;
      g.chunk = (g.slab + blocks - 1) / blocks;
      g.rs_slots = static_cast<unsigned long long*>(symmetric(
          2 * static_cast<size_t>(npes_) * g.slab * sizeof(unsigned long long), "PME grid slab slots"));
      g.stage =
          static_cast<unsigned long long*>(symmetric(count * sizeof(unsigned long long), "PME grid stage"));
      g.real = static_cast<float*>(symmetric(count * sizeof(float), "PME grid (float)"));
      const size_t nsignals = static_cast<size_t>(npes_) * blocks;
      g.rs_signal = static_cast<uint64_t*>(symmetric(2 * nsignals * sizeof(uint64_t), "PME grid signals"));
      g.ag_signal = g.rs_signal + nsignals;
      HALOMD_CUDA_CHECK(cudaMemset(g.rs_signal, 0, 2 * nsignals * sizeof(uint64_t)));
      g.rs_peer = map_peers(g.rs_slots, grid_peer_, "PME grid slab peers");
      g.real_peer = map_peers(g.real, real_peer_, "PME grid peers (float)");
      real = g.real;
    } else {
      nv::GridDev& g = grid_;
      set_common(g);
      g.chunk = (count + g.blocks - 1) / g.blocks;
      g.slots = static_cast<unsigned long long*>(
          symmetric(2 * static_cast<size_t>(npes_) * count * sizeof(unsigned long long), "PME grid slots"));
      const size_t nsignals = static_cast<size_t>(npes_) * g.blocks;
      g.signal = static_cast<uint64_t*>(symmetric(nsignals * sizeof(uint64_t), "PME grid signals"));
      HALOMD_CUDA_CHECK(cudaMemset(g.signal, 0, nsignals * sizeof(uint64_t)));
      g.peer = map_peers(g.slots, grid_peer_, "PME grid peers");
    }
    HALOMD_CUDA_CHECK(cudaDeviceSynchronize());
    nv::barrier_all();  // no PE signals another before its signals are zeroed
    ++allocations_;
    return real;
  }
  const char* grid_sum_form() const override { return slabs_ ? "slabs" : "all"; }
  void sum_grid(gpu::GpuCalls& calls, unsigned long long* values) override {
    if (grid_count_ == 0) throw RuntimeError(-1, -1, name() + ": sum_grid before reserve_grid");
    if (slabs_)
      nv::launch_sum_grid_slabs(calls, launch_, slabs_dev_, values);
    else
      nv::launch_sum_grid(calls, launch_, grid_, values);
  }

  void check_errors() override {
    const volatile nv::ErrorRecord* e = error_host_;
    if (!e->set) return;
    const int kind = e->kind, k = e->pulse, peer = e->peer;
    if (kind == nv::kErrorGrid)
      throw RuntimeError(
          -1, -1,
          fmt::format("{}: block {} of the PME charge grid from rank {} did not arrive within {} ms", name(),
                      k, peer, timeout_ms_));
    if (kind == nv::kErrorSums)
      throw RuntimeError(
          -1, -1,
          fmt::format("{}: the sums from rank {} did not arrive within {} ms", name(), peer, timeout_ms_));
    const std::string pulse = plan_ && k >= 0 && k < static_cast<int>(plan_->pulses.size())
                                  ? domdec::pulse_name(plan_->pulses[k])
                                  : "?";
    throw RuntimeError(
        -1, -1,
        fmt::format("{}: the {} of pulse {} ({}) from rank {} did not arrive within {} ms", name(),
                    kind == nv::kErrorCoordinates ? "coordinates" : "forces", k, pulse, peer, timeout_ms_));
  }

  CallCounters counters() const override { return host_->counters(); }  // the per-step work waits for no one
  int64_t allocations() const override { return allocations_; }

 private:
  void* symmetric(size_t bytes, const char* what) {
    void* p = nv::sym_malloc(std::max<size_t>(bytes, 64));
    if (!p)
      throw RuntimeError(-1, -1,
                         fmt::format("{}: nvshmem_malloc of {} ({}) failed (NVSHMEM_SYMMETRIC_SIZE sets the "
                                     "symmetric heap)",
                                     name(), what, gpu::mib(bytes)));
    return p;
  }

  // Collective and grow-only; every PE decides it from the same maxima, so all take part.
  void reallocate(gpu::GpuCalls& calls) {
    calls.sync();
    nv::barrier_all();  // every PE's kernels are done with the old buffers
    for (void* p : {static_cast<void*>(stage_), static_cast<void*>(f_recv_), static_cast<void*>(x_recv_)})
      if (p) nv::sym_free(p);
    int64_t x_atoms = 0, f_atoms = 0;
    for (int k = 0; k < kMaxPulses; ++k) {
      x_atoms += x_cap_[k];
      f_atoms += f_cap_[k];
    }
    x_recv_ = static_cast<double*>(symmetric(3 * x_atoms * sizeof(double), "coordinate receive buffers"));
    f_recv_ = static_cast<float*>(symmetric(3 * f_atoms * sizeof(float), "force receive buffers"));
    // The put stages: coordinates (send_count <= f_cap per pulse), then forces (recv_count <= x_cap).
    const size_t x_stage_bytes = 3 * f_atoms * sizeof(double);
    stage_ = static_cast<char*>(symmetric(x_stage_bytes + 3 * x_atoms * sizeof(float), "put stages"));
    x_stage_ = reinterpret_cast<double*>(stage_);
    f_stage_ = reinterpret_cast<float*>(stage_ + x_stage_bytes);
    nv::barrier_all();
    ++allocations_;
  }

  // `out` (device, one per PE): PE pe's copy of the symmetric `sym` mapped into this process, null for this
  // PE, for a peer nvshmem_ptr does not reach, and always for nvshmem_put. Returns out's address.
  template <class T>
  T* const* map_peers(T* sym, gpu::DeviceBuffer<T*>& out, const char* what) {
    std::vector<T*> peers(npes_, nullptr);
    for (int pe = 0; pe < npes_; ++pe)
      if (pe != me_ && !put_only_) peers[pe] = static_cast<T*>(nv::sym_ptr(sym, pe));
    out.allocate(npes_, name() + " " + what);
    HALOMD_CUDA_CHECK(cudaMemcpy(out.get(), peers.data(), npes_ * sizeof(T*), cudaMemcpyHostToDevice));
    return out.get();
  }

  // Which PEs run on this process's GPU (same host name and PCI address): direct stores to them need only a
  // device-scope release (PulseDev::x_system). HALOMD_HALO_SYSTEM_FENCES=1 keeps system scope for all.
  void find_same_gpu() {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    int device = 0;
    HALOMD_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    HALOMD_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    const int64_t mine[2] = {
        static_cast<int64_t>(std::hash<std::string>{}(host) >> 1),
        static_cast<int64_t>(prop.pciDomainID) << 16 | prop.pciBusID << 8 | prop.pciDeviceID};
    std::vector<int64_t> all;
    host_->all_gather(mine, all);
    same_gpu_.assign(npes_, 0);
    const bool system_only = env_int("HALOMD_HALO_SYSTEM_FENCES", 0) != 0;
    for (int pe = 0; pe < npes_ && 2 * pe + 1 < static_cast<int>(all.size()); ++pe)
      same_gpu_[pe] = !system_only && all[2 * pe] == mine[0] && all[2 * pe + 1] == mine[1];
  }

  void require_bound() const {
    if (!plan_) throw RuntimeError(-1, -1, name() + ": exchange before bind()");
  }

  bool put_only_;
  int timeout_ms_;
  std::unique_ptr<HaloTransport> host_;
  int me_ = 0;
  int npes_ = 1;
  std::vector<char> same_gpu_;  // per PE: on this process's GPU
  const domdec::DomainPlan* plan_ = nullptr;
  int64_t allocations_ = 0;
  std::string stamps_prefix_ = env_string("HALOMD_HALO_STAMPS");
  gpu::DeviceBuffer<unsigned long long> stamps_;

  nv::ErrorRecord* error_host_ = nullptr;
  gpu::DeviceBuffer<nv::StateDev> state_;
  gpu::DeviceBuffer<nv::ConfigDev> config_;
  gpu::DeviceBuffer<HaloPrepackDev> prepack_;
  // HALOMD_HALO_PREPACK (HaloPrepackDev): 0 the exchange kernel packs every atom; 1 the update kernel packs
  // the home atoms; 2 (the default) it also releases the pulses that send home atoms only, to mapped peers.
  int prepack_mode_ = env_int("HALOMD_HALO_PREPACK", 2);
  gpu::DeviceBuffer<long long*> red_peer_;
  int budget_blocks_ = 1;  // resident blocks per PE: the multiprocessors over the PEs (the constructor)
  // PME's grid sum (reserve_grid): one of the two forms, the other's pointers null.
  size_t grid_count_ = 0;
  bool slabs_ = false;
  nv::GridDev grid_;
  nv::GridSlabsDev slabs_dev_;
  gpu::DeviceBuffer<unsigned long long*> grid_peer_;
  gpu::DeviceBuffer<float*> real_peer_;
  gpu::DeviceBuffer<int> send_;
  gpu::UploadStaging staging_;  // the plan's uploads at bind
  nv::Launch launch_;

  // Symmetric memory.
  uint64_t* signals_ = nullptr;  // [2][kMaxPulses]: coordinates, forces
  uint64_t* red_signal_ = nullptr;
  long long* red_slots_ = nullptr;
  double* x_recv_ = nullptr;
  float* f_recv_ = nullptr;
  char* stage_ = nullptr;
  double* x_stage_ = nullptr;
  float* f_stage_ = nullptr;
  std::array<int64_t, kMaxPulses> x_cap_{};  // atoms per pulse, the same on every PE
  std::array<int64_t, kMaxPulses> f_cap_{};
};

}  // namespace

std::unique_ptr<GpuHaloTransport> make_nvshmem_transport(bool put_only, int timeout_ms) {
  return std::make_unique<NvshmemHaloTransport>(put_only, timeout_ms);
}

}  // namespace halomd::comm
