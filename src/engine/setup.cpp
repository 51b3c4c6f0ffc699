#include "engine/setup.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/errors.h"
#include "core/units.h"
#include "cpu/listed_term.h"
#include "engine/verlet_buffer.h"
#include "fmt/format.h"
#include "io/mdp.h"
#include "io/ndx.h"
#include "io/residue_types.h"
#include "io/top.h"

namespace halomd {
namespace {

std::vector<std::string> split_flags(const std::string& s, const std::string& flag) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string word;
  while (in >> word)
    if (word.rfind(flag, 0) == 0 && word.size() > flag.size()) out.push_back(word.substr(flag.size()));
  return out;
}

}  // namespace

void make_molecules_whole(const Topology& top, const Box& box, std::vector<Vec3>& x) {
  const int n = top.num_atoms();
  // The connections (CSR): bonds, constraints, SETTLE's O-H, and each virtual site to its first atom.
  std::vector<std::pair<int, int>> edges;
  for (const BondedTerm& t : top.bonded)
    if (t.kind == BondedKind::Bond || t.kind == BondedKind::G96Bond)
      edges.emplace_back(t.atoms[0], t.atoms[1]);
  for (const Constraint& c : top.constraints) edges.emplace_back(c.a, c.b);
  for (const Settle& w : top.settles) {
    edges.emplace_back(w.o, w.h1);
    edges.emplace_back(w.o, w.h2);
  }
  for (const VirtualSite& v : top.vsites) edges.emplace_back(v.site, v.atoms[0]);
  std::vector<int> start(n + 1, 0), next(2 * edges.size());
  for (const auto& [a, b] : edges) ++start[a + 1], ++start[b + 1];
  for (int a = 0; a < n; ++a) start[a + 1] += start[a];
  std::vector<int> fill(start.begin(), start.end() - 1);
  for (const auto& [a, b] : edges) {
    next[fill[a]++] = b;
    next[fill[b]++] = a;
  }
  const auto near = [&](int a, int ref) {  // atom a at the image nearest atom ref
    for (int d = 0; d < 3; ++d) x[a][d] -= box.len[d] * std::round((x[a][d] - x[ref][d]) / box.len[d]);
  };
  std::vector<char> placed(n, 0);
  std::vector<int> queue;
  int first = 0;
  for (int i = 1; i <= n; ++i) {
    if (i < n && top.molecule[i] == top.molecule[first]) continue;
    // Molecule [first, i): along its connections from its first atom, each atom at the image nearest the
    // atom it is reached from (as GROMACS's graph does), so that a molecule longer than half the box comes
    // out whole; atoms no connection reaches at the image nearest the first atom.
    queue.assign(1, first);
    placed[first] = 1;
    for (size_t q = 0; q < queue.size(); ++q)
      for (int k = start[queue[q]]; k < start[queue[q] + 1]; ++k) {
        const int w = next[k];
        if (w < first || w >= i || placed[w]) continue;
        near(w, queue[q]);
        placed[w] = 1;
        queue.push_back(w);
      }
    for (int a = first + 1; a < i; ++a)
      if (!placed[a]) near(a, first);
    first = i;
  }
}

std::vector<Vec3> molecules_in_box(const Topology& top, const Box& box, const std::vector<Vec3>& x) {
  std::vector<Vec3> out = x;
  const int n = top.num_atoms();
  int first = 0;
  for (int i = 1; i <= n; ++i) {
    if (i < n && top.molecule[i] == top.molecule[first]) continue;
    Vec3 shift;
    for (int d = 0; d < 3; ++d) shift[d] = -box.len[d] * std::floor(x[first][d] / box.len[d]);
    for (int a = first; a < i; ++a) out[a] += shift;
    first = i;
  }
  return out;
}

