// The domain-decomposed CPU executor with the local transport, run in this process against the
// single-domain reference: step-0 energies, pair counts, trajectories, migration, thread invariance.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>

#include "comm/halo_transport.h"
#include "core/errors.h"
#include "cpu/cpu_executor.h"
#include "cpu/dd_domain.h"
#include "cpu/dd_executor.h"
#include "cpu/update.h"
#include "domdec/assignment.h"
#include "domdec/halo_plan.h"
#include "engine/setup.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

struct System {
  SimulationInputs in;
  MdState start;  // x(0) whole, v(-dt/2) from the .gro (the .mdp continues)
};

std::unique_ptr<System> load_system(const std::string& mdp, const std::map<std::string, std::string>& set,
                                    const std::string& system = "spce_1k5") {
  const std::string dir = make_temp_dir("dd_exec");
  write_mdp_with(data_path(system + "/" + mdp), dir + "/run.mdp", set);
  RunOptions opt;
  opt.conf = data_path(system + "/conf.gro");
  opt.top = data_path(system + "/topol.top");
  opt.mdp = dir + "/run.mdp";
  auto sys = std::make_unique<System>();
  sys->in = load_inputs(opt);
  sys->start.x = sys->in.gro.x;
  make_molecules_whole(sys->in.top, sys->in.gro.box, sys->start.x);
  sys->start.v = sys->in.gro.v;
  sys->start.ke_half_prev = kinetic_energy_tensor(sys->start.v, sys->in.top.mass, 1);
  return sys;
}

// One executor stepped as engine/md_run.cpp schedules it (search every nstlist steps, coupling and COM
// removal as the .mdp says). grid.n.x == 0: the single-domain CpuExecutor.
class Stepper {
 public:
  Stepper(const System& sys, const domdec::DdGrid& grid, int threads = 2) : mdp_(sys.in.mdp) {
    cfg_.top = &sys.in.top;
    cfg_.mdp = &sys.in.mdp;
    cfg_.box = sys.in.gro.box;
    cfg_.ndf = sys.in.ndf;
    cfg_.ld_seed = 4242;
    cfg_.threads = threads;
    cfg_.timers = &timers_;
    if (grid.n.x == 0) {
      exec_ = std::make_unique<CpuExecutor>(cfg_);
    } else {
      auto dd = std::make_unique<DdExecutor>(cfg_, comm::make_local_transport(), grid.num_domains(), grid);
      dd_ = dd.get();
      exec_ = std::move(dd);
    }
    exec_->load(sys.start);
  }
  StepEnergies step(bool energy) {
    StepRequest r;
    r.step = step_;
    r.ns = step_ == 0 || step_ % mdp_.nstlist == 0;
    r.energy = energy;
    r.tcouple = mdp_.tcoupl == Tcoupl::VRescale && (step_ + mdp_.nsttcouple - 1) % mdp_.nsttcouple == 0;
    r.comm = mdp_.comm_mode == CommMode::Linear && step_ % mdp_.nstcomm == 0;
    StepEnergies e;
    exec_->step(r, energy ? &e : nullptr);
    ++step_;
    return e;
  }
  void steps(int n) {
    for (int i = 0; i < n; ++i) step(false);
  }
  MdState state() {
    MdState s;
    exec_->save(s);
    return s;
  }
  Executor& exec() { return *exec_; }
  DdExecutor* dd() { return dd_; }

 private:
  const MdParams& mdp_;
  PhaseTimers timers_;
  ExecutorConfig cfg_;
  std::unique_ptr<Executor> exec_;
  DdExecutor* dd_ = nullptr;
  int64_t step_ = 0;
};

void expect_rel(double a, double b, double scale, const char* what) {
  EXPECT_LE(std::fabs(a - b), kDdEnergyRelTol * std::fabs(scale)) << what << ": " << a << " vs " << b;
}

double max_position_difference(const MdState& a, const MdState& b) {
  double worst = 0.0;
  for (size_t i = 0; i < a.x.size(); ++i)
    for (int d = 0; d < 3; ++d) worst = std::max(worst, std::fabs(a.x[i][d] - b.x[i][d]));
  return worst;
}

struct GridCase {
  domdec::IVec3 n;
  double rlist;
  domdec::IVec3 pulses;
};

void PrintTo(const GridCase& c, std::ostream* os) {
  *os << c.n.x << "x" << c.n.y << "x" << c.n.z << ", rlist " << c.rlist;
}

class DdGrids : public ::testing::TestWithParam<GridCase> {};

