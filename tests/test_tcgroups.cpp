// Several temperature-coupling groups (tc-grps = Protein Non-Protein) on the CPU reference against GROMACS
// 2022 (gmx_d, tests/make_tcgroups_refdata.sh): each group's degrees of freedom as grompp counts them, and
// with ref-t = 0 (no thermostat noise) the path of two v-rescale thermostats with different tau-t step by
// step, total and conserved energy and each group's temperature; threads and continuation change no bit; bad
// groups are refused naming the line.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <sstream>

#include "io/gro.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

const char* const kSystem = "bonded/solvated";
const char* const kMdp = "../../tcgroups/two_groups.mdp";

// halomd's run of <mdp> (extra arguments `args`) against gmx_d's degrees of freedom (`ndf_file`, names as
// grompp prints them; `json_name` maps one to the group name halomd reports) and noiseless path (`ref_file`:
// step total conserved T-first T-second, the groups `t1`, `t2` in energy.csv).
// *run_dir (optional): the run's folder. `cooling`: both groups cool (tau-t 0.1 and 0.2 ps; else the rows
// alone are compared, as for a frozen group without degrees of freedom).
void expect_groups_like_gromacs(const std::string& mdp, const std::string& args, const std::string& ndf_file,
                                const std::string& ref_file, const std::string& t1, const std::string& t2,
                                std::string* run_dir = nullptr, bool cooling = true) {
  const std::string out = make_temp_dir("tcgroups_path");
  if (run_dir) *run_dir = out + "/run";
  std::string log;
  ASSERT_EQ(run_halomd(kSystem, mdp, {}, out + "/run", "--threads 2 " + args, &log), 0) << log;
  // grompp prints each group's degrees of freedom with 2 decimals.
  const std::string json = read_text(out + "/run/run.json");
  for (const std::string& row : read_rows(data_path(ndf_file))) {
    std::istringstream w(row);
    std::string name;
    double ndf = 0;
    w >> name >> ndf;
    const std::string key = "\"" + std::string(name == "non-Protein" ? "Non-Protein" : name) + "\": ";
    const size_t at = json.find(key);
    ASSERT_NE(at, std::string::npos) << key << json;
    EXPECT_NEAR(std::stod(json.substr(at + key.size())), ndf, 0.005) << name;
  }
  auto e = read_csv(out + "/run/energy.csv");
  // gmx energy prints 6 decimals; the paths agree to ~1e-8 relative. The thermostats took out different
  // fractions: tau-t 0.1 and 0.2 ps.
  if (cooling)
    expect_tc_path_like_gromacs(e, ref_file, t1, t2, kPcouplPathRelTol, kPcouplPathRelTol, 1e-6);
  else
    expect_group_rows_like_gromacs(e, ref_file, t1, t2, kPcouplPathRelTol, kPcouplPathRelTol, 1e-6);
}

TEST(TcGroups, DegreesOfFreedomAndTheNoiselessPathMatchGromacs) {
  expect_groups_like_gromacs(kMdp, "", "tcgroups/ndf.txt", "tcgroups/reference.txt", "t_Protein",
                             "t_Non-Protein");
}

