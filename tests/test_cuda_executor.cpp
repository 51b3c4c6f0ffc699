// The CUDA executor against the CPU double path, in one process: step-0 energies, virial and forces, the
// positions after one step, and the v-rescale random numbers. Needs a GPU (ctest label "gpu"); without one
// every test reports SKIPPED.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "core/executor.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

#if HALOMD_HAVE_CUDA
#include "cpu/cluster_pairlist.h"
#include "cpu/cpu_executor.h"
#include "cpu/nonbonded.h"
#include "cpu/pairlist.h"
#include "cpu/pme.h"
#include "cpu/update.h"
#include "cpu/vsite.h"
#include "cpu/vsite_term.h"
#include "cuda/cluster_list.h"
#include "cuda/cuda_executor.h"
#include "cuda/device_info.h"
#include "cuda/device_system.h"
#include "cuda/lincs_gpu.h"
#include "cuda/pairsearch.h"
#include "cuda/vsite_gpu.h"
#include "engine/setup.h"
#include "gpu/device_buffer.h"
#endif

namespace halomd::test {
namespace {

#if HALOMD_HAVE_CUDA

double rel_diff(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

// A system and its state at step 0 as the MD loop makes it (continuation = yes in these .mdp files).
struct System {
  SimulationInputs in;
  MdState state;
  PhaseTimers timers;
  ExecutorConfig config() {
    ExecutorConfig c;
    c.top = &in.top;
    c.mdp = &in.mdp;
    c.box = in.gro.box;
    c.ndf = in.ndf;
    c.ld_seed = 4242;
    c.threads = 2;
    c.timers = &timers;
    return c;
  }
};

void load_system(const std::string& sys, const std::string& mdp, System& s, const std::string& ref = "") {
  RunOptions opt;
  opt.conf = data_path(sys + "/conf.gro");
  opt.top = data_path(sys + "/topol.top");
  opt.mdp = mdp.starts_with('/') ? mdp : data_path(sys + "/" + mdp);
  if (!ref.empty()) opt.ref = data_path(ref);
  s.in = load_inputs(opt);
  s.state.step = 0;
  s.state.x = s.in.gro.x;
  make_molecules_whole(s.in.top, s.in.gro.box, s.state.x);
  s.state.v = s.in.gro.v;
  if (s.state.v.empty()) s.state.v.assign(s.state.x.size(), Vec3{});  // a .gro without velocities
  s.state.ke_half_prev = kinetic_energy_tensor(s.state.v, s.in.top.mass, 1);
}

StepRequest request(const MdParams& mdp, int64_t step, bool energy) {
  StepRequest r;
  r.step = step;
  r.ns = step % mdp.nstlist == 0;
  r.energy = energy;
  r.tcouple = mdp.tcoupl == Tcoupl::VRescale && (step + mdp.nsttcouple - 1) % mdp.nsttcouple == 0;
  r.comm = mdp.comm_mode == CommMode::Linear && step % mdp.nstcomm == 0;
  return r;
}

// The GPU's forces against the CPU double path's: RMS and worst atom relative to the RMS force.
void expect_gpu_forces_match(const std::vector<Vec3>& fg, const std::vector<Vec3>& fc) {
  ASSERT_EQ(fg.size(), fc.size());
  double f2 = 0.0, err2 = 0.0, err_max = 0.0;
  for (size_t i = 0; i < fc.size(); ++i) {
    f2 += norm2(fc[i]);
    const double e2 = norm2(fg[i] - fc[i]);
    err2 += e2;
    err_max = std::max(err_max, std::sqrt(e2));
  }
  const double f_rms = std::sqrt(f2 / fc.size()), err_rms = std::sqrt(err2 / fc.size());
  EXPECT_LT(err_rms / f_rms, kGpuForceRmsRel) << "RMS force " << f_rms << ", RMS error " << err_rms;
  EXPECT_LT(err_max / f_rms, kGpuForceMaxRel) << "RMS force " << f_rms << ", worst error " << err_max;
}

// The CPU double path's forces at the state's x: the non-bonded forces from its own pair list, plus PME's
// mesh part when the run has it.
std::vector<Vec3> cpu_forces(const System& sys) {
  const Box box = sys.in.gro.box;
  PairList list;
  build_pair_list(sys.state.x, box, sys.in.mdp.rlist, sys.in.top, 2, list);
  NonbondedCpu nb(sys.in.top, sys.in.mdp, 2);
  std::vector<Vec3> f(sys.state.x.size());
  NonbondedEnergies unused;
  nb.compute(list, sys.state.x, box, false, 0, f, unused);
  if (sys.in.mdp.coulombtype == CoulombType::Pme) {
    PmeCpu mesh(sys.in.mdp, box, sys.in.top.charge, 2);
    PmeEnergies mesh_e;
    mesh.compute(sys.state.x, false, f, mesh_e);
  }
  return f;
}

// After one step from the same state, the GPU's positions against the CPU's.
void expect_first_step_positions_match(Executor& cpu, Executor& gpu) {
  MdState sc, sg;
  cpu.save(sc);
  gpu.save(sg);
  ASSERT_EQ(sg.step, 1);
  double dx_max = 0.0;
  for (size_t i = 0; i < sc.x.size(); ++i) dx_max = std::max(dx_max, std::sqrt(norm2(sg.x[i] - sc.x[i])));
  EXPECT_LT(dx_max, kGpuStepPositionAbsTol);
}

TEST(CudaExecutor, Step0EnergiesForcesAndFirstStepMatchCpuDoublePath) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  System sys;
  load_system("spce_9k", "nve.mdp", sys);
  CpuExecutor cpu(sys.config());
  CudaExecutor gpu(sys.config());
  cpu.load(sys.state);
  gpu.load(sys.state);
  StepEnergies ec, eg;
  cpu.step(request(sys.in.mdp, 0, true), &ec);
  gpu.step(request(sys.in.mdp, 0, true), &eg);

  EXPECT_LT(rel_diff(eg.lj, ec.lj), kEnergyRelTol) << eg.lj << " vs " << ec.lj;
  EXPECT_LT(rel_diff(eg.coulomb, ec.coulomb), kEnergyRelTol) << eg.coulomb << " vs " << ec.coulomb;
  EXPECT_LT(rel_diff(eg.lj + eg.coulomb, ec.lj + ec.coulomb), kEnergyRelTol);
  EXPECT_LT(rel_diff(eg.kinetic.trace(), ec.kinetic.trace()), kKineticRelTol);
  for (int a = 0; a < 3; ++a)
    EXPECT_LT(rel_diff(eg.virial.m[a][a], ec.virial.m[a][a]), kGpuVirialRelTol)
        << "virial " << a << ": " << eg.virial.m[a][a] << " vs " << ec.virial.m[a][a];

  // Forces at x(0): the CPU reference's non-bonded forces from its own pair list.
  std::vector<Vec3> fg;
  gpu.forces(fg);
  expect_gpu_forces_match(fg, cpu_forces(sys));
  expect_first_step_positions_match(cpu, gpu);
}

// Step 0 with energies from the same state on the CPU's double path and on one GPU: LJ, Coulomb, the virial
// (all nine components), the forces (all the CPU executor computes) and the positions after one step.
// Returns both steps' energies for the caller's further checks.
std::pair<StepEnergies, StepEnergies> expect_step0_like_cpu(System& sys) {
  CpuExecutor cpu(sys.config());
  CudaExecutor gpu(sys.config());
  cpu.load(sys.state);
  gpu.load(sys.state);
  StepEnergies ec, eg;
  cpu.step(request(sys.in.mdp, 0, true), &ec);
  gpu.step(request(sys.in.mdp, 0, true), &eg);
  EXPECT_LT(rel_diff(eg.lj, ec.lj), kEnergyRelTol) << eg.lj << " vs " << ec.lj;
  EXPECT_LT(rel_diff(eg.coulomb, ec.coulomb), kEnergyRelTol) << eg.coulomb << " vs " << ec.coulomb;
  double diag = 0.0;
  for (int a = 0; a < 3; ++a) diag = std::max(diag, std::fabs(ec.virial.m[a][a]));
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      EXPECT_NEAR(eg.virial.m[a][b], ec.virial.m[a][b], kGpuVirialRelTol * diag) << "virial " << a << b;
  std::vector<Vec3> fg, fc;
  gpu.forces(fg);
  EXPECT_TRUE(cpu.last_forces(fc));
  expect_gpu_forces_match(fg, fc);
  expect_first_step_positions_match(cpu, gpu);
  return {ec, eg};
}

// coulombtype = PME on one GPU (real-space Ewald in float with a polynomial erfc, the mesh part in double
// with fixed-point charge spreading and cuFFT) against the CPU's double path at step 0: energies, Coul.
// recip., the virial (all nine components), forces (pairs plus mesh) and the positions after one step; on
// spce_9k (a 40^3 grid) and on the rectangular box with an odd 25 x 27 x 21 grid (tests/data/pme), so that a
// mix-up of dimensions shows.
void expect_pme_matches_cpu(const std::string& system, const std::string& mdp) {
  SCOPED_TRACE(system + " " + mdp);
  System sys;
  load_system(system, mdp, sys);
  ASSERT_EQ(sys.in.mdp.coulombtype, CoulombType::Pme);
  const auto [ec, eg] = expect_step0_like_cpu(sys);
  EXPECT_GT(ec.coulomb_recip, 10.0);
  EXPECT_LT(rel_diff(eg.coulomb_recip, ec.coulomb_recip), kEnergyRelTol)
      << eg.coulomb_recip << " vs " << ec.coulomb_recip;
}

TEST(CudaExecutor, PmeMatchesTheCpuDoublePath) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  expect_pme_matches_cpu("spce_9k", "../pme/nve.mdp");
  expect_pme_matches_cpu("pme/rect", "../rect_grid25x27x21.mdp");
  // Orders other than 4 take the mesh kernels' general path; ewald-rtol 1e-6 and rc 0.9 move beta rc, the
  // range of the pair kernels' erfc polynomial, to 3.46 and 2.81 (3.12 at the default).
  expect_pme_matches_cpu("spce_1k5", "../pme/order6_spacing016_rtol1e-6.mdp");
  expect_pme_matches_cpu("spce_1k5", "../pme/order5_grid20x24x28_epsr2.mdp");
  expect_pme_matches_cpu("spce_1k5", "../pme/order3_noshift_rc09.mdp");
  expect_pme_matches_cpu("pme/rect", "../rect_spacing010_order8.mdp");
}

// vdw-modifier = Force-switch and Potential-switch on one GPU (pair_terms.cuh's lj_term in float, the
// switch taken from r1 without a branch) against the CPU double path at step 0 (which test_forceswitch holds
// to gmx_d): LJ, Coulomb, the virial, the forces and the positions after one step, on spce_1k5 with each
// switch from 0.8 and from 0.6 nm, with reaction field and with the same .mdp on PME. LJ (SR) must move
// with the switch, so that a kernel that ignored it fails.
TEST(CudaExecutor, LjSwitchesMatchTheCpuDoublePath) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  const std::string dir = make_temp_dir("cuda_lj_switch");
  double lj_shift = 0.0;
  for (const char* c : {"", "fsw0.8", "fsw0.6", "psw0.8", "psw0.6_dc"}) {
    for (const bool pme : {false, true}) {
      std::map<std::string, std::string> set;
      if (!*c) set["vdw-modifier"] = "Potential-shift";  // the unswitched reference
      if (pme) set["coulombtype"] = "PME";
      const std::string mdp = dir + "/" + (*c ? c : "shift") + (pme ? "_pme" : "") + ".mdp";
      write_mdp_with(data_path(std::string("forceswitch/") + (*c ? c : "fsw0.8") + ".mdp"), mdp, set);
      SCOPED_TRACE(mdp);
      System sys;
      load_system("spce_1k5", mdp, sys);
      ASSERT_EQ(sys.in.mdp.coulombtype, pme ? CoulombType::Pme : CoulombType::ReactionField);
      const auto [ec, eg] = expect_step0_like_cpu(sys);
      if (!*c && !pme) lj_shift = ec.lj;
      if (*c) {
        EXPECT_GT(std::fabs(ec.lj - lj_shift), 1.0) << "the switch did not change LJ (SR)";
      }
    }
  }
}

