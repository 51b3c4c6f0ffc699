// GROMACS's listed interactions on the CPU reference (bonds, angles, dihedrals, 1-4 pairs): a peptide from
// gmx pdb2gmx in amber99sb-ildn, charmm27, oplsaa and gromos54a7 against GROMACS 2022 (gmx_d,
// tests/make_bonded_refdata.sh): every step-0 energy term and the forces; the peptide solvated with PME at
// step 0 and over a 400-step NVE run; forces against finite differences for each kind, also across the box
// boundary; the parameter lookup's rules (wildcards, funct 9 blocks, gen-pairs, errors naming the line);
// threads and continuation; the same on domains of update groups; what is refused until it exists (GPU
// domains).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/errors.h"
#include "core/units.h"
#include "cpu/bonded.h"
#include "cpu/cpu_executor.h"
#include "cpu/lincs.h"
#include "cpu/update.h"
#include "engine/setup.h"
#include "io/cmap_grid.h"
#include "io/top.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

const char* const kForceFields[] = {"amber99sb-ildn", "charmm27", "oplsaa", "gromos54a7"};

// GROMACS's term names (as reference.txt writes them, '_' for spaces) and energy.csv's columns.
const std::pair<const char*, const char*> kTerms[] = {
    {"Bond", "bond"},
    {"G96Bond", "g96bond"},
    {"Angle", "angle"},
    {"G96Angle", "g96angle"},
    {"U-B", "urey_bradley"},
    {"Proper_Dih.", "proper_dih"},
    {"Ryckaert-Bell.", "ryckaert_bell"},
    {"Improper_Dih.", "improper_dih"},
    {"Per._Imp._Dih.", "per_imp_dih"},
    {"CMAP_Dih.", "cmap_dih"},
    {"LJ-14", "lj14"},
    {"Coulomb-14", "coulomb14"},
    {"Position_Rest.", "posres"},
    {"LJ_(SR)", "lj_sr"},
    {"Coulomb_(SR)", "coulomb_sr"},
    {"Coul._recip.", "coul_recip"},
    {"Disper._corr.", "disp_corr"},
    {"Potential", "potential"},
    {"Temperature", "temperature"},  // the degrees of freedom, constraints taken off
};

// reference.txt: per case, GROMACS's terms at step 0.
std::map<std::string, std::map<std::string, double>> read_terms(
    const std::string& file = "bonded/reference.txt") {
  std::map<std::string, std::map<std::string, double>> ref;
  for (const std::string& row : read_rows(data_path(file))) {
    std::istringstream words(row);
    std::string c, term;
    double v = 0;
    words >> c >> term >> v;
    ref[c][term] = v;
  }
  return ref;
}

void expect_step0_like_gromacs(const std::string& system, const std::string& mdp,
                               const std::map<std::string, double>& ref, const std::string& args = "") {
  SCOPED_TRACE(system);
  const std::string out = make_temp_dir("bonded_step0");
  std::string log;
  ASSERT_EQ(run_halomd(system, mdp, {}, out + "/run", "--threads 2 " + args, &log), 0) << log;
  auto e = read_csv(out + "/run/energy.csv");
  ASSERT_EQ(e["step"].size(), 1u);
  for (const auto& [gmx, csv] : kTerms) {
    const bool in_gromacs = ref.count(gmx) > 0;
    // energy.csv has a column for exactly the listed interactions' terms GROMACS reports.
    const bool listed =
        std::find_if(std::begin(kBondedCsvNames), std::end(kBondedCsvNames),
                     [&](const char* n) { return std::string(n) == csv; }) != std::end(kBondedCsvNames);
    if (listed) {
      EXPECT_EQ(e.count(csv) > 0, in_gromacs) << csv;
    }
    if (!in_gromacs) continue;
    ASSERT_TRUE(e.count(csv)) << csv;
    const double r = ref.at(gmx);
    EXPECT_NEAR(e[csv][0], r, kPmeEnergyRelTol * std::fabs(r) + kPrintedEnergyAbsTol) << gmx;
  }
  EXPECT_NEAR(e["pressure"][0], ref.at("Pressure"), kPressureAbsTol);
}