// An index file (-n, as grompp -n): its groups are then the only ones; two groups of gmx make_ndx that cut
// the peptide in two (tests/make_tcgroups_refdata.sh) give grompp's degrees of freedom and gmx_d's path. A
// group the file lacks, or an entry that is not an atom number, is an error naming the file.
TEST(TcGroups, IndexFileGroupsMatchGromacs) {
  const std::string ndx = data_path("tcgroups/index.ndx");
  expect_groups_like_gromacs("../../tcgroups/index_groups.mdp", "-n " + ndx, "tcgroups/ndf_index.txt",
                             "tcgroups/reference_index.txt", "t_First_half", "t_Rest");
  const std::string out = make_temp_dir("tcgroups_ndx");
  std::string log;
  EXPECT_EQ(run_halomd(kSystem, kMdp, {{"nsteps", "0"}, {"tc-grps", "Peptide Rest"}}, out + "/nogroup",
                       "-n " + ndx, &log),
            2);
  EXPECT_NE(log.find("tc-grps: no group 'Peptide' in the index file"), std::string::npos) << log;
  const std::string bad = out + "/bad.ndx";
  {
    std::ofstream f(bad);
    f << "[ System ]\n1 2 x3\n";
  }
  EXPECT_EQ(run_halomd(kSystem, kMdp, {{"nsteps", "0"}}, out + "/bad", "-n " + bad, &log), 2);
  EXPECT_NE(log.find("bad.ndx:2: 'x3' is not an atom number"), std::string::npos) << log;
  // As grompp: an atom number beyond the system, or one listed twice in a group, is an error.
  for (const auto& [text, error] :
       {std::pair<std::string, std::string>{"[ A ]\n99999\n", "group A: atom 99999 is beyond"},
        {"[ B ]\n1 2 1\n", "group B lists atom 1 twice"}}) {
    {
      std::ofstream f(bad);
      f << text;
    }
    EXPECT_EQ(run_halomd(kSystem, kMdp, {{"nsteps", "0"}}, out + "/bad2", "-n " + bad, &log), 2);
    EXPECT_NE(log.find(error), std::string::npos) << log;
  }
}

TEST(TcGroups, ThreadCountAndContinuationChangeNoBit) {
  const std::map<std::string, std::string> set = {
      {"nsteps", "40"},   {"ref-t", "300 310"},   {"ld-seed", "3"},        {"nsttcouple", "5"},
      {"nstenergy", "5"}, {"nstcalcenergy", "5"}, {"nstcheckpoint", "20"}, {"nstxout-compressed", "10"}};
  expect_threads_and_continuation_change_no_bit(kSystem, kMdp, set, 25,
                                                {"energy.csv", "traj.xtc", "confout.gro"});
}

TEST(TcGroups, BadGroupsAreRefusedNamingTheLine) {
  const std::string out = make_temp_dir("tcgroups_refuse");
  std::string log;
  const std::pair<std::map<std::string, std::string>, std::string> cases[] = {
      {{{"tc-grps", "Protein Lipids"}}, "tc-grps: no group 'Lipids'"},
      {{{"tc-grps", "Protein System"}}, "tc-grps: atom 1 is in both Protein and System"},
      {{{"tc-grps", "Protein SOL"}, {"tau-t", "0.1 0.1"}}, ""},  // SOL is every non-protein atom here: fine
      {{{"tc-grps", "Protein Water"}, {"tau-t", "0.1"}}, "tau-t has 1 values for the 2 groups of tc-grps"},
      // Without a thermostat the groups couple nothing: one group, whatever tau-t and ref-t say.
      {{{"tcoupl", "no"}, {"ref-t", "0"}}, ""},
  };
  for (size_t k = 0; k < std::size(cases); ++k) {
    const std::string& error = cases[k].second;
    SCOPED_TRACE(error);
    std::map<std::string, std::string> s = cases[k].first;
    s["nsteps"] = "0";
    const int rc = run_halomd(kSystem, kMdp, s, out + "/r" + std::to_string(k), "", &log);
    if (error.empty()) {
      EXPECT_EQ(rc, 0) << log;
    } else {
      EXPECT_EQ(rc, 2) << log;
      EXPECT_NE(log.find(error), std::string::npos) << log;
    }
  }
  // (GPU domains run several groups too: test_cuda_dd_mpi.)
}