namespace {

bool same_name(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

// Whether GROMACS's default index for this topology has a group `name` holding every atom: System; a
// moleculetype or residue name that every atom has; Water when every residue is a water residue of
// GROMACS's residuetypes.dat. (halomd couples, counts and writes one group: the whole system.)
bool names_whole_system(const std::string& name, const Topology& top) {
  if (same_name(name, "System")) return true;
  const bool one_molecule_type = std::all_of(top.molecules.begin(), top.molecules.end(),
                                             [&](const MoleculeBlock& b) { return same_name(b.name, name); });
  if (!top.molecules.empty() && one_molecule_type) return true;
  auto all_residues = [&top](auto pred) {
    return !top.residue_name.empty() && std::all_of(top.residue_name.begin(), top.residue_name.end(), pred);
  };
  if (all_residues([&](const std::string& r) { return same_name(r, name); })) return true;
  static const char* const kWater[] = {"SOL", "WAT", "HOH", "OHH", "TIP", "T3P", "T4P", "T5P", "T3H"};
  return same_name(name, "Water") && all_residues([](const std::string& r) {
           return std::any_of(std::begin(kWater), std::end(kWater),
                              [&r](const char* w) { return same_name(r, w); });
         });
}

// The index file's group of that name (case-insensitive, as grompp's), or null.
const io::IndexGroup* index_group(const std::vector<io::IndexGroup>& index, const std::string& name) {
  for (const io::IndexGroup& g : index)
    if (same_name(g.name, name)) return &g;
  return nullptr;
}

void check_whole_system_groups(const MdParams& p, const Topology& top, const std::string& mdp_path,
                               const std::vector<io::IndexGroup>* index) {
  for (const WholeSystemGroup& g : p.groups) {
    if (index) {  // grompp -n: the file's groups only
      const io::IndexGroup* ig = index_group(*index, g.group);
      std::vector<char> in(top.num_atoms(), 0);
      if (ig)
        for (int a : ig->atoms)
          if (a < top.num_atoms()) in[a] = 1;
      if (!ig || std::count(in.begin(), in.end(), 1) != top.num_atoms())
        throw InputError(mdp_path, g.line,
                         g.option + " = " + g.group +
                             (ig ? ": halomd runs one group holding every atom; this index group is not the "
                                   "whole system"
                                 : ": no such group in the index file (-n)"));
      continue;
    }
    if (!names_whole_system(g.group, top))
      throw InputError(
          mdp_path, g.line,
          g.option + " = " + g.group +
              ": halomd runs one group holding every atom (System, a molecule or residue name that "
              "every atom has, or Water in a water box); this one is not the whole system");
  }
}

// Virtual sites are built from their atoms, not moved: grompp refuses constraints on them
// (check_vsite_constraints) and removes the bonds, angles and dihedrals their constructions fix
// (clean_vsite_bondeds); halomd refuses both for now, naming the site's entry. 1-4 pairs and position
// restraints on sites run.
void check_vsite_interactions(const Topology& top) {
  if (top.vsites.empty()) return;
  std::vector<int> site(top.num_atoms(), -1);
  for (size_t k = 0; k < top.vsites.size(); ++k) site[top.vsites[k].site] = static_cast<int>(k);
  const auto fail = [&](int a, const std::string& what) {
    const std::string& where = top.vsite_where[site[a]];
    const size_t colon = where.rfind(':');
    throw InputError(where.substr(0, colon), std::stoi(where.substr(colon + 1)),
                     "atom " + std::to_string(a + 1) + " is a virtual site and " + what);
  };
  for (const Constraint& c : top.constraints)
    for (int a : {c.a, c.b})
      if (site[a] >= 0)
        fail(a,
             "in a constraint ([ constraints ], or a bond the constraints option turns into one): "
             "grompp refuses constraints on virtual sites");
  for (const Settle& w : top.settles)
    for (int a : {w.o, w.h1, w.h2})
      if (site[a] >= 0) fail(a, "in a SETTLE water (the water's three atoms must have mass)");
  for (const BondedTerm& t : top.bonded) {
    if (t.kind == BondedKind::Pair14 || t.kind == BondedKind::PosRes) continue;
    for (int k = 0; k < listed_atom_count(t.kind); ++k)
      if (site[t.atoms[k]] >= 0)
        fail(t.atoms[k],
             "in a bond, angle or dihedral: grompp removes those its construction fixes; halomd "
             "does not yet (leave them out of the topology)");
  }
}

// constraints = h-bonds / all-bonds: grompp (topshake.cpp) replaces the [ bonds ] (function types 1 to 4)
// with a hydrogen (an atom whose name starts with H or h) or all of them by constraints of length b0, after
// the exclusions were made; halomd runs them with LINCS.
void convert_bonds_to_constraints(const MdParams& p, Topology& top) {
  if (p.constraints == MdParams::Constraints::None) return;
  auto hydrogen = [&top](int a) {
    return !top.atom_name[a].empty() && std::toupper(top.atom_name[a][0]) == 'H';
  };
  std::vector<BondedTerm> kept;
  for (const BondedTerm& t : top.bonded) {
    const bool bond = t.kind == BondedKind::Bond || t.kind == BondedKind::G96Bond;
    if (bond &&
        (p.constraints == MdParams::Constraints::AllBonds || hydrogen(t.atoms[0]) || hydrogen(t.atoms[1])))
      top.constraints.push_back({t.atoms[0], t.atoms[1], t.p[0]});
    else
      kept.push_back(t);
  }
  top.bonded.swap(kept);
}

// The atoms of one of GROMACS's default index groups, by name (case-insensitive, as make_ndx's): System;
// Protein, Water, Ion, DNA, ... by the residues' types (residuetypes.dat) and Non-Protein, non-Water, ... as
// their complements; Water_and_ions; a molecule type or a residue name. Empty when there is no such group.
// *spelled (when given): the group's name as GROMACS spells it (non-Protein for non-protein, the residue
// type's, residue's or molecule's own spelling), which it gives the group's energy terms.
std::vector<char> group_atoms(const std::string& name, const Topology& top,
                              const std::map<std::string, std::string>& residue_types,
                              std::string* spelled = nullptr) {
  std::string unused;
  std::string& spelling = spelled ? *spelled : unused;
  spelling = name;
  const int n = top.num_atoms();
  std::vector<char> in(n, 0);
  auto type_of = [&](int a) {
    auto it = residue_types.find(top.residue_name[a]);
    return it == residue_types.end() ? std::string("Other") : it->second;
  };
  auto by = [&](auto pred) {
    bool any = false;
    for (int a = 0; a < n; ++a) any |= (in[a] = pred(a) ? 1 : 0);
    return any;
  };
  if (same_name(name, "System")) {
    spelling = "System";
    return std::vector<char>(n, 1);
  }
  if (same_name(name, "Water_and_ions") &&
      by([&](int a) { return same_name(type_of(a), "Water") || same_name(type_of(a), "Ion"); })) {
    spelling = "Water_and_ions";
    return in;
  }
  const bool complement = name.size() > 4 && same_name(name.substr(0, 4), "non-");
  const std::string base = complement ? name.substr(4) : name;
  const auto typed =
      std::find_if(top.residue_name.begin(), top.residue_name.end(), [&](const std::string& r) {
        auto it = residue_types.find(r);
        return it != residue_types.end() && same_name(it->second, base);
      });
  if (by([&](int a) { return same_name(type_of(a), base) != complement; }) &&
      typed != top.residue_name.end()) {
    spelling = (complement ? "non-" : "") + residue_types.at(*typed);
    return in;
  }
  if (by([&](int a) { return same_name(top.residue_name[a], name); })) {
    for (const std::string& r : top.residue_name)
      if (same_name(r, name)) spelling = r;
    return in;
  }
  std::fill(in.begin(), in.end(), 0);
  bool any = false;
  for (const MoleculeBlock& b : top.molecules) {
    if (same_name(b.name, name)) {
      std::fill(in.begin() + b.first_atom, in.begin() + b.first_atom + b.count * b.atoms_per_molecule, 1);
      spelling = b.name;
      any = true;
    }
  }
  return any ? in : std::vector<char>{};
}

// With an index file (-n), each of `names` must be one of its groups, as grompp requires.
void require_index_groups(const std::vector<std::string>& names, const std::string& option, int line,
                          const std::string& mdp_path, const std::vector<io::IndexGroup>* index,
                          const std::string& index_path) {
  if (!index) return;
  for (const std::string& name : names)
    if (!index_group(*index, name))
      throw InputError(mdp_path, line, option + ": no group '" + name + "' in the index file " + index_path);
}

// The group of each atom among `names` (an index file's groups with -n, else GROMACS's default groups) for
// the .mdp option `option` on line `line`, as grompp assigns them: an atom in two groups is an error, one in
// none too unless `rest` (then -1: GROMACS's rest group).
std::vector<int> atom_groups(const std::vector<std::string>& names, const std::string& option, int line,
                             const Topology& top, const std::string& mdp_path,
                             const std::vector<io::IndexGroup>* index, bool rest) {
  const int n = top.num_atoms();
  const auto types = index ? std::map<std::string, std::string>{} : io::read_residue_types();
  std::vector<int> owner(n, -1);
  for (size_t g = 0; g < names.size(); ++g) {
    std::vector<char> atoms;
    if (index) {
      atoms.assign(n, 0);
      for (int a : index_group(*index, names[g])->atoms) atoms[a] = 1;  // numbers checked at reading
    } else {
      atoms = group_atoms(names[g], top, types);
    }
    if (atoms.empty())
      throw InputError(
          mdp_path, line,
          option + ": no group '" + names[g] +
              "' (GROMACS's default groups: System, Protein, Non-Protein, Water, SOL, non-Water, "
              "Ion, Water_and_ions, a molecule or residue name" +
              (types.empty() ? "; residuetypes.dat of GROMACS was not found" : "") + ")");
    for (int a = 0; a < n; ++a)
      if (atoms[a]) {
        if (owner[a] >= 0)
          throw InputError(
              mdp_path, line,
              fmt::format("{}: atom {} is in both {} and {}", option, a + 1, names[owner[a]], names[g]));
        owner[a] = static_cast<int>(g);
      }
  }
  if (!rest)
    for (int a = 0; a < n; ++a)
      if (owner[a] < 0)
        throw InputError(mdp_path, line,
                         fmt::format("{}: atom {} ({} {}) is in none of the groups", option, a + 1,
                                     top.residue_name[a], top.atom_name[a]));
  return owner;
}

// comm-grps: the whole system (the default, or one group of every atom) leaves in.comm_group empty.
void assign_comm_groups(const MdParams& p, const std::string& mdp_path, SimulationInputs& in,
                        const std::vector<io::IndexGroup>* index, const std::string& index_path) {
  in.comm_group.clear();
  in.comm_groups = 0;
  if (p.comm_grps.empty()) return;
  require_index_groups(p.comm_grps, "comm-grps", p.comm_grps_line, mdp_path, index, index_path);
  std::vector<int> owner =
      atom_groups(p.comm_grps, "comm-grps", p.comm_grps_line, in.top, mdp_path, index, true);
  const long outside = std::count(owner.begin(), owner.end(), -1);
  if (p.comm_grps.size() == 1 && outside == 0) return;
  if (outside > 0)  // grompp's warning (an error there without -maxwarn)
    std::fprintf(stderr,
                 "halomd: warning: %s:%d: %ld atoms are not part of any centre-of-mass motion removal group "
                 "(comm-grps), which may lead to artefacts; in most cases one group for the whole system is "
                 "meant\n",
                 mdp_path.c_str(), p.comm_grps_line, outside);
  in.comm_group = std::move(owner);
  in.comm_groups = static_cast<int>(p.comm_grps.size());
}

// freezegrps: each atom's frozen dimensions into top.frozen (none: empty), refusing what halomd does not run
// as GROMACS: pressure coupling (its scaling would move frozen atoms), constrained atoms or SETTLE waters
// frozen along some dimensions only, and, as grompp's warning, atoms frozen along some dimensions only in a
// centre- of-mass motion removal group. Fully frozen atoms leave the comm-grps groups, as grompp does (its
// note): then the whole system's centre of mass becomes one group of the others.
void assign_freeze(const MdParams& p, const std::string& mdp_path, SimulationInputs& in,
                   const std::vector<io::IndexGroup>* index, const std::string& index_path) {
  Topology& top = in.top;
  top.frozen.clear();
  if (p.freeze_grps.empty()) return;
  const int line = p.freeze_grps_line;
  require_index_groups(p.freeze_grps, "freezegrps", line, mdp_path, index, index_path);
  const std::vector<int> owner = atom_groups(p.freeze_grps, "freezegrps", line, top, mdp_path, index, true);
  const int n = top.num_atoms();
  // Each atom's freeze group's dimensions (what grompp's centre-of-mass groups go by, virtual sites too), and
  // what the update holds: the same for atoms with mass (virtual sites follow their atoms).
  std::vector<uint8_t> group_dims(n, 0), frozen(n, 0);
  for (int a = 0; a < n; ++a)
    if (owner[a] >= 0)
      for (int d = 0; d < 3; ++d)
        if (p.freeze_dims[3 * owner[a] + d]) group_dims[a] |= static_cast<uint8_t>(1u << d);
  for (int a = 0; a < n; ++a) frozen[a] = top.mass[a] > 0.0 ? group_dims[a] : 0;
  if (std::all_of(frozen.begin(), frozen.end(), [](uint8_t b) { return b == 0; })) return;
  const auto atom = [&](int a) {
    return fmt::format("atom {} ({} {})", a + 1, top.residue_name[a], top.atom_name[a]);
  };
  if (p.pcoupl != Pcoupl::No)
    throw InputError(mdp_path, line,
                     "freezegrps with pressure coupling is not supported (the barostat would scale frozen "
                     "atoms); use pcoupl = no");
  const auto partly = [&](int a) { return frozen[a] != 0 && frozen[a] != Topology::kFrozenAll; };
  for (const Constraint& c : top.constraints)
    for (int a : {c.a, c.b})
      if (partly(a))
        throw InputError(mdp_path, line,
                         "freezegrps: " + atom(a) +
                             " is constrained and frozen along some dimensions only; halomd freezes "
                             "constrained atoms along x, y and z (freezedim = Y Y Y) or not at all");
  for (const Settle& s : top.settles)
    if (frozen[s.o] != frozen[s.h1] || frozen[s.o] != frozen[s.h2] || partly(s.o))
      throw InputError(mdp_path, line,
                       "freezegrps: the water of " + atom(s.o) +
                           " is frozen in part; freeze its three atoms along x, y and z, or none of them");
  const long pairs = std::count_if(top.constraints.begin(), top.constraints.end(), [&](const Constraint& c) {
    return frozen[c.a] == Topology::kFrozenAll && frozen[c.b] == Topology::kFrozenAll;
  });
  if (pairs > 0)
    std::fprintf(
        stderr,
        "halomd: note: %s:%d: %ld constraints join two fully frozen atoms; the start's constraining "
        "takes them (as GROMACS), the steps leave them out: GROMACS keeps them, and their constraint "
        "virial makes its pressure meaningless (~1e20 bar)\n",
        mdp_path.c_str(), line, pairs);
  if (p.comm_mode == CommMode::Linear) {
    const auto in_com = [&](int a) { return in.comm_groups == 0 || in.comm_group[a] >= 0; };
    long partial = 0, full = 0;
    for (int a = 0; a < n; ++a) {
      if (!in_com(a)) continue;
      partial += group_dims[a] != 0 && group_dims[a] != Topology::kFrozenAll ? 1 : 0;
      full += group_dims[a] == Topology::kFrozenAll ? 1 : 0;
    }
    // grompp's warning (an error there without -maxwarn), not given when every atom is frozen along some
    // dimensions only: the centre of mass then moves along the others alone.
    if (partial > 0 && partial < n)
      throw InputError(
          mdp_path, line,
          fmt::format("freezegrps: {} atoms are frozen along fewer than 3 dimensions and part of "
                      "a centre-of-mass motion removal group, where they would weigh in along "
                      "their frozen dimensions (grompp warns likewise); leave them out of "
                      "comm-grps, or use comm-mode = None",
                      partial));
    if (full > 0) {
      std::fprintf(
          stderr,
          "halomd: note: %s:%d: %ld atoms are fully frozen and part of centre-of-mass motion removal "
          "groups; they are removed from those groups (as grompp does)\n",
          mdp_path.c_str(), line, full);
      if (in.comm_groups == 0) {
        in.comm_group.assign(n, 0);
        in.comm_groups = 1;
      }
      for (int a = 0; a < n; ++a)
        if (group_dims[a] == Topology::kFrozenAll) in.comm_group[a] = -1;
    }
  }
  top.frozen = std::move(frozen);
}

// compressed-x-grps: the atoms of its groups (an atom in two is an error, as grompp's), ascending, as gmx
// mdrun writes them; none when they are the whole system.
void assign_xtc_atoms(const MdParams& p, const std::string& mdp_path, SimulationInputs& in,
                      const std::vector<io::IndexGroup>* index, const std::string& index_path) {
  in.xtc_atoms.clear();
  if (p.xtc_groups.empty()) return;
  require_index_groups(p.xtc_groups, "compressed-x-grps", p.xtc_groups_line, mdp_path, index, index_path);
  const std::vector<int> owner =
      atom_groups(p.xtc_groups, "compressed-x-grps", p.xtc_groups_line, in.top, mdp_path, index, true);
  for (int a = 0; a < static_cast<int>(owner.size()); ++a)
    if (owner[a] >= 0) in.xtc_atoms.push_back(a);
  if (static_cast<int>(in.xtc_atoms.size()) == in.top.num_atoms()) in.xtc_atoms.clear();
}

// Several tc-grps: each atom in exactly one group, and each group's degrees of freedom as GROMACS's
// calc_nrdf_tc counts them (3 per atom, 1 less per SETTLE atom, 1/2 less per atom of a LINCS constraint;
// then, for the centre of mass of each comm-grps group, its 3 taken in proportion: from tc group g the share
// of comm group j's degrees of freedom (less 3) that g's atoms in j make of g's atoms). With freezegrps, as
// calc_nrdf_tc too: an atom has its free dimensions; a constraint takes half a degree of freedom from each
// atom that has one left, a whole one from the other atom where one has none; a centre of mass takes only
// the dimensions some atom of its group is free along.
void assign_tc_groups(const MdParams& p, const std::string& mdp_path, SimulationInputs& in,
                      const std::vector<io::IndexGroup>* index, const std::string& index_path) {
  const Topology& top = in.top;
  const int n = top.num_atoms();
  // Without a thermostat the groups couple nothing: one group, as a single tc-grps entry. grompp still counts
  // the degrees of freedom group by group (their sum then differs from one group's where centres of mass
  // leave atoms out), so the count below goes by the tc-grps groups whatever tcoupl is.
  const int parts = std::max<int>(1, static_cast<int>(p.tc_grps.size()));
  const int groups = !p.temperature_coupled() ? 1 : parts;
  // As grompp, the names are looked up even when a single group couples (tcoupl = no).
  require_index_groups(p.tc_grps, "tc-grps", p.tc_grps_line, mdp_path, index, index_path);
  const std::vector<int> part =
      parts > 1 ? atom_groups(p.tc_grps, "tc-grps", p.tc_grps_line, top, mdp_path, index, false)
                : std::vector<int>(n, 0);
  in.tc_group = groups > 1 ? part : std::vector<int>(n, 0);
  // GROMACS's spelling of each group (the index file's, or the default group's), or its rest group.
  in.tc_group_names.clear();
  const auto types = index ? std::map<std::string, std::string>{} : io::read_residue_types();
  for (const std::string& name : p.tc_grps) {
    std::string spelled = name;
    if (index)
      spelled = index_group(*index, name)->name;
    else
      group_atoms(name, top, types, &spelled);
    in.tc_group_names.push_back(spelled);
  }
  if (in.tc_group_names.empty()) in.tc_group_names.push_back("rest");
  // Each atom's degrees of freedom before the centres of mass, by tc group and by comm group (the last: the
  // rest, or every atom without comm-grps).
  const int nv = in.comm_groups;
  const auto vcm_of = [&](int a) { return nv == 0 || in.comm_group[a] < 0 ? nv : in.comm_group[a]; };
  std::vector<int> dof2(n, 0);                        // twice each atom's degrees of freedom
  std::vector<std::array<bool, 3>> vcm_free(nv + 1);  // per comm group: a dimension some atom is free along
  for (int a = 0; a < n; ++a)
    for (int d = 0; d < 3 && top.mass[a] > 0.0; ++d)
      if (top.frozen.empty() || !(top.frozen[a] & (1u << d))) {
        dof2[a] += 2;
        vcm_free[vcm_of(a)][d] = true;
      }
  for (const Constraint& c : top.constraints) {
    if (top.mass[c.a] <= 0.0 || top.mass[c.b] <= 0.0) continue;  // a virtual site's: no degree of freedom
    const int take_a = std::min(dof2[c.b] > 0 ? 1 : 2, dof2[c.a]);
    const int take_b = std::min(dof2[c.a] > 0 ? 1 : 2, dof2[c.b]);
    dof2[c.a] -= take_a;
    dof2[c.b] -= take_b;
  }
  for (const Settle& s : top.settles)
    for (int a : {s.o, s.h1, s.h2}) dof2[a] -= std::min(2, dof2[a]);
  std::vector<double> dof(n);
  for (int a = 0; a < n; ++a) dof[a] = 0.5 * dof2[a];
  std::vector<double> uc(parts, 0.0), vcm(nv + 1, 0.0);
  std::vector<std::vector<double>> na(parts, std::vector<double>(nv + 1, 0.0));
  std::vector<double> na_tot(parts, 0.0);
  for (int a = 0; a < n; ++a) {
    uc[part[a]] += dof[a];
    vcm[vcm_of(a)] += dof[a];
    na[part[a]][vcm_of(a)] += 1.0;
    na_tot[part[a]] += 1.0;
  }
  const double com = p.comm_mode == CommMode::Linear ? 3.0 : 0.0;
  // A centre of mass takes the dimensions some atom of its group is free along (all three unless freezegrps).
  const auto com_dims = [&](int j) {
    return com > 0.0 ? static_cast<double>(std::count(vcm_free[j].begin(), vcm_free[j].end(), true)) : 0.0;
  };
  std::vector<double> ndf(parts, 0.0);
  if (nv == 0) {  // one centre of mass: the whole system's
    double total = 0.0;
    for (double u : uc) total += u;
    for (int g = 0; g < parts; ++g) ndf[g] = total > 0 ? uc[g] * (total - com_dims(0)) / total : 0.0;
  } else {
    for (int g = 0; g < parts; ++g)
      for (int j = 0; j <= nv; ++j) {
        const double sub = j < nv ? com_dims(j) : 0.0;
        if (vcm[j] > 0.0 && na_tot[g] > 0.0)
          ndf[g] += uc[g] * (na[g][j] / na_tot[g]) * (vcm[j] - sub) / vcm[j];
      }
  }
  if (groups == parts) {
    in.tc_ndf = std::move(ndf);
  } else {  // tcoupl = no with several tc-grps: one group of their sum
    in.tc_ndf.assign(1, 0.0);
    for (double d : ndf) in.tc_ndf[0] += d;
  }
}

// Position restraints: each one's reference position from the -r structure (the -c one without -r), as grompp
// stores them with refcoord-scaling = no; the other scalings are refused.
void set_position_restraint_references(const RunOptions& options, SimulationInputs& in) {
  const bool any = std::any_of(in.top.bonded.begin(), in.top.bonded.end(),
                               [](const BondedTerm& t) { return t.kind == BondedKind::PosRes; });
  if (!any) return;
  if (in.mdp.refcoord_scaling == 1)
    throw InputError(
        options.mdp, in.mdp.refcoord_scaling_line,
        "refcoord-scaling = all: halomd's position restraints take refcoord-scaling = no or com");
  // grompp warns that absolute references under pressure coupling give artefacts (an error without
  // -maxwarn): refcoord-scaling = com is the answer.
  if (in.mdp.pcoupl != Pcoupl::No && in.mdp.refcoord_scaling == 0)
    throw InputError(
        options.mdp, in.mdp.pcoupl_line,
        "position restraints with pressure coupling need refcoord-scaling = com (with no, grompp "
        "warns of artefacts from absolute references)");
  const bool own = !options.ref.empty() && options.ref != options.conf;
  const io::GroFile ref = own ? io::read_gro(options.ref) : in.gro;
  const std::string& ref_path = own ? options.ref : options.conf;
  if (ref.x.size() != static_cast<size_t>(in.top.num_atoms()))
    throw InputError(ref_path, 0,
                     "the position restraints' reference structure has " + std::to_string(ref.x.size()) +
                         " atoms, the topology " + std::to_string(in.top.num_atoms()));
  for (BondedTerm& t : in.top.bonded)
    if (t.kind == BondedKind::PosRes)
      for (int d = 0; d < 3; ++d) t.p[3 + d] = ref.x[t.atoms[0]][d];
  if (in.mdp.refcoord_scaling != 2) return;
  // refcoord-scaling = com (grompp 2022's read_posres): the mass-weighted centre of the restrained atoms'
  // references, counting each run of consecutive [ molecules ] entries of one type by its first molecule
  // only (as grompp does), kept as a fraction of the reference box; each reference relative to it.
  std::vector<char> counted(in.top.num_atoms(), 0);
  const std::vector<MoleculeBlock>& blocks = in.top.molecules;
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (b > 0 && blocks[b].name == blocks[b - 1].name && blocks[b - 1].count > 0) continue;  // merged
    if (blocks[b].count > 0)
      std::fill(counted.begin() + blocks[b].first_atom,
                counted.begin() + blocks[b].first_atom + blocks[b].atoms_per_molecule, 1);
  }
  Vec3 sum;
  double mass = 0.0;
  for (const BondedTerm& t : in.top.bonded)
    if (t.kind == BondedKind::PosRes && counted[t.atoms[0]]) {
      sum += ref.x[t.atoms[0]] * in.top.mass[t.atoms[0]];
      mass += in.top.mass[t.atoms[0]];
    }
  if (mass <= 0.0)
    throw InputError(
        options.top, 0,
        "refcoord-scaling = com: the restrained atoms have no mass, so they have no centre of mass");
  for (int d = 0; d < 3; ++d) {
    const double com = mass > 0 ? sum[d] / mass : 0.0;
    in.top.posres_com_frac[d] = com / ref.box.len[d];
    for (BondedTerm& t : in.top.bonded)
      if (t.kind == BondedKind::PosRes) t.p[3 + d] -= com;
  }
}

// What grompp 2022 warns about (an error there without -maxwarn) for the extended-ensemble couplings: halomd
// runs the input and says so.
void warn_like_grompp(const RunOptions& options, const SimulationInputs& in) {
  const MdParams& p = in.mdp;
  if (const int nmin = tcouple_min_steps(p.tcoupl); nmin > 0 && p.integrator == Integrator::Md)
    for (double tau : p.tau_ts)
      if (tau < nmin * p.nsttcouple * p.dt * (1 - 1e-6))
        std::fprintf(
            stderr,
            "halomd: warning: %s: for proper integration of the %s thermostat, tau-t (%g) should be at "
            "least %d times nsttcouple*dt (%g) (grompp warns likewise)\n",
            options.mdp.c_str(), p.tcoupl == Tcoupl::Berendsen ? "Berendsen" : "Nose-Hoover", tau, nmin,
            p.nsttcouple * p.dt);
  // Berendsen's couplings: grompp 2022's warnings, in its words.
  if (p.tcoupl == Tcoupl::Berendsen)
    std::fprintf(
        stderr,
        "halomd: warning: %s:%d: the Berendsen thermostat does not generate the correct kinetic energy "
        "distribution, and should not be used for new production simulations; V-rescale is "
        "recommended (grompp warns likewise)\n",
        options.mdp.c_str(), p.tcoupl_line);
  if (p.pcoupl == Pcoupl::Berendsen)
    std::fprintf(stderr,
                 "halomd: warning: %s:%d: the Berendsen barostat does not generate any strictly correct "
                 "ensemble, and should not be used for new production simulations; C-rescale is recommended "
                 "for isotropic scaling (grompp warns likewise)\n",
                 options.mdp.c_str(), p.pcoupl_line);
  if (p.pcoupl == Pcoupl::ParrinelloRahman && p.tau_p < 20.0 * p.nstpcouple * p.dt)
    std::fprintf(stderr,
                 "halomd: warning: %s: for proper integration of the Parrinello-Rahman barostat, tau-p (%g) "
                 "should be at least 20 times nstpcouple*dt (%g) (grompp warns likewise)\n",
                 options.mdp.c_str(), p.tau_p, p.nstpcouple * p.dt);
}

}  // namespace

