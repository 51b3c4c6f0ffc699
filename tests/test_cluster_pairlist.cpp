// The cluster-pair list (src/cpu/cluster_pairlist.h) against the atom-pair list: on water boxes, on random
// boxes with molecules, and on the domains of decomposition plans (zones, plain differences), every pair
// within rlist is listed exactly once, at the minimum image, and no other pair is.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "core/errors.h"
#include "cpu/cluster_pairlist.h"
#include "cpu/pairlist.h"
#include "domdec/assignment.h"
#include "domdec/halo_plan.h"
#include "io/gro.h"
#include "io/top.h"
#include "support/test_support.h"

namespace halomd {
namespace {

// Compares the two lists over `atoms`; returns the number of pairs missed, doubled or extra. The squared
// distance the cluster list reports must be the atom list's (minimum image or plain difference).
int compare_lists(const PairSearchAtoms& atoms, double rlist, const Topology& top,
                  const ClusterPairList& cl) {
  PairList ref;
  build_pair_list(atoms, rlist, top, 1, ref);
  std::map<std::pair<int, int>, int> seen;
  int wrong_distance = 0;
  for_each_cluster_pair(cl, atoms.box, [&](int i, int j, const Vec3& d) {
    ++seen[std::minmax(i, j)];
    Vec3 m = atoms.x[i] - atoms.x[j];
    for (int k = 0; k < 3; ++k) m[k] = minimum_image(m[k], atoms.box.len[k], atoms.inv_len[k]);
    wrong_distance += std::abs(norm2(m) - norm2(d)) > 1e-9 ? 1 : 0;
  });
  int errors = wrong_distance, present = 0;
  for (int i = 0; i < ref.num_atoms(); ++i)
    for (int q = ref.start[i]; q < ref.start[i + 1]; ++q) {
      const auto it = seen.find({i, ref.j[q]});
      present += it != seen.end() ? 1 : 0;
      errors += it == seen.end() || it->second != 1 ? 1 : 0;
    }
  return errors + static_cast<int>(seen.size()) - present;
}

// Exclusions within each molecule, as water has them (CSR, sorted).
Topology molecule_exclusions(const std::vector<int>& molecule) {
  Topology top;
  const int n = static_cast<int>(molecule.size());
  top.mass.assign(n, 1.0);  // the atom count (build_pair_list sizes its marks by it)
  top.excl_start.assign(1, 0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      if (j != i && molecule[j] == molecule[i]) top.excl.push_back(j);
    top.excl_start.push_back(static_cast<int>(top.excl.size()));
  }
  return top;
}

TEST(ClusterPairList, WaterBoxesListEveryPairOnce) {
  for (const char* name : {"spce_1k5", "spce_9k"}) {
    const io::GroFile gro = io::read_gro(test::data_path(std::string(name) + "/conf.gro"));
    const Topology top = io::read_top(test::data_path(std::string(name) + "/topol.top"));
    PairSearchAtoms atoms;
    atoms.x = gro.x;
    atoms.box = gro.box;
    atoms.inv_len = {1.0 / gro.box.len.x, 1.0 / gro.box.len.y, 1.0 / gro.box.len.z};
    for (const double rlist : {1.0, 1.1}) {
      ClusterPairList cl;
      build_cluster_pair_list(atoms, rlist, top, cl);
      EXPECT_EQ(compare_lists(atoms, rlist, top, cl), 0) << name << " rlist " << rlist;
      EXPECT_GT(cl.entries.size(), 0u);
      // Every atom in exactly one slot.
      std::vector<int> count(gro.x.size(), 0);
      for (int a : cl.atom_of_slot)
        if (a >= 0) ++count[a];
      EXPECT_EQ(std::count(count.begin(), count.end(), 1), static_cast<long>(gro.x.size()));
      // The check can fail: a list without its last j-cluster misses pairs.
      ClusterPairList cut = cl;
      cut.j.pop_back();
      --cut.entries.back().count;
      EXPECT_GT(compare_lists(atoms, rlist, top, cut), 0);
    }
  }
}

TEST(ClusterPairList, RandomBoxesAndDomains) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> edge(2.5, 5.0), cutoff(0.6, 1.2);
  const domdec::IVec3 grids[] = {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {1, 2, 2}, {3, 1, 1}, {2, 2, 2}};
  int domains_checked = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const Box box{{edge(rng), edge(rng), edge(rng)}};
    const double rlist = std::min(cutoff(rng), 0.45 * std::min({box.len.x, box.len.y, box.len.z}));
    const test::TestSystem s = test::random_system(rng, box, 300);
    const Topology top = molecule_exclusions(s.molecule);
    const domdec::DdGrid grid{grids[trial % std::size(grids)]};
    std::vector<std::vector<Vec3>> xl;
    domdec::DdPlan plan;
    try {
      plan = domdec::build_plan(grid, box, s.x, s.molecule, rlist, &xl);
    } catch (const InputError&) {
      continue;
    }
    for (const domdec::DomainPlan& dp : plan.domains) {
      PairSearchAtoms atoms;
      atoms.x = xl[dp.domain];
      atoms.box = box;
      atoms.inv_len = pair_inv_len(box, grid);
      atoms.global = dp.global;
      atoms.zone = dp.zone;
      ClusterPairList cl;
      build_cluster_pair_list(atoms, rlist, top, cl);
      EXPECT_EQ(compare_lists(atoms, rlist, top, cl), 0)
          << "trial " << trial << " grid " << grid.str() << " domain " << dp.domain << " rlist " << rlist;
      ++domains_checked;
    }
    if (HasFailure()) break;
  }
  EXPECT_GE(domains_checked, 40);
}

}  // namespace
}  // namespace halomd