// On the 2.5 nm box, rlist 1.0 gives one pulse with 2 domains in a dimension; rlist 1.1 needs 3 domains and
// then 2 pulses (rlist + 2 x 0.1 nm margin > 0.833 nm cells).
INSTANTIATE_TEST_SUITE_P(
    Spce1k5, DdGrids,
    ::testing::Values(GridCase{{1, 1, 1}, 1.1, {0, 0, 0}}, GridCase{{2, 1, 1}, 1.0, {1, 0, 0}},
                      GridCase{{2, 2, 1}, 1.0, {1, 1, 0}}, GridCase{{2, 2, 2}, 1.0, {1, 1, 1}},
                      GridCase{{3, 1, 1}, 1.1, {2, 0, 0}}, GridCase{{3, 3, 1}, 1.1, {2, 2, 0}},
                      GridCase{{1, 2, 3}, 1.0, {0, 1, 2}}),
    [](const auto& info) {
      const auto& n = info.param.n;
      return std::to_string(n.x) + "x" + std::to_string(n.y) + "x" + std::to_string(n.z);
    });

TEST_P(DdGrids, StepZeroEnergiesAndPairsMatchOneDomain) {
  const GridCase& c = GetParam();
  const auto sys = load_system("nve.mdp", {{"rlist", std::to_string(c.rlist)}});
  Stepper one(*sys, domdec::DdGrid{{0, 0, 0}});
  Stepper dd(*sys, domdec::DdGrid{c.n});
  const StepEnergies a = one.step(true);
  const StepEnergies b = dd.step(true);
  EXPECT_EQ(dd.dd()->stats().pulses().x, c.pulses.x);
  EXPECT_EQ(dd.dd()->stats().pulses().y, c.pulses.y);
  EXPECT_EQ(dd.dd()->stats().pulses().z, c.pulses.z);
  // Every pair within rlist is in exactly one domain's list.
  EXPECT_EQ(dd.exec().num_pairs(), one.exec().num_pairs());
  expect_rel(b.lj, a.lj, a.lj, "LJ");
  expect_rel(b.coulomb, a.coulomb, a.coulomb, "Coulomb");
  const double vir_scale = std::fabs(a.virial.trace());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      expect_rel(b.virial.m[i][j], a.virial.m[i][j], vir_scale, "virial");
      expect_rel(b.kinetic.m[i][j], a.kinetic.m[i][j], a.kinetic.trace(), "kinetic");
    }
}

class DdTrajectories : public ::testing::TestWithParam<GridCase> {};

INSTANTIATE_TEST_SUITE_P(Spce1k5, DdTrajectories,
                         ::testing::Values(GridCase{{2, 1, 1}, 1.0, {1, 0, 0}},
                                           GridCase{{2, 2, 2}, 1.0, {1, 1, 1}},
                                           GridCase{{3, 1, 1}, 1.1, {2, 0, 0}}),
                         [](const auto& info) {
                           const auto& n = info.param.n;
                           return std::to_string(n.x) + "x" + std::to_string(n.y) + "x" + std::to_string(n.z);
                         });

TEST_P(DdTrajectories, PositionsMatchOneDomainAfter200NveSteps) {
  const GridCase& c = GetParam();
  const auto sys = load_system("nve.mdp", {{"rlist", std::to_string(c.rlist)}});
  Stepper one(*sys, domdec::DdGrid{{0, 0, 0}});
  Stepper dd(*sys, domdec::DdGrid{c.n});
  one.steps(200);
  dd.steps(200);
  const MdState a = one.state(), b = dd.state();
  ASSERT_EQ(b.x.size(), a.x.size());
  EXPECT_EQ(b.step, 200);
  const double worst = max_position_difference(a, b);
  EXPECT_LT(worst, kDdPositionTol) << "largest coordinate difference " << worst << " nm";
  // Molecules crossed domain boundaries, and every atom is still home in exactly one domain (save() checks
  // that the gathered atoms are each present once).
  EXPECT_GT(dd.dd()->stats().migrated_atoms(), 0);
  EXPECT_EQ(dd.dd()->stats().home_atoms(), static_cast<int64_t>(a.x.size()));
}