// The centre of mass removed per group (comm-grps, every step): grompp's degrees of freedom (3 less in each
// group's) and gmx_d's path with Protein and Non-Protein each on its own, also on 4 domains; and with the
// protein alone, the water keeping its motion as GROMACS's rest group (grompp warns; so does halomd).
TEST(TcGroups, CommGroupsMatchGromacs) {
  // Each group's centre of mass at rest in confout.gro after the last step's removal; with the protein alone
  // the water keeps a drift (the GPU tests check theirs against these CPU runs).
  for (const std::string args : {"", "--domains 4"}) {
    std::string run;
    expect_groups_like_gromacs("../../tcgroups/comm_groups.mdp", args, "tcgroups/ndf_comm.txt",
                               "tcgroups/reference_comm.txt", "t_Protein", "t_Non-Protein", &run);
    expect_comm_groups_at_rest(run + "/confout.gro", false, "", "");
  }
  std::string rest;
  expect_groups_like_gromacs("../../tcgroups/comm_rest.mdp", "", "tcgroups/ndf_comm_rest.txt",
                             "tcgroups/reference_comm_rest.txt", "t_Protein", "t_Non-Protein", &rest);
  expect_comm_groups_at_rest(rest + "/confout.gro", true, rest + "_cpu", "../../tcgroups/comm_rest.mdp");
  const std::string out = make_temp_dir("comm_warn");
  std::string log;
  ASSERT_EQ(run_halomd(kSystem, "../../tcgroups/comm_rest.mdp", {{"nsteps", "0"}}, out + "/run", "", &log),
            0);
  EXPECT_NE(log.find("7227 atoms are not part of any centre-of-mass motion removal group"), std::string::npos)
      << log;
  EXPECT_EQ(run_halomd(kSystem, "../../tcgroups/comm_groups.mdp", {{"comm-grps", "Protein System"}},
                       out + "/both", "", &log),
            2);
  EXPECT_NE(log.find("comm-grps: atom 1 is in both Protein and System"), std::string::npos) << log;
  // energygrps with several groups runs with a note (the terms stay the whole system's: bitwise the same
  // file); a group that does not exist is an error.
  ASSERT_EQ(run_halomd(kSystem, kMdp, {{"nsteps", "5"}}, out + "/one", "", &log), 0) << log;
  ASSERT_EQ(
      run_halomd(kSystem, kMdp, {{"nsteps", "5"}, {"energygrps", "Protein SOL"}}, out + "/eg", "", &log), 0)
      << log;
  EXPECT_NE(log.find("energygrps: the energy terms are the whole system's"), std::string::npos) << log;
  EXPECT_EQ(read_text(out + "/one/energy.csv"), read_text(out + "/eg/energy.csv"));
  EXPECT_EQ(run_halomd(kSystem, kMdp, {{"energygrps", "Protein Lipids"}}, out + "/eg2", "", &log), 2);
  EXPECT_NE(log.find("energygrps: no group 'Lipids'"), std::string::npos) << log;
}

// The GPUs remove the centre-of-mass motion of at most 4 comm-grps (their step state's arrays): more exit 2
// naming the line before any device is touched (so this runs without one, in a CUDA build). Five groups
// cutting the peptide system in five (an index file), tc-grps the same.
TEST(TcGroups, CommGroupsBeyondTheGpuLimitAreRefusedNamingTheLine) {
#if HALOMD_HAVE_CUDA
  const std::string out = make_temp_dir("comm_gpu_limit");
  std::istringstream gro(read_text(data_path(std::string(kSystem) + "/conf.gro")));
  std::string title;
  int n = 0;
  std::getline(gro, title);
  gro >> n;  // the atom count
  ASSERT_GT(n, 1000);
  std::string ndx;
  for (int g = 0; g < 5; ++g) {
    ndx += "[ G" + std::to_string(g) + " ]\n";
    for (int a = g * n / 5 + 1; a <= (g + 1) * n / 5; ++a) ndx += std::to_string(a) + " ";
    ndx += "\n";
  }
  std::ofstream(out + "/five.ndx") << ndx;
  const std::map<std::string, std::string> five = {{"nsteps", "0"},
                                                   {"comm-grps", "G0 G1 G2 G3 G4"},
                                                   {"tc-grps", "G0 G1 G2 G3 G4"},
                                                   {"tau-t", "0.1 0.1 0.1 0.1 0.1"},
                                                   {"ref-t", "0 0 0 0 0"}};
  std::string log;
  EXPECT_EQ(run_halomd(kSystem, "../../tcgroups/comm_groups.mdp", five, out + "/gpu",
                       "--backend cuda -n " + out + "/five.ndx", &log),
            2);
  EXPECT_NE(log.find("gpu.mdp:17"), std::string::npos) << log;  // comm-grps' line
  EXPECT_NE(log.find("comm-grps has 5 groups; the GPU removes the centre-of-mass motion of at most 4"),
            std::string::npos)
      << log;
  // The CPU takes them.
  auto cpu = five;
  cpu["nsteps"] = "2";
  EXPECT_EQ(run_halomd(kSystem, "../../tcgroups/comm_groups.mdp", cpu, out + "/cpu",
                       "-n " + out + "/five.ndx", &log),
            0)
      << log;
#else
  GTEST_SKIP() << "this build has no CUDA backend";
#endif
}