// A molecule longer than half the box (a chain of 20 bonds of 0.15 nm in a 2 nm box, each atom wrapped into
// the box as a .gro may have it, then a water with SETTLE and a virtual site): made whole along its bonds, as
// GROMACS's graph does. The minimum image relative to the first atom alone would break the chain where it
// passes 1 nm from its first atom.
TEST(Bonded, AMoleculeLongerThanHalfTheBoxIsMadeWholeAlongItsBonds) {
  Topology top;
  const int chain = 21;
  const Box box{{2.0, 2.0, 2.0}};
  std::vector<Vec3> whole;
  for (int a = 0; a < chain; ++a) {
    top.mass.push_back(12.0);
    top.molecule.push_back(0);
    whole.push_back({0.3 + 0.15 * a, 0.5 + 0.01 * a, 1.0});
    if (a > 0) {
      BondedTerm b;
      b.atoms[0] = a - 1;
      b.atoms[1] = a;
      top.bonded.push_back(b);
    }
  }
  // A four-site water: SETTLE and a site built from its oxygen, across the box's x face.
  for (int k = 0; k < 4; ++k) {
    top.mass.push_back(k == 3 ? 0.0 : 1.0);
    top.molecule.push_back(1);
  }
  top.settles.push_back({chain, chain + 1, chain + 2, 0.1, 0.16});
  VirtualSite m;
  m.site = chain + 3;
  m.atoms[0] = chain;
  m.atoms[1] = chain + 1;
  m.atoms[2] = chain + 2;
  top.vsites.push_back(m);
  for (const Vec3& w :
       {Vec3{1.98, 1.0, 1.0}, Vec3{2.06, 1.05, 1.0}, Vec3{1.95, 0.92, 1.0}, Vec3{2.0, 1.0, 1.0}})
    whole.push_back(w);
  std::vector<Vec3> x = whole;
  for (Vec3& r : x)
    for (int d = 0; d < 3; ++d) r[d] -= box.len[d] * std::floor(r[d] / box.len[d]);  // each atom in the box
  make_molecules_whole(top, box, x);
  for (size_t a = 0; a < x.size(); ++a)
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(x[a][d], whole[a][d], 1e-12) << "atom " << a << " dim " << d;
}

TEST(Bonded, Step0EnergyTermsMatchGromacsInFourForceFields) {
  const auto ref = read_terms();
  for (const char* ff : kForceFields)
    expect_step0_like_gromacs(std::string("bonded/") + ff, "../step0.mdp", ref.at(ff));
}

// [ position_restraints ] 1 on the peptide's heavy atoms (define = -DPOSRES, force constants differing by
// dimension), the reference from -r and the start 50 MD steps away (tests/make_posres_refdata.sh): every
// term, Position Rest. included, and the pressure (whose virial takes GROMACS's -1/2 (dx + ref) F per
// dimension). Without -r the reference is the start itself: no restraint energy.
TEST(Bonded, PositionRestraintsMatchGromacsAtStep0) {
  const std::string ref = data_path("posres/ref.gro");
  expect_step0_like_gromacs("posres", "step0.mdp", read_terms("posres/reference.txt").at("posres"),
                            "-r " + ref);
  const std::string out = make_temp_dir("posres_self");
  std::string log;
  ASSERT_EQ(run_halomd("posres", "step0.mdp", {}, out + "/run", "", &log), 0) << log;
  auto e = read_csv(out + "/run/energy.csv");
  ASSERT_TRUE(e.count("posres"));
  EXPECT_EQ(e["posres"][0], 0.0);
  // Without the define the restraints are not there, nor their column.
  ASSERT_EQ(run_halomd("posres", "step0.mdp", {{"define", ""}}, out + "/nodefine", "", &log), 0) << log;
  EXPECT_FALSE(read_csv(out + "/nodefine/energy.csv").count("posres"));
  // A restraint needs 3 force constants (6 with the B state); 5 is an error naming the line.
  const std::string bad = make_temp_dir("posres_bad");
  std::filesystem::copy(data_path("posres"), bad, std::filesystem::copy_options::recursive);
  {
    std::ofstream itp(bad + "/posre.itp");
    itp << "[ position_restraints ]\n1 1 1000 1000 1000 5 5\n";
  }
  const std::string cmd = std::string(HALOMD_BIN) + " run -c " + bad + "/conf.gro -p " + bad +
                          "/topol.top -f " + bad + "/step0.mdp -o " + bad + "/out";
  EXPECT_EQ(run_command(cmd, &log), 2);
  EXPECT_NE(log.find("posre.itp:2: [ position_restraints ]: a position restraint needs its force constants"),
            std::string::npos)
      << log;
  // refcoord-scaling = com: the same energies, the virial from the references relative to their centre of
  // mass (the pressure differs from no's by ~2 bar).
  expect_step0_like_gromacs("posres", "step0_com.mdp", read_terms("posres/reference.txt").at("posres_com"),
                            "-r " + ref);
  // With the 2,409 waters restrained too: grompp's centre counts each [ molecules ] run by its first
  // molecule.
  expect_step0_like_gromacs("posres/solvated", "step0_water.mdp",
                            read_terms("posres/reference.txt").at("solvated_water_com"),
                            "-r " + data_path("posres/solvated/ref_water.gro"));
  // refcoord-scaling = all is refused naming the line; so is a reference of another size.
  EXPECT_EQ(run_halomd("posres", "step0.mdp", {{"refcoord-scaling", "all"}}, out + "/all", "", &log), 2);
  EXPECT_NE(log.find("refcoord-scaling = all: halomd's position restraints take"), std::string::npos) << log;
  EXPECT_EQ(
      run_halomd("posres", "step0.mdp", {}, out + "/badref", "-r " + data_path("spce_1k5/conf.gro"), &log),
      2);
  EXPECT_NE(log.find("the position restraints' reference structure has"), std::string::npos) << log;
}