TEST(DdExecutor, VrescaleRunMigratesAndFollowsOneDomain) {
  // Thermostat (same random stream), COM removal every 10 steps and 300 steps of diffusion: atoms migrate,
  // none is lost, and the trajectory stays with the single-domain one.
  const auto sys = load_system("vrescale.mdp", {{"rlist", "1.0"}, {"nstcomm", "10"}});
  Stepper one(*sys, domdec::DdGrid{{0, 0, 0}});
  Stepper dd(*sys, domdec::DdGrid{{2, 2, 1}});
  for (int block = 0; block < 3; ++block) {
    one.steps(100);
    dd.steps(100);
    const MdState a = one.state(), b = dd.state();
    EXPECT_LT(max_position_difference(a, b), kDdPositionTol) << "after " << b.step << " steps";
    EXPECT_NEAR(b.thermostat_integral, a.thermostat_integral,
                1e-9 * std::fabs(a.thermostat_integral) + 1e-12);
    EXPECT_EQ(dd.dd()->stats().home_atoms(), static_cast<int64_t>(a.x.size()));
  }
  EXPECT_GT(dd.dd()->stats().migrated_atoms(), 50);
  EXPECT_EQ(dd.dd()->stats().searches(), 30);
}

TEST(DdExecutor, ThreadCountDoesNotChangeAnyBit) {
  const auto sys = load_system("nve.mdp", {{"rlist", "1.0"}});
  Stepper a(*sys, domdec::DdGrid{{2, 2, 1}}, 1);
  Stepper b(*sys, domdec::DdGrid{{2, 2, 1}}, 3);
  a.steps(19);
  b.steps(19);
  const StepEnergies ea = a.step(true), eb = b.step(true);
  EXPECT_EQ(ea.lj, eb.lj);
  EXPECT_EQ(ea.coulomb, eb.coulomb);
  EXPECT_EQ(ea.virial.trace(), eb.virial.trace());
  const MdState sa = a.state(), sb = b.state();
  EXPECT_EQ(max_position_difference(sa, sb), 0.0);
}

TEST(DdExecutor, GridThatDoesNotFitTheCutoffIsAnInputError) {
  const auto sys = load_system("nve.mdp", {});  // rlist 1.1: 2 domains in a 2.5 nm edge need 2 pulses
  ExecutorConfig cfg;
  PhaseTimers timers;
  cfg.top = &sys->in.top;
  cfg.mdp = &sys->in.mdp;
  cfg.box = sys->in.gro.box;
  cfg.timers = &timers;
  DdExecutor dd(cfg, comm::make_local_transport(), 2, domdec::DdGrid{{2, 1, 1}});
  try {
    dd.load(sys->start);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("2 pulses"), std::string::npos) << e.what();
  }
  DdExecutor any(cfg, comm::make_local_transport(), 2, domdec::DdGrid{{0, 0, 0}});
  EXPECT_THROW(any.load(sys->start), InputError);
}

// The solvated peptide (PME, listed interactions, h-bonds by LINCS beside SETTLE) on 2x2x1 domains of update
// groups: every term and the positions follow one domain over 100 steps, as atoms migrate. Its listed
// interactions and excluded pairs between groups are computed where the halo brings their atoms together
// (cpu/dd_domain.h); a term counted twice or missed would show in its energy or stop the run.
TEST(DdExecutor, PeptideWithConstraintsFollowsOneDomain) {
  const auto sys = load_system("hbonds_nve.mdp", {}, "bonded/solvated");
  ASSERT_FALSE(sys->in.top.bonded.empty());
  ASSERT_FALSE(sys->in.top.constraints.empty());
  Stepper one(*sys, domdec::DdGrid{{0, 0, 0}});
  Stepper dd(*sys, domdec::DdGrid{{2, 2, 1}});
  for (int block = 0; block < 2; ++block) {
    one.steps(49);
    dd.steps(49);
    const StepEnergies a = one.step(true), b = dd.step(true);
    SCOPED_TRACE(::testing::Message() << "step " << 50 * (block + 1) - 1);
    const double scale = std::fabs(a.lj) + std::fabs(a.coulomb);
    for (int t = 0; t < kNumBondedTerms; ++t) expect_rel(b.bonded[t], a.bonded[t], scale, kBondedCsvNames[t]);
    expect_rel(b.lj, a.lj, a.lj, "LJ");
    expect_rel(b.coulomb, a.coulomb, a.coulomb, "Coulomb");
    expect_rel(b.coulomb_recip, a.coulomb_recip, a.coulomb, "Coulomb recip.");
    const double vir_scale = std::fabs(a.virial.trace());
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) expect_rel(b.virial.m[i][j], a.virial.m[i][j], vir_scale, "virial");
  }
  EXPECT_GT(one.step(true).bonded[static_cast<int>(BondedTermIndex::ProperDih)], 100.0);
  dd.step(true);
  const MdState a = one.state(), b = dd.state();
  EXPECT_LT(max_position_difference(a, b), kDdPositionTol);
  EXPECT_GT(dd.dd()->stats().migrated_atoms(), 0);
  EXPECT_EQ(dd.dd()->stats().home_atoms(), static_cast<int64_t>(a.x.size()));
}

