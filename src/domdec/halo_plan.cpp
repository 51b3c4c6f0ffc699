// Building the halo plan: per-domain building blocks and the in-process driver over all domains.
#include "domdec/halo_plan.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "core/parallel.h"
#include "domdec/assignment.h"

namespace halomd::domdec {

namespace {

Vec3 image_shift(const IVec3& image, const Box& box) {
  return {static_cast<double>(image.x) * box.len.x, static_cast<double>(image.y) * box.len.y,
          static_cast<double>(image.z) * box.len.z};
}

// The i in [first, last) with keep(i), ascending, on up to `threads` threads: each chunk counts what it
// keeps, then writes it after the chunks before it (the serial order).
template <class Keep>
std::vector<int> select_if(int first, int last, int threads, Keep&& keep) {
  std::vector<int> out;
  const int64_t n = std::max(0, last - first);
  const int chunks = chunk_count(n, threads);
  if (chunks == 1) {
    for (int i = first; i < last; ++i) {
      if (keep(i)) out.push_back(i);
    }
    return out;
  }
  std::vector<int64_t> at(chunks + 1, 0);
  for_chunks(n, chunks, [&](int64_t b, int64_t e, int k) {
    int64_t kept = 0;
    for (int64_t i = b; i < e; ++i) kept += keep(static_cast<int>(first + i)) ? 1 : 0;
    at[k + 1] = kept;
  });
  for (int k = 0; k < chunks; ++k) at[k + 1] += at[k];
  out.resize(static_cast<size_t>(at[chunks]));
  for_chunks(n, chunks, [&](int64_t b, int64_t e, int k) {
    int64_t o = at[k];
    for (int64_t i = b; i < e; ++i)
      if (keep(static_cast<int>(first + i))) out[o++] = static_cast<int>(first + i);
  });
  return out;
}

}  // namespace

DomainPlan start_domain(const DdGrid& grid, const Box& box, int domain, std::span<const int> home,
                        std::span<const IVec3> home_image) {
  DomainPlan p;
  p.domain = domain;
  p.coords = grid.coords(domain);
  for (int d = 0; d < 3; ++d) {
    p.lo[d] = cell_bound(p.coords[d], grid.n[d], box.len[d]);
    p.hi[d] = cell_bound(p.coords[d] + 1, grid.n[d], box.len[d]);
  }
  p.num_home = static_cast<int>(home.size());
  p.global.assign(home.begin(), home.end());
  p.image.assign(home_image.begin(), home_image.end());
  p.shift.resize(home.size());
  for (size_t i = 0; i < home.size(); ++i) p.shift[i] = image_shift(p.image[i], box);
  p.zone.assign(home.size(), IVec3{0, 0, 0});
  return p;
}

IndexRange send_candidates(const DomainPlan& plan, int dim, int pulse, int dim_start) {
  if (pulse == 1) return {0, dim_start};
  for (const Pulse& p : plan.pulses) {
    if (p.dim == dim && p.pulse == pulse - 1) return {p.recv_start, p.recv_start + p.recv_count};
  }
  throw RuntimeError(-1, -1,
                     fmt::format("domain {}: pulse {} of dimension {} comes before pulse {}", plan.domain,
                                 pulse, dim, pulse - 1));
}

std::vector<int> select_send(std::span<const Vec3> x_local, IndexRange candidates, int dim, double lo,
                             double range, int threads) {
  return select_if(candidates.first, candidates.last, threads,
                   [&](int i) { return x_local[i][dim] - lo < range; });
}

int DdPlan::num_pulses() const {
  return direct ? static_cast<int>(direct_offsets(grid).size()) : pulses.x + pulses.y + pulses.z;
}

std::string pulse_name(const Pulse& p) {
  std::string name;
  for (int d = 0; d < 3; ++d)
    if (p.offset[d] != 0) name += "xyz"[d];
  if (name.empty()) name = std::string(1, "xyz"[p.dim]);
  if (p.pulse > 1) name += " " + std::to_string(p.pulse);
  return name;
}

bool direct_pulses_possible(const DdGrid& grid, const IVec3& pulses) {
  for (int d = 0; d < 3; ++d) {
    if (grid.n[d] > 1 && pulses[d] != 1) return false;
  }
  return true;
}

std::vector<IVec3> direct_offsets(const DdGrid& grid) {
  std::vector<IVec3> out;
  for (int mask = 1; mask < 8; ++mask) {
    const IVec3 o{mask & 1, (mask >> 1) & 1, (mask >> 2) & 1};
    bool decomposed = true;
    for (int d = 0; d < 3; ++d) decomposed = decomposed && (o[d] == 0 || grid.n[d] > 1);
    if (decomposed) out.push_back(o);
  }
  return out;
}

std::vector<int> select_send_direct(std::span<const Vec3> x_local, int num_home, const IVec3& offset,
                                    const Vec3& lo, double range, int threads) {
  return select_if(0, num_home, threads, [&](int i) {
    for (int d = 0; d < 3; ++d) {
      if (offset[d] != 0 && !(x_local[i][d] - lo[d] < range)) return false;
    }
    return true;
  });
}

Pulse& add_direct_pulse(DomainPlan& plan, const DdGrid& grid, const Box& box, const IVec3& offset,
                        std::vector<int> send) {
  Pulse& p = plan.pulses.emplace_back();
  p.pulse = 1;
  p.offset = offset;
  IVec3 below = plan.coords, above = plan.coords;
  p.shift = Vec3{};
  for (int d = 0; d < 3; ++d) {
    if (offset[d] == 0) continue;
    p.dim = d;
    below[d] = (plan.coords[d] - 1 + grid.n[d]) % grid.n[d];
    above[d] = (plan.coords[d] + 1) % grid.n[d];
    if (plan.coords[d] == 0) p.shift[d] = box.len[d];
  }
  p.send_to = grid.index(below);
  p.recv_from = grid.index(above);
  p.send = std::move(send);
  return p;
}

void rebox_plan(DomainPlan& plan, const DdGrid& grid, const Box& box) {
  for (int d = 0; d < 3; ++d) {
    plan.lo[d] = cell_bound(plan.coords[d], grid.n[d], box.len[d]);
    plan.hi[d] = cell_bound(plan.coords[d] + 1, grid.n[d], box.len[d]);
  }
  for (size_t i = 0; i < plan.shift.size(); ++i) plan.shift[i] = image_shift(plan.image[i], box);
  // A pulse adds one box length where its sender sits at coordinate 0 (add_pulse, add_direct_pulse).
  for (Pulse& p : plan.pulses)
    for (int d = 0; d < 3; ++d) p.shift[d] = p.shift[d] != 0.0 ? box.len[d] : 0.0;
}

Pulse& add_pulse(DomainPlan& plan, const DdGrid& grid, const Box& box, int dim, int pulse,
                 std::vector<int> send) {
  Pulse& p = plan.pulses.emplace_back();
  p.dim = dim;
  p.pulse = pulse;
  p.offset = IVec3{};
  p.offset[dim] = 1;
  p.send_to = grid.neighbour(plan.domain, dim, -1);
  p.recv_from = grid.neighbour(plan.domain, dim, +1);
  p.send = std::move(send);
  p.shift = Vec3{};
  if (plan.coords[dim] == 0) p.shift[dim] = box.len[dim];
  return p;
}

HaloAtoms pack_sent(const DomainPlan& sender, std::span<const Vec3> x_sender, const Pulse& pulse,
                    int threads) {
  // What the atoms gain: the offset in their zone and, where the sender sits at coordinate 0 (its pulse
  // crosses the periodic boundary there), one image.
  IVec3 wrap;
  for (int d = 0; d < 3; ++d) wrap[d] = pulse.offset[d] != 0 && sender.coords[d] == 0 ? 1 : 0;
  HaloAtoms out;
  const size_t n = pulse.send.size();
  out.global.resize(n);
  out.image.resize(n);
  out.zone.resize(n);
  out.x.resize(n);
  parallel_for(static_cast<int64_t>(n), threads, [&](int64_t k) {
    const int i = pulse.send[k];
    out.global[k] = sender.global[i];
    out.image[k] = sender.image[i] + wrap;
    out.zone[k] = sender.zone[i] + pulse.offset;
    out.x[k] = x_sender[i] + pulse.shift;  // the same expression as exchange_x
  });
  return out;
}

void append_received(DomainPlan& plan, std::vector<Vec3>& x_local, const Box& box, const HaloAtoms& atoms,
                     int threads) {
  append_received_for(plan, static_cast<int>(plan.pulses.size()) - 1, x_local, box, atoms, threads);
}

void append_received_for(DomainPlan& plan, int pulse, std::vector<Vec3>& x_local, const Box& box,
                         const HaloAtoms& atoms, int threads) {
  Pulse& p = plan.pulses.at(static_cast<size_t>(pulse));
  const size_t at = plan.global.size(), n = atoms.global.size();
  p.recv_start = static_cast<int>(at);
  p.recv_count = static_cast<int>(n);
  if (chunk_count(static_cast<int64_t>(n), threads) == 1) {  // one pass, without zero-filling first
    plan.global.insert(plan.global.end(), atoms.global.begin(), atoms.global.end());
    plan.image.insert(plan.image.end(), atoms.image.begin(), atoms.image.end());
    plan.zone.insert(plan.zone.end(), atoms.zone.begin(), atoms.zone.end());
    for (const IVec3& k : atoms.image) plan.shift.push_back(image_shift(k, box));
    x_local.insert(x_local.end(), atoms.x.begin(), atoms.x.end());
    return;
  }
  plan.global.resize(at + n);
  plan.image.resize(at + n);
  plan.zone.resize(at + n);
  plan.shift.resize(at + n);
  x_local.resize(at + n);
  parallel_for(static_cast<int64_t>(n), threads, [&](int64_t k) {
    plan.global[at + k] = atoms.global[k];
    plan.image[at + k] = atoms.image[k];
    plan.zone[at + k] = atoms.zone[k];
    plan.shift[at + k] = image_shift(atoms.image[k], box);
    x_local[at + k] = atoms.x[k];
  });
}

DdPlan build_plan_with(const DdGrid& grid, const Box& box, std::span<const Vec3> x,
                       std::span<const int> first_atom, const HaloRange& range,
                       std::vector<std::vector<Vec3>>* x_local, bool direct) {
  if (first_atom.size() != x.size()) {
    throw RuntimeError(-1, -1,
                       fmt::format("build_plan: {} positions but {} atoms in the molecule list", x.size(),
                                   first_atom.size()));
  }
  const int nd = grid.num_domains();
  validate_grid(grid, nd, box, range);
  DdPlan plan;
  plan.grid = grid;
  plan.box = box;
  plan.range = range;
  plan.pulses = pulses_per_dim(grid, box, range);

  const HomeAssignment home = assign_home(grid, box, x, first_atom);
  std::vector<std::vector<Vec3>> xl(nd);
  plan.domains.reserve(nd);
  for (int dom = 0; dom < nd; ++dom) {
    const std::vector<int>& atoms = home.home[dom];
    std::vector<IVec3> image(atoms.size());
    xl[dom].resize(atoms.size());
    for (size_t i = 0; i < atoms.size(); ++i) {
      image[i] = home.image[atoms[i]];
      xl[dom][i] = shifted(x[atoms[i]], image[i], box);
    }
    plan.domains.push_back(start_domain(grid, box, dom, atoms, image));
  }

  std::vector<int> dim_start(nd);
  std::vector<HaloAtoms> packets(nd);
  // Every domain's pulse k, then their exchange, then the appends (a pulse's atoms land after the ones
  // before).
  auto exchange = [&]() {
    for (int dom = 0; dom < nd; ++dom) {
      packets[dom] = pack_sent(plan.domains[dom], xl[dom], plan.domains[dom].pulses.back());
    }
    for (int dom = 0; dom < nd; ++dom) {
      const int from = plan.domains[dom].pulses.back().recv_from;
      append_received(plan.domains[dom], xl[dom], box, packets[from]);
    }
  };
  plan.direct = direct && direct_pulses_possible(grid, plan.pulses);
  if (plan.direct) {
    for (const IVec3& o : direct_offsets(grid)) {
      for (int dom = 0; dom < nd; ++dom) {
        DomainPlan& dp = plan.domains[dom];
        add_direct_pulse(dp, grid, box, o,
                         select_send_direct(xl[dom], dp.num_home, o, dp.lo, range.send_range()));
      }
      exchange();
    }
    if (x_local) *x_local = std::move(xl);
    return plan;
  }
  for (int d = 0; d < 3; ++d) {
    if (grid.n[d] == 1) continue;
    for (int dom = 0; dom < nd; ++dom) dim_start[dom] = plan.domains[dom].num_local();
    for (int p = 1; p <= plan.pulses[d]; ++p) {
      for (int dom = 0; dom < nd; ++dom) {
        DomainPlan& dp = plan.domains[dom];
        const IndexRange cand = send_candidates(dp, d, p, dim_start[dom]);
        add_pulse(dp, grid, box, d, p, select_send(xl[dom], cand, d, dp.lo[d], range.send_range()));
      }
      exchange();
    }
  }
  if (x_local) *x_local = std::move(xl);
  return plan;
}

DdPlan build_plan(const DdGrid& grid, const Box& box, std::span<const Vec3> x,
                  std::span<const int> molecule_of_atom, double rlist,
                  std::vector<std::vector<Vec3>>* x_local, bool direct) {
  if (molecule_of_atom.size() != x.size()) {
    throw RuntimeError(-1, -1,
                       fmt::format("build_plan: {} positions but {} atoms in the molecule list", x.size(),
                                   molecule_of_atom.size()));
  }
  const std::vector<int> first = first_atoms(molecule_of_atom);
  const HaloRange range{rlist, molecule_margin(x, first) + kMarginSlack};
  return build_plan_with(grid, box, x, first, range, x_local, direct);
}

}  // namespace halomd::domdec