// Listed interactions on one GPU (cpu/listed_term.h in double, forces summed in fixed point) against the CPU
// double path at step 0: every energy term, LJ and Coulomb, the virial, the forces (pairs, mesh and listed)
// and the positions after one step; the tests/data/bonded peptide in four force fields (reaction field),
// solvated with PME, and with position restraints (tests/data/posres).
void expect_listed_matches_cpu(const std::string& system, const std::string& mdp,
                               const std::string& ref = "") {
  SCOPED_TRACE(system);
  System sys;
  load_system(system, mdp, sys, ref);
  ASSERT_FALSE(sys.in.top.bonded.empty());
  const auto [ec, eg] = expect_step0_like_cpu(sys);
  int terms = 0;
  for (int k = 0; k < kNumBondedTerms; ++k) {
    if (ec.bonded[k] != 0.0) ++terms;
    EXPECT_NEAR(eg.bonded[k], ec.bonded[k], kEnergyRelTol * std::fabs(ec.bonded[k]) + 1e-6)
        << kBondedCsvNames[k];
  }
  EXPECT_GE(terms, 4);
}

TEST(CudaExecutor, ListedInteractionsMatchTheCpuDoublePath) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* ff : {"amber99sb-ildn", "charmm27", "oplsaa", "gromos54a7"})
    expect_listed_matches_cpu(std::string("bonded/") + ff, "../step0.mdp");
  expect_listed_matches_cpu("bonded/solvated", "step0.mdp");
  // With constraints = h-bonds: LINCS in the update (the constraint virial, the positions after one step).
  expect_listed_matches_cpu("bonded/solvated", "hbonds_step0.mdp");
  // Position restraints (define = -DPOSRES) off their reference: energy, forces, the diagonal virial.
  expect_listed_matches_cpu("posres", "step0.mdp", "posres/ref.gro");
  // CHARMM's CMAP (the charmm27 peptide's backbone maps, on the device as the CPU's grids).
  expect_listed_matches_cpu("cmap", "step0.mdp");
}

