// The host side of bench/cluster_nb.cu: the super-cluster layout and the half list of (super-cluster, shift)
// entries built on the host (bench/NOTES.md, sixteenth session).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/topology.h"
#include "io/gro.h"

namespace cluster_nb {

constexpr int kCl = 8;     // atoms per cluster
constexpr int kSuper = 8;  // clusters per super-cluster
constexpr int kSuperAtoms = 64;
constexpr double kFixed = 4294967296.0;  // 2^32 units per kJ/mol/nm, as halomd's fixed-point forces
int kChunk = 1 << 30;                    // --chunk
bool kSplit = false;                     // --split

struct Entry {
  int super;  // i super-cluster
  int shift;  // 0..26: (sx + 1) + 3 (sy + 1) + 9 (sz + 1), added to the i atoms
  int first;  // into the j list
  int count;
};
struct JEntry {
  int cj;
  unsigned imask;  // which of the super-cluster's 8 i-clusters interact
  unsigned hmask;  // bit 2 k + h: i-cluster k with the j-cluster's half h (atoms 4h..4h+3; --split)
};

struct System {
  float box[3];
  std::vector<float> x, y, z, q;
  std::vector<int> type, mol;  // padding: type 0 with q 0 far away, mol -1 - slot
  std::vector<int> atom_of;    // slot -> original atom (-1 padding)
  int nslots = 0;
};

// Super-clusters as GROMACS's GPU grid makes them.
System build_slots(const halomd::io::GroFile& gro, const halomd::Topology& top,
                   const std::vector<double>& q) {
  System s;
  const int n = static_cast<int>(gro.x.size());
  for (int d = 0; d < 3; ++d) s.box[d] = static_cast<float>(gro.box.len[d]);
  std::vector<double> wx(n), wy(n), wz(n);
  for (int i = 0; i < n; ++i) {
    wx[i] = gro.x[i].x - gro.box.len.x * std::floor(gro.x[i].x / gro.box.len.x);
    wy[i] = gro.x[i].y - gro.box.len.y * std::floor(gro.x[i].y / gro.box.len.y);
    wz[i] = gro.x[i].z - gro.box.len.z * std::floor(gro.x[i].z / gro.box.len.z);
  }
  const double vol = gro.box.len.x * gro.box.len.y * gro.box.len.z;
  const double side = std::cbrt(kSuperAtoms * vol / n);  // a super-cluster's cube
  const int ncx = std::max(1, static_cast<int>(std::lround(gro.box.len.x / side)));
  const int ncy = std::max(1, static_cast<int>(std::lround(gro.box.len.y / side)));
  std::vector<std::vector<int>> col(ncx * ncy);
  for (int i = 0; i < n; ++i) {
    const int cx = std::min(ncx - 1, static_cast<int>(wx[i] / gro.box.len.x * ncx));
    const int cy = std::min(ncy - 1, static_cast<int>(wy[i] / gro.box.len.y * ncy));
    col[cx * ncy + cy].push_back(i);
  }
  auto push = [&](int a, int slot_pad) {
    if (a >= 0) {
      s.x.push_back(wx[a]);
      s.y.push_back(wy[a]);
      s.z.push_back(wz[a]);
      s.q.push_back(q[a]);
      s.type.push_back(top.type[a]);
      s.mol.push_back(top.molecule[a]);
    } else {
      s.x.push_back(-1000.f - 10.f * slot_pad);  // far from everything, 10 nm apart
      s.y.push_back(-1000.f);
      s.z.push_back(-1000.f);
      s.q.push_back(0.f);
      s.type.push_back(0);
      s.mol.push_back(-1 - slot_pad);
    }
    s.atom_of.push_back(a);
  };
  for (auto& c : col) {
    std::sort(c.begin(), c.end(), [&](int a, int b) { return wz[a] < wz[b]; });
    for (size_t b = 0; b < c.size(); b += kSuperAtoms) {
      std::vector<int> sc(c.begin() + b, c.begin() + std::min(c.size(), b + kSuperAtoms));
      while (sc.size() < kSuperAtoms) sc.push_back(-1);
      // 2x2x2 split by x, then y, then z (padding last in each sort).
      auto key = [&](int a, const std::vector<double>& w) { return a < 0 ? 1e30 : w[a]; };
      std::stable_sort(sc.begin(), sc.end(), [&](int a, int b2) { return key(a, wx) < key(b2, wx); });
      for (int h = 0; h < 2; ++h)
        std::stable_sort(sc.begin() + 32 * h, sc.begin() + 32 * h + 32,
                         [&](int a, int b2) { return key(a, wy) < key(b2, wy); });
      for (int qd = 0; qd < 4; ++qd)
        std::stable_sort(sc.begin() + 16 * qd, sc.begin() + 16 * qd + 16,
                         [&](int a, int b2) { return key(a, wz) < key(b2, wz); });
      for (int a : sc) push(a, static_cast<int>(s.x.size()));
    }
  }
  s.nslots = static_cast<int>(s.x.size());
  return s;
}

struct Bbox {
  float lo[3], hi[3];
};

// The half list: for each super-cluster and shift, the j-clusters within rlist of some i-cluster's box.
void build_list(const System& s, double rlist, std::vector<Entry>& entries, std::vector<JEntry>& jl,
                long long& cluster_pairs) {
  const int ncl = s.nslots / kCl;
  std::vector<Bbox> bb(ncl), bbh(2 * ncl);
  for (int c = 0; c < 2 * ncl; ++c) {
    Bbox b{{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
    for (int k = 0; k < kCl / 2; ++k) {
      const int a = c * (kCl / 2) + k;
      if (s.atom_of[a] < 0) continue;
      const float q[3] = {s.x[a], s.y[a], s.z[a]};
      for (int d = 0; d < 3; ++d) {
        b.lo[d] = std::min(b.lo[d], q[d]);
        b.hi[d] = std::max(b.hi[d], q[d]);
      }
    }
    bbh[c] = b;
  }
  for (int c = 0; c < ncl; ++c) {
    Bbox b{{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
    for (int k = 0; k < kCl; ++k) {
      const int a = c * kCl + k;
      if (s.atom_of[a] < 0) continue;
      const float p[3] = {s.x[a], s.y[a], s.z[a]};
      for (int d = 0; d < 3; ++d) {
        b.lo[d] = std::min(b.lo[d], p[d]);
        b.hi[d] = std::max(b.hi[d], p[d]);
      }
    }
    bb[c] = b;
  }
  const float r2 = static_cast<float>(rlist * rlist);
  cluster_pairs = 0;
  const int nsuper = ncl / kSuper;
  for (int sc = 0; sc < nsuper; ++sc) {
    Bbox sb{{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
    for (int k = 0; k < kSuper; ++k)
      for (int d = 0; d < 3; ++d) {
        sb.lo[d] = std::min(sb.lo[d], bb[sc * kSuper + k].lo[d]);
        sb.hi[d] = std::max(sb.hi[d], bb[sc * kSuper + k].hi[d]);
      }
    for (int sh = 0; sh < 27; ++sh) {
      const int o[3] = {sh % 3 - 1, sh / 3 % 3 - 1, sh / 9 - 1};
      bool near = true;  // a shift matters only for a super-cluster within rlist of that face
      for (int d = 0; d < 3; ++d)
        if ((o[d] == 1 && sb.lo[d] > rlist) || (o[d] == -1 && sb.hi[d] < s.box[d] - rlist)) near = false;
      if (!near) continue;
      const float shift[3] = {static_cast<float>(sh % 3 - 1) * s.box[0],
                              static_cast<float>(sh / 3 % 3 - 1) * s.box[1],
                              static_cast<float>(sh / 9 - 1) * s.box[2]};
      Entry e{sc, sh, static_cast<int>(jl.size()), 0};
      for (int cj = sc * kSuper; cj < ncl; ++cj) {
        if (bb[cj].lo[0] > bb[cj].hi[0]) continue;  // all padding
        float sd2 = 0.f;
        for (int d = 0; d < 3; ++d) {
          const float g =
              std::max(0.f, std::max(sb.lo[d] + shift[d] - bb[cj].hi[d], bb[cj].lo[d] - sb.hi[d] - shift[d]));
          sd2 += g * g;
        }
        if (sd2 >= r2) continue;
        unsigned mask = 0, hmask = 0;
        auto gap2 = [&](const Bbox& bi, const Bbox& bj) {
          float d2 = 0.f;
          for (int d = 0; d < 3; ++d) {
            const float ilo = bi.lo[d] + shift[d], ihi = bi.hi[d] + shift[d];
            const float g = std::max(0.f, std::max(ilo - bj.hi[d], bj.lo[d] - ihi));
            d2 += g * g;
          }
          return d2;
        };
        for (int k = 0; k < kSuper; ++k) {
          const int ci = sc * kSuper + k;
          if (ci > cj || bb[ci].lo[0] > bb[ci].hi[0]) continue;
          if (ci == cj && sh != 13) continue;  // a cluster and its own image: boxes > 2 rlist
          if (gap2(bb[ci], bb[cj]) >= r2) continue;
          mask |= 1u << k;
          for (int h = 0; h < 2; ++h)
            if (bbh[2 * cj + h].lo[0] <= bbh[2 * cj + h].hi[0] && gap2(bb[ci], bbh[2 * cj + h]) < r2)
              hmask |= 1u << (2 * k + h);
        }
        if (mask) {
          jl.push_back({cj, mask, hmask});
          cluster_pairs += __builtin_popcount(mask);
        }
      }
      e.count = static_cast<int>(jl.size()) - e.first;
      // Long entries are cut into pieces of at most kChunk j-clusters: more blocks for the GPU (GROMACS's
      // split of super-cluster entries), at the price of more i-force atomics.
      for (int c = 0; c < e.count; c += kChunk) {
        Entry piece = e;
        piece.first = e.first + c;
        piece.count = std::min(kChunk, e.count - c);
        entries.push_back(piece);
      }
    }
  }
}

}  // namespace cluster_nb
