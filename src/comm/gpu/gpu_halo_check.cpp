#include "comm/gpu/gpu_halo_check.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "core/env.h"
#include "core/errors.h"
#include "domdec/exchange.h"
#include "gpu/device_buffer.h"

namespace halomd::comm {
namespace {

struct F3 {
  float x = 0.f, y = 0.f, z = 0.f;
  F3& operator+=(const F3& o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  F3 operator+(const F3& o) const { return {x + o.x, y + o.y, z + o.z}; }
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

}  // namespace

std::string gpu_halo_check(GpuHaloTransport& transport, const domdec::DdGrid& grid, int rounds) {
  // Single-atom molecules at random positions: a box small enough that 4 domains along one dimension need
  // two pulses.
  const Box box{{3.2, 3.0, 2.8}};
  const int n = 2400;
  const double rlist = 0.9;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Vec3> x(n);
  for (Vec3& p : x)
    for (int d = 0; d < 3; ++d) p[d] = u(rng) * box.len[d];
  std::vector<int> molecule(n);
  std::iota(molecule.begin(), molecule.end(), 0);
  std::vector<std::vector<Vec3>> x_ref;
  HaloTransport& host = transport.host();
  // HALOMD_DD_DIRECT=1: direct pulses (domdec/halo_plan.h) where the grid allows them, as the runs take them;
  // on every rank if any asks (a max, as the executors agree on it).
  double direct_flag[1] = {env_int("HALOMD_DD_DIRECT", 0) != 0 ? 1.0 : 0.0};
  host.max(direct_flag);
  const bool direct = direct_flag[0] != 0.0;
  const domdec::DdPlan plan = domdec::build_plan(grid, box, x, molecule, rlist, &x_ref, direct);

  host.set_grid(grid);
  const int me = host.rank();
  const domdec::DomainPlan& mine = plan.domains[me];
  const int nl = mine.num_local(), nh = mine.num_home;
  const int nd = static_cast<int>(plan.domains.size());

  gpu::GpuCalls calls;
  calls.create_stream();
  // PME's grid sum: an odd count (no whole blocks), values that wrap modulo 2^64 when summed; several sums
  // back to back without a host sync between them, so that the ranks drift apart over the slots' parities.
  constexpr size_t kGridCheck = 100003;
  constexpr int kGridSums = 3;
  // The slab form (GpuHaloTransport::reserve_grid) writes the sum in float at this scale.
  constexpr double kGridScale = 1099511627776.0;
  const float* real = transport.reserve_grid(kGridCheck, kGridScale);
  gpu::DeviceBuffer<unsigned long long> dgrid;
  dgrid.allocate(kGridCheck, "halo check grid");
  gpu::PinnedBuffer<unsigned long long> hgrid;
  hgrid.allocate(kGridCheck * kGridSums, "halo check grids (host)");
  gpu::PinnedBuffer<float> hreal;
  if (real) hreal.allocate(kGridCheck * kGridSums, "halo check grids in float (host)");
  auto grid_value = [](int rank, size_t k, int sum) {
    return (static_cast<unsigned long long>(rank + 1) << 61) + k * 7919u + static_cast<unsigned>(sum);
  };
  gpu::DeviceBuffer<double> dx[3];
  gpu::DeviceBuffer<float4> df, dfh;
  gpu::DeviceBuffer<int> dsorted;
  for (int d = 0; d < 3; ++d) dx[d].allocate(nl, "halo check positions");
  df.allocate(nl, "halo check forces");
  dfh.allocate(nl, "halo check returned forces");
  dsorted.allocate(nl, "halo check sorted order");
  std::vector<int> sorted_of(nl);  // a permutation, so that the sorted-slot indirection is exercised
  for (int i = 0; i < nl; ++i) sorted_of[i] = nl - 1 - i;
  calls.copy_sync(dsorted.get(), sorted_of.data(), nl * sizeof(int), cudaMemcpyHostToDevice);
  GpuLocalArrays arrays;
  for (int d = 0; d < 3; ++d) arrays.x[d] = dx[d].get();
  arrays.f = df.get();
  arrays.f_halo = dfh.get();
  arrays.sorted_of = dsorted.get();
  arrays.num_local = nl;

  // HALOMD_HALO_CHECK_STALL_RANK=R: rank R stops at round 1 (for the timeout test).
  const int stall_rank = env_int("HALOMD_HALO_CHECK_STALL_RANK", -1);
  std::vector<double> hx(nl);
  std::vector<float4> hf(nl);
  for (int round = 0; round < rounds; ++round) {
    if (round == 0 || round == rounds / 2) transport.bind(mine, arrays, calls);
    // Reference: every domain's home atoms moved by a round-dependent amount, then the in-process exchange.
    std::vector<std::vector<Vec3>> xl(nd);
    std::vector<std::vector<F3>> fl(nd);
    for (int dom = 0; dom < nd; ++dom) {
      const domdec::DomainPlan& dp = plan.domains[dom];
      xl[dom].assign(dp.num_local(), Vec3{});
      fl[dom].resize(dp.num_local());
      for (int i = 0; i < dp.num_home; ++i)
        xl[dom][i] = x_ref[dom][i] + Vec3{1e-3 * round, -7e-4 * round, 3e-4 * (round % 3)};
      for (int i = 0; i < dp.num_local(); ++i) {
        const int g = dp.global[i];
        fl[dom][i] = {0.5f * g + round, -0.25f * i + 0.125f * dom, 1.0f / (1.0f + i + round)};
      }
    }
    domdec::exchange_x(plan, xl);
    std::vector<std::vector<F3>> got(nd);
    for (int dom = 0; dom < nd; ++dom) got[dom].assign(fl[dom].size(), F3{});
    domdec::reduce_f_apart(plan, fl, got);

    // Upload the home positions (the halo poisoned) and every local atom's force, exchange both ways.
    for (int d = 0; d < 3; ++d) {
      for (int i = 0; i < nl; ++i) hx[i] = i < nh ? xl[me][i][d] : std::nan("");
      calls.copy_sync(dx[d].get(), hx.data(), nl * sizeof(double), cudaMemcpyHostToDevice);
    }
    for (int i = 0; i < nl; ++i) {
      const F3& f = fl[me][i];
      hf[sorted_of[i]] = make_float4(f.x, f.y, f.z, 0.f);
    }
    calls.copy_sync(df.get(), hf.data(), nl * sizeof(float4), cudaMemcpyHostToDevice);
    // The returned forces start from zero for the home atoms (the update leaves them so) and anything for
    // the halo (the coordinate unpack must zero them).
    for (int i = 0; i < nl; ++i)
      hf[i] = i < nh ? make_float4(0.f, 0.f, 0.f, 0.f) : make_float4(1.f, 2.f, 3.f, 4.f);
    calls.copy_sync(dfh.get(), hf.data(), nl * sizeof(float4), cudaMemcpyHostToDevice);
    if (round == 1 && stall_rank == me) {
      // The timeout test: this rank stops taking part, so its peers must report the pulse and peer they
      // waited for, within their timeout.
      std::this_thread::sleep_for(std::chrono::seconds(60));
      throw RuntimeError(-1, -1, "halo check: rank " + std::to_string(me) + " stalled on purpose");
    }
    transport.exchange_x(calls);
    transport.exchange_f(calls);
    calls.sync();
    transport.check_errors();

    for (int d = 0; d < 3; ++d) {
      calls.copy_sync(hx.data(), dx[d].get(), nl * sizeof(double), cudaMemcpyDeviceToHost);
      for (int i = nh; i < nl; ++i) {
        if (same_bits(hx[i], xl[me][i][d])) continue;
        throw RuntimeError(
            -1, mine.global[i],
            fmt::format("{} halo check, rank {}, round {}: local atom {} coordinate {} is {:.17g}, "
                        "the reference exchange gives {:.17g}",
                        transport.name(), me, round, i, d, hx[i], xl[me][i][d]));
      }
    }
    // The forces themselves are only read; what came back is in f_halo, per local atom.
    auto check_forces = [&](const char* what, const std::vector<F3>& want, bool sorted) {
      for (int i = 0; i < nl; ++i) {
        const float4 g = hf[sorted ? sorted_of[i] : i];
        const F3& w = want[i];
        if (same_bits(g.x, w.x) && same_bits(g.y, w.y) && same_bits(g.z, w.z)) continue;
        throw RuntimeError(-1, mine.global[i],
                           fmt::format("{} halo check, rank {}, round {}: local atom {} {} ({}, {}, {}), the "
                                       "reference reduction gives ({}, {}, {})",
                                       transport.name(), me, round, i, what, g.x, g.y, g.z, w.x, w.y, w.z));
      }
    };
    calls.copy_sync(hf.data(), df.get(), nl * sizeof(float4), cudaMemcpyDeviceToHost);
    check_forces("force", fl[me], true);
    calls.copy_sync(hf.data(), dfh.get(), nl * sizeof(float4), cudaMemcpyDeviceToHost);
    check_forces("returned force", got[me], false);

    // The reduction: every rank contributes (rank + 1) * (k + 1) to value k.
    long long hv[kMaxGpuReduce];
    for (int k = 0; k < kMaxGpuReduce; ++k) hv[k] = static_cast<long long>(me + 1) * (k + 1) + round;
    gpu::DeviceBuffer<long long> dv;
    gpu::DeviceBuffer<int> active;
    dv.allocate(kMaxGpuReduce, "halo check reduction");
    active.allocate(1, "halo check reduction flag");
    const int one = 1;
    calls.copy_sync(active.get(), &one, sizeof(int), cudaMemcpyHostToDevice);
    calls.copy_sync(dv.get(), hv, sizeof(hv), cudaMemcpyHostToDevice);
    transport.reduce(calls, dv.get(), kMaxGpuReduce, active.get(), true);
    calls.sync();
    transport.check_errors();
    calls.copy_sync(hv, dv.get(), sizeof(hv), cudaMemcpyDeviceToHost);
    const long long ranks = nd;
    for (int k = 0; k < kMaxGpuReduce; ++k) {
      const long long want = ranks * (ranks + 1) / 2 * (k + 1) + ranks * round;
      if (hv[k] != want)
        throw RuntimeError(-1, -1,
                           fmt::format("{} halo check, rank {}, round {}: reduced value {} is {}, not {}",
                                       transport.name(), me, round, k, hv[k], want));
    }

    const size_t bytes = kGridCheck * sizeof(unsigned long long);
    for (int g = 0; g < kGridSums; ++g)
      for (size_t k = 0; k < kGridCheck; ++k)
        hgrid[g * kGridCheck + k] = grid_value(me, k, round * kGridSums + g);
    for (int g = 0; g < kGridSums; ++g) {
      calls.copy_async(dgrid.get(), hgrid.get() + g * kGridCheck, bytes, cudaMemcpyHostToDevice);
      transport.sum_grid(calls, dgrid.get());
      calls.copy_async(hgrid.get() + g * kGridCheck, dgrid.get(), bytes, cudaMemcpyDeviceToHost);
      if (real)
        calls.copy_async(hreal.get() + g * kGridCheck, real, kGridCheck * sizeof(float),
                         cudaMemcpyDeviceToHost);
    }
    calls.sync();
    transport.check_errors();
    for (int g = 0; g < kGridSums; ++g) {
      for (size_t k = 0; k < kGridCheck; ++k) {
        unsigned long long want = 0;
        for (int r = 0; r < nd; ++r) want += grid_value(r, k, round * kGridSums + g);
        if (real) {  // the sum in float, the fixed-point grid zeroed
          const float f = static_cast<float>(static_cast<double>(static_cast<long long>(want)) / kGridScale);
          if (same_bits(hreal[g * kGridCheck + k], f) && hgrid[g * kGridCheck + k] == 0) continue;
          throw RuntimeError(
              -1, -1,
              fmt::format(
                  "{} halo check, rank {}, round {}: grid value {} of sum {} is {} in float (fixed point "
                  "left {}), not {}",
                  transport.name(), me, round, k, g, hreal[g * kGridCheck + k], hgrid[g * kGridCheck + k],
                  f));
        }
        if (hgrid[g * kGridCheck + k] != want)
          throw RuntimeError(
              -1, -1,
              fmt::format("{} halo check, rank {}, round {}: grid value {} of sum {} is {}, not {}",
                          transport.name(), me, round, k, g, hgrid[g * kGridCheck + k], want));
      }
    }
  }
  return fmt::format(
      "rank {}: {} on grid {}: {} pulses, {} local atoms ({} halo), {} rounds: halo coordinates equal the "
      "reference exchange, forces the reference reduction, sums and PME grid sums exact (bits, {})\n",
      me, transport.name(), grid.str(), mine.pulses.size(), nl, nl - nh, rounds,
      real ? "slabs, in float" : "in place");
}

}  // namespace halomd::comm