// No device needed: LINCS's grouping for the update kernel's blocks. Every constraint is in one block with
// every constraint it shares an atom with, blocks hold at most kUpdateBlock atoms and constraints, the slots
// name the constraints' atoms, and each slot lists its constraints (ascending, the b bit right); the coupling
// coefficients are LincsCpu's (sign by the shared atom's roles, 1/m blc_i blc_j). A group larger than a
// block (all-bonds makes the peptide one) is an InputError that says what to do.
// The virtual sites' layout on the GPU (no device needed): each constructing atom's entries, summed in their
// order with the kernels' shared definitions (cpu/vsite_term.h), give bitwise the CPU's spread forces, on
// TIP5P water (two sites per molecule share all three atoms) with random site forces; the virial's change
// the same within rounding.
TEST(CudaExecutor, VsiteLayoutSumsEachAtomsSharesInTheCpusOrder) {
  System sys;
  load_system("vsite/tip5p", "step0_rf.mdp", sys);
  const Topology& top = sys.in.top;
  const Box& box = sys.in.gro.box;
  ASSERT_GT(top.vsites.size(), 100u);
  const cuda::VsiteLayout l = cuda::vsite_layout(top);
  ASSERT_EQ(l.sites.size(), top.vsites.size());
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-500.0, 500.0);
  std::vector<Vec3> f(top.num_atoms());
  for (Vec3& v : f) v = {u(rng), u(rng), u(rng)};
  std::vector<Vec3> f_cpu = f;
  Tensor vir_cpu;
  spread_vsite_forces(top.vsites, sys.state.x, f_cpu, box, &vir_cpu);
  // The spread kernel's sums, on the host.
  std::vector<Vec3> f_gpu = f;
  Tensor vir_gpu;
  const std::vector<Vec3>& x = sys.state.x;
  for (size_t t = 0; t < l.atoms.size(); ++t) {
    const int a = l.atoms[t];
    Vec3 sum = f[a];
    for (int e = l.start[t]; e < l.start[t + 1]; ++e) {
      const cuda::VsiteDev& s = l.sites[l.entries[e] >> 2];
      const int slot = l.entries[e] & 3;
      ASSERT_EQ(s.atoms[slot], a);
      const Vec3 rij = minimum_image(x[s.atoms[1]], x[s.atoms[0]], box);
      const Vec3 rik = s.kind == static_cast<int>(VsiteKind::Two)
                           ? Vec3{}
                           : minimum_image(x[s.atoms[2]], x[s.atoms[0]], box);
      Vec3 share[3];
      vsite_forces(static_cast<VsiteKind>(s.kind), s.p, f[s.site], rij, rik, share);
      sum += share[slot];
      add_outer(vir_gpu, minimum_image(x[a], x[s.site], box), share[slot], -0.5);
    }
    f_gpu[a] = sum;
  }
  for (const cuda::VsiteDev& s : l.sites) f_gpu[s.site] = Vec3{};
  for (int i = 0; i < top.num_atoms(); ++i)
    for (int d = 0; d < 3; ++d) ASSERT_EQ(f_gpu[i][d], f_cpu[i][d]) << "atom " << i << " dimension " << d;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      EXPECT_NEAR(vir_gpu.m[a][b], vir_cpu.m[a][b], 1e-9 * (1.0 + std::fabs(vir_cpu.m[a][b])));
  EXPECT_GT(std::fabs(vir_cpu.m[0][0]), 1e-3);  // TIP5P's out-of-plane sites change the virial
}