SimulationInputs load_inputs(const RunOptions& options) {
  SimulationInputs in;
  in.mdp = io::read_mdp(options.mdp);
  in.gro = io::read_gro(options.conf);
  io::TopOptions topt;
  topt.include_dirs = options.include_dirs;
  for (const std::string& d : split_flags(in.mdp.include, "-I")) topt.include_dirs.push_back(d);
  topt.defines = split_flags(in.mdp.define, "-D");
  in.top = io::read_top(options.top, topt);
  io::check_topology_matches(in.top, options.top, in.gro, options.conf);
  if (!in.top.unsupported.empty())
    throw InputError(
        "", 0,  // the message starts with the file and line of the entry
        in.top.unsupported +
            ": not supported yet (halomd runs [ settles ], [ bonds ] 1, 2 and 5, [ angles ] "
            "1, 2 and 5, [ dihedrals ] 1, 2, 3, 4 and 9, [ pairs ] 1 and [ position_restraints ] "
            "1)");

  MdParams& p = in.mdp;
  set_position_restraint_references(options, in);
  warn_like_grompp(options, in);
  std::vector<io::IndexGroup> index;
  if (!options.index.empty()) {
    index = io::read_ndx(options.index);
    // As grompp: every atom number within the system, none twice in a group.
    for (const io::IndexGroup& g : index) {
      std::vector<char> seen(in.top.num_atoms(), 0);
      for (int a : g.atoms) {
        if (a >= in.top.num_atoms())
          throw InputError(options.index, 0,
                           fmt::format("group {}: atom {} is beyond the system's {} atoms", g.name, a + 1,
                                       in.top.num_atoms()));
        if (seen[a])
          throw InputError(options.index, 0, fmt::format("group {} lists atom {} twice", g.name, a + 1));
        seen[a] = 1;
      }
    }
  }
  const std::vector<io::IndexGroup>* index_groups = options.index.empty() ? nullptr : &index;
  check_whole_system_groups(p, in.top, options.mdp, index_groups);
  convert_bonds_to_constraints(p, in.top);
  check_vsite_interactions(in.top);
  if (p.constraint_shake && !in.top.constraints.empty())
    throw InputError(options.mdp, p.constraint_algorithm_line,
                     "constraint-algorithm = shake: halomd solves constraints with LINCS (the default)");
  if (p.coulombtype == CoulombType::Pme) {
    // grompp warns about this (an error without -maxwarn); halomd runs it with GROMACS's correction for a
    // uniform neutralising background (cpu/pme.h), and says so.
    double total = 0.0;
    for (double q : in.top.charge) total += q;
    if (std::fabs(total) > 1e-4)
      std::fprintf(stderr,
                   "halomd: warning: %s: the system has a net charge of %.6g e; with PME it is run against a "
                   "uniform neutralising background (GROMACS's correction), which can give artefacts\n",
                   options.top.c_str(), total);
  }
  const int nconstr =
      3 * static_cast<int>(in.top.settles.size()) + static_cast<int>(in.top.constraints.size());
  // 3 per atom with mass (virtual sites have none, as grompp's nrdf), less the constraints and the centre of
  // mass.
  int with_mass = 0;
  for (double m : in.top.mass) with_mass += m > 0.0 ? 1 : 0;
  in.ndf = 3.0 * with_mass - nconstr - (p.comm_mode == CommMode::Linear ? 3.0 : 0.0);
  if (in.ndf <= 0) throw InputError(options.top, 0, "the system has no degrees of freedom");
  assign_comm_groups(p, options.mdp, in, index_groups, options.index);
  assign_xtc_atoms(p, options.mdp, in, index_groups, options.index);
  if (!p.energygrps.empty()) {
    // Checked as grompp does (each atom in one group at most); the terms per group pair that GROMACS adds
    // are not computed: a note says so rather than refusing inputs that carry the option for analysis.
    require_index_groups(p.energygrps, "energygrps", p.energygrps_line, options.mdp, index_groups,
                         options.index);
    atom_groups(p.energygrps, "energygrps", p.energygrps_line, in.top, options.mdp, index_groups, true);
    std::fprintf(stderr,
                 "halomd: note: %s:%d: energygrps: the energy terms are the whole system's; halomd does not "
                 "split them by group pair (GROMACS's Coul-SR:A-B and LJ-SR:A-B)\n",
                 options.mdp.c_str(), p.energygrps_line);
  }
  assign_freeze(p, options.mdp, in, index_groups, options.index);
  assign_tc_groups(p, options.mdp, in, index_groups, options.index);
  if (in.comm_groups > 0 || !in.top.frozen.empty()) {  // grompp's total is then the groups' sum
    in.ndf = 0.0;
    for (double d : in.tc_ndf) in.ndf += d;
  } else if (in.tc_ndf.size() == 1) {
    in.tc_ndf[0] = in.ndf;  // the same number as before, to the last bit
  }
  if (p.integrator == Integrator::Steep) {
    // Energy minimisation searches pairs at every evaluation, so the list's buffer only costs; grompp sets
    // 1.05 x the cut-off (readir.cpp) and halomd does the same.
    const double rc = std::max(p.rvdw, p.rcoulomb);
    p.rlist = p.verlet_buffer_tolerance > 0 && p.nstlist > 1 ? 1.05 * rc : std::max(rc, p.rlist);
    in.rlist_source = "rlist for energy minimisation (pairs searched at every evaluation)";
  } else if (p.verlet_buffer_tolerance > 0) {
    const double rc = std::max(p.rvdw, p.rcoulomb);
    const double temp = verlet_buffer_temperature(p, in.top, in.gro, in.ndf);
    if (temp > 0.0 || p.temperature_coupled()) {  // grompp's 10% fallback is for NVE at 0 K only
      p.rlist = verlet_buffer_rlist(p, in.top, in.gro.box, temp, p.nstlist, p.nstlist - 1,
                                    p.verlet_buffer_tolerance);
      in.rlist_source = fmt::format(
          "rlist {:.3f} nm: GROMACS 2022's Verlet buffer estimate for a 1x1 list at {:g} K, tolerance {:g} "
          "kJ/mol/ps per atom, nstlist {}",
          p.rlist, temp, p.verlet_buffer_tolerance, p.nstlist);
    } else {
      p.rlist = 1.1 * rc;  // as grompp: no temperature to estimate from, a 10% buffer
      in.rlist_source = "rlist 1.1 x the cut-off: an NVE run starting at 0 K (as GROMACS: check the drift)";
    }
  } else {
    in.rlist_source = "rlist from the .mdp";
  }
  const double half = in.gro.box.min_half_edge();
  if (p.rlist >= half)
    throw InputError(options.mdp, 0,
                     "the pair-list cut-off rlist = " + std::to_string(p.rlist) +
                         " nm is not shorter than half the smallest box edge of " + options.conf + " (" +
                         std::to_string(half) + " nm); use a larger box or a shorter cut-off");

  return in;
}

}  // namespace halomd