// A listed interaction whose atoms lie further apart than the halo reaches is computed by no domain: the
// search stops naming the step, rather than running without it. Two bonded peptide atoms 2 nm apart along x
// on 2x1x1 domains of the 4.2 nm box: the lower one 1.6 nm above its cell's lower face (beyond the halo the
// upper domain gets across the periodic boundary), the upper one 1.5 nm into the upper cell.
TEST(DdExecutor, AListedInteractionBeyondTheHaloStopsTheRunNamingTheStep) {
  auto sys = load_system("step0.mdp", {}, "bonded/solvated");
  const BondedTerm& bond = sys->in.top.bonded.front();
  ASSERT_EQ(bond.kind, BondedKind::Bond);
  Vec3& xa = sys->start.x[bond.atoms[0]];
  Vec3& xb = sys->start.x[bond.atoms[1]];
  xa.x = 1.6;
  xb = xa;
  xb.x = 3.6;
  try {
    Stepper dd(*sys, domdec::DdGrid{{2, 1, 1}});
    dd.step(true);
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("of the " + std::to_string(sys->in.top.bonded.size()) + " listed interactions"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("step 0"), std::string::npos) << what;
    EXPECT_NE(
        what.find(fmt::format("(interaction 1 of the topology, on atoms {} {}, is computed by no domain)",
                              bond.atoms[0] + 1, bond.atoms[1] + 1)),
        std::string::npos)
        << what;
  }
}

// Where the halo reaches through the neighbour to the far side of the box (two domains along x, a send range
// of 1.94 nm in cells of 2.1 nm: GPU domains' skin makes such ranges), a domain also holds far images of the
// atoms beside it across the face the two share. With the far-image rule (LocalTopologyIndex::far) every
// listed interaction and excluded pair of the solvated peptide is computed by exactly one domain; without it
// some are computed by both, as the first GPU run of the listed interactions found (bench/NOTES.md,
// twenty-eighth session).
TEST(DdDomain, AHaloThroughTheNeighbourComputesEachInteractionOnce) {
  const auto sys = load_system("hbonds_nve.mdp", {}, "bonded/solvated");
  const Topology& top = sys->in.top;
  const Box& box = sys->in.gro.box;
  const domdec::DdGrid grid{{2, 1, 1}};
  const std::vector<int> first =
      domdec::update_group_first_atoms(top.num_atoms(), top.settles, top.constraints, top.vsites);
  // The range of the first GPU run: rlist 1.029 nm plus two skins of 0.40, the groups' margin 0.109 nm.
  const domdec::HaloRange range{1.829, 0.109};
  ASSERT_GT(range.send_range(), 0.9 * box.len.x / 2) << "the halo must reach nearly through the neighbour";
  std::vector<std::vector<Vec3>> x_local;
  const domdec::DdPlan plan = domdec::build_plan_with(grid, box, sys->start.x, first, range, &x_local);
  ASSERT_EQ(plan.domains.size(), 2u);
  ASSERT_EQ(plan.domains[0].pulses.size(), 1u);
  LocalTopologyIndex index = make_local_topology_index(top, first);
  const int64_t want_excluded = static_cast<int64_t>(top.excl.size()) / 2;
  for (const bool rule : {true, false}) {
    index.far = rule ? far_image_distance(grid, box) : Vec3{1e300, 1e300, 1e300};
    int64_t listed = 0, excluded = 0;
    for (size_t d = 0; d < 2; ++d) {
      DdDomain dom;
      dom.plan = plan.domains[d];
      dom.home.assign(dom.plan.global.begin(), dom.plan.global.begin() + dom.plan.num_home);
      dom.x_local = x_local[d];
      build_local_interactions(dom, top, 1, &index);
      listed += static_cast<int64_t>(dom.listed.size());
      excluded += local_excluded_pairs(dom);
    }
    if (rule) {
      EXPECT_EQ(listed, static_cast<int64_t>(top.bonded.size()));
      EXPECT_EQ(excluded, want_excluded);
    } else {  // the far images add interactions across the shared face a second time
      EXPECT_GT(listed, static_cast<int64_t>(top.bonded.size()));
      EXPECT_GT(excluded, want_excluded);
    }
  }
}