TEST(CudaExecutor, LincsLayoutKeepsCoupledConstraintsInOneBlock) {
  System sys;
  load_system("bonded/solvated", "hbonds_step0.mdp", sys);
  const Topology& top = sys.in.top;
  ASSERT_GT(top.constraints.size(), 20u);
  const cuda::LincsLayout l = cuda::lincs_layout(top);
  std::vector<int> block_of(top.constraints.size(), -1), local_of(top.constraints.size(), -1);
  size_t listed = 0;
  for (size_t b = 0; b < l.blocks.size(); ++b) {
    const cuda::LincsBlockDev& lb = l.blocks[b];
    EXPECT_LE(lb.natoms, cuda::kUpdateBlock);
    EXPECT_LE(lb.ncon, cuda::kUpdateBlock);
    for (int k = 0; k < lb.ncon; ++k) {
      const cuda::LincsConDev& c = l.con[lb.con_start + k];
      ASSERT_LT(c.a, lb.natoms);
      ASSERT_LT(c.b, lb.natoms);
      const int ga = l.atoms[lb.atom_start + c.a], gb = l.atoms[lb.atom_start + c.b];
      // Find the topology's constraint with these atoms.
      int found = -1;
      for (size_t i = 0; i < top.constraints.size(); ++i)
        if (top.constraints[i].a == ga && top.constraints[i].b == gb) found = static_cast<int>(i);
      ASSERT_GE(found, 0);
      EXPECT_EQ(block_of[found], -1) << "constraint " << found << " twice";
      block_of[found] = static_cast<int>(b);
      local_of[found] = k;
      EXPECT_DOUBLE_EQ(c.length, top.constraints[found].length);
      EXPECT_DOUBLE_EQ(c.blc, 1.0 / std::sqrt(1.0 / top.mass[ga] + 1.0 / top.mass[gb]));
      ++listed;
    }
  }
  EXPECT_EQ(listed, top.constraints.size());
  for (size_t i = 0; i < top.constraints.size(); ++i) {
    const Constraint& ci = top.constraints[i];
    const cuda::LincsBlockDev& lb = l.blocks[block_of[i]];
    const int g = lb.con_start + local_of[i];
    std::vector<std::pair<int, double>> expected;
    for (int atom : {ci.a, ci.b})
      for (size_t j = 0; j < top.constraints.size(); ++j) {
        const Constraint& cj = top.constraints[j];
        if (j == i || (cj.a != atom && cj.b != atom)) continue;
        EXPECT_EQ(block_of[j], block_of[i]) << "coupled constraints " << i << " and " << j;
        const double sign = (ci.a == atom) == (cj.a == atom) ? -1.0 : 1.0;
        expected.push_back(
            {local_of[j], sign / top.mass[atom] * l.con[g].blc * l.con[lb.con_start + local_of[j]].blc});
      }
    ASSERT_EQ(l.coupling_start[g + 1] - l.coupling_start[g], static_cast<int>(expected.size())) << i;
    for (size_t q = 0; q < expected.size(); ++q) {
      EXPECT_EQ(l.coupling_other[l.coupling_start[g] + q], expected[q].first);
      EXPECT_DOUBLE_EQ(l.coupling_coef[l.coupling_start[g] + q], expected[q].second);
    }
  }
  for (const cuda::LincsBlockDev& lb : l.blocks)
    for (int s = 0; s < lb.natoms; ++s) {
      const int atom = l.atoms[lb.atom_start + s];
      std::vector<int> expected;
      for (int k = 0; k < lb.ncon; ++k) {
        const cuda::LincsConDev& c = l.con[lb.con_start + k];
        if (c.a == s) expected.push_back(k << 1);
        if (c.b == s) expected.push_back(k << 1 | 1);
      }
      const std::vector<int> got(l.atom_con.begin() + l.atom_con_start[lb.atom_start + s],
                                 l.atom_con.begin() + l.atom_con_start[lb.atom_start + s + 1]);
      EXPECT_EQ(got, expected) << "atom " << atom;
    }

  // An atom both in a SETTLE water and in a LINCS constraint would be moved by two blocks at once.
  Topology overlap;
  overlap.mass = {15.9994, 1.008, 1.008};
  overlap.settles = {{0, 1, 2, 0.1, 0.1633}};
  overlap.constraints = {{0, 1, 0.1}};
  try {
    (void)cuda::lincs_layout(overlap);
    ADD_FAILURE() << "an atom in SETTLE and LINCS gave no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("atom 1 is in a SETTLE water and in a LINCS constraint"),
              std::string::npos)
        << e.what();
  }

  System all;
  load_system("bonded/amber99sb-ildn", "../allbonds_step0.mdp", all);
  try {
    (void)cuda::lincs_layout(all.in.top);
    ADD_FAILURE() << "all-bonds on the peptide gave no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("coupled constraints"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("use constraints = h-bonds"), std::string::npos) << e.what();
  }
}

