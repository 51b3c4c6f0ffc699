// One domain of the domain-decomposed CPU executor: its home atoms for the whole run (positions in the
// global frame, unwrapped as in MdState, so the update is the single-domain update bit for bit) and, for the
// current neighbour-search window, its plan, local positions, local topology and pair list.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "comm/halo_transport.h"
#include "core/topology.h"
#include "cpu/lincs.h"
#include "cpu/nonbonded.h"
#include "cpu/pairlist.h"
#include "cpu/settle.h"
#include "domdec/halo_plan.h"

namespace halomd {

struct DdDomain {
  int index = 0;  // domain index in the grid

  // Home atoms, ascending global index; x in the global frame, v, scratch for the update.
  std::vector<int> home;
  std::vector<Vec3> x, v, x_new, f;
  std::vector<double> mass, inv_mass;

  // This NS window.
  std::vector<domdec::IVec3> image;  // per home atom: its molecule's image (assignment.h)
  domdec::DomainPlan plan;
  std::vector<Vec3> x_local;            // home atoms in the domain's frame, then the halo
  std::vector<FixedVec3> f_local;       // per local atom
  std::vector<double> charge;           // per local atom
  std::vector<int> type;                // per local atom
  std::vector<int> excl_start, excl;    // per local atom, local indices (LocalTopologyIndex says which)
  std::vector<BondedTerm> listed;       // the listed interactions this domain computes, on local atoms
  std::vector<int> listed_index;        // and each one's index in Topology::bonded
  std::vector<Constraint> constraints;  // the home update groups' LINCS constraints, home-array indices
  std::vector<VirtualSite> vsites;      // the home groups' virtual sites, home-array indices
  PairList list;
  std::optional<SettleCpu> settle;  // the home waters, indices into the home arrays
  std::optional<LincsCpu> lincs;    // the home constraints (set by the executor from `constraints`)
  int64_t departed = 0;             // atoms that left at this window's search
  // Scratch kept between searches so that a search costs O(local atoms), not O(system): per global atom
  // its index in `home` while a search looks it up (-1 otherwise), and the SETTLE whose oxygen it is.
  std::vector<int> home_of;
  std::vector<int> settle_of_oxygen;
  std::vector<int> local_of;    // the same for every local atom, while a search with update groups runs
  int64_t ke_fixed[9] = {};     // 1/2 sum m v (x) v of the home atoms, last half step (fixed)
  std::vector<int> tc_group;    // several tc-grps: each home atom's group
  std::vector<int> comm_group;  // several comm-grps: each home atom's group (-1: none)
  std::vector<int64_t> group_ke_fixed;  // and each group's 1/2 sum m v . v, last half step (fixed)
};

// Replaces the home atoms with `atoms` (any order; sorted here by global index).
void set_home(DdDomain& dom, const Topology& top, std::vector<comm::AtomState> atoms);

// Adds `arriving` (any order) to the home atoms (ascending global index, kept so): the same home set as
// set_home with the kept atoms and the arrivals, without rebuilding it.
void add_arrivals(DdDomain& dom, const Topology& top, std::vector<comm::AtomState> arriving);

// The home atoms whose molecule now belongs to another domain (owner rule of domdec/assignment.h), removed
// from the domain, with their state (dom.image, where it is the last partition's, spares most molecules the
// owner rule's arithmetic: domdec::departures).
std::vector<comm::AtomState> take_departures(DdDomain& dom, const domdec::DdGrid& grid, const Box& box,
                                             std::span<const int> first_atom);

// The largest distance of a home atom from its molecule's first atom (domdec::molecule_margin, nm).
double home_margin(const DdDomain& dom, std::span<const int> first_atom);

// Sets dom.image (the image of each home molecule's first atom) and returns the home positions in the
// domain's frame. take_departures and add_arrivals keep dom.image in step with the home atoms, and a
// molecule whose last image still puts it in the box keeps it (the same image, with less arithmetic).
std::vector<Vec3> place_home_atoms(DdDomain& dom, const Box& box, std::span<const int> first_atom);

// Where the domains are update groups (domdec::update_group_first_atoms) rather than whole molecules: the
// topology's listed interactions and constraints by atom, built once per run.
//
// A listed interaction, or an excluded pair, whose atoms lie in several update groups is computed by the one
// domain that holds all of its atoms with, in every dimension, at least one of them at zone offset 0: the
// eighth-shell rule of pairs (domdec/zones.h) for several atoms. As for a pair, the lowest cell along each
// dimension is that domain, and its halo holds the others while they lie within rlist of each other (a
// dihedral spans ~0.4 nm); the executor checks that every interaction and excluded pair is computed once.
// Where the halo reaches through the neighbour to the far side of the box (two domains along a dimension and
// a halo range near the cell's width, as GPU domains' skin makes it), a domain may also hold a far image of
// an atom beside it: an interaction or excluded pair is computed only where its atoms' local positions lie
// within half the box of each other in every decomposed dimension (the images that interact).
struct LocalTopologyIndex {
  std::vector<int> term_start, term;              // CSR per atom: the listed interactions it is first atom of
  std::vector<int> constraint_start, constraint;  // CSR per atom: the constraints whose atom a it is
  std::vector<int> vsite_of;                      // per atom: the virtual site it is (-1: none)
  bool cross_group_exclusions = false;            // some excluded pair joins two update groups
  // Per dimension, the local distance from which two atoms are far images of each other: half the box edge
  // where the grid decomposes it, no limit elsewhere (local positions there are each group's own image, so a
  // pair may straddle the box edge). The executor sets it once the grid is chosen (far_image_distance).
  Vec3 far{1e300, 1e300, 1e300};
};
LocalTopologyIndex make_local_topology_index(const Topology& top, std::span<const int> first_atom);
Vec3 far_image_distance(const domdec::DdGrid& grid, const Box& box);

// Charges, types and exclusions (local indices) of the local atoms, after the plan; on up to `threads` OpenMP
// threads (core/parallel.h: the same arrays with any count). Without `index` (whole molecules) excluded pairs
// are home pairs and only home atoms have entries; with it, also the listed interactions (dom.listed), the
// home constraints (dom.constraints) and virtual sites (dom.vsites), and the excluded pairs between groups by
// the rule above.
void build_local_interactions(DdDomain& dom, const Topology& top, int threads = 1,
                              const LocalTopologyIndex* index = nullptr);
// The home waters with home-array indices (whole molecules are home, so every water is whole).
std::vector<Settle> home_waters(DdDomain& dom, const Topology& top);
// Both, and the SETTLE solver of the home waters (the CPU executor's local topology).
void build_local_topology(DdDomain& dom, const Topology& top, int threads = 1,
                          const LocalTopologyIndex* index = nullptr);

// The excluded pairs (i < j) that dom computes: summed over the domains, the topology's.
int64_t local_excluded_pairs(const DdDomain& dom);

// With update groups: throws RuntimeError at `step` unless every listed interaction and excluded pair of the
// topology is computed by exactly one domain, naming the first interaction that no domain (or two) computes:
// atoms further apart than the halo reaches (rlist plus the groups' margin) are an error, as in GROMACS, not
// a missing term. `mine`: this process's domains (after build_local_interactions with the index), summed over
// the processes through h (collective).
void check_local_topology(std::span<const DdDomain* const> mine, const Topology& top, comm::HaloTransport& h,
                          int64_t step, double rlist, double margin);

// The NonbondedAtoms view of the local atoms (inv_len from pair_inv_len).
NonbondedAtoms local_atoms(const DdDomain& dom, const Box& box, const Vec3& inv_len);

}  // namespace halomd