// On 4 and 8 domains of update groups (the CPU decomposition): grompp's degrees of freedom and gmx_d's path,
// the groups' kinetic energies summed over domains in fixed point.
TEST(TcGroups, DomainsFollowGromacsNoiselessPath) {
  expect_groups_like_gromacs(kMdp, "--domains 4", "tcgroups/ndf.txt", "tcgroups/reference.txt", "t_Protein",
                             "t_Non-Protein");
  expect_groups_like_gromacs(kMdp, "--dd 2 2 2", "tcgroups/ndf.txt", "tcgroups/reference.txt", "t_Protein",
                             "t_Non-Protein");
}

// freezegrps (tests/make_freeze_refdata.sh): each frozen atom's frozen coordinates in the run's confout.gro
// as at its start (the same inputs run for 0 steps: the start's constraining moves frozen atoms too, as in
// GROMACS), up to whole box vectors and the file's 3 decimals; and the free ones moved.
void expect_frozen_in_place(const std::string& mdp, const std::string& args, const std::string& run_dir,
                            int first, int last, const std::array<bool, 3>& dims) {
  std::string log;
  if (read_text(run_dir + "_start/confout.gro").empty())  // one start run for the checks of one run
    ASSERT_EQ(run_halomd(kSystem, mdp, {{"nsteps", "0"}}, run_dir + "_start", args, &log), 0) << log;
  const io::GroFile start = io::read_gro(run_dir + "_start/confout.gro");
  const io::GroFile out = io::read_gro(run_dir + "/confout.gro");
  double moved = 0.0;
  for (int a = first; a < last; ++a)
    for (int d = 0; d < 3; ++d) {
      double diff = out.x[a][d] - start.x[a][d];
      diff -= std::round(diff / start.box.len[d]) * start.box.len[d];
      if (dims[d])
        EXPECT_NEAR(diff, 0.0, 1.1e-3) << "atom " << a + 1 << " dimension " << d;
      else
        moved = std::max(moved, std::fabs(diff));
    }
  // 20 steps of 0.5 fs at ~200 K move a free atom by ~0.005 nm.
  if (!dims[0] || !dims[1] || !dims[2]) EXPECT_GT(moved, 2e-3);
}

