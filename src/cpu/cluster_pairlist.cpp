#include "cpu/cluster_pairlist.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "domdec/zones.h"

namespace halomd {
namespace {

using CPL = ClusterPairList;
constexpr int kC = CPL::kClusterSize, kS = CPL::kClustersPerSuper, kSuper = CPL::kSuperSize;

struct Bounds {
  Vec3 lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
  bool empty() const { return lo.x > hi.x; }
  void add(const Vec3& p) {
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], p[d]);
      hi[d] = std::max(hi[d], p[d]);
    }
  }
};

// Squared distance between box a shifted by s and box b (0 where they overlap).
double gap2(const Bounds& a, const Vec3& s, const Bounds& b) {
  double g2 = 0.0;
  for (int d = 0; d < 3; ++d) {
    const double g = std::max({0.0, a.lo[d] + s[d] - b.hi[d], b.lo[d] - a.hi[d] - s[d]});
    g2 += g * g;
  }
  return g2;
}

// The positions as searched, the columns and the slots (CPL's layout). Columns are numbered x-major; each
// column's slots are contiguous and a multiple of 64.
struct Layout {
  int ncx = 1, ncy = 1;
  std::vector<int> col_first_super;  // size ncols + 1
};

Layout make_layout(const PairSearchAtoms& atoms, CPL& list) {
  const int n = static_cast<int>(atoms.x.size());
  std::vector<Vec3> w(atoms.x.begin(), atoms.x.end());
  Bounds ext;
  for (Vec3& p : w) {
    for (int d = 0; d < 3; ++d)
      if (atoms.inv_len[d] != 0.0) p[d] -= atoms.box.len[d] * std::floor(p[d] * atoms.inv_len[d]);
    ext.add(p);
  }
  Vec3 len;
  for (int d = 0; d < 3; ++d)
    len[d] = atoms.inv_len[d] != 0.0 ? atoms.box.len[d] : std::max(1e-9, ext.hi[d] - ext.lo[d]);
  Vec3 lo;
  for (int d = 0; d < 3; ++d) lo[d] = atoms.inv_len[d] != 0.0 ? 0.0 : ext.lo[d];
  const ClusterGridShape shape = cluster_grid_shape(lo, len, n, list.rlist);
  Layout g;
  g.ncx = shape.ncx;
  g.ncy = shape.ncy;
  std::vector<std::vector<int>> col(g.ncx * g.ncy);
  for (int i = 0; i < n; ++i) {
    const int cx = std::clamp(static_cast<int>((w[i].x - lo.x) / len.x * g.ncx), 0, g.ncx - 1);
    const int cy = std::clamp(static_cast<int>((w[i].y - lo.y) / len.y * g.ncy), 0, g.ncy - 1);
    col[cx * g.ncy + cy].push_back(i);
  }
  list.atom_of_slot.clear();
  g.col_first_super.assign(1, 0);
  // Within a column, by thin z cell (rlist / 8 high, as the atom-pair search's), then by index: an order a
  // GPU build reproduces exactly with per-cell counts and a sort of each cell's few atoms.
  const int nz = shape.nz;
  std::vector<int> zcell(n);
  for (int i = 0; i < n; ++i)
    zcell[i] = std::clamp(static_cast<int>((w[i].z - lo.z) / len.z * nz), 0, nz - 1);
  for (std::vector<int>& c : col) {
    std::sort(c.begin(), c.end(),
              [&](int a, int b) { return zcell[a] < zcell[b] || (zcell[a] == zcell[b] && a < b); });
    for (size_t b = 0; b < c.size(); b += kSuper) {
      std::array<int, kSuper> sc;
      sc.fill(-1);
      std::copy(c.begin() + b, c.begin() + std::min(c.size(), b + kSuper), sc.begin());
      // 2x2x2: by x over 64, by y in each 32, by z in each 16; padding last, ties by index.
      for (int level = 0; level < 3; ++level) {
        const int size = kSuper >> level;
        for (int g0 = 0; g0 < kSuper; g0 += size)
          std::sort(sc.begin() + g0, sc.begin() + g0 + size, [&](int a, int b2) {
            if (a < 0 || b2 < 0) return b2 < 0 && a >= 0;
            const double ka = w[a][level], kb = w[b2][level];
            return ka < kb || (ka == kb && a < b2);
          });
      }
      list.atom_of_slot.insert(list.atom_of_slot.end(), sc.begin(), sc.end());
    }
    g.col_first_super.push_back(static_cast<int>(list.atom_of_slot.size()) / kSuper);
  }
  list.x_slot.resize(list.atom_of_slot.size());
  for (size_t s = 0; s < list.atom_of_slot.size(); ++s)
    list.x_slot[s] = list.atom_of_slot[s] >= 0 ? w[list.atom_of_slot[s]] : Vec3{-1e6, -1e6, -1e6};
  return g;
}