// An environment variable set for one scope.
struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const std::string& value) : name(n) { setenv(n, value.c_str(), 1); }
  ~ScopedEnv() { unsetenv(name); }
};

// Step 0 with energies of a fresh CUDA executor, under the environment as set: energies, forces, pairs.
struct GpuStep0 {
  StepEnergies e;
  std::vector<Vec3> f;
  size_t pairs = 0;
  std::string report;  // report_json()
};
GpuStep0 gpu_step0(System& sys) {
  CudaExecutor gpu(sys.config());
  gpu.load(sys.state);
  GpuStep0 r;
  gpu.step(request(sys.in.mdp, 0, true), &r.e);
  gpu.forces(r.f);
  r.pairs = gpu.num_pairs();
  r.report = gpu.report_json();
  return r;
}

// The GPU's pair count against the CPU list's (float positions may move a borderline pair or two).
void expect_cpu_pair_count(const System& sys, size_t gpu_pairs) {
  PairList list;
  build_pair_list(sys.state.x, sys.in.gro.box, sys.in.mdp.rlist, sys.in.top, 2, list);
  EXPECT_NEAR(static_cast<double>(gpu_pairs), static_cast<double>(list.num_pairs()),
              1e-5 * static_cast<double>(list.num_pairs()));
}

// No device needed: the pair list's size bound, the most atoms within the search's reach of any cell, against
// a direct sum over every cell's window (also where the window wraps onto itself).
TEST(CudaExecutor, MostAtomsWithinReachMatchesADirectSum) {
  struct Grid {
    int nc[3], reach[3];
  };
  std::mt19937 rng(7);
  for (const Grid& g :
       {Grid{{5, 7, 20}, {2, 2, 8}}, Grid{{4, 4, 4}, {2, 2, 2}}, Grid{{9, 3, 54}, {3, 1, 8}}}) {
    const int ncell = g.nc[0] * g.nc[1] * g.nc[2];
    std::vector<int> count(ncell);
    for (int& c : count) c = static_cast<int>(rng() % 30);
    int most = 0;
    for (int x = 0; x < g.nc[0]; ++x)
      for (int y = 0; y < g.nc[1]; ++y)
        for (int z = 0; z < g.nc[2]; ++z) {
          int w = 0;
          for (int dx = -g.reach[0]; dx <= g.reach[0]; ++dx)
            for (int dy = -g.reach[1]; dy <= g.reach[1]; ++dy)
              for (int dz = -g.reach[2]; dz <= g.reach[2]; ++dz) {
                const int ux = ((x + dx) % g.nc[0] + g.nc[0]) % g.nc[0];
                const int uy = ((y + dy) % g.nc[1] + g.nc[1]) % g.nc[1];
                const int uz = ((z + dz) % g.nc[2] + g.nc[2]) % g.nc[2];
                w += count[(ux * g.nc[1] + uy) * g.nc[2] + uz];
              }
          most = std::max(most, w);
        }
    EXPECT_EQ(cuda::most_within_reach(count, g.nc, g.reach), most)
        << g.nc[0] << "x" << g.nc[1] << "x" << g.nc[2];
  }
}

// The search's order of an atom's x-y columns (column_place, no GPU needed): every column of a window gets
// its own place, in the order of visiting the window by periodic shift runs in x, then in y, then x, then y.
TEST(CudaExecutor, ColumnPlacesFollowTheShiftRuns) {
  std::mt19937 rng(11);
  auto shift = [](int u, int nc) { return u < 0 ? -1 : (u >= nc ? 1 : 0); };
  auto run_end = [&](int u, int hi, int nc) {
    const int s = shift(u, nc);
    return s < 0 ? std::min(hi, -1) : (s == 0 ? std::min(hi, nc - 1) : hi);
  };
  for (int t = 0; t < 5000; ++t) {
    const int ncx = 1 + static_cast<int>(rng() % 12), ncy = 1 + static_cast<int>(rng() % 12);
    // Windows of up to 9 cells (reach 4) starting down to 4 cells below the grid.
    const int lox = -4 + static_cast<int>(rng() % (ncx + 5)), loy = -4 + static_cast<int>(rng() % (ncy + 5));
    const int hix = lox + static_cast<int>(rng() % std::min(9, ncx + 2));
    const int hiy = loy + static_cast<int>(rng() % std::min(9, ncy + 2));
    std::vector<std::pair<int, int>> visit;  // the shift-grouped loops
    for (int ax = lox; ax <= hix; ax = run_end(ax, hix, ncx) + 1)
      for (int ay = loy; ay <= hiy; ay = run_end(ay, hiy, ncy) + 1)
        for (int ux = ax; ux <= run_end(ax, hix, ncx); ++ux)
          for (int uy = ay; uy <= run_end(ay, hiy, ncy); ++uy) visit.emplace_back(ux, uy);
    const int3 cx = cuda::run_counts(lox, hix, ncx), cy = cuda::run_counts(loy, hiy, ncy);
    ASSERT_EQ(cx.x + cx.y + cx.z, hix - lox + 1);
    std::vector<std::pair<int, int>> placed(visit.size(), {-999, -999});
    for (int ux = lox; ux <= hix; ++ux)
      for (int uy = loy; uy <= hiy; ++uy) {
        const int at = cuda::column_place(ux - lox, uy - loy, shift(ux, ncx) + 1, shift(uy, ncy) + 1, cx, cy);
        ASSERT_GE(at, 0);
        ASSERT_LT(at, static_cast<int>(placed.size()));
        placed[at] = {ux, uy};
      }
    ASSERT_EQ(placed, visit) << "x " << lox << ".." << hix << " of " << ncx << ", y " << loy << ".." << hiy
                             << " of " << ncy;
  }
}