// Frozen atoms against gmx_d: the whole peptide (its group without degrees of freedom, its atoms out of the
// centre of mass), the first 60 atoms of an index file (constraints between frozen and free atoms, a tc
// group of both), and the peptide frozen along z only without constraints (the water alone in comm-grps);
// grompp's degrees of freedom, the noiseless path step by step, the frozen coordinates unchanged. On one
// domain and, for the last two, on domains (frozen and free atoms of one update group).
TEST(Freeze, FrozenAtomsFollowGromacs) {
  const std::string ndx = " -n " + data_path("tcgroups/index.ndx");
  for (const std::string args : {"", "--dd 3 1 1"}) {
    SCOPED_TRACE(args);
    std::string dir;
    if (args.empty()) {
      const char* const full = "../../freeze/full.mdp";
      expect_groups_like_gromacs(full, args, "freeze/ndf_full.txt", "freeze/reference_full.txt", "t_Protein",
                                 "t_Non-Protein", &dir, false);
      expect_frozen_in_place(full, args, dir, 0, 132, {true, true, true});
      // The constraints between frozen atoms are left out of the steps: a pressure of the free atoms
      // (GROMACS's is -3.7e28 bar at step 0 and ~-1e20 after, from those constraints' virial).
      auto e = read_csv(dir + "/energy.csv");
      for (double pressure : e["pressure"]) EXPECT_LT(std::fabs(pressure), 1e4);
      expect_frozen_in_place(full, args, dir, 132, 200, {false, false, false});
    }
    const char* const index = "../../freeze/index.mdp";
    expect_groups_like_gromacs(index, args + ndx, "freeze/ndf_index.txt", "freeze/reference_index.txt",
                               "t_Protein", "t_Non-Protein", &dir, false);
    expect_frozen_in_place(index, args + ndx, dir, 0, 60, {true, true, true});
    expect_frozen_in_place(index, args + ndx, dir, 60, 132, {false, false, false});
    const char* const partial = "../../freeze/partial.mdp";
    expect_groups_like_gromacs(partial, args, "freeze/ndf_partial.txt", "freeze/reference_partial.txt",
                               "t_Protein", "t_Non-Protein", &dir);
    expect_frozen_in_place(partial, args, dir, 0, 132, {false, false, true});
  }
}

// The total degrees of freedom (run.json) as gmx grompp counts them (the sum of its groups', 2 decimals
// each), run here on the same inputs: a TIP4P box with its first 100 waters frozen (their virtual sites leave
// the centre of mass with them), the peptide's First_half frozen with tcoupl = no (grompp still counts by
// tc-grps group), every atom of the LJ fluid frozen along z (no grompp warning: the centre of mass moves in x
// and y), and, without freezing, comm-grps with tcoupl = no.
TEST(Freeze, DegreesOfFreedomAsGrompp) {
  if (run_command("command -v gmx") != 0) GTEST_SKIP() << "gmx not installed";
  const std::string out = make_temp_dir("freeze_ndf");
  const io::GroFile tip4p = io::read_gro(data_path("vsite/tip4p/conf.gro"));
  const int n4 = static_cast<int>(tip4p.x.size());
  {
    std::ofstream ndx(out + "/tip4p.ndx");
    const auto group = [&](const char* name, int first, int last) {
      ndx << "[ " << name << " ]\n";
      for (int a = first; a <= last; ++a) ndx << a << (a % 15 == 0 || a == last ? "\n" : " ");
    };
    group("System", 1, n4);
    group("First", 1, 400);
  }
  struct Case {
    const char* system;
    const char* mdp;
    std::map<std::string, std::string> set;
    std::string ndx;
  };
  const Case cases[] = {
      {"vsite/tip4p", "step0.mdp", {{"freezegrps", "First"}, {"freezedim", "Y Y Y"}}, out + "/tip4p.ndx"},
      {kSystem,
       kMdp,
       {{"tcoupl", "no"}, {"freezegrps", "First_half"}, {"freezedim", "Y Y Y"}},
       data_path("tcgroups/index.ndx")},
      {"lj_fluid", "step0.mdp", {{"freezegrps", "System"}, {"freezedim", "N N Y"}}, ""},
      {kSystem, kMdp, {{"tcoupl", "no"}, {"comm-grps", "Protein Non-Protein"}}, ""},
  };
  for (size_t k = 0; k < std::size(cases); ++k) {
    const Case& c = cases[k];
    SCOPED_TRACE(::testing::Message() << "case " << k << " " << c.system);
    const std::string dir = out + "/c" + std::to_string(k);
    std::map<std::string, std::string> set = c.set;
    set["nsteps"] = "0";
    const std::string n_arg = c.ndx.empty() ? "" : " -n " + c.ndx;
    std::string log;
    ASSERT_EQ(run_halomd(c.system, c.mdp, set, dir, n_arg, &log), 0) << log;
    const std::string sys = data_path(c.system);
    ASSERT_EQ(run_command("cd " + out + " && GMX_MAXBACKUP=-1 gmx -quiet grompp -maxwarn 5 -f " + dir +
                          ".mdp -c " + sys + "/conf.gro -p " + sys + "/topol.top -o c.tpr" + n_arg + " > c" +
                          std::to_string(k) + ".log 2>&1"),
              0)
        << read_text(out + "/c" + std::to_string(k) + ".log");
    double grompp = 0.0;
    int groups = 0;
    std::istringstream lines(read_text(out + "/c" + std::to_string(k) + ".log"));
    const std::string key = "Number of degrees of freedom in T-Coupling group ";
    for (std::string line; std::getline(lines, line);)
      if (line.starts_with(key)) {
        grompp += std::stod(line.substr(line.rfind(' ') + 1));
        ++groups;
      }
    ASSERT_GT(groups, 0);
    EXPECT_NEAR(json_number(read_text(dir + "/run.json"), "degrees_of_freedom"), grompp, 0.006 * groups);
  }
}