// The pairs of slots (a of ci, b of cj) that may interact at shift code sh (distance aside).
uint64_t pair_mask(const PairSearchAtoms& atoms, const Topology& top, const CPL& list, int ci, int cj,
                   int sh) {
  uint64_t m = 0;
  for (int a = 0; a < kC; ++a) {
    const int i = list.atom_of_slot[ci * kC + a];
    if (i < 0) continue;
    const int gi = atoms.global.empty() ? i : atoms.global[i];
    for (int b = 0; b < kC; ++b) {
      const int j = list.atom_of_slot[cj * kC + b];
      if (j < 0 || (ci == cj && sh == 13 && b <= a)) continue;
      if (!atoms.zone.empty() && !domdec::zone_pair_computed(atoms.zone[i], atoms.zone[j])) continue;
      const int gj = atoms.global.empty() ? j : atoms.global[j];
      if (!top.excl_start.empty() && std::binary_search(top.excl.begin() + top.excl_start[gi],
                                                        top.excl.begin() + top.excl_start[gi + 1], gj))
        continue;
      m |= uint64_t{1} << (kC * a + b);
    }
  }
  return m;
}

}  // namespace

ClusterGridShape cluster_grid_shape(const Vec3& lo, const Vec3& len, int num_atoms, double rlist) {
  ClusterGridShape g;
  g.lo = lo;
  g.len = len;
  const double side = std::cbrt(kSuper * len.x * len.y * len.z / std::max(1, num_atoms));
  g.ncx = std::max(1, static_cast<int>(std::lround(len.x / side)));
  g.ncy = std::max(1, static_cast<int>(std::lround(len.y / side)));
  g.nz = std::max(1, static_cast<int>(std::floor(len.z / (rlist / 8.0))));
  return g;
}

void build_cluster_pair_list(const PairSearchAtoms& atoms, double rlist, const Topology& top,
                             ClusterPairList& list) {
  list.rlist = rlist;
  list.entries.clear();
  list.j.clear();
  list.pair_masks.clear();
  const Layout g = make_layout(atoms, list);
  const int ncl = list.num_clusters(), nsup = list.num_super();
  std::vector<Bounds> bb(ncl), sbb(nsup);
  for (int s = 0; s < list.num_slots(); ++s)
    if (list.atom_of_slot[s] >= 0) {
      bb[s / kC].add(list.x_slot[s]);
      sbb[s / kSuper].add(list.x_slot[s]);
    }
  // Columns' x-y extents, for skipping whole columns.
  const int ncol = g.ncx * g.ncy;
  std::vector<Bounds> cb(ncol);
  for (int c = 0; c < ncol; ++c)
    for (int s = g.col_first_super[c]; s < g.col_first_super[c + 1]; ++s)
      if (!sbb[s].empty()) {
        cb[c].add(sbb[s].lo);
        cb[c].add(sbb[s].hi);
      }
  const double r2 = rlist * rlist;
  for (int sc = 0; sc < nsup; ++sc) {
    if (sbb[sc].empty()) continue;
    for (int sh = 0; sh < 27; ++sh) {
      const int o[3] = {sh % 3 - 1, sh / 3 % 3 - 1, sh / 9 - 1};
      bool allowed = true;
      for (int d = 0; d < 3; ++d) allowed &= o[d] == 0 || atoms.inv_len[d] != 0.0;
      if (!allowed) continue;
      const Vec3 s{o[0] * atoms.box.len.x, o[1] * atoms.box.len.y, o[2] * atoms.box.len.z};
      CPL::Entry e{sc, sh, static_cast<int>(list.j.size()), 0};
      for (int c = 0; c < ncol; ++c) {
        if (cb[c].empty() ||
            gap2(sbb[sc], s, Bounds{{cb[c].lo.x, cb[c].lo.y, -1e300}, {cb[c].hi.x, cb[c].hi.y, 1e300}}) >= r2)
          continue;
        for (int js = std::max(sc, g.col_first_super[c]); js < g.col_first_super[c + 1]; ++js) {
          if (sbb[js].empty() || gap2(sbb[sc], s, sbb[js]) >= r2) continue;
          for (int cj = js * kS; cj < (js + 1) * kS; ++cj) {
            if (bb[cj].empty()) continue;
            CPL::JCluster jc{cj, 0, -1};
            std::array<uint64_t, kS> masks{};
            bool full = true;
            for (int k = 0; k < kS; ++k) {
              const int ci = sc * kS + k;
              // The half list: ci < cj at any shift; a cluster with itself at shift 0 (each pair once) and at
              // the shifts above it (a pair at -s is the pair at s the other way round).
              if (ci > cj || (ci == cj && sh < 13) || bb[ci].empty() || gap2(bb[ci], s, bb[cj]) >= r2)
                continue;
              masks[k] = pair_mask(atoms, top, list, ci, cj, sh);
              if (masks[k] == 0) continue;
              jc.imask |= 1u << k;
              full &= masks[k] == ~uint64_t{0};
            }
            if (!jc.imask) continue;
            if (!full) {
              jc.masks = static_cast<int>(list.pair_masks.size());
              list.pair_masks.insert(list.pair_masks.end(), masks.begin(), masks.end());
            }
            list.j.push_back(jc);
          }
        }
      }
      e.count = static_cast<int>(list.j.size()) - e.first;
      if (e.count > 0) list.entries.push_back(e);
    }
  }
}

}  // namespace halomd
