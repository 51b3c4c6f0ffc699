// The local transport: every domain in this process; a pulse packs into the sender's buffer and the receiver
// copies out of it, as the mpi transport does through the network.
#include <fmt/format.h>

#include "comm/halo_transport.h"
#include "comm/halo_wire.h"
#include "core/errors.h"

namespace halomd::comm {
namespace {

// Grows a buffer only when it is too small (with headroom, so that a slowly growing halo does not
// re-allocate at every neighbour-search step); returns true when it did.
template <class T>
bool ensure_capacity(std::vector<T>& buf, size_t needed) {
  if (buf.size() >= needed) return false;
  buf.resize(needed + needed / 4 + 16);
  return true;
}

class LocalTransport final : public HaloTransport {
 public:
  std::string name() const override { return "local"; }
  int rank() const override { return 0; }
  int num_ranks() const override { return 1; }

  void set_grid(const domdec::DdGrid& grid) override {
    domains_.resize(grid.num_domains());
    for (int d = 0; d < grid.num_domains(); ++d) domains_[d] = d;
  }

  void allocate(std::span<const domdec::DomainPlan* const> plans) override {
    check_slots(plans.size());
    plans_.assign(plans.begin(), plans.end());
    const size_t nd = plans.size();
    x_send_.resize(nd);
    f_recv_.resize(nd);
    offset_.assign(nd, {});
    for (size_t s = 0; s < nd; ++s) {
      const domdec::DomainPlan& p = *plans[s];
      if (p.domain != domains_[s]) throw RuntimeError(-1, -1, "local transport: plans out of slot order");
      size_t total = 0;
      for (const domdec::Pulse& pulse : p.pulses) {
        offset_[s].push_back(total);
        total += pulse.send.size();
      }
      // Coordinates are packed on the sending side, forces come back into the same slots.
      if (ensure_capacity(x_send_[s], total)) ++allocations_;
      if (ensure_capacity(f_recv_[s], total)) ++allocations_;
    }
  }

  void post_x(int k, std::span<Vec3* const> x) override {
    check_slots(x.size());
    for (size_t s = 0; s < plans_.size(); ++s) {
      const domdec::Pulse& p = plans_[s]->pulses[k];
      Vec3* buf = x_send_[s].data() + offset_[s][k];
      for (size_t i = 0; i < p.send.size(); ++i) buf[i] = x[s][p.send[i]] + p.shift;
      counters_.halo_bytes += static_cast<int64_t>(p.send.size() * sizeof(Vec3));
    }
  }

  void wait_x(int k, std::span<Vec3* const> x) override {
    for (size_t s = 0; s < plans_.size(); ++s) {
      const domdec::Pulse& p = plans_[s]->pulses[k];
      const size_t from = static_cast<size_t>(p.recv_from);
      check_count(*plans_[from], k, p.recv_count);
      const Vec3* buf = x_send_[from].data() + offset_[from][k];
      for (int i = 0; i < p.recv_count; ++i) x[s][p.recv_start + i] = buf[i];
    }
  }

  void post_f(int k, std::span<FixedVec3* const> f) override {
    check_slots(f.size());
    for (size_t s = 0; s < plans_.size(); ++s) {
      const domdec::Pulse& p = plans_[s]->pulses[k];
      const size_t to = static_cast<size_t>(p.recv_from);
      check_count(*plans_[to], k, p.recv_count);
      FixedVec3* buf = f_recv_[to].data() + offset_[to][k];
      for (int i = 0; i < p.recv_count; ++i) buf[i] = f[s][p.recv_start + i];
      counters_.halo_bytes += static_cast<int64_t>(p.recv_count * sizeof(FixedVec3));
    }
  }

  void wait_f(int k, std::span<FixedVec3* const> f) override {
    for (size_t s = 0; s < plans_.size(); ++s) {
      const domdec::Pulse& p = plans_[s]->pulses[k];
      const FixedVec3* buf = f_recv_[s].data() + offset_[s][k];
      for (size_t i = 0; i < p.send.size(); ++i) f[s][p.send[i]] += buf[i];
    }
  }

  void exchange_atoms(std::span<const int> to, std::span<const int> from,
                      std::span<const domdec::HaloAtoms> sent,
                      std::span<domdec::HaloAtoms> received) override {
    check_slots(sent.size());
    for (size_t s = 0; s < sent.size(); ++s) {
      const size_t src = static_cast<size_t>(from[s]);
      if (src >= sent.size() || to[src] != static_cast<int>(s)) {
        throw RuntimeError(-1, -1,
                           fmt::format("local transport: domain {} expects atoms from {}, which sends to {}",
                                       s, from[s], src < sent.size() ? to[src] : -1));
      }
      received[s] = sent[src];
      counters_.halo_bytes += static_cast<int64_t>(sent[src].global.size() * sizeof(HaloAtomRecord));
    }
  }

  void migrate(std::span<const std::vector<AtomState>> leaving,
               std::span<std::vector<AtomState>> arriving) override {
    check_slots(leaving.size());
    for (auto& a : arriving) a.clear();
    for (const auto& out : leaving) {
      for (const AtomState& a : out) {
        if (a.to < 0 || a.to >= static_cast<int>(arriving.size()))
          throw RuntimeError(-1, a.global, fmt::format("migration to domain {}, which does not exist", a.to));
        arriving[a.to].push_back(a);
      }
      counters_.halo_bytes += static_cast<int64_t>(out.size() * sizeof(AtomState));
    }
  }

  void sum(std::span<int64_t>) override {}
  void max(std::span<double>) override {}
  void all_gather(std::span<const int64_t> mine, std::vector<int64_t>& all) override {
    all.assign(mine.begin(), mine.end());
  }
  void gather(std::span<const AtomState> mine, std::vector<AtomState>& all) override {
    all.assign(mine.begin(), mine.end());
  }

 private:
  void check_slots(size_t n) const {
    if (n != domains_.size())
      throw RuntimeError(
          -1, -1, fmt::format("local transport: {} per-domain entries for {} domains", n, domains_.size()));
  }
  void check_count(const domdec::DomainPlan& sender, int k, int expected) const {
    if (sender.pulses[k].send.size() != static_cast<size_t>(expected))
      throw RuntimeError(-1, -1,
                         fmt::format("local transport: pulse {}: domain {} sends {} atoms, {} expected", k,
                                     sender.domain, sender.pulses[k].send.size(), expected));
  }

  std::vector<const domdec::DomainPlan*> plans_;
  std::vector<std::vector<Vec3>> x_send_;       // per slot: packed coordinates of every pulse
  std::vector<std::vector<FixedVec3>> f_recv_;  // per slot: forces returned for its sent atoms
  std::vector<std::vector<size_t>> offset_;     // per slot and pulse: where the pulse starts in both
};

}  // namespace

std::unique_ptr<HaloTransport> make_local_transport() { return std::make_unique<LocalTransport>(); }

}  // namespace halomd::comm