// Frozen atoms start at rest whatever the start: generated velocities (gen-temp 300 K then holds for the free
// atoms' degrees of freedom, ~6 K before the frozen ones were left out of the scaling), and a continuation
// from the checkpoint of a run without freezing.
TEST(Freeze, FrozenAtomsStartAtRest) {
  const std::string out = make_temp_dir("freeze_start");
  const char* const full = "../../freeze/full.mdp";
  std::string log;
  ASSERT_EQ(
      run_halomd(
          kSystem, full,
          {{"gen-vel", "yes"}, {"gen-temp", "300"}, {"gen-seed", "5"}, {"tcoupl", "no"}, {"nsteps", "0"}},
          out + "/gen", "", &log),
      0)
      << log;
  auto e = read_csv(out + "/gen/energy.csv");
  EXPECT_NEAR(e["temperature"][0], 300.0, 15.0);
  const auto expect_frozen_at_rest = [](const std::string& confout) {
    const io::GroFile gro = io::read_gro(confout);
    ASSERT_EQ(gro.v.size(), gro.x.size());
    for (int a = 0; a < 132; ++a) EXPECT_EQ(norm2(gro.v[a]), 0.0) << "atom " << a + 1;
  };
  expect_frozen_at_rest(out + "/gen/confout.gro");
  // 10 steps without freezing (checkpoint at the end), then 10 more with the peptide frozen.
  const std::map<std::string, std::string> free = {{"freezegrps", ""}, {"freezedim", ""}, {"nsteps", "10"}};
  ASSERT_EQ(run_halomd(kSystem, full, free, out + "/free", "", &log), 0) << log;
  ASSERT_EQ(run_halomd(kSystem, full, {{"nsteps", "20"}}, out + "/frozen", "--cpi " + out + "/free/state.cpt",
                       &log),
            0)
      << log;
  expect_frozen_at_rest(out + "/frozen/confout.gro");
}

