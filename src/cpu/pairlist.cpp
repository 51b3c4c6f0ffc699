#include "cpu/pairlist.h"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "domdec/zones.h"

namespace halomd {
namespace {

// A cell grid with cells of at least rlist/2 and a search reach of two cells: ~40% fewer distance checks
// than rlist-sized cells.
struct CellGrid {
  int n[3];
  std::vector<int> cell_start;  // size ncell+1
  std::vector<int> atoms;       // atom indices ordered by cell
  std::vector<int> cell_of;     // cell of each atom
  int index(int cx, int cy, int cz) const { return (cx * n[1] + cy) * n[2] + cz; }
};

constexpr int kReach = 2;

CellGrid make_grid(std::span<const Vec3> x, const Box& box, double rlist) {
  CellGrid g;
  for (int d = 0; d < 3; ++d) g.n[d] = std::max(1, static_cast<int>(std::floor(box.len[d] / (0.5 * rlist))));
  const int ncell = g.n[0] * g.n[1] * g.n[2];
  const int natoms = static_cast<int>(x.size());
  g.cell_of.resize(natoms);
  std::vector<int> count(ncell + 1, 0);
  for (int i = 0; i < natoms; ++i) {
    int c[3];
    for (int d = 0; d < 3; ++d) {
      double w = x[i][d] - std::floor(x[i][d] / box.len[d]) * box.len[d];
      c[d] = std::min(g.n[d] - 1, std::max(0, static_cast<int>(w / box.len[d] * g.n[d])));
    }
    g.cell_of[i] = g.index(c[0], c[1], c[2]);
    ++count[g.cell_of[i] + 1];
  }
  for (int c = 0; c < ncell; ++c) count[c + 1] += count[c];
  g.cell_start = count;
  g.atoms.resize(natoms);
  std::vector<int> fill(count.begin(), count.end() - 1);
  for (int i = 0; i < natoms; ++i) g.atoms[fill[g.cell_of[i]]++] = i;
  return g;
}

// Distinct cell offsets along one dimension (offsets that wrap onto the same cell are visited once).
std::vector<int> neighbour_cells(int c, int n) {
  std::vector<int> out;
  for (int o = -kReach; o <= kReach; ++o) {
    int k = ((c + o) % n + n) % n;
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

}  // namespace

void build_pair_list(const std::vector<Vec3>& x, const Box& box, double rlist, const Topology& top,
                     int threads, PairList& list) {
  PairSearchAtoms atoms;
  atoms.x = x;
  atoms.box = box;
  atoms.inv_len = {1.0 / box.len.x, 1.0 / box.len.y, 1.0 / box.len.z};
  build_pair_list(atoms, rlist, top, threads, list);
}

void build_pair_list(const PairSearchAtoms& atoms, double rlist, const Topology& top, int threads,
                     PairList& list) {
  const std::span<const Vec3> x = atoms.x;
  const Box& box = atoms.box;
  const int natoms = static_cast<int>(x.size());
  const CellGrid g = make_grid(x, box, rlist);
  const double rlist2 = rlist * rlist;
  const Vec3 inv = atoms.inv_len;
  const bool have_excl = !top.excl_start.empty();
  const bool local = !atoms.global.empty();  // indices differ from the topology's
  const bool zones = !atoms.zone.empty();
  const int* global = atoms.global.data();
  const domdec::IVec3* zone = atoms.zone.data();

  // Each thread fills the lists of a contiguous range of i; ranges are concatenated in order, so the result
  // does not depend on the thread count.
  const int nthreads = std::max(1, threads);
  std::vector<std::vector<int>> part_j(nthreads);
  std::vector<std::vector<int>> part_count(nthreads);
#pragma omp parallel num_threads(nthreads)
  {
    const int t = omp_get_thread_num();
    const int i0 = static_cast<int>(static_cast<long>(natoms) * t / nthreads);
    const int i1 = static_cast<int>(static_cast<long>(natoms) * (t + 1) / nthreads);
    std::vector<int>& out = part_j[t];
    std::vector<int>& counts = part_count[t];
    counts.reserve(i1 - i0);
    std::vector<int> excl_mark(local ? top.num_atoms() : natoms, -1);  // by global index
    std::vector<int> found;
    for (int i = i0; i < i1; ++i) {
      const int gi = local ? global[i] : i;
      if (have_excl)
        for (int k = top.excl_start[gi]; k < top.excl_start[gi + 1]; ++k) excl_mark[top.excl[k]] = i;
      const int ci = g.cell_of[i];
      const int cx = ci / (g.n[1] * g.n[2]), cy = (ci / g.n[2]) % g.n[1], cz = ci % g.n[2];
      found.clear();
      for (int nx : neighbour_cells(cx, g.n[0]))
        for (int ny : neighbour_cells(cy, g.n[1]))
          for (int nz : neighbour_cells(cz, g.n[2])) {
            const int c = g.index(nx, ny, nz);
            for (int k = g.cell_start[c]; k < g.cell_start[c + 1]; ++k) {
              const int j = g.atoms[k];
              if (j <= i || excl_mark[local ? global[j] : j] == i) continue;
              if (zones && !domdec::zone_pair_computed(zone[i], zone[j])) continue;
              const double dx = minimum_image(x[j].x - x[i].x, box.len.x, inv.x);
              const double dy = minimum_image(x[j].y - x[i].y, box.len.y, inv.y);
              const double dz = minimum_image(x[j].z - x[i].z, box.len.z, inv.z);
              if (dx * dx + dy * dy + dz * dz < rlist2) found.push_back(j);
            }
          }
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
      counts.push_back(static_cast<int>(found.size()));
    }
  }

  list.rlist = rlist;
  list.start.assign(natoms + 1, 0);
  list.j.clear();
  size_t total = 0;
  for (const auto& p : part_j) total += p.size();
  list.j.reserve(total);
  int i = 0;
  for (int t = 0; t < nthreads; ++t) {
    for (int c : part_count[t]) {
      list.start[i + 1] = list.start[i] + c;
      ++i;
    }
    list.j.insert(list.j.end(), part_j[t].begin(), part_j[t].end());
  }
}

}  // namespace halomd