// Every count of list lanes per atom (the search deals an atom's neighbours to them entry by entry, staging
// and writing whole groups of every lane) and every search grid finds the same pairs (the same float tests),
// and the forces agree to float summation order; the first against the CPU reference.
TEST(CudaExecutor, EveryListLaneCountAndSearchGridFindsTheSamePairs) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  System sys;
  load_system("spce_9k", "nve.mdp", sys);
  GpuStep0 first;
  struct Case {
    const char *tpa, *reach_xy, *reach_z;
  };
  for (const Case& c : {Case{"32", "2", "8"}, Case{"8", "2", "8"}, Case{"2", "2", "8"}, Case{"1", "2", "8"},
                        Case{"8", "3", "2"}, Case{"4", "2", "2"}}) {
    ScopedEnv tpa("HALOMD_GPU_TPA", c.tpa), xy("HALOMD_GPU_REACH_XY", c.reach_xy),
        z("HALOMD_GPU_REACH_Z", c.reach_z);
    SCOPED_TRACE(std::string("lanes per atom ") + c.tpa + ", reach " + c.reach_xy + " " + c.reach_z);
    const GpuStep0 r = gpu_step0(sys);
    if (first.f.empty()) {
      first = r;
      expect_cpu_pair_count(sys, r.pairs);
      continue;
    }
    EXPECT_EQ(r.pairs, first.pairs);
    // The energy kernel sums each group of eight list entries in float before adding it in double, so the
    // energies depend on how the list is dealt to the lanes, by the float rounding of those sums (~1e-8
    // relative measured on spce_9k); the pairs themselves are compared exactly above.
    EXPECT_LT(rel_diff(r.e.lj, first.e.lj), 1e-7);
    EXPECT_LT(rel_diff(r.e.coulomb, first.e.coulomb), 1e-7);
    double f2 = 0.0, d_max = 0.0;
    for (size_t i = 0; i < r.f.size(); ++i) {
      f2 += norm2(first.f[i]);
      d_max = std::max(d_max, std::sqrt(norm2(r.f[i] - first.f[i])));
    }
    EXPECT_LT(d_max / std::sqrt(f2 / r.f.size()), 1e-4);
  }
}

// The search's copies of its candidate rounds (the general test, 3 or 5 exclusion slots) must list the same
// neighbours in the same order: forced onto each (HALOMD_TEST_SEARCH_PATH) for a water box, whose atoms take
// the 3-slot copy by themselves, step 0 gives bitwise the same energies and forces. (The copies with the zone
// test serve the halo rows of domains: test_cuda_dd_mpi's TheDomainsListTheSingleGpuPairs.) So must a chunk
// table of 4 or 13 places instead of 128 (HALOMD_TEST_SEARCH_CHUNKS), refilled every round or every third:
// water atoms have ~85 chunks, so the refill would not run otherwise.
TEST(CudaExecutor, EveryCopyOfTheSearchRoundsListsTheSameNeighbours) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  System sys;
  load_system("spce_9k", "nve.mdp", sys);
  GpuStep0 first;
  const std::pair<const char*, const char*> settings[] = {{"HALOMD_TEST_SEARCH_PATH", "0"},
                                                          {"HALOMD_TEST_SEARCH_PATH", "1"},
                                                          {"HALOMD_TEST_SEARCH_PATH", "2"},
                                                          {"HALOMD_TEST_SEARCH_CHUNKS", "4"},
                                                          {"HALOMD_TEST_SEARCH_CHUNKS", "13"}};
  for (const auto& [var, value] : settings) {
    ScopedEnv forced(var, value);
    SCOPED_TRACE(std::string(var) + "=" + value);
    const GpuStep0 r = gpu_step0(sys);
    if (first.f.empty()) {
      first = r;
      ASSERT_GT(first.pairs, 0u);
      continue;
    }
    EXPECT_EQ(r.pairs, first.pairs);
    EXPECT_EQ(r.e.lj, first.e.lj);
    EXPECT_EQ(r.e.coulomb, first.e.coulomb);
    size_t differ = 0;
    for (size_t i = 0; i < r.f.size(); ++i)
      for (int d = 0; d < 3; ++d) differ += r.f[i][d] != first.f[i][d];
    EXPECT_EQ(differ, 0u);
  }
}

// A box under 4 rlist with one search cell per rlist: the grid must not be refined below rlist / reach (it
// once was, to 4 cells, and the window of one cell then missed pairs).
// Also a grid of 9 x 9 x 6 cells (2.5 nm box, reach 4 and 3): a cell count that is not a multiple of 8, so
// the cell scan's partial last tile runs.
TEST(CudaExecutor, CoarseSearchGridOnASmallBoxFindsEveryPair) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  System sys;
  load_system("spce_1k5", "nve.mdp", sys);
  for (const char* reach : {"1 1", "4 3"}) {
    SCOPED_TRACE(std::string("reach ") + reach);
    ScopedEnv xy("HALOMD_GPU_REACH_XY", std::string(1, reach[0])),
        z("HALOMD_GPU_REACH_Z", std::string(1, reach[2]));
    expect_cpu_pair_count(sys, gpu_step0(sys).pairs);
  }
}

