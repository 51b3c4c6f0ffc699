// The CUDA executor's data as the kernels see it: plain structs of device pointers and constants, passed to
// kernels by value, and the per-step state that lives in device memory (so that a CUDA graph recorded once
// can be replayed for every step). Shared by the kernels (.cu) and the host side (cuda_executor.cpp).
//
// Layout and precision (docs/ARCHITECTURE.md, "CUDA executor"):
// - x and v in double, structure of arrays, in the topology's atom order ("original order"): the update and
//   SETTLE run in double, as in the CPU reference.
// - For the pair search and the non-bonded kernel, atoms are sorted by grid cell ("sorted order") and held
//   as float4 (x, y, z, q sqrt(f/eps_r)). The float position is x - k L with k the atom's periodic image at
//   the last search: inside the box then, drifting a little until the next search; pair-list entries carry
//   the image shift of their neighbour cell, so no minimum image is needed per pair.
// - Pair forces are float, summed per atom by one thread group in the list's fixed order; energies, virial,
//   kinetic energy and momentum are reduced across threads in 64-bit fixed point, so a run is bitwise
//   repeatable.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "comm/gpu/gpu_halo_arrays.h"
#include "core/bonded_terms.h"

namespace halomd::cuda {

// Pair-list entries are stored and read in groups of this many per lane (two 16-byte words): whole 32-byte
// sectors are written by the search and read by the non-bonded kernel, which keeps 8 gathers in flight.
constexpr int kListGroup = 8;

// Error kinds in StepState::error_key (lowest wins when several happen at the same step and atom).
enum ErrorKind : int { kErrMoved = 0, kErrSettle = 1, kErrForce = 2, kErrListFull = 3 };

// Fixed-point scales (as cpu/fixed_point.h): energies and virials 2^28 per kJ/mol, momenta 2^32 per
// amu nm/ps.
constexpr double kEnergyScale = 268435456.0;
constexpr double kMomentumScale = 4294967296.0;

// The state of the step that the next update kernel advances, in device memory.
// The most tc-grps the GPU's update couples separately.
constexpr int kMaxTcGroups = 8;
// The most comm-grps whose centre-of-mass motion the GPU's update removes separately.
constexpr int kMaxCommGroups = 4;

struct StepState {
  long long step;            // that step
  double lambda;             // its v-rescale factor (1 without coupling)
  double vcm[3];             // centre-of-mass velocity removed from v before its update (the deferred COM
                             // removal of the previous step; 0 when there was none, and with comm-grps)
  double ke_prev[9];         // KE(step - 1/2), row-major tensor, kJ/mol
  double integral_before;    // thermostat integral at the start of the step
  double integral;           // after the step's coupling
  unsigned long long error;  // first (step << 32 | atom << 2 | kind) that went wrong, ~0 when none
  unsigned int blocks_done;  // the update kernel's finished-block counter
  int max_list_groups;       // longest per-lane list of the last search (groups of kListGroup entries)
  long long list_pairs;      // pair entries of the last search (each pair is listed from both atoms)
  int skipped_rows;          // domain decomposition: halo rows the last search skipped (partner_ext)
  int interior_rows;         // domain decomposition: the interior home rows of SearchParams::rows
  // Accumulators, reset by their consumer.
  long long ke_acc[6];  // sum 1/2 m v_a v_b over atoms: xx yy zz xy xz yz
  long long mom_acc[3];
  long long nb_acc[8];    // full-list sums: LJ, Coulomb, d (x) F (xx yy zz xy xz yz)
  long long cvir_acc[9];  // constraint virial, row-major
  long long
      pme_acc[8];  // PME's mesh part (energy steps): energy, then sum_m E_m (delta - ...) xx yy zz xy xz yz
  // Listed interactions (energy steps): the energy terms (core/bonded_terms.h), then their virial, row-major.
  long long listed_acc[kNumBondedTerms + 9];
  // Several tc-grps (UpdateParams::ngroups > 0): per group the step's v-rescale factor, KE(step -
  // 1/2) (the trace, kJ/mol), the half-step average the last energy step reported, and the step's sum (fixed
  // point).
  double group_lambda[kMaxTcGroups];
  double group_ke_prev[kMaxTcGroups];
  double rep_group_ke[kMaxTcGroups];
  long long group_ke_acc[kMaxTcGroups];
  // GPU domains with several tc-grps: this domain's last per-group sums (as ke_local), and the values the
  // reduction over domains sums (as red), in the same fixed point as group_ke_acc.
  long long group_ke_local[kMaxTcGroups];
  long long group_red[kMaxTcGroups];
  // Several comm-grps (UpdateParams::ncomm > 0): each group's momentum at a COM-removal step (fixed point, x
  // y z per group; 0 at other steps), staged by the update's last block for end_step (one GPU) or summed over
  // the domains first (GPU domains: right after group_red, so that one reduction sums both).
  long long comm_red[3 * kMaxCommGroups];
  // tcoupl = Nose-Hoover (one GPU, UpdateParams::nose_hoover): per group (or the one) xi and vxi after the
  // step's coupling and before it (what a checkpoint of the step holds, as the CPU's), the step's friction
  // factor, and whether the step couples (cpu/nose_hoover.h).
  double nh_xi[kMaxTcGroups];
  double nh_vxi[kMaxTcGroups];
  double nh_xi_before[kMaxTcGroups];
  double nh_vxi_before[kMaxTcGroups];
  double nh_factor[kMaxTcGroups];
  int nh_step;
  // Several comm-grps: per group the centre-of-mass velocity the next update removes from the group's atoms
  // (as vcm, which stays 0 then), and the step's momentum sums (comm_red above takes them).
  double comm_vcm[kMaxCommGroups][3];
  long long comm_mom_acc[3 * kMaxCommGroups];
  // What the last energy step reported (written by the update kernel's last block).
  double rep_ke_prev[9];
  double rep_ke_now[9];
  double rep_integral;
  // Domain decomposition: the step's sums of this domain (kRed* layout), summed over domains in place by
  // the transport when red_active, then used by the finishing kernel; ke_local keeps this domain's last
  // kinetic-energy sums for a later reduction when the step did not need one.
  long long red[32];
  int red_active;
  int one;  // always 1: the `active` flag of reductions the host asks for
  long long ke_local[6];
  // launch_home_displacement's results, as the bits of non-negative doubles (which order like the doubles,
  // so an integer atomicMax finds the largest): the largest squared displacement (nm^2) and the largest
  // distance outside the cell (nm, domdec/drift.h). Adjacent: one copy takes both.
  unsigned long long disp2_bits;
  unsigned long long beyond_bits;
  // Domain decomposition: 1 + the first step at which the host's decision to sum over domains (the graph
  // it enqueued) differed from the update kernel's own (0: none). A guard: the two use the same formula.
  long long reduce_mismatch;
};
// The layout of StepState::red.
enum RedIndex : int { kRedKe = 0, kRedMom = 6, kRedNb = 9, kRedCvir = 17, kRedCount = 26 };

// The pair search (pairsearch.cu), every nstlist steps.
// The search grid: cells of at least rlist / reach[d] along dimension d, so the neighbours of an atom lie
// within reach[d] cells of its own. The candidates an atom tests are the sphere of radius rlist dilated by
// about a cell in x and y (whole columns) and, in z, by the z cells at the ends of each column's range: thin
// z cells cost only more cell_start entries (a column's range is still two loads), wider x-y reach means
// more, shorter ranges. Measured on the H200 (bench/NOTES.md, 2026-12-03 fifth session): z cells of rlist/8
// against rlist/2 took the search 420 -> 384 us at 45k atoms, 128 -> 124 at 9k, 1,552 -> 1,451 at 203k (the
// cell scan 4 -> 11 us); x-y columns of rlist/3 were slower (459 us at 45k: twice the ranges).
// HALOMD_GPU_REACH_XY and HALOMD_GPU_REACH_Z override the defaults.
constexpr int kDefaultReachXY = 2;
constexpr int kDefaultReachZ = 8;

struct SearchParams {
  int n;              // atoms
  int tpa;            // list lanes per atom (power of two, at most 32)
  int cap_groups;     // list capacity per lane, in groups of kListGroup entries
  int search_blocks;  // the search kernel's blocks per multiprocessor (8, 12 or 16; its register budget)
  // Tests only (HALOMD_TEST_SEARCH_PATH): 0 each atom takes the copy of the search's rounds its exclusions
  // and zone call for; 1 the general test; 2 five exclusion slots where three would do.
  int test_path;
  // Tests only (HALOMD_TEST_SEARCH_CHUNKS): the chunks a warp's table holds, 4 to kSearchChunkCap (the
  // default), so that a small table makes the search refill it.
  int chunk_cap;
  int reach[3];      // cells per rlist along each dimension (the search's window: reach cells on each side)
  int nc[3];         // grid cells per dimension, each at least rlist / reach wide
  double inv_nc[3];  // 1 / nc: a cell's coordinates from its number without integer divisions
  int ncell;
  double len[3];  // box, nm
  double cells_per_nm[3];
  float lenf[3];
  float cell_size[3];
  float inv_cell_size[3];  // 1 / cell_size: the search's windows (prune's 1e-3 nm slack covers the rounding)
  float rlist2;            // nm^2
  float prune;             // rlist + a rounding margin, for whole cells
  float prune2;            // prune^2
  // original order
  const double* x[3];
  const float* qs;  // q sqrt(f/eps_r)
  const int* type;
  const int* excl_start;
  const int* excl;
  // Domain decomposition (null for one domain): per atom the dimensions (bits 0-2) in which its zone offset
  // is not 0; a pair is this domain's iff the two masks share no bit (the eighth-shell rule, domdec/zones.h).
  const int* zone_mask;
  int* zone_mask_s;  // sorted order
  // Domain decomposition: per cell whether it holds a halo atom, and whether no cell within the search's
  // reach (`reach` cells) does, i.e. its atoms' lists hold home atoms only (null for one domain).
  int* cell_halo;
  unsigned char* cell_interior;
  // Domain decomposition: per dimension d the largest x[d] of the local atoms whose zone offset in d is 0
  // (home atoms and halo atoms from other dimensions), as order-preserving bits (ordered_bits). A halo atom
  // whose distance beyond these in its zone's dimensions is at least rlist has no pair under the
  // eighth-shell rule (its partners all have offset 0 where it has not), so the search skips its row.
  unsigned long long* partner_ext;  // null: no row is skipped (also HALOMD_GPU_SKIP_HALO_ROWS=0)
  // Domain decomposition: the sorted rows by kind, each kind ascending: the n_home home rows (zone mask 0),
  // interior ones first (in cells with cell_interior set; StepState::interior_rows of them, none without
  // cell_interior), then the halo rows, so that a non-bonded pass over one kind launches for its rows only;
  // per block of kRowListBlock rows the number of halo and of interior rows (pairsearch.cu). Null for one
  // domain.
  int* rows;
  int* row_block_counts;
  int n_home;
  int4* img;  // periodic image of each atom at this search
  int* cell_of;
  int* slot;
  int* sorted_of;
  // cells
  int* cell_count;  // zero between searches
  int* cell_start;  // ncell + 1
  // The cell scan's tiles (pairsearch.cu): a ticket per block, and per tile the running total up to its end
  // tagged with the search's epoch; zeroed whenever the grid is set up.
  unsigned long long* scan_ticket;
  unsigned long long* scan_prefix;
  // sorted order
  int* order_tmp;
  int* atom_of;
  int* cell_s;
  float4* xq;
  int* type_s;
  // per lane
  int* list;    // pairsearch.h has the layout
  int* groups;  // per lane: groups written
  StepState* st;
};

// The largest beta rc the pair kernels' erfc covers (pair_terms.cuh, erfcx_poly): erfc(6) ~ 2e-17, below any
// useful ewald-rtol.
constexpr double kErfcxMaxX = 6.0;

// The Lennard-Jones forms of vdw-modifier (cpu/pair_interaction.h's pair_lj): Potential-shift (or None, with
// sh6 = sh12 = 0), Force-switch and Potential-switch.
enum VdwForm : int { kVdwShift = 0, kVdwForceSwitch = 1, kVdwPotentialSwitch = 2 };

// The switched forms' constants in float (PairParams's fsw_* and psw_*): r1 = rvdw-switch; force-switch's
// A/3, B/4 and C of r^-6 and r^-12 and its A, B; potential-switch's 1/(rc - r1).
struct VdwSwitch {
  float r1 = 0.f;
  float a6 = 0.f, b6 = 0.f, c6 = 0.f, a12 = 0.f, b12 = 0.f, c12 = 0.f;
  float a6_3 = 0.f, b6_4 = 0.f, a12_3 = 0.f, b12_4 = 0.f;
  float inv_w = 0.f;
};

// The non-bonded kernel (nonbonded.cu), every step.
struct NonbondedParams {
  int n, tpa, log2_tpa, cap_groups, ntypes;
  float rc2, k_rf, c_rf, sh6, sh12;
  // coulombtype = PME: the real-space Ewald term instead of reaction field (ewald_beta > 0).
  float ewald_beta, sh_ewald;
  // vdw-modifier (pair_terms.cuh's lj_term): kVdwShift, or a switch with its constants.
  int vdw;
  VdwSwitch sw;
  float len[3], inv_len[3];
  const float4* xq;
  const int* type_s;
  const float2* lj;  // ntypes^2 (c6, c12)
  const int* list;
  const int* groups;
  const int* atom_of;
  const int* sorted_of;
  const int* excl_start;
  const int* excl;
  float4* f;  // sorted order
  StepState* st;
  // Domain decomposition: the cell of each sorted atom and the search's interior flag per cell, so the
  // forces of atoms with home neighbours only can be computed before the halo arrives (null without the
  // classification), and each sorted atom's zone mask (not 0: a halo atom; null for one domain).
  const int* cell_s;
  const unsigned char* cell_interior;
  const int* zone_mask_s;
  // Domain decomposition: SearchParams::rows (home rows, then halo rows) and the home rows' count; the home
  // and halo passes (kHomeAtoms, kHaloAtoms) launch for their rows only. Null for one domain.
  const int* rows;
  int n_home;
};

// Which atoms a non-bonded launch computes: a set of the three kinds of rows. Interior: home atoms in cells
// whose neighbours are all home (they need no halo); boundary: the other home atoms; halo: the received atoms
// that have pairs (the force halo sends their forces back, so it can go as soon as these are done).
enum NonbondedPass : int {
  kInteriorAtoms = 1,
  kHomeBoundaryAtoms = 2,
  kHaloAtoms = 4,
  kAllAtoms = 7,
  kHomeAtoms = kInteriorAtoms | kHomeBoundaryAtoms,
  kBoundaryAtoms = kHomeBoundaryAtoms | kHaloAtoms,
};

// The rows of a listed pass (kHomeAtoms, kInteriorAtoms, kHomeBoundaryAtoms, kHaloAtoms) over
// NonbondedParams::rows: [first, first + count) of that list. The split of the home rows is the last
// search's (StepState::interior_rows, on the device).
__device__ inline int listed_first(const NonbondedParams& p, int pass) {
  return pass == kHaloAtoms ? p.n_home : (pass == kHomeBoundaryAtoms ? p.st->interior_rows : 0);
}
__device__ inline int listed_count(const NonbondedParams& p, int pass) {
  if (pass == kHaloAtoms) return p.n - p.n_home;
  if (pass == kInteriorAtoms) return p.st->interior_rows;
  return pass == kHomeBoundaryAtoms ? p.n_home - p.st->interior_rows : p.n_home;
}
// The rows a listed pass's launch covers, at most its count: the halo rows, or all home rows (the host does
// not know the split of the home rows; the blocks beyond a pass's count leave at once).
inline int listed_launch_rows(const NonbondedParams& p, int pass) {
  return pass == kHaloAtoms ? p.n - p.n_home : p.n_home;
}
inline bool is_listed_pass(const NonbondedParams& p, int pass) {
  return p.rows &&
         (pass == kHomeAtoms || pass == kHaloAtoms || pass == kInteriorAtoms || pass == kHomeBoundaryAtoms);
}

// One SETTLE water on the device.
struct SettleDev {
  int o, h1, h2, pad;
  double mo, mh, d_oh, d_hh;
};

// Threads (and atoms) per block of the update kernel: 32 SETTLE waters, or up to this many atoms of LINCS's
// coupled constraints, or atoms outside both.
constexpr int kUpdateBlock = 96;

// LINCS on one GPU (cuda/lincs_gpu.h): blocks of the update kernel that each hold whole groups of coupled
// constraints (at most kUpdateBlock atoms and constraints), so that the expansion's exchanges between coupled
// constraints stay in shared memory.
struct LincsBlockDev {
  int atom_start, natoms;  // slots [atom_start, atom_start + natoms) of LincsDev::atoms
  int con_start, ncon;     // constraints [con_start, con_start + ncon) of LincsDev::con
};
struct LincsConDev {
  int a, b;            // the block's atom slots (0 .. natoms)
  double length, blc;  // nm; 1 / sqrt(1/m_a + 1/m_b)
};
struct LincsDev {
  int nblocks = 0, order = 4, iterations = 1;
  double cos_warn = -1.0;  // cos(lincs-warnangle)
  const LincsBlockDev* blocks = nullptr;
  const int* atoms = nullptr;  // per slot: the atom (original index), ascending within a block
  const LincsConDev* con = nullptr;
  // Per constraint (CSR over con): the coupled constraints (block-local index) and their coefficients
  // (cpu/lincs.h's Coupling).
  const int* coupling_start = nullptr;
  const int* coupling_other = nullptr;
  const double* coupling_coef = nullptr;
  // Per slot (CSR over atoms): the block-local constraints of the atom, ascending, as c << 1 | (atom is b).
  const int* atom_con_start = nullptr;
  const int* atom_con = nullptr;
};

// The update kernel (update.cu), every step: leap-frog, SETTLE, LINCS, kinetic energy, and the end of the
// step.
struct UpdateParams {
  int n, nsettle, nfree;
  const SettleDev* settles;
  const int* free_atoms;
  double* x[3];
  double* v[3];
  const double* inv_mass;
  const double* mass;
  const float4* f;  // sorted order
  // Domain decomposition: per local atom, what the force halo brought back, added to f and zeroed here
  // (comm::GpuLocalArrays::f_halo); null for one domain.
  float4* f_halo;
  const int* sorted_of;
  const int4* img;
  const float* qs;
  float4* xq;  // sorted order, written
  double dt;
  double len[3];
  double max_disp2;  // nm^2: an atom moving further in one step has blown up
  double max_force2;
  // coupling (vrescale: a factor per coupling step from KE(n - 1/2), v-rescale's draw or, with berendsen,
  // Berendsen's weak coupling)
  int vrescale, nsttcouple, comm_linear, nstcomm;
  int berendsen = 0;
  double ref_kinetic, ndf, tau_steps, total_mass;
  unsigned long long seed;
  int dd;  // domain-decomposed: the last block leaves the step's sums in st->red for the reduction over
           // domains and finish_dd_step ends the step
  StepState* st;
  // Domain decomposition with a transport that lets the update pack the next coordinate halo's home atoms
  // (comm::GpuHaloTransport::prepack); null otherwise.
  const comm::HaloPrepackDev* prepack = nullptr;
  LincsDev lincs;  // constraints (GPU domains: the home groups'); none otherwise
  // Several tc-grps: each atom's group (original index; GPU domains: per home atom) and each group's
  // v-rescale parameters, as CpuExecutor's (ref_kinetic, ndf, tau_steps, seed above are then unused).
  int ngroups = 0;
  const int* tc_group = nullptr;
  double group_ref_kinetic[kMaxTcGroups] = {};
  double group_ndf[kMaxTcGroups] = {};
  double group_tau_steps[kMaxTcGroups] = {};
  unsigned long long group_seed[kMaxTcGroups] = {};
  // tcoupl = Nose-Hoover (one GPU): nh_groups thermostats (ngroups, or one for the whole system), each with
  // 1/Q, ref-t and degrees of freedom as the CPU's TemperatureCoupling.
  int nose_hoover = 0, nh_groups = 0;
  double nh_qinv[kMaxTcGroups] = {};
  double nh_ref_t[kMaxTcGroups] = {};
  double nh_ndf[kMaxTcGroups] = {};
  // pcoupl = Parrinello-Rahman (one GPU): the extended update, which on a coupling step takes pr_scale[d]
  // v[d] off each velocity (StepRequest::pr_scale; 0 on every other step).
  int pr_coupling = 0;
  double pr_scale[3] = {};
  // Several comm-grps (the extended update): each atom's group (original index; GPU domains: per home
  // atom; -1: in none, its motion kept) and each group's 1 / total mass.
  int ncomm = 0;
  const int* comm_group = nullptr;
  double comm_inv_mass[kMaxCommGroups] = {};
};

}  // namespace halomd::cuda