// A repartition adds the arrivals to the kept home atoms in place; the result is set_home's from the kept
// atoms and the arrivals, field by field.
TEST(DdDomain, AddingArrivalsInPlaceGivesSetHomesHomeSet) {
  std::mt19937_64 rng(31);
  const TestSystem s = random_system(rng, Box{{3.0, 3.0, 3.0}}, 200);
  Topology top;
  top.mass.resize(s.x.size());
  for (size_t i = 0; i < s.x.size(); ++i)
    top.mass[i] = i % 5 == 0 ? 0.0 : 1.0 + 0.01 * static_cast<double>(i);
  std::vector<comm::AtomState> kept, arriving;
  std::uniform_int_distribution<int> pick(0, 3);
  for (int g = 0; g < static_cast<int>(s.x.size()); ++g) {
    const comm::AtomState a{g, 0, s.x[g], Vec3{0.1 * g, -0.2 * g, 0.3}};
    (pick(rng) == 0 ? arriving : kept).push_back(a);
  }
  std::shuffle(arriving.begin(), arriving.end(), rng);
  for (const size_t count : {size_t{0}, size_t{1}, arriving.size()}) {
    const std::vector<comm::AtomState> some(arriving.begin(), arriving.begin() + count);
    DdDomain in_place, rebuilt;
    set_home(in_place, top, kept);
    add_arrivals(in_place, top, some);
    std::vector<comm::AtomState> all = kept;
    all.insert(all.end(), some.begin(), some.end());
    set_home(rebuilt, top, all);
    EXPECT_EQ(in_place.home, rebuilt.home);
    ASSERT_EQ(in_place.x.size(), rebuilt.x.size());
    ASSERT_EQ(in_place.v.size(), rebuilt.v.size());
    for (size_t i = 0; i < rebuilt.x.size(); ++i)
      for (int d = 0; d < 3; ++d) {
        EXPECT_EQ(in_place.x[i][d], rebuilt.x[i][d]);
        EXPECT_EQ(in_place.v[i][d], rebuilt.v[i][d]);
      }
    EXPECT_EQ(in_place.mass, rebuilt.mass);
    EXPECT_EQ(in_place.inv_mass, rebuilt.inv_mass);
    EXPECT_EQ(in_place.x_new.size(), rebuilt.x_new.size());
    EXPECT_EQ(in_place.f.size(), rebuilt.f.size());
  }
}

// place_home_atoms keeps a molecule's last image where it still puts the first atom in the box: whatever the
// hints (the right images, random ones, ones a box away, none), the images and the domain-frame positions
// are those of the owner rule's wrap, bit for bit, also for a first atom exactly on a face of the box.
TEST(DdDomain, PlacingHomeAtomsWithAnyImageHintsGivesTheWrappedImages) {
  std::mt19937_64 rng(32);
  const Box box{{3.0, 3.5, 4.0}};
  TestSystem s = random_system(rng, box, 150);
  const std::vector<int> first = domdec::first_atoms(s.molecule);
  std::uniform_int_distribution<int> far(-3, 3);
  std::vector<Vec3> x = s.x;
  for (size_t i = 0; i < x.size();) {  // whole molecules moved by box lengths
    const Vec3 move{far(rng) * box.len.x, far(rng) * box.len.y, far(rng) * box.len.z};
    size_t j = i;
    for (; j < x.size() && first[j] == first[i]; ++j) x[j] += move;
    i = j;
  }
  x[0].x = 2.0 * box.len.x;  // atom 0 starts a molecule: its first atom exactly on a face after the wrap
  DdDomain ref;
  ref.home.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) ref.home[i] = static_cast<int>(i);
  ref.x = x;
  const std::vector<Vec3> frame_ref = place_home_atoms(ref, box, first);
  std::uniform_int_distribution<int> any(-5, 5), off(-1, 1);
  std::vector<domdec::IVec3> random(x.size()), shifted = ref.image;
  for (auto& k : random) k = {any(rng), any(rng), any(rng)};
  for (auto& k : shifted) k = {k.x + off(rng), k.y + off(rng), k.z};
  for (const std::vector<domdec::IVec3>* hint : {&ref.image, &random, &shifted}) {
    DdDomain d;
    d.home = ref.home;
    d.x = x;
    d.image = *hint;
    const std::vector<Vec3> frame = place_home_atoms(d, box, first);
    ASSERT_EQ(d.image.size(), ref.image.size());
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(d.image[i].x, ref.image[i].x);
      EXPECT_EQ(d.image[i].y, ref.image[i].y);
      EXPECT_EQ(d.image[i].z, ref.image[i].z);
      for (int c = 0; c < 3; ++c) EXPECT_EQ(frame[i][c], frame_ref[i][c]) << "atom " << i;
    }
  }
}

}  // namespace
}  // namespace halomd::test