// NPT with the peptide's heavy atoms restrained (refcoord-scaling = com: the references' centre of mass
// follows the box), Parrinello-Rahman and Nose-Hoover, h-bonds, PME: 40 steps of 1 fs against gmx_d's path
// (tests/make_posres_refdata.sh, posres/solvated/npt.txt).
// On 4 domains of update groups too.
void expect_restrained_npt_like_gromacs(const std::string& args) {
  SCOPED_TRACE(args);
  const std::string out = make_temp_dir("posres_npt");
  std::string log;
  ASSERT_EQ(run_halomd("posres/solvated", "npt.mdp", {}, out + "/run", "--threads 2 " + args, &log), 0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  const std::vector<std::string> rows = read_rows(data_path("posres/solvated/npt.txt"));
  ASSERT_EQ(e["step"].size(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    std::istringstream w(rows[k]);
    double step, total, conserved, posres, pressure, volume;
    w >> step >> total >> conserved >> posres >> pressure >> volume;
    SCOPED_TRACE(::testing::Message() << "step " << step);
    EXPECT_NEAR(e["total"][k], total, kPcouplPathRelTol * std::fabs(total));
    EXPECT_NEAR(e["conserved"][k], conserved, kPcouplPathRelTol * std::fabs(conserved));
    EXPECT_NEAR(e["posres"][k], posres, 1e-5 * posres + 1e-5);
    EXPECT_NEAR(e["pressure"][k], pressure, 1e-2);
    EXPECT_NEAR(e["volume"][k], volume, 1e-6);
  }
  EXPECT_GT(e["posres"].back(), 1.0);
}

TEST(Bonded, RestrainedNptPathOfTheSolvatedPeptideMatchesGromacs) {
  expect_restrained_npt_like_gromacs("");
  expect_restrained_npt_like_gromacs("--domains 4");
}

TEST(Bonded, SolvatedPeptideWithPmeMatchesGromacsAtStep0) {
  expect_step0_like_gromacs("bonded/solvated", "step0.mdp", read_terms().at("solvated"));
}

// LINCS: the hydrogen bonds of the solvated peptide (beside SETTLE water) and every bond of the peptide in
// vacuum; continuation = no constrains the start as GROMACS does, and the pressure carries the constraint
// virial.
TEST(Bonded, LincsRunsMatchGromacsAtStep0) {
  const auto ref = read_terms();
  expect_step0_like_gromacs("bonded/solvated", "hbonds_step0.mdp", ref.at("solvated_hbonds"));
  expect_step0_like_gromacs("bonded/amber99sb-ildn", "../allbonds_step0.mdp",
                            ref.at("amber99sb-ildn_allbonds"));
}

// 500 steps of 2 fs with h-bonds constrained: GROMACS's mean total energy and drift, and its Verlet buffer.
TEST(Bonded, LincsNveRunMatchesGromacsMeanDriftAndBuffer) {
  const auto ref = read_reference(data_path("bonded/solvated/hbonds_nve_reference.txt"));
  const std::string out = make_temp_dir("bonded_lincs_nve");
  std::string log;
  ASSERT_EQ(run_halomd("bonded/solvated", "hbonds_nve.mdp", {}, out + "/run", "--threads 2", &log), 0) << log;
  auto e = read_csv(out + "/run/energy.csv");
  expect_nve_like_gromacs(e, ref);
  const double rlist = read_terms().at("solvated_hbonds_nve").at("rlist_1x1");
  EXPECT_NE(read_text(out + "/run/run.json").find(fmt::format("\"rlist_nm\": {:.6f}", rlist)),
            std::string::npos)
      << rlist;
}

// Domains of update groups (the CPU decomposition, cpu/dd_domain.h): the solvated peptide's every step-0 term
// on 4 domains, with h-bonds constrained on 8 (2x2x2), and the restrained peptide in vacuum (refcoord-scaling
// = com) on 8: the values GROMACS gives for the whole system.
TEST(Bonded, SolvatedPeptideOnDomainsMatchesGromacsAtStep0) {
  const auto ref = read_terms();
  expect_step0_like_gromacs("bonded/solvated", "step0.mdp", ref.at("solvated"), "--domains 4");
  expect_step0_like_gromacs("bonded/solvated", "hbonds_step0.mdp", ref.at("solvated_hbonds"), "--dd 2 2 2");
  expect_step0_like_gromacs("posres", "step0_com.mdp", read_terms("posres/reference.txt").at("posres_com"),
                            "--dd 2 2 2 -r " + data_path("posres/ref.gro"));
}

// The h-bonds NVE run on 4 domains (LINCS on each domain's update groups, listed interactions across them):
// GROMACS's mean total energy and drift over 500 steps.
TEST(Bonded, LincsNveRunOnDomainsMatchesGromacsMeanAndDrift) {
  const auto ref = read_reference(data_path("bonded/solvated/hbonds_nve_reference.txt"));
  const std::string out = make_temp_dir("bonded_lincs_nve_dd");
  std::string log;
  ASSERT_EQ(
      run_halomd("bonded/solvated", "hbonds_nve.mdp", {}, out + "/run", "--threads 2 --domains 4", &log), 0)
      << log;
  auto e = read_csv(out + "/run/energy.csv");
  expect_nve_like_gromacs(e, ref);
  EXPECT_NE(read_text(out + "/run/run.json").find("\"domains\": 4"), std::string::npos);
}

struct Loaded {
  SimulationInputs in;
  MdState state;
  PhaseTimers timers;
};

void load(const std::string& system, const std::string& mdp, Loaded& s) {
  RunOptions opt;
  opt.conf = data_path(system + "/conf.gro");
  opt.top = data_path(system + "/topol.top");
  opt.mdp = data_path(system + "/" + mdp);
  s.in = load_inputs(opt);
  s.state.x = s.in.gro.x;
  make_molecules_whole(s.in.top, s.in.gro.box, s.state.x);
  s.state.v = s.in.gro.v;
  if (s.state.v.empty()) s.state.v.assign(s.state.x.size(), Vec3{});
  s.state.ke_half_prev = kinetic_energy_tensor(s.state.v, s.in.top.mass, 1);
}

// The step-0 forces of the whole run (pairs, listed interactions) against gmx_d's (<system>/forces.txt),
// which gmx dump prints with 6 significant digits: each atom's force within that of its size.
void expect_step0_forces_like_gromacs(const std::string& system, const std::string& mdp) {
  SCOPED_TRACE(system);
  {
    Loaded s;
    load(system, mdp, s);
    ExecutorConfig c;
    c.top = &s.in.top;
    c.mdp = &s.in.mdp;
    c.box = s.in.gro.box;
    c.ndf = s.in.ndf;
    c.timers = &s.timers;
    CpuExecutor cpu(c);
    cpu.load(s.state);
    StepEnergies e;
    StepRequest r;
    r.ns = r.energy = true;
    cpu.step(r, &e);
    std::vector<Vec3> f;
    ASSERT_TRUE(cpu.last_forces(f));
    std::ifstream in(data_path(system + "/forces.txt"));
    // Per atom, relative to its force (a component can be a small difference of large terms).
    size_t n = 0, worst = 0;
    double worst_err = 0.0;
    for (Vec3 ref; in >> ref.x >> ref.y >> ref.z; ++n) {
      ASSERT_LT(n, f.size());
      const double err = std::sqrt(norm2(f[n] - ref)) / (kPrintedForceRelTol * std::sqrt(norm2(ref)) + 1e-6);
      if (err > worst_err) std::tie(worst_err, worst) = std::make_pair(err, n);
    }
    EXPECT_EQ(n, f.size());
    EXPECT_LE(worst_err, 1.0) << "atom " << worst + 1 << ": " << f[worst].x << " " << f[worst].y << " "
                              << f[worst].z;
  }
}

TEST(Bonded, Step0ForcesMatchGromacs) {
  for (const char* ff : kForceFields)
    expect_step0_forces_like_gromacs(std::string("bonded/") + ff, "../step0.mdp");
}

// CHARMM's CMAP (charmm27's backbone correction maps; tests/make_cmap_refdata.sh): the peptide's every step-0
// term with CMAP Dih., its forces, the same on 8 domains (a [ cmap ] term has 5 atoms, often in several), and
// a 200-step NVE path of CMAP Dih. and the total energy.
TEST(Bonded, CmapMatchesGromacs) {
  const auto ref = read_terms("cmap/reference.txt").at("cmap");
  ASSERT_LT(ref.at("CMAP_Dih."), -1.0);
  expect_step0_like_gromacs("cmap", "step0.mdp", ref);
  expect_step0_forces_like_gromacs("cmap", "step0.mdp");
  expect_step0_like_gromacs("cmap", "step0.mdp", ref, "--dd 2 2 2");
  const std::string out = make_temp_dir("cmap_nve");
  std::string log;
  ASSERT_EQ(run_halomd("cmap", "nve.mdp", {}, out + "/run", "", &log), 0) << log;
  auto e = read_csv(out + "/run/energy.csv");
  const std::vector<std::string> rows = read_rows(data_path("cmap/nve.txt"));
  ASSERT_EQ(e["step"].size(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    std::istringstream w(rows[k]);
    double step = 0, cmap = 0, total = 0;
    w >> step >> cmap >> total;
    SCOPED_TRACE(::testing::Message() << "step " << step);
    EXPECT_NEAR(e["cmap_dih"][k], cmap, 1e-5);
    EXPECT_NEAR(e["total"][k], total, 1e-5);
  }
  EXPECT_GT(std::fabs(e["cmap_dih"].back() - e["cmap_dih"].front()), 1.0);  // the backbone moved
}

TEST(Bonded, NveRunOfTheSolvatedPeptideMatchesGromacsMeanAndDrift) {
  const auto ref = read_reference(data_path("bonded/solvated/nve_reference.txt"));
  const std::string out = make_temp_dir("bonded_nve");
  std::string log;
  ASSERT_EQ(run_halomd("bonded/solvated", "nve.mdp", {}, out + "/run", "--threads 2", &log), 0) << log;
  auto e = read_csv(out + "/run/energy.csv");
  expect_nve_like_gromacs(e, ref);
}

TEST(Bonded, ThreadCountAndContinuationChangeNoBit) {
  const std::map<std::string, std::string> set = {
      {"nsteps", "40"},        {"nstenergy", "5"},      {"nstcalcenergy", "5"}, {"nstxout-compressed", "10"},
      {"nstcheckpoint", "20"}, {"tcoupl", "v-rescale"}, {"tc-grps", "System"},  {"tau-t", "0.1"},
      {"ref-t", "300"},        {"nstfout", "10"},       {"gen-vel", "yes"},     {"gen-temp", "300"},
      {"gen-seed", "11"},      {"ld-seed", "5"}};
  expect_threads_and_continuation_change_no_bit("bonded/amber99sb-ildn", "../step0.mdp", set, 25,
                                                {"energy.csv", "traj.xtc", "traj.trr", "confout.gro"});
}

// --- The forces of each kind against finite differences of its energy ---------------------------------

double energy_of(const BondedCpu& b, const std::vector<Vec3>& x, const Box& box) {
  std::vector<Vec3> f(x.size());
  BondedEnergies e;
  b.compute(x, box, f, &e);
  double sum = 0.0;
  for (double v : e.term) sum += v;
  return sum;
}

// A topology of 5 atoms (charged) with one term; positions spread over the boundary of a 2 nm box. CMAP
// terms get a smooth 24 x 24 grid (io::make_cmap_grid, as from [ cmaptypes ]).
struct OneTerm {
  Topology top;
  Box box{{2.0, 2.0, 2.0}};
  std::vector<Vec3> x;
};

OneTerm one_term(BondedKind kind, std::initializer_list<double> p, std::mt19937_64& rng) {
  OneTerm t;
  t.top.mass.assign(5, 12.0);
  t.top.charge = {0.4, -0.3, 0.2, -0.5, 0.1};
  BondedTerm term;
  term.kind = kind;
  for (int a = 0; a < 5; ++a) term.atoms[a] = a;
  if (kind == BondedKind::Cmap) {
    const double deg = units::kPi / 180.0;
    std::vector<double> grid;
    for (int i = 0; i < 24; ++i)
      for (int j = 0; j < 24; ++j) {
        const double phi = (i * 15.0 - 180.0) * deg, psi = (j * 15.0 - 180.0) * deg;
        grid.push_back(5.0 * std::cos(phi) + 3.0 * std::sin(2.0 * psi) + 2.0 * std::cos(phi - psi + 0.3));
      }
    t.top.cmap_grids.push_back(io::make_cmap_grid(24, grid));
  }
  std::copy(p.begin(), p.end(), term.p);
  t.top.bonded.push_back(term);
  // A bent chain near the corner of the box, then wrapped: the terms see it through the minimum image.
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  const Vec3 start{1.95, 0.02, 1.9};
  const Vec3 steps[5] = {
      {0, 0, 0}, {0.15, 0.02, 0.0}, {0.05, 0.14, 0.03}, {0.12, 0.1, 0.11}, {0.02, -0.14, 0.06}};
  Vec3 at = start;
  for (int a = 0; a < 5; ++a) {
    at += steps[a] + Vec3{u(rng), u(rng), u(rng)};
    Vec3 wrapped = at;
    for (int d = 0; d < 3; ++d) wrapped[d] -= t.box.len[d] * std::floor(wrapped[d] / t.box.len[d]);
    t.x.push_back(wrapped);
  }
  return t;
}

TEST(Bonded, ForcesAreMinusTheEnergyGradientAcrossTheBoundary) {
  std::mt19937_64 rng(7);
  const double deg = units::kPi / 180.0;
  const struct {
    BondedKind kind;
    std::initializer_list<double> p;
  } cases[] = {
      {BondedKind::Bond, {0.13, 3e5}},
      {BondedKind::G96Bond, {0.13, 1e7}},
      {BondedKind::Angle, {109.5 * deg, 400}},
      {BondedKind::G96Angle, {std::cos(109.5 * deg), 500}},
      {BondedKind::UreyBradley, {109.5 * deg, 400, 0.22, 2e4}},
      {BondedKind::ProperDih, {30 * deg, 5, 3}},
      {BondedKind::PeriodicImproper, {180 * deg, 4.6, 2}},
      {BondedKind::RyckaertBell, {9.28, 12.16, -13.12, -3.06, 26.24, -31.5}},
      {BondedKind::ImproperDih, {35 * deg, 300}},
      {BondedKind::ImproperDih, {180 * deg, 300}},  // the difference wraps at +-180 degrees
      {BondedKind::Pair14, {2e-3, 3e-6, 0.3}},
      {BondedKind::Cmap, {0}},
  };
  for (const auto& c : cases)
    for (int trial = 0; trial < 3; ++trial) {
      OneTerm t = one_term(c.kind, c.p, rng);
      SCOPED_TRACE(::testing::Message() << "kind " << static_cast<int>(c.kind) << " trial " << trial);
      const BondedCpu b(t.top, 1.0);
      std::vector<Vec3> f(5);
      BondedEnergies e;
      b.compute(t.x, t.box, f, &e);
      Vec3 net;
      double fmax = 0.0;
      for (const Vec3& fa : f) {
        net += fa;
        fmax = std::max(fmax, std::sqrt(norm2(fa)));
      }
      EXPECT_GT(fmax, 0.0);
      EXPECT_LT(std::sqrt(norm2(net)), 1e-9 * fmax);
      const double h = 1e-6;
      for (int a = 0; a < 5; ++a)
        for (int d = 0; d < 3; ++d) {
          std::vector<Vec3> xp = t.x, xm = t.x;
          xp[a][d] += h;
          xm[a][d] -= h;
          const double grad = (energy_of(b, xp, t.box) - energy_of(b, xm, t.box)) / (2 * h);
          EXPECT_NEAR(f[a][d], -grad, 1e-5 * fmax + 1e-7) << "atom " << a << " dim " << d;
        }
      // The virial is -1/2 sum x (x) F over the molecule made whole.
      std::vector<Vec3> whole = t.x;
      for (int a = 1; a < 5; ++a)
        for (int d = 0; d < 3; ++d)
          whole[a][d] -= t.box.len[d] * std::round((whole[a][d] - whole[a - 1][d]) / t.box.len[d]);
      Tensor vir;
      for (int a = 0; a < 5; ++a) add_outer(vir, whole[a], f[a], -0.5);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) EXPECT_NEAR(e.virial.m[i][j], vir.m[i][j], 1e-9 * fmax) << i << j;
    }
}

// LINCS on coupled constraints (a branched chain): the lengths after one call, the velocity correction and
// the virial -1/2 sum x (x) F of the constraint forces m dx / dt^2.
TEST(Bonded, LincsSatisfiesCoupledConstraintsWithTheirVirial) {
  Topology top;
  top.mass = {12.0, 1.0, 14.0, 16.0, 1.0};
  // 0-1, 0-2, 2-3, 2-4: atoms 0 and 2 are shared.
  top.constraints = {{0, 1, 0.109}, {0, 2, 0.147}, {2, 3, 0.123}, {2, 4, 0.101}};
  const Box box{{3.0, 3.0, 3.0}};
  std::vector<Vec3> x_old = {
      {1.0, 1.0, 1.0}, {1.05, 1.09, 1.02}, {1.14, 0.97, 0.95}, {1.2, 1.08, 0.9}, {1.17, 0.9, 1.02}};
  // Put the old positions on the constraints first (tightly), as the previous step leaves them.
  const LincsCpu tight(top, 12, 8, 90.0);
  tight.apply(std::vector<Vec3>(x_old), x_old, nullptr, 0.002, nullptr, box);
  for (const Constraint& c : top.constraints)
    ASSERT_NEAR(std::sqrt(norm2(x_old[c.a] - x_old[c.b])), c.length, 1e-12);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g(0.0, 0.003);
  std::vector<Vec3> x_new = x_old;
  for (Vec3& p : x_new) p += Vec3{g(rng), g(rng), g(rng)};
  for (const auto& [order, iter, tol] : {std::tuple{4, 1, 1e-4}, std::tuple{8, 4, 1e-10}}) {
    SCOPED_TRACE(::testing::Message() << "order " << order << " iterations " << iter);
    const LincsCpu lincs(top, order, iter, 30.0);
    std::vector<Vec3> x = x_new, v(5);
    Tensor vir;
    const double dt = 0.002;
    EXPECT_EQ(lincs.apply(x_old, x, &v, dt, &vir, box), -1);
    for (const Constraint& c : top.constraints)
      EXPECT_NEAR(std::sqrt(norm2(x[c.a] - x[c.b])) / c.length, 1.0, tol) << c.a << "-" << c.b;
    EXPECT_LT(lincs.rms_deviation(x, box), tol);
    Tensor expect;
    Vec3 momentum;
    for (int a = 0; a < 5; ++a) {
      const Vec3 dx = x[a] - x_new[a];
      EXPECT_NEAR(v[a].x, dx.x / dt, 1e-12);
      add_outer(expect, x_old[a], dx * (top.mass[a] / (dt * dt)), -0.5);
      momentum += dx * top.mass[a];
    }
    EXPECT_LT(std::sqrt(norm2(momentum)), 1e-14);  // internal forces
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_NEAR(vir.m[i][j], expect.m[i][j], 1e-6 * std::fabs(expect.m[i][i]) + 1e-9);
  }
  // A constraint that turns by more than lincs-warnangle is a blow-up naming one of its atoms.
  std::vector<Vec3> x = x_old;
  x[1] = x_old[0] + Vec3{-0.05, 0.09, 0.0};
  EXPECT_EQ(LincsCpu(top, 4, 1, 30.0).apply(x_old, x, nullptr, 0.002, nullptr, box), 0);
}

// --- The parameter lookup -----------------------------------------------------------------------------

// Four atoms of types CT CT HC OH (bonded types CX CX H O through the 8-field layout), all interactions
// looked up.
const std::string kTypes =
    "[ defaults ]\n1 2 yes 0.5 0.8333\n"
    "[ atomtypes ]\n"
    "CT CX 6 12.01 0.0 A 0.34 0.45\n"
    "HC H 1 1.008 0.0 A 0.26 0.06\n"
    "OH O 8 16.0 0.0 A 0.30 0.71\n";
const std::string kMolecule =
    "[ moleculetype ]\nM 3\n"
    "[ atoms ]\n1 CT 1 R A 1 -0.2\n2 CT 1 R B 2 0.1\n3 HC 1 R C 3 0.3\n4 OH 1 R D 4 -0.2\n";

BondedTerm only(const Topology& t, BondedKind k, size_t index = 0) {
  std::vector<BondedTerm> of;
  for (const BondedTerm& b : t.bonded)
    if (b.kind == k) of.push_back(b);
  EXPECT_GT(of.size(), index);
  return of.size() > index ? of[index] : BondedTerm{};
}

TEST(Bonded, LookupFollowsGromppsRules) {
  const std::string dir = make_temp_dir("bonded_lookup");
  const double deg = units::kPi / 180.0;
  const std::string types =
      kTypes +
      "[ bondtypes ]\nCX CX 1 0.15 1000\nH CX 1 0.11 2000\n"
      "[ angletypes ]\nCX CX H 1 110 300\n"
      // Dihedrals: wildcard lines before and after an exact one (which wins: more real matches), a funct 9
      // block of two consecutive lines; the old two-name form for an improper (atoms i and l).
      "[ dihedraltypes ]\nX CX H X 9 0 1 3\nO CX CX H 9 10 2 1\nO CX CX H 9 20 3 2\n"
      "X CX CX X 9 0 7 3\nO H 2 15 50\n"
      "[ pairtypes ]\nOH HC 1 0.25 0.1\n";
  const std::string mol = kMolecule +
                          "[ bonds ]\n1 2\n2 3\n3 4 1 0.2 500\n"
                          "[ angles ]\n1 2 3\n"
                          "[ dihedrals ]\n4 1 2 3 9\n4 1 2 3 2\n"
                          "[ pairs ]\n3 4\n1 4\n";
  const Topology t =
      io::read_top(write_top(dir, "a.top", types + mol + "[ system ]\nx\n[ molecules ]\nM 2\n"));
  ASSERT_TRUE(t.unsupported.empty()) << t.unsupported;
  // Two molecules of 3 bonds, 1 angle, 2 proper terms, 1 improper, 2 pairs.
  EXPECT_EQ(t.bonded.size(), 2u * 9u);
  EXPECT_EQ(only(t, BondedKind::Bond, 1).p[0], 0.11);   // H CX matched as CX H, either way round
  EXPECT_EQ(only(t, BondedKind::Bond, 2).p[1], 500);    // explicit parameters as written
  EXPECT_EQ(only(t, BondedKind::Bond, 3).atoms[0], 4);  // the second molecule's atoms
  EXPECT_NEAR(only(t, BondedKind::Angle).p[0], 110 * deg, 1e-15);
  // O CX CX H beats X CX CX X; its block gives both terms.
  EXPECT_NEAR(only(t, BondedKind::ProperDih, 0).p[0], 10 * deg, 1e-15);
  EXPECT_EQ(only(t, BondedKind::ProperDih, 0).p[2], 1);
  EXPECT_NEAR(only(t, BondedKind::ProperDih, 1).p[0], 20 * deg, 1e-15);
  EXPECT_EQ(only(t, BondedKind::ProperDih, 1).p[1], 3);
  EXPECT_NEAR(only(t, BondedKind::ImproperDih).p[0], 15 * deg, 1e-15);
  // Pairs: [ pairtypes ] by atom type, unscaled (sigma, epsilon to C6, C12); else the LJ pair x fudgeLJ.
  const BondedTerm p34 = only(t, BondedKind::Pair14, 0), p14 = only(t, BondedKind::Pair14, 1);
  EXPECT_NEAR(p34.p[0], 4 * 0.1 * std::pow(0.25, 6), 1e-18);
  EXPECT_NEAR(p14.p[0], 0.5 * 4 * std::sqrt(0.45 * 0.71) * std::pow(0.5 * (0.34 + 0.30), 6), 1e-18);
  EXPECT_NEAR(p34.p[2], 0.8333 * 0.3 * -0.2, 1e-15);
}

TEST(Bonded, LookupErrorsNameTheLine) {
  const std::string dir = make_temp_dir("bonded_lookup_errors");
  const std::string tail = "[ system ]\nx\n[ molecules ]\nM 1\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {kTypes + kMolecule + "[ bonds ]\n1 3\n",
       ":15: [ bonds ]: no [ bondtypes ] entry with function type 1 for "
       "the bonded types CX H"},
      {kTypes +
           "[ dihedraltypes ]\nX CX CX X 9 0 7 3\nX CX CX X 9 0 1 2\nCX CX CX CX 1 0 1 1\n"
           "X CX CX X 9 0 7 3\n" +
           kMolecule,
       ":11: [ dihedraltypes ]: a second block of parameters for dihedral type 9"},
      {kTypes + kMolecule + "[ angles ]\n1 2 3 1 110\n",
       ":15: [ angles ]: expected 2 parameters (or 4 with the B state), got 1"},
      {"[ defaults ]\n1 2 no\n[ atomtypes ]\nCT 12.01 0 A 0.3 0.4\n[ moleculetype ]\nM 3\n[ atoms ]\n"
       "1 CT 1 R A 1\n2 CT 1 R B 1\n[ pairs ]\n1 2\n",
       ":11: [ pairs ]: no [ pairtypes ] entry for atom types CT CT (and gen-pairs = no)"},
  };
  expect_top_errors(dir, "", cases, tail);
}