// The cell scan is one block looping over tiles of 8,192 cells, each starting from the last one's total: a
// grid of 16 x 16 x 36 cells (spce_9k with cells of rlist / 4 in x and y and rlist / 9 in z) is two tiles, so
// every pair must still be found (the benchmark boxes of 45k and 203k atoms are 2 and 7 tiles; the test boxes
// otherwise one).
TEST(CudaExecutor, ACellScanOfSeveralTilesFindsEveryPair) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  System sys;
  load_system("spce_9k", "nve.mdp", sys);
  ScopedEnv xy("HALOMD_GPU_REACH_XY", "4"), z("HALOMD_GPU_REACH_Z", "9");
  expect_cpu_pair_count(sys, gpu_step0(sys).pairs);
}

TEST(CudaExecutor, ThermostatDrawsTheCpuRandomNumbers) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  System sys;
  load_system("spce_1k5", "vrescale.mdp", sys);
  CpuExecutor cpu(sys.config());
  CudaExecutor gpu(sys.config());
  cpu.load(sys.state);
  gpu.load(sys.state);
  StepEnergies ec, eg;
  for (int64_t step = 0; step < 2; ++step) {
    cpu.step(request(sys.in.mdp, step, true), &ec);
    gpu.step(request(sys.in.mdp, step, true), &eg);
  }
  // Step 1 is the first coupling step (nsttcouple 10): the integral is minus the energy it added.
  ASSERT_NE(ec.thermostat_integral, 0.0);
  EXPECT_LT(rel_diff(eg.thermostat_integral, ec.thermostat_integral), kGpuThermostatRelTol)
      << eg.thermostat_integral << " vs " << ec.thermostat_integral;
}

// HALOMD_GPU_CLUSTER=1 (the cluster-pair list and its kernels): step-0 energies, virial and forces against
// the CPU double path as the atom-pair path is held to, on a box of three cluster widths (spce_1k5, where a
// cluster meets its own images) and on spce_9k, there also with 3 force blocks (each takes many work items
// in turn, as at large sizes) and the large systems' 16 j-clusters per item; 25 steps over two searches stay
// on the atom path's trajectory and are bitwise repeatable.
TEST(CudaExecutor, ClusterPathMatchesTheCpuAndTheAtomPath) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    const char *name, *chunk, *blocks;  // HALOMD_GPU_CLUSTER_CHUNK and _BLOCKS, nullptr: the default
  };
  for (const Case& c :
       {Case{"spce_1k5", nullptr, nullptr}, Case{"spce_9k", nullptr, nullptr}, Case{"spce_9k", "16", "3"}}) {
    const char* name = c.name;
    SCOPED_TRACE(std::string(name) + (c.blocks ? " with 3 blocks" : ""));
    std::vector<std::unique_ptr<ScopedEnv>> env;
    if (c.chunk) env.push_back(std::make_unique<ScopedEnv>("HALOMD_GPU_CLUSTER_CHUNK", c.chunk));
    if (c.blocks) env.push_back(std::make_unique<ScopedEnv>("HALOMD_GPU_CLUSTER_BLOCKS", c.blocks));
    System sys;
    load_system(name, "nve.mdp", sys);
    CpuExecutor cpu(sys.config());
    cpu.load(sys.state);
    StepEnergies ec;
    cpu.step(request(sys.in.mdp, 0, true), &ec);
    PairList list;
    build_pair_list(sys.state.x, sys.in.gro.box, sys.in.mdp.rlist, sys.in.top, 2, list);
    NonbondedCpu nb(sys.in.top, sys.in.mdp, 2);
    std::vector<Vec3> fc(sys.state.x.size());
    NonbondedEnergies unused;
    nb.compute(list, sys.state.x, sys.in.gro.box, false, 0, fc, unused);

    GpuStep0 g;
    {
      ScopedEnv cluster("HALOMD_GPU_CLUSTER", "1");
      g = gpu_step0(sys);
    }
    EXPECT_NE(g.report.find("\"gpu_pair_list\": \"cluster\""), std::string::npos) << g.report;
    EXPECT_NE(g.report.find("\"gpu_lanes_per_atom\": null"), std::string::npos) << g.report;
    expect_cpu_pair_count(sys, g.pairs);  // pairs_in_list counts the cluster list's pairs within rlist
    EXPECT_LT(rel_diff(g.e.lj, ec.lj), kEnergyRelTol) << g.e.lj << " vs " << ec.lj;
    EXPECT_LT(rel_diff(g.e.coulomb, ec.coulomb), kEnergyRelTol) << g.e.coulomb << " vs " << ec.coulomb;
    for (int a = 0; a < 3; ++a)
      EXPECT_LT(rel_diff(g.e.virial.m[a][a], ec.virial.m[a][a]), kGpuVirialRelTol)
          << "virial " << a << ": " << g.e.virial.m[a][a] << " vs " << ec.virial.m[a][a];
    ASSERT_EQ(g.f.size(), fc.size());
    double f2 = 0.0, err2 = 0.0, err_max = 0.0;
    for (size_t i = 0; i < fc.size(); ++i) {
      f2 += norm2(fc[i]);
      const double e2 = norm2(g.f[i] - fc[i]);
      err2 += e2;
      err_max = std::max(err_max, std::sqrt(e2));
    }
    const double f_rms = std::sqrt(f2 / fc.size()), err_rms = std::sqrt(err2 / fc.size());
    EXPECT_LT(err_rms / f_rms, kGpuForceRmsRel) << "RMS force " << f_rms << ", RMS error " << err_rms;
    EXPECT_LT(err_max / f_rms, kGpuForceMaxRel) << "RMS force " << f_rms << ", worst error " << err_max;

    // 25 steps (searches at 0, 10 and 20), energies at the last.
    auto run = [&sys](bool cluster_path, StepEnergies& e) {
      ScopedEnv env("HALOMD_GPU_CLUSTER", cluster_path ? "1" : "0");
      CudaExecutor gpu(sys.config());
      gpu.load(sys.state);
      for (int64_t step = 0; step < 25; ++step) gpu.step(request(sys.in.mdp, step, step == 24), &e);
      MdState s;
      gpu.save(s);
      return s;
    };
    StepEnergies e1, e2, ea;
    const MdState s1 = run(true, e1), s2 = run(true, e2), sa = run(false, ea);
    ASSERT_EQ(s1.step, 25);
    size_t differ = 0;
    for (size_t i = 0; i < s1.x.size(); ++i) differ += norm2(s1.x[i] - s2.x[i]) != 0.0 ? 1 : 0;
    EXPECT_EQ(differ, 0u) << "atoms whose positions differ between two runs of the cluster path";
    EXPECT_EQ(e1.lj, e2.lj);
    double dx_max = 0.0;
    for (size_t i = 0; i < sa.x.size(); ++i) dx_max = std::max(dx_max, std::sqrt(norm2(s1.x[i] - sa.x[i])));
    EXPECT_LT(dx_max, kGpuPathsPositionAbsTol);
    EXPECT_LT(rel_diff(e1.lj + e1.coulomb, ea.lj + ea.coulomb), kGpuPathsEnergyRelTol)
        << e1.lj + e1.coulomb << " vs " << ea.lj + ea.coulomb;
  }
}

