// The system's force-field description, expanded to one entry per atom: what the .top says, read once.
#pragma once

#include <string>
#include <vector>

namespace halomd {

// One rigid 3-site water (GROMACS [settles]): oxygen and its two hydrogens, global atom indices.
struct Settle {
  int o = 0, h1 = 0, h2 = 0;
  double d_oh = 0.0;  // nm
  double d_hh = 0.0;  // nm
};

// A run of identical molecules as listed in [molecules].
struct MoleculeBlock {
  std::string name;
  int count = 0;
  int atoms_per_molecule = 0;
  int first_atom = 0;  // global index of the block's first atom
};

struct Topology {
  std::string system_name;

  // Per atom (global index, the .gro order).
  std::vector<double> mass;    // amu
  std::vector<double> charge;  // e
  std::vector<int> type;       // index into type_names and the LJ matrices
  std::vector<int> molecule;   // global molecule index of each atom
  std::vector<std::string> atom_name;
  std::vector<std::string> residue_name;

  // Atom types actually used, and LJ parameters per type pair (ntypes x ntypes, symmetric),
  // after the combination rule and [nonbond_params]: V(r) = c12/r^12 - c6/r^6 (kJ/mol nm^6, nm^12).
  std::vector<std::string> type_names;
  std::vector<double> c6, c12;
  int num_types() const { return static_cast<int>(type_names.size()); }
  double c6_of(int ti, int tj) const { return c6[ti * num_types() + tj]; }
  double c12_of(int ti, int tj) const { return c12[ti * num_types() + tj]; }

  // Excluded pairs (i != j, both directions present, sorted per atom) in CSR form: the exclusions of atom i
  // are excl[excl_start[i] .. excl_start[i+1]). Built from nrexcl over bonds/settles and [exclusions].
  std::vector<int> excl_start;
  std::vector<int> excl;

  std::vector<Settle> settles;
  std::vector<MoleculeBlock> molecules;

  // Interactions that were parsed but that this version cannot run ([bonds], [angles], [constraints], ...):
  // "file:line: [ bonds ]" for the first such directive with entries; empty when the run is supported.
  std::string unsupported;

  int num_atoms() const { return static_cast<int>(mass.size()); }
  int num_molecules() const { return molecule.empty() ? 0 : molecule.back() + 1; }
};

}  // namespace halomd
