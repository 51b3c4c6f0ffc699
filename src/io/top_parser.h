// The directives of a preprocessed GROMACS topology, read into plain per-type and per-molecule-type records
// (still by name, one copy per molecule type) before read_top expands them into a Topology.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/topology.h"
#include "io/top_preprocessor.h"

namespace halomd::io {

// [ atomtypes ]: V, W in the convention of the combination rule (C6, C12 for rule 1; sigma, epsilon
// otherwise).
struct TopAtomType {
  double mass = 0.0;    // amu
  double charge = 0.0;  // e
  double v = 0.0, w = 0.0;
};

// One line of [ bondtypes ], [ angletypes ], [ dihedraltypes ] or [ pairtypes ]: the type names ("X" matches
// any type in [ dihedraltypes ]) and the A-state parameters as written, one set per term (several for a
// [ dihedraltypes ] funct 9 block of consecutive lines with the same names).
struct TopParamType {
  std::vector<std::string> names;
  int funct = 1;
  std::vector<std::vector<double>> terms;
};

// One [ cmaptypes ] entry: the five bonded types of a [ cmap ] term's atoms, in order, and its grid of
// spacing x spacing energies (kJ/mol), phi the slower index.
struct TopCmapType {
  std::vector<std::string> names;
  int spacing = 0;
  std::vector<double> values;
};

struct TopMoleculeAtom {
  std::string type;
  std::string residue;
  std::string name;
  double charge = 0.0;  // e
  double mass = 0.0;    // amu
};

struct TopSettle {
  int oxygen = 0;                 // local index; the hydrogens are the next two atoms
  double d_oh = 0.0, d_hh = 0.0;  // nm
};

struct TopMoleculeType {
  std::string name;
  int nrexcl = 0;
  std::string file;  // where its [ moleculetype ] entry is
  int line = 0;
  std::vector<TopMoleculeAtom> atoms;
  std::vector<TopSettle> settles;
  std::vector<std::vector<int>>
      exclusions;                          // [ exclusions ] lines, local indices: the first excludes the rest
  std::vector<std::pair<int, int>> bonds;  // chemical bonds for nrexcl: [ bonds ], [ constraints ] type 1
  std::vector<BondedTerm> interactions;    // the listed interactions halomd runs, local atom indices
  std::vector<Constraint> constraints;     // [ constraints ] 1 and 2, local atom indices
  std::vector<VirtualSite> vsites;         // [ virtual_sites2 ] 1, [ virtual_sites3 ] 1 and 4, local indices
  std::vector<std::string> vsite_where;    // per site: "file:line" of its entry
  // First directive with entries that halomd cannot run ("file:line: [ bonds ]"), and its place in the input.
  std::string unsupported;
  size_t unsupported_order = 0;
};

struct TopData {
  int comb_rule = 1;
  bool gen_pairs = false;
  double fudge_lj = 1.0, fudge_qq = 1.0;
  std::map<std::string, TopAtomType> atom_types;
  std::map<std::string, std::string>
      bonded_type;  // atom type -> its bonded type (its own name if none given)
  // Parameter types by list: "bonds 1", "angles 5", "dihedrals 9" (funct 1 and 9 share it), "pairs 1", ...,
  // in file order.
  std::map<std::string, std::vector<TopParamType>> param_types;
  std::vector<TopCmapType> cmap_types;  // in file order
  // [ nonbond_params ] by type-name pair (the smaller name first), V and W as in [ atomtypes ].
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> nonbond_params;
  std::vector<TopMoleculeType> molecule_types;
  std::string system_name;
  std::vector<std::pair<int, int>> molecules;  // [ molecules ]: molecule-type index and count
  std::string unsupported;                     // [ intermolecular_interactions ] with entries, as above
  size_t unsupported_order = 0;
};

// Reads the directives; throws InputError naming the file and line of the offending entry.
TopData parse_top(const PreprocessedTop& top);

}  // namespace halomd::io