// The cluster-pair list built on the GPU (cuda/cluster_list.h) is the host reference's
// (cpu/cluster_pairlist.h) slot for slot, entry for entry and mask for mask.
TEST(CudaExecutor, ClusterListOnTheGpuIsTheHostList) {
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* name : {"spce_1k5", "spce_9k"}) {
    System sys;
    load_system(name, "nve.mdp", sys);
    const std::vector<Vec3>& x = sys.state.x;
    const int n = static_cast<int>(x.size());
    const Topology& top = sys.in.top;
    const Box& box = sys.in.gro.box;
    gpu::DeviceBuffer<double> dx[3];
    gpu::DeviceBuffer<int> d_start, d_excl, d_mol;
    for (int k = 0; k < 3; ++k) {
      std::vector<double> h(n);
      for (int i = 0; i < n; ++i) h[i] = x[i][k];
      dx[k].allocate(n, "test positions");
      ASSERT_EQ(cudaMemcpy(dx[k].get(), h.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
    }
    d_start.allocate(top.excl_start.size(), "test exclusions");
    d_excl.allocate(std::max<size_t>(1, top.excl.size()), "test exclusions");
    ASSERT_EQ(cudaMemcpy(d_start.get(), top.excl_start.data(), top.excl_start.size() * sizeof(int),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
    ASSERT_EQ(
        cudaMemcpy(d_excl.get(), top.excl.data(), top.excl.size() * sizeof(int), cudaMemcpyHostToDevice),
        cudaSuccess);
    d_mol.allocate(n, "test molecules");
    ASSERT_EQ(cudaMemcpy(d_mol.get(), top.molecule.data(), n * sizeof(int), cudaMemcpyHostToDevice),
              cudaSuccess);
    gpu::GpuCalls calls;
    calls.create_stream();
    // With molecules (exclusions looked up within a molecule only) and without (looked up for every pair).
    for (const double rlist : {1.0, 1.1}) {
      SCOPED_TRACE(std::string(name) + " rlist " + std::to_string(rlist));
      cuda::DeviceClusterList d;
      const double* const xs[3] = {dx[0].get(), dx[1].get(), dx[2].get()};
      cuda::build_cluster_list(calls, xs, n, box, rlist, d_start.get(), d_excl.get(),
                               rlist == 1.0 ? d_mol.get() : nullptr, 16, d);
      ClusterPairList g, c;
      cuda::download_cluster_list(d, g);
      PairSearchAtoms atoms;
      atoms.x = x;
      atoms.box = box;
      atoms.inv_len = {1.0 / box.len.x, 1.0 / box.len.y, 1.0 / box.len.z};
      build_cluster_pair_list(atoms, rlist, top, c);
      ASSERT_EQ(g.atom_of_slot, c.atom_of_slot);
      ASSERT_EQ(g.entries.size(), c.entries.size());
      for (size_t k = 0; k < c.entries.size(); ++k) {
        const auto &a = g.entries[k], &b = c.entries[k];
        ASSERT_TRUE(a.super == b.super && a.shift == b.shift && a.first == b.first && a.count == b.count)
            << "entry " << k;
      }
      ASSERT_EQ(g.j.size(), c.j.size());
      for (size_t k = 0; k < c.j.size(); ++k)
        ASSERT_TRUE(g.j[k].cj == c.j[k].cj && g.j[k].imask == c.j[k].imask && g.j[k].masks == c.j[k].masks)
            << "j-cluster " << k;
      EXPECT_EQ(g.pair_masks, c.pair_masks);
      for (size_t s = 0; s < c.x_slot.size(); ++s) {
        if (c.atom_of_slot[s] >= 0) {
          ASSERT_EQ(norm2(g.x_slot[s] - c.x_slot[s]), 0.0) << "slot " << s;
        }
      }
    }
  }
}

#else

TEST(CudaExecutor, NotBuilt) { GTEST_SKIP() << "this build has no CUDA executor"; }

#endif

}  // namespace
}  // namespace halomd::test
