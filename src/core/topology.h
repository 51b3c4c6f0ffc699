// The system's force-field description, expanded to one entry per atom: what the .top says, read once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace halomd {

// One rigid 3-site water (GROMACS [settles]): oxygen and its two hydrogens, global atom indices.
struct Settle {
  int o = 0, h1 = 0, h2 = 0;
  double d_oh = 0.0;  // nm
  double d_hh = 0.0;  // nm
};

// GROMACS's listed interactions that halomd runs, by the energy term each goes to (GROMACS's function type in
// brackets: [ bonds ] 1 and 2, [ angles ] 1, 2 and 5, [ dihedrals ] 1 and 9, 3, 2 and 4, [ pairs ] 1,
// [ position_restraints ] 1, [ cmap ] 1).
enum class BondedKind {
  Bond,              // 1/2 kb (r - b0)^2                                   p: b0, kb
  G96Bond,           // 1/4 kb (r^2 - b0^2)^2                               p: b0, kb
  Angle,             // 1/2 k (theta - theta0)^2                            p: theta0 (rad), k
  G96Angle,          // 1/2 k (cos theta - cos theta0)^2                    p: cos theta0, k
  UreyBradley,       // 1/2 k (theta - theta0)^2 + 1/2 kub (r13 - r0)^2     p: theta0, k, r0, kub
  ProperDih,         // k (1 + cos(n phi - phi_s))                           p: phi_s (rad), k, n
  RyckaertBell,      // sum_n C_n cos^n(phi - 180 deg)                       p: C0 .. C5
  ImproperDih,       // 1/2 k (xi - xi0)^2, the difference taken in (-pi, pi]  p: xi0 (rad), k
  PeriodicImproper,  // as ProperDih                                         p: phi_s, k, n
  Pair14,            // LJ-14 c12/r^12 - c6/r^6 and Coulomb-14 fudgeQQ qi qj f/(eps_r r)  p: c6, c12, qq
  PosRes,            // sum_d 1/2 k_d (x_d - ref_d)^2, the minimum image (refcoord-scaling = no)
                     //                                                p: kx, ky, kz, ref x, y, z (nm)
  Cmap,              // V(phi, psi) on a grid, bicubic (CHARMM's CMAP; phi = 1-2-3-4, psi = 2-3-4-5)
                     //                                                p: the grid's index in cmap_grids
  Harmonic,          // [ bonds ] 6: as Bond, without exclusions (elastic networks)  p: b0, kb
  RestrictedAngle,   // [ angles ] 10: 1/2 k (cos theta - cos theta0)^2 / sin^2 theta  p: cos theta0, k
  DihRestraint,      // [ dihedral_restraints ] 1: 1/2 k d^2, d = |phi - phi0| beyond dphi (flat-bottomed)
                     //                                                p: phi0, dphi (rad), k (kJ/mol/rad^2)
};
inline constexpr int kNumBondedKinds = 15;

// One listed interaction on global atom indices (1 to 5 of them, by kind).
struct BondedTerm {
  BondedKind kind = BondedKind::Bond;
  int atoms[5] = {0, 0, 0, 0, 0};
  double p[6] = {0, 0, 0, 0, 0, 0};
};

// A virtual site: a massless atom placed from others at every step, its force spread onto them
// ([ virtual_sites2 ] 1, [ virtual_sites3 ] 1 and 4, [ virtual_sitesn ] 1 to 3: GROMACS's vsite2, vsite3,
// vsite3out and vsiten).
enum class VsiteKind {
  Two,       // x_s = (1 - a) x_i + a x_j                                  p: a
  Three,     // x_s = x_i + a r_ij + b r_ik, r_ij = x_j - x_i                p: a, b
  ThreeOut,  // x_s = x_i + a r_ij + b r_ik + c (r_ij x r_ik)               p: a, b, c (1/nm)
  N,         // [ virtual_sitesn ]: x_s = x_1 + sum_k w_k r_1k, the weights summing to 1 (centre of geometry,
             // of mass, or of weights)                                     p: w_1 .. w_n
};
inline constexpr int kMaxVsiteAtoms = 8;  // constructing atoms of a [ virtual_sitesn ] site at most
struct VirtualSite {
  VsiteKind kind = VsiteKind::Three;
  int site = 0;                    // global index of the massless atom
  int atoms[kMaxVsiteAtoms] = {};  // i, j (and k); for N the n atoms
  double p[kMaxVsiteAtoms] = {};
  int n = 0;  // N: the number of constructing atoms
};
// The number of atoms a site is built from.
inline int vsite_atom_count(const VirtualSite& v) {
  return v.kind == VsiteKind::Two ? 2 : v.kind == VsiteKind::N ? v.n : 3;
}

// A CMAP correction map ([ cmaptypes ]) as grompp prepares it: on spacing x spacing points of phi and psi
// (-180 + i 360 / spacing degrees, phi the slower index), 4 values per point: V (kJ/mol), dV/dphi, dV/dpsi
// and d2V/dphi dpsi (per degree), the derivatives from grompp's splines (cpu/cmap.h).
struct CmapGrid {
  int spacing = 0;
  std::vector<double> data;
};

// A distance constraint between two atoms (global indices), solved by LINCS: [ constraints ], or a bond
// that the .mdp's constraints option turned into one.
struct Constraint {
  int a = 0, b = 0;
  double length = 0.0;  // nm
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
  std::vector<VirtualSite> vsites;       // in topology order
  std::vector<std::string> vsite_where;  // per site: "file:line" of its [ virtual_sites ] entry
  std::vector<BondedTerm> bonded;    // in the order of the molecules and of their [ bonds ], [ pairs ], ...
  std::vector<CmapGrid> cmap_grids;  // the [ cmaptypes ] in file order; BondedKind::Cmap terms name one
  std::vector<Constraint> constraints;  // LINCS's (water's SETTLE is separate)
  // Position restraints with refcoord-scaling = com: the references' centre of mass as a fraction of the
  // box (the references p[3..5] are then relative to it, and it follows the box); zero otherwise.
  double posres_com_frac[3] = {0, 0, 0};
  std::vector<MoleculeBlock> molecules;

  // Interactions that were parsed but that this version cannot run ([ constraints ], [ cmap ], a [ bonds ]
  // function type other than 1 or 2, ...): "file:line: [ bonds ] ..." for the first; empty when supported.
  std::string unsupported;

  // freezegrps (set from the .mdp by engine/setup.cpp): per atom the dimensions that do not move, bit d for
  // dimension d (kFrozenAll: all three); empty when nothing is frozen.
  std::vector<uint8_t> frozen;
  static constexpr uint8_t kFrozenAll = 7;
  bool fully_frozen(int i) const { return !frozen.empty() && frozen[i] == kFrozenAll; }
  // A constraint between two fully frozen atoms: it holds nothing the update would move, and GROMACS's
  // LINCS gives it a meaningless virial (the pressure of frozen proteins with h-bonds at ~1e20 bar).
  bool frozen_pair(int a, int b) const { return fully_frozen(a) && fully_frozen(b); }
  // The inverse mass the update moves atom i with: 0 for virtual sites and fully frozen atoms.
  double update_inv_mass(int i) const { return mass[i] > 0 && !fully_frozen(i) ? 1.0 / mass[i] : 0.0; }

  int num_atoms() const { return static_cast<int>(mass.size()); }
  int num_molecules() const { return molecule.empty() ? 0 : molecule.back() + 1; }
};

}  // namespace halomd
