// Which domain owns each atom: whole molecules, placed by their first atom wrapped into the box.
//
// The rule: a molecule (Topology::molecule; so every SETTLE water and every constraint group, which never
// spans two molecules) belongs to the domain whose cell contains its first atom (lowest global index)
// wrapped into [0, L). All its atoms get the same integer image k, chosen so that x_first + k * L lies in
// [0, L): the molecule stays whole in its owner's frame. The margin is the largest distance of any atom
// from its molecule's first atom (about 0.1 nm for SPC/E), measured on the positions at plan time; every
// atom of a molecule owned by a cell then lies within margin of that cell. build_plan adds kMarginSlack to
// it so that rounding of positions near a boundary never drops an atom.
#pragma once

#include <span>
#include <vector>

#include "core/box.h"
#include "core/topology.h"
#include "domdec/grid.h"

namespace halomd::domdec {

constexpr double kMarginSlack = 1e-9;  // nm

// The position of coordinate x moved by k box lengths: the one expression every part of domdec uses, so
// the same shift gives the same bits wherever it is applied.
inline double shifted(double x, int k, double len) { return x + static_cast<double>(k) * len; }
inline Vec3 shifted(const Vec3& x, const IVec3& k, const Box& box) {
  return {shifted(x.x, k.x, box.len.x), shifted(x.y, k.y, box.len.y), shifted(x.z, k.z, box.len.z)};
}

// Per atom: the global index of its molecule's first atom (the lowest index in its molecule).
std::vector<int> first_atoms(std::span<const int> molecule_of_atom);

// Per atom: the global index of the first atom (the lowest index) of its update group, GROMACS's unit of
// assignment: the atoms joined by constraints (SETTLE waters, LINCS constraints) and virtual sites with their
// constructing atoms; an atom without any is a group of its own. Assigning update groups in place of whole
// molecules (the CPU decomposition does) keeps every constraint inside one domain while a protein's margin
// stays that of a CH3 group (~0.2 nm) instead of its extent; listed interactions and exclusions between
// groups are then computed where the halo brings their atoms together (cpu/dd_domain.h).
std::vector<int> update_group_first_atoms(int num_atoms, std::span<const Settle> settles,
                                          std::span<const Constraint> constraints,
                                          std::span<const VirtualSite> vsites = {});

// The largest distance of an atom from its molecule's first atom (nm); positions unwrapped, molecules whole.
double molecule_margin(std::span<const Vec3> x, std::span<const int> first_atom);

// The image k with x + k * L in [0, L] (L itself only where rounding leaves no value below L).
IVec3 wrap_image(const Vec3& x, const Box& box);

// The cell c of n with cell_bound(c) <= w < cell_bound(c + 1), for w in [0, len]; w == len gives n - 1.
int cell_of(double w, int n, double len);

// The owner of a molecule whose first atom is at x_first, and the molecule's image.
struct Owner {
  int domain = 0;
  IVec3 image;
};
Owner owner_of(const DdGrid& grid, const Box& box, const Vec3& x_first);

// Owner and image of every atom (its molecule's), from the global positions.
struct HomeAssignment {
  std::vector<int> domain;             // per atom
  std::vector<IVec3> image;            // per atom: x + image * L is the atom in its owner's frame
  std::vector<std::vector<int>> home;  // per domain: its atoms, ascending global index
};
HomeAssignment assign_home(const DdGrid& grid, const Box& box, std::span<const Vec3> x,
                           std::span<const int> first_atom);

}  // namespace halomd::domdec