// [ cmaptypes ] and [ cmap ] as grompp reads them: the first entry whose five bonded types are the atoms' in
// order (not reversed); a grid of the wrong size, unequal sizes, or no matching entry is an error naming the
// line; GPUs refuse CMAP.
TEST(Bonded, CmapLookupAndErrorsAsGrompp) {
  const std::string dir = make_temp_dir("cmap_lookup");
  const std::string mol5 =
      "[ moleculetype ]\nM 3\n[ atoms ]\n1 CT 1 R A 1 -0.2\n2 CT 1 R B 2 0.1\n3 CT 1 R C 3 0.3\n"
      "4 CT 1 R D 4 -0.2\n5 OH 1 R E 5 0.0\n";
  const std::string tail = "[ system ]\nx\n[ molecules ]\nM 1\n";
  const Topology t = io::read_top(write_top(dir, "ok.top",
                                            kTypes +
                                                "[ cmaptypes ]\nO CX CX CX CX 1 2 2 1 2 3 4\n"
                                                "CX CX CX CX O 1 2 2 5 6 7 8\n" +
                                                mol5 + "[ cmap ]\n1 2 3 4 5 1\n" + tail));
  const BondedTerm c = only(t, BondedKind::Cmap);
  EXPECT_EQ(c.p[0], 1.0);  // the second entry: the first matches only reversed
  EXPECT_EQ(c.atoms[4], 4);
  ASSERT_EQ(t.cmap_grids.size(), 2u);
  EXPECT_EQ(t.cmap_grids[1].data[0], 5.0);  // V at (-180, -180)
  const std::vector<std::pair<std::string, std::string>> cases = {
      {kTypes + "[ cmaptypes ]\nCX CX CX CX O 1 2 2 1 2 3\n",
       ":8: [ cmaptypes ]: 3 grid values for a grid of 2 x 2"},
      {kTypes + "[ cmaptypes ]\nCX CX CX CX O 1 2 3 1 2 3 4 5 6\n",
       ":8: [ cmaptypes ]: grid of 2 x 3 points (expected the same number"},
      {kTypes + "[ cmaptypes ]\nCX CX CX CX H 1 2 2 1 2 3 4\n" + mol5 + "[ cmap ]\n1 2 3 4 5 1\n",
       ":18: [ cmap ]: no [ cmaptypes ] entry for the bonded types CX CX CX CX O"},
  };
  expect_top_errors(dir, "", cases, tail);
}

TEST(Bonded, WhatIsNotRunYetIsRefusedNamingIt) {
  const std::string out = make_temp_dir("bonded_refuse");
  std::string log;
  // LINCS is the one constraint algorithm.
  EXPECT_EQ(run_halomd("bonded/amber99sb-ildn", "../allbonds_step0.mdp", {{"constraint-algorithm", "shake"}},
                       out + "/shake", "", &log),
            2);
  EXPECT_NE(log.find("constraint-algorithm = shake: halomd solves constraints with LINCS"), std::string::npos)
      << log;
  // A function type halomd does not run (a Morse bond) names the file and line of the entry.
  const std::string dir = make_temp_dir("bonded_morse");
  const std::string top = write_top(dir, "m.top",
                                    kTypes + kMolecule +
                                        "[ bonds ]\n1 2 3 0.15 400 20\n[ system ]\nx\n"
                                        "[ molecules ]\nM 1\n");
  EXPECT_EQ(io::read_top(top).unsupported, top + ":15: [ bonds ] function type 3");
}

}  // namespace
}  // namespace halomd::test
