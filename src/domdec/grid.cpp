// The domain grid: pulse counts, GROMACS's halo-volume estimate, validation and choice of nx x ny x nz.
#include "domdec/grid.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/errors.h"

namespace halomd::domdec {

namespace {

constexpr char kDimName[3] = {'x', 'y', 'z'};

// Empty when the grid can be used with this box and range, else what is wrong (one sentence part).
std::string grid_problem(const DdGrid& grid, const Box& box, const HaloRange& range) {
  for (int d = 0; d < 3; ++d) {
    if (grid.n[d] < 1) return fmt::format("the grid has {} domains in {}", grid.n[d], kDimName[d]);
  }
  for (int d = 0; d < 3; ++d) {
    // Two images of one pair could both lie within rlist otherwise (and the minimum image is ambiguous).
    if (!(range.rlist < 0.5 * box.len[d])) {
      return fmt::format("rlist {:.3f} nm is not below half the box edge in {} ({:.3f} nm)", range.rlist,
                         kDimName[d], box.len[d]);
    }
  }
  for (int d = 0; d < 3; ++d) {
    if (grid.n[d] == 1) continue;
    const double width = box.len[d] / grid.n[d];
    const int pulses = pulses_needed(width, range);
    // With n or more pulses an atom would come back to its own domain or arrive twice.
    if (pulses >= grid.n[d]) {
      return fmt::format(
          "with {}, rlist + 2 x margin = {:.3f} nm needs {} pulses in {} (cells {:.3f} nm wide), but the "
          "grid "
          "has only {} domains there",
          grid.str(), range.reach(), pulses, kDimName[d], width, grid.n[d]);
    }
  }
  return {};
}

std::vector<DdGrid> factorisations(int num_domains) {
  std::vector<DdGrid> out;
  for (int nx = 1; nx <= num_domains; ++nx) {
    if (num_domains % nx) continue;
    const int rest = num_domains / nx;
    for (int ny = 1; ny <= rest; ++ny) {
      if (rest % ny) continue;
      out.push_back(DdGrid{{nx, ny, rest / ny}});
    }
  }
  return out;
}

int max_pulses(const DdGrid& grid, const Box& box, const HaloRange& range) {
  const IVec3 p = pulses_per_dim(grid, box, range);
  return std::max(p.x, std::max(p.y, p.z));
}

// GROMACS's rule for (nearly) equal edges: more domains in the lower dimension, so the choice does not
// flip with the rounding of the box.
bool respects_equal_edges(const DdGrid& grid, const Box& box) {
  for (int i = 0; i < 3; ++i) {
    for (int j = i + 1; j < 3; ++j) {
      if (std::fabs(box.len[j] - box.len[i]) < 0.01 * box.len[i] && grid.n[j] > grid.n[i]) return false;
    }
  }
  return true;
}

}  // namespace

std::string DdGrid::str() const { return fmt::format("{}x{}x{}", n.x, n.y, n.z); }

int pulses_needed(double width, const HaloRange& range) {
  return std::max(1, static_cast<int>(std::ceil(range.reach() / width)));
}

IVec3 pulses_per_dim(const DdGrid& grid, const Box& box, const HaloRange& range) {
  IVec3 p{0, 0, 0};
  for (int d = 0; d < 3; ++d) {
    if (grid.n[d] > 1) p[d] = pulses_needed(box.len[d] / grid.n[d], range);
  }
  return p;
}

double halo_volume_fraction(const DdGrid& grid, const Box& box, const HaloRange& range) {
  double nw[3];
  for (int d = 0; d < 3; ++d) nw[d] = grid.n[d] > 1 ? range.send_range() * grid.n[d] / box.len[d] : 0.0;
  double vol = 0.0;
  for (int i = 0; i < 3; ++i) {
    vol += nw[i];
    for (int j = i + 1; j < 3; ++j) {
      vol += nw[i] * nw[j] * std::numbers::pi / 4;
      for (int k = j + 1; k < 3; ++k) vol += nw[i] * nw[j] * nw[k] * std::numbers::pi / 6;
    }
  }
  return vol;
}

void validate_grid(const DdGrid& grid, int num_domains, const Box& box, const HaloRange& range) {
  if (num_domains < 1)
    throw InputError("", 0, fmt::format("{} domains asked for: need at least 1", num_domains));
  if (grid.n.x >= 1 && grid.n.y >= 1 && grid.n.z >= 1 && grid.num_domains() != num_domains) {
    throw InputError("", 0,
                     fmt::format("the domain grid {} makes {} domains, but {} were asked for", grid.str(),
                                 grid.num_domains(), num_domains));
  }
  const std::string problem = grid_problem(grid, box, range);
  if (!problem.empty()) throw InputError("", 0, "domain grid " + grid.str() + " cannot be used: " + problem);
}

DdGrid choose_grid(int num_domains, const Box& box, const HaloRange& range) {
  if (num_domains < 1)
    throw InputError("", 0, fmt::format("{} domains asked for: need at least 1", num_domains));
  const std::vector<DdGrid> all = factorisations(num_domains);
  std::vector<DdGrid> valid;
  for (const DdGrid& g : all) {
    if (grid_problem(g, box, range).empty()) valid.push_back(g);
  }
  if (valid.empty()) {
    // Report the arrangement with the widest narrowest cell: the one that came closest.
    const DdGrid* closest = &all.front();
    double best_width = -1.0;
    for (const DdGrid& g : all) {
      double narrowest = 1e300;
      for (int d = 0; d < 3; ++d) narrowest = std::min(narrowest, box.len[d] / g.n[d]);
      if (narrowest > best_width) best_width = narrowest, closest = &g;
    }
    throw InputError(
        "", 0,
        fmt::format("{} domains cannot be arranged in the {:.3f} x {:.3f} x {:.3f} nm box with rlist "
                    "{:.3f} nm and molecule margin {:.3f} nm: {}",
                    num_domains, box.len.x, box.len.y, box.len.z, range.rlist, range.margin,
                    grid_problem(*closest, box, range)));
  }
  std::vector<DdGrid> preferred;
  for (const DdGrid& g : valid) {
    if (respects_equal_edges(g, box)) preferred.push_back(g);
  }
  if (preferred.empty()) preferred = valid;

  const DdGrid* best = nullptr;
  int best_pulses = 0;
  double best_cost = 0.0;
  for (const DdGrid& g : preferred) {
    const int p = max_pulses(g, box, range);
    const double cost = halo_volume_fraction(g, box, range);
    bool better = false;
    if (!best || p < best_pulses) {
      better = true;
    } else if (p == best_pulses) {
      const double tol = 1e-9 * std::max(1.0, best_cost);
      if (cost < best_cost - tol) {
        better = true;
      } else if (cost <= best_cost + tol) {
        better = g.n.x > best->n.x || (g.n.x == best->n.x && g.n.y > best->n.y);
      }
    }
    if (better) best = &g, best_pulses = p, best_cost = cost;
  }
  return *best;
}

}  // namespace halomd::domdec