// What halomd does not run as GROMACS is refused naming the line: a freezedim of the wrong length or with
// other than Y and N, pressure coupling, a constrained atom or a water frozen along some dimensions only, and
// (grompp's warning) atoms frozen along some dimensions only in a centre-of-mass group; on GPUs, atoms frozen
// along some dimensions only.
TEST(Freeze, WhatIsNotRunAsGromacsIsRefusedNamingTheLine) {
  const std::string out = make_temp_dir("freeze_refuse");
  const char* const mdp = "../../freeze/full.mdp";
  const std::pair<std::map<std::string, std::string>, std::string> cases[] = {
      {{{"freezedim", "Y Y"}}, "freezedim has 2 values for the 1 groups of freezegrps"},
      {{{"freezedim", "Y Y maybe"}}, "freezedim = Y Y maybe: use Y or N for each dimension"},
      {{{"freezegrps", "Lipids"}}, "freezegrps: no group 'Lipids'"},
      {{{"pcoupl", "c-rescale"}, {"tau-p", "1"}, {"compressibility", "4.5e-5"}},
       "freezegrps with pressure coupling is not supported"},
      {{{"freezedim", "N N Y"}},
       "freezegrps: atom 1 (SER N) is constrained and frozen along some dimensions"},
      {{{"freezegrps", "SOL"}, {"freezedim", "Y N N"}},
       "freezegrps: the water of atom 133 (SOL OW) is frozen in part"},
      {{{"freezedim", "N N Y"}, {"constraints", "none"}},
       "freezegrps: 132 atoms are frozen along fewer than 3 dimensions and part of a centre-of-mass"},
      // The whole water frozen in all dimensions, and nothing frozen at all (N N N), run.
      {{{"freezegrps", "SOL"}}, ""},
      {{{"freezedim", "N N N"}}, ""},
  };
  std::string log;
  for (size_t k = 0; k < std::size(cases); ++k) {
    const std::string& error = cases[k].second;
    SCOPED_TRACE(error);
    std::map<std::string, std::string> s = cases[k].first;
    s["nsteps"] = "2";
    const std::string dir = out + "/r" + std::to_string(k);
    const int rc = run_halomd(kSystem, mdp, s, dir, "", &log);
    if (error.empty()) {
      EXPECT_EQ(rc, 0) << log;
    } else {
      EXPECT_EQ(rc, 2) << log;
      EXPECT_NE(log.find("r" + std::to_string(k) + ".mdp:"), std::string::npos) << log;
      EXPECT_NE(log.find(error), std::string::npos) << log;
    }
  }
#if HALOMD_HAVE_CUDA
  // (GPUs run fully frozen atoms: test_cuda_run, test_cuda_dd_mpi.)
  EXPECT_EQ(run_halomd(kSystem, mdp, {{"freezedim", "N N Y"}, {"constraints", "none"}, {"comm-mode", "None"}},
                       out + "/gpu", "--backend cuda", &log),
            2);
  EXPECT_NE(log.find("freezedim: atoms frozen along some dimensions only run with --backend cpu so far"),
            std::string::npos)
      << log;
#endif
}

// Energy minimisation (steep) moves no frozen coordinate of the peptide (frozen along x and y), and moves the
// free one.
TEST(Freeze, SteepLeavesFrozenAtomsInPlace) {
  const std::string out = make_temp_dir("freeze_steep");
  std::string log;
  ASSERT_EQ(run_halomd(kSystem, "../../em/solvated.mdp",
                       {{"freezegrps", "Protein"},
                        {"freezedim", "Y Y N"},
                        {"constraints", "none"},
                        {"comm-mode", "None"},  // else grompp's warning: partly frozen atoms in the COM group
                        {"nsteps", "10"}},
                       out + "/run", "", &log),
            0)
      << log;
  const io::GroFile conf = io::read_gro(data_path(std::string(kSystem) + "/conf.gro"));
  const io::GroFile em = io::read_gro(out + "/run/confout.gro");
  double moved_z = 0.0;
  for (int a = 0; a < 132; ++a) {
    for (int d = 0; d < 2; ++d) {
      double diff = em.x[a][d] - conf.x[a][d];
      diff -= std::round(diff / conf.box.len[d]) * conf.box.len[d];
      EXPECT_NEAR(diff, 0.0, 1.1e-3) << "atom " << a + 1;
    }
    moved_z = std::max(moved_z, std::fabs(em.x[a][2] - conf.x[a][2]));
  }
  EXPECT_GT(moved_z, 2e-3);
}

}  // namespace
}  // namespace halomd::test
