// The cluster-pair list: the layout GROMACS's nbnxm uses on GPUs, as the reference for the GPU cluster path
// that is to replace halomd's atom-pair list (bench/NOTES.md, sixteenth session: its force kernel is within
// 10% of the atom-pair kernel, and its search tests boxes instead of atom pairs). Not used by an executor
// yet.
//
// Layout: the atoms are cut into super-clusters of 64 (columns of about a super-cluster's width in x-y, atoms
// ordered by thin z cell, then by index, and cut into 64; the last one of a column padded), each split 2x2x2
// into clusters of 8 (by x, then y in each half, then z in each quarter; ties by index). Every key is a
// double computed the same way a GPU build would, so such a build can reproduce the layout slot for slot. The
// list is a half list: entries (super-cluster, periodic shift) with the j-clusters whose bounding box lies
// within rlist of some of its 8 i-clusters, an 8-bit mask of those, and where not every atom pair of an
// (i-cluster, j-cluster) may interact, a 64-bit mask of those that may (padding, exclusions, a cluster with
// itself, the eighth-shell zone rule). Every pair within rlist is listed exactly once
// (tests/test_cluster_pairlist.cpp checks this against build_pair_list on whole boxes and on domains).
#pragma once

#include <cstdint>
#include <vector>

#include "core/topology.h"
#include "cpu/pairlist.h"

namespace halomd {

struct ClusterPairList {
  static constexpr int kClusterSize = 8, kClustersPerSuper = 8, kSuperSize = 64;
  double rlist = 0.0;
  std::vector<int> atom_of_slot;  // the atom (index into the searched atoms) in each slot, -1: padding
  std::vector<Vec3> x_slot;       // positions as searched: periodic dimensions wrapped into the box

  struct Entry {
    int super;  // i super-cluster
    int shift;  // (sx + 1) + 3 (sy + 1) + 9 (sz + 1): the i atoms are at x_slot + s L
    int first;  // its j-clusters: j[first .. first + count)
    int count;
  };
  struct JCluster {
    int cj;
    uint32_t imask;  // bit k: i-cluster k of the entry's super-cluster
    int masks;       // -1: every pair of (i-cluster, cj) may interact; else pair_masks[masks + k] for bit k
  };
  std::vector<Entry> entries;
  std::vector<JCluster> j;
  // Bit 8 a + b: the pair (slot a of the i-cluster, slot b of the j-cluster) may interact.
  std::vector<uint64_t> pair_masks;

  int num_slots() const { return static_cast<int>(atom_of_slot.size()); }
  int num_clusters() const { return num_slots() / kClusterSize; }
  int num_super() const { return num_slots() / kSuperSize; }
};

// The grid the layout is cut from: ncx x ncy columns over [lo, lo + len) in x-y and nz thin z cells, from
// the extent of the atoms (the box in periodic dimensions), their number and rlist. One definition for the
// host and the GPU build, so that both order the atoms alike.
struct ClusterGridShape {
  int ncx = 1, ncy = 1, nz = 1;
  Vec3 lo, len;
};
ClusterGridShape cluster_grid_shape(const Vec3& lo, const Vec3& len, int num_atoms, double rlist);

// Builds the list over `atoms` (as build_pair_list: exclusions through `global`, zones when given, plain
// differences where inv_len is 0). rlist must be below half of every periodic box edge.
void build_cluster_pair_list(const PairSearchAtoms& atoms, double rlist, const Topology& top,
                             ClusterPairList& list);

// Calls f(i, j, d) for every listed pair within rlist (i, j: indices into the searched atoms; d = x_i - x_j
// as the list sees it, shift included), in list order.
template <class F>
void for_each_cluster_pair(const ClusterPairList& list, const Box& box, F&& f) {
  constexpr int kC = ClusterPairList::kClusterSize;
  const double r2 = list.rlist * list.rlist;
  for (const ClusterPairList::Entry& e : list.entries) {
    const Vec3 s{(e.shift % 3 - 1) * box.len.x, (e.shift / 3 % 3 - 1) * box.len.y,
                 (e.shift / 9 - 1) * box.len.z};
    for (int q = e.first; q < e.first + e.count; ++q) {
      const ClusterPairList::JCluster& jc = list.j[q];
      for (int k = 0; k < ClusterPairList::kClustersPerSuper; ++k) {
        if (!(jc.imask >> k & 1)) continue;
        const uint64_t m = jc.masks < 0 ? ~uint64_t{0} : list.pair_masks[jc.masks + k];
        const int ci = e.super * ClusterPairList::kClustersPerSuper + k;
        for (int a = 0; a < kC; ++a)
          for (int b = 0; b < kC; ++b) {
            if (!(m >> (kC * a + b) & 1)) continue;
            const int sa = ci * kC + a, sb = jc.cj * kC + b;
            const Vec3 d = list.x_slot[sa] + s - list.x_slot[sb];
            if (norm2(d) < r2) f(list.atom_of_slot[sa], list.atom_of_slot[sb], d);
          }
      }
    }
  }
}

}  // namespace halomd
