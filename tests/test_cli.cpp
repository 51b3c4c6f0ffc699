// The halomd command line end to end: bad input exits 2 naming file and line, a blow-up exits 3 naming the
// step and atom with the outputs intact, genconf replicates a box.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "core/env.h"
#include "io/xtc.h"
#include "support/run_helpers.h"
#include "support/test_support.h"

namespace halomd::test {
namespace {

std::string halomd_run(const std::string& conf, const std::string& top, const std::string& mdp,
                       const std::string& out) {
  return std::string(HALOMD_BIN) + " run -c " + conf + " -p " + top + " -f " + mdp + " -o " + out;
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(Cli, BadMdpLineExits2NamingFileAndLine) {
  const std::string dir = make_temp_dir("cli_mdp");
  write_mdp_with(data_path("spce_1k5/nve.mdp"), dir + "/bad.mdp", {{"coulombtype", "Ewald"}});
  std::string log;
  EXPECT_EQ(run_command(halomd_run(data_path("spce_1k5/conf.gro"), data_path("spce_1k5/topol.top"),
                                   dir + "/bad.mdp", dir + "/out"),
                        &log),
            2);
  EXPECT_NE(log.find("bad.mdp:"), std::string::npos) << log;
  EXPECT_NE(log.find("coulombtype"), std::string::npos) << log;
}

// Group options naming the whole system under another name (the water box's SOL or Water, as GROMACS's
// default groups have them) run as System does; a group that is not every atom exits 2 naming the line.
TEST(Cli, GroupsOfEveryAtomRunAsSystemAndOthersAreRefused) {
  const std::string dir = make_temp_dir("cli_groups");
  const std::map<std::string, std::string> base = {{"nsteps", "20"}, {"nstenergy", "10"}, {"ld-seed", "3"}};
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", base, dir + "/system", "", &log), 0) << log;
  for (const char* group : {"SOL", "Water", "sol"}) {
    auto set = base;
    set["tc-grps"] = group;
    set["comm-grps"] = group;
    ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", set, dir + "/" + group, "", &log), 0) << group << log;
    EXPECT_EQ(read_text(dir + "/system/energy.csv"), read_text(dir + "/" + group + "/energy.csv")) << group;
  }
  auto set = base;
  set["tc-grps"] = "Protein";
  EXPECT_EQ(run_halomd("spce_1k5", "vrescale.mdp", set, dir + "/protein", "", &log), 2);
  EXPECT_NE(log.find("protein.mdp:"), std::string::npos) << log;
  EXPECT_NE(log.find("tc-grps = Protein: halomd runs one group holding every atom"), std::string::npos)
      << log;
}

TEST(Cli, MissingIncludeAndMoleculeCountMismatchExit2) {
  const std::string dir = make_temp_dir("cli_top");
  write_file(dir + "/missing.top", "#include \"nowhere.itp\"\n");
  std::string log;
  EXPECT_EQ(run_command(halomd_run(data_path("spce_1k5/conf.gro"), dir + "/missing.top",
                                   data_path("spce_1k5/nve.mdp"), dir + "/out1"),
                        &log),
            2);
  EXPECT_NE(log.find("missing.top:1"), std::string::npos) << log;
  EXPECT_NE(log.find("nowhere.itp"), std::string::npos) << log;

  std::string top = read_text(data_path("spce_1k5/topol.top"));
  const auto pos = top.rfind("SOL");
  top = top.substr(0, pos) + "SOL 3\n";
  write_file(dir + "/few.top", top);
  EXPECT_EQ(run_command(halomd_run(data_path("spce_1k5/conf.gro"), dir + "/few.top",
                                   data_path("spce_1k5/nve.mdp"), dir + "/out2"),
                        &log),
            2);
  EXPECT_NE(log.find("conf.gro"), std::string::npos) << log;
}

TEST(Cli, CutoffLongerThanHalfBoxExits2) {
  const std::string dir = make_temp_dir("cli_cut");
  write_mdp_with(data_path("spce_1k5/nve.mdp"), dir + "/long.mdp",
                 {{"rvdw", "1.3"}, {"rcoulomb", "1.3"}, {"rlist", "1.4"}});
  std::string log;
  EXPECT_EQ(run_command(halomd_run(data_path("spce_1k5/conf.gro"), data_path("spce_1k5/topol.top"),
                                   dir + "/long.mdp", dir + "/out"),
                        &log),
            2);
  EXPECT_NE(log.find("half the smallest box edge"), std::string::npos) << log;
}

TEST(Cli, BlowUpStopsWithStepAndAtomAndKeepsOutputsReadable) {
  const std::string dir = make_temp_dir("cli_blowup");
  // Put the second water's oxygen 0.02 nm from the first's: the run must stop at once, naming an atom.
  std::ifstream in(data_path("spce_1k5/conf.gro"));
  std::ofstream out(dir + "/conf.gro");
  std::string line;
  int n = 0;
  std::string first_o;
  while (std::getline(in, line)) {
    if (n == 2) first_o = line;
    if (n == 5) {
      char buf[64];
      const double x = std::stod(first_o.substr(20, 8)) + 0.02;
      std::snprintf(buf, sizeof(buf), "%8.3f", x);
      line = line.substr(0, 20) + buf + first_o.substr(28, 16) + line.substr(44);
    }
    out << line << "\n";
    ++n;
  }
  out.close();
  write_mdp_with(data_path("spce_1k5/nve.mdp"), dir + "/run.mdp",
                 {{"nsteps", "50"}, {"nstxout-compressed", "1"}, {"nstenergy", "1"}});
  std::string log;
  EXPECT_EQ(run_command(halomd_run(dir + "/conf.gro", data_path("spce_1k5/topol.top"), dir + "/run.mdp",
                                   dir + "/out"),
                        &log),
            3);
  EXPECT_NE(log.find("step 0: "), std::string::npos) << log;
  EXPECT_TRUE(log.find("atom 1:") != std::string::npos || log.find("atom 4:") != std::string::npos) << log;
  EXPECT_EQ(log.find("nan"), std::string::npos) << log;
}

TEST(Cli, TooLongTimeStepStopsWithStepAndAtomAndKeepsOutputsReadable) {
  const std::string dir = make_temp_dir("cli_dt");
  write_mdp_with(data_path("spce_1k5/nve.mdp"), dir + "/run.mdp",
                 {{"nsteps", "500"}, {"dt", "0.012"}, {"nstxout-compressed", "1"}, {"nstenergy", "1"}});
  std::string log;
  EXPECT_EQ(run_command(halomd_run(data_path("spce_1k5/conf.gro"), data_path("spce_1k5/topol.top"),
                                   dir + "/run.mdp", dir + "/out"),
                        &log),
            3);
  EXPECT_NE(log.find("step "), std::string::npos) << log;
  EXPECT_NE(log.find("atom "), std::string::npos) << log;
  const std::string csv = read_text(dir + "/out/energy.csv");
  EXPECT_EQ(csv.find("nan"), std::string::npos);
  EXPECT_EQ(csv.back(), '\n');
  // Every row is complete, and the trajectory holds one frame per row.
  auto rows = read_csv(dir + "/out/energy.csv");
  for (const auto& [name, col] : rows) EXPECT_EQ(col.size(), rows["step"].size()) << name;
  const auto frames = io::read_xtc(dir + "/out/traj.xtc");
  EXPECT_EQ(frames.size(), rows["step"].size());
}

TEST(Cli, GenconfDoublesTheEnergyOfADoubledBox) {
  const std::string dir = make_temp_dir("cli_genconf");
  std::string log;
  ASSERT_EQ(run_command(std::string(HALOMD_BIN) + " genconf -c " + data_path("lj_fluid/conf.gro") + " -p " +
                            data_path("lj_fluid/topol.top") + " --nbox 2 1 1 -o " + dir + "/big",
                        &log),
            0)
      << log;
  ASSERT_EQ(run_command(halomd_run(data_path("lj_fluid/conf.gro"), data_path("lj_fluid/topol.top"),
                                   data_path("lj_fluid/step0.mdp"), dir + "/one"),
                        &log),
            0)
      << log;
  ASSERT_EQ(run_command(
                halomd_run(dir + "/big.gro", dir + "/big.top", data_path("lj_fluid/step0.mdp"), dir + "/two"),
                &log),
            0)
      << log;
  auto one = read_csv(dir + "/one/energy.csv");
  auto two = read_csv(dir + "/two/energy.csv");
  EXPECT_NEAR(two["lj_sr"][0], 2.0 * one["lj_sr"][0], 1e-8 * std::fabs(one["lj_sr"][0]));
  EXPECT_NEAR(two["disp_corr"][0], 2.0 * one["disp_corr"][0], 1e-8 * std::fabs(one["disp_corr"][0]));
}

TEST(Cli, BondedFunctionTypeNotRunYetIsRefusedNamingTheLine) {
  const std::string dir = make_temp_dir("cli_bonds");
  write_file(dir + "/conf.gro",
             "two atoms\n2\n    1MOL     A1    1   1.000   1.000   1.000\n"
             "    1MOL     A2    2   1.100   1.000   1.000\n   3.00000   3.00000   3.00000\n");
  write_file(dir + "/topol.top",
             "[ defaults ]\n1 2 no 1.0 1.0\n[ atomtypes ]\nA 12.0 0.0 A 0.3 0.5\n"
             "[ moleculetype ]\nMOL 1\n[ atoms ]\n1 A 1 MOL A1 1 0.0\n2 A 1 MOL A2 1 0.0\n"
             "[ bonds ]\n1 2 3 0.1 1000 20\n[ system ]\nx\n[ molecules ]\nMOL 1\n");
  write_mdp_with(data_path("lj_fluid/step0.mdp"), dir + "/run.mdp", {{"rlist", "1.1"}});
  std::string log;
  EXPECT_EQ(
      run_command(halomd_run(dir + "/conf.gro", dir + "/topol.top", dir + "/run.mdp", dir + "/out"), &log),
      2);
  EXPECT_NE(log.find("not supported yet"), std::string::npos) << log;
  EXPECT_NE(log.find("error: " + dir + "/topol.top:11: [ bonds ] function type 3: not supported yet"),
            std::string::npos)
      << log;
}

// The HALOMD_* tuning variables: a number, the fallback when unset or empty, a clear error otherwise (an
// unparsable HALOMD_DD_SKIN must not silently become 0).
TEST(Env, TuningVariablesAreNumbersOrRefused) {
  const char* name = "HALOMD_TEST_ENV_NUMBER";
  unsetenv(name);
  EXPECT_EQ(env_number(name, 0.2), 0.2);
  setenv(name, "", 1);
  EXPECT_EQ(env_int(name, 7), 7);
  setenv(name, "0.25", 1);
  EXPECT_EQ(env_number(name, 0.2), 0.25);
  EXPECT_THROW(env_int(name, 1), InputError);
  setenv(name, "12", 1);
  EXPECT_EQ(env_int(name, 1), 12);
  setenv(name, "0.2nm", 1);
  try {
    env_number(name, 0.0);
    ADD_FAILURE() << "0.2nm was taken as a number";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0.2nm"), std::string::npos) << e.what();
  }
  unsetenv(name);
}

}  // namespace
}  // namespace halomd::test
