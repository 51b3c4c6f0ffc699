// `halomd run` under mpirun (the mpi transport, one domain per rank): bitwise the same files as the local
// transport on the same grid, checkpoints that continue on other rank counts, and errors that end every rank
// with a clear message instead of a hang. Skipped when the build has no MPI transport.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "core/vec3.h"
#include "io/checkpoint.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

#define SKIP_WITHOUT_MPI()                                                                    \
  if (std::string(HALOMD_MPIEXEC).empty()) GTEST_SKIP() << "this build has no mpi transport"; \
  static_assert(true)

// K ranks on the 2-core CI machine (as root there); `timeout` turns a hang into a failure.
std::string mpirun(int ranks) {
  return "timeout 120 " + std::string(HALOMD_MPIEXEC) + " --oversubscribe --allow-run-as-root -n " +
         std::to_string(ranks) + " ";
}

const std::map<std::string, std::string> kVrescale = {
    {"rlist", "1.0"},        {"nsteps", "60"},        {"nstenergy", "10"},
    {"nstcalcenergy", "10"}, {"nstcheckpoint", "30"}, {"nstxout-compressed", "20"},
    {"nstcomm", "10"},       {"ld-seed", "5"},        {"gen-seed", "6"}};

void expect_same_files(const std::string& a, const std::string& b) {
  for (const char* f : {"energy.csv", "traj.xtc", "confout.gro", "state.cpt"}) {
    const std::string ta = read_text(a + "/" + f);
    EXPECT_FALSE(ta.empty()) << a << "/" << f;
    EXPECT_EQ(ta, read_text(b + "/" + f)) << f << " differs between " << a << " and " << b;
  }
}

TEST(MpiTransport, FourRanksGiveBitwiseTheFilesOfTheLocalTransport) {
  SKIP_WITHOUT_MPI();
  const std::string out = make_temp_dir("mpi_vs_local");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kVrescale, out + "/local", "--domains 4 --dd 2 2 1", &log),
            0)
      << log;
  ASSERT_EQ(
      run_halomd_under(mpirun(4), "spce_1k5", "vrescale.mdp", kVrescale, out + "/mpi", "--dd 2 2 1", &log), 0)
      << log;
  expect_same_files(out + "/local", out + "/mpi");
  const std::string json = read_text(out + "/mpi/run.json");
  EXPECT_NE(json.find("\"transport\": \"mpi\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"ranks\": 4"), std::string::npos) << json;
  // Regular steps wait for 2 coordinate and 2 force pulses.
  EXPECT_EQ(json.find("\"mpi_waits_per_step\": 0,"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"halo_bytes_per_step\": 0,"), std::string::npos) << json;
}

// ld-seed = -1 and gen-seed = -1: the seeds are drawn once, on rank 0, for every rank (each rank used to draw
// its own: its domain's velocities from another draw, its thermostat and C-rescale noise from another stream,
// and so another box on each rank). Four ranks write the files of one process given the seeds that the
// four ranks' checkpoint names.
TEST(MpiTransport, SeedsDrawnOnRankZeroServeEveryRank) {
  SKIP_WITHOUT_MPI();
  const std::string out = make_temp_dir("mpi_drawn_seeds");
  std::string log;
  std::map<std::string, std::string> set = kVrescale;
  set.insert_or_assign("ld-seed", "-1");
  set.insert_or_assign("gen-seed", "-1");
  set.insert_or_assign("gen-vel", "yes");
  set.insert_or_assign("gen-temp", "320");
  set.insert_or_assign("continuation", "no");
  set.insert_or_assign("nsteps", "30");
  set.insert_or_assign("nstcheckpoint", "0");
  set.insert({"pcoupl", "C-rescale"});
  set.insert({"tau-p", "1.0"});
  set.insert({"compressibility", "4.5e-5"});
  set.insert({"ref-p", "1"});
  set.insert({"nstpcouple", "10"});
  ASSERT_EQ(run_halomd_under(mpirun(4), "spce_1k5", "vrescale.mdp", set, out + "/mpi", "--dd 2 2 1", &log), 0)
      << log;
  const io::Checkpoint cpt = io::read_checkpoint(out + "/mpi/state.cpt");
  set.insert_or_assign("ld-seed", std::to_string(cpt.ld_seed));
  set.insert_or_assign("gen-seed", std::to_string(cpt.gen_seed));
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", set, out + "/local", "--domains 4 --dd 2 2 1", &log), 0)
      << log;
  for (const char* f : {"energy.csv", "confout.gro"})
    EXPECT_EQ(read_text(out + "/local/" + f), read_text(out + "/mpi/" + f)) << f;
  EXPECT_GT(std::fabs(read_csv(out + "/mpi/energy.csv")["volume"].back() -
                      read_csv(out + "/mpi/energy.csv")["volume"].front()),
            0.0);
}

// coulombtype = PME: every rank computes the mesh part from all positions, gathered as their owners' bits, so
// 4 ranks write bitwise the files of 4 domains in one process, traj.trr's gathered forces included.
TEST(MpiTransport, PmeOnFourRanksGivesBitwiseTheFilesOfTheLocalTransport) {
  SKIP_WITHOUT_MPI();
  const std::string out = make_temp_dir("mpi_pme");
  std::map<std::string, std::string> set = kVrescale;
  set["coulombtype"] = "PME";
  // traj.trr too: x, v and the forces gathered from the ranks.
  set["nstxout"] = "20";
  set["nstvout"] = "30";
  set["nstfout"] = "15";
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", set, out + "/local", "--domains 4 --dd 2 2 1", &log), 0)
      << log;
  ASSERT_EQ(run_halomd_under(mpirun(4), "spce_1k5", "vrescale.mdp", set, out + "/mpi", "--dd 2 2 1", &log), 0)
      << log;
  expect_same_files(out + "/local", out + "/mpi");
  const std::string trr = read_text(out + "/local/traj.trr");
  EXPECT_FALSE(trr.empty());
  EXPECT_EQ(trr, read_text(out + "/mpi/traj.trr"));
  auto e = read_csv(out + "/mpi/energy.csv");
  ASSERT_FALSE(e["coul_recip"].empty());
  EXPECT_GT(e["coul_recip"][0], 10.0);  // the mesh part is there
}

// The solvated peptide on 4 ranks: listed interactions and excluded pairs between update groups, LINCS on
// each rank's groups, PME; bitwise the files of 4 domains in one process (every sum is in fixed point).
TEST(MpiTransport, PeptideOnFourRanksGivesBitwiseTheFilesOfTheLocalTransport) {
  SKIP_WITHOUT_MPI();
  const std::string out = make_temp_dir("mpi_peptide");
  const std::map<std::string, std::string> set = {{"nsteps", "30"},
                                                  {"nstenergy", "10"},
                                                  {"nstcalcenergy", "10"},
                                                  {"nstxout-compressed", "15"},
                                                  {"ld-seed", "5"}};
  std::string log;
  ASSERT_EQ(
      run_halomd("bonded/solvated", "hbonds_nve.mdp", set, out + "/local", "--domains 4 --dd 2 2 1", &log), 0)
      << log;
  ASSERT_EQ(
      run_halomd_under(mpirun(4), "bonded/solvated", "hbonds_nve.mdp", set, out + "/mpi", "--dd 2 2 1", &log),
      0)
      << log;
  expect_same_files(out + "/local", out + "/mpi");
  auto e = read_csv(out + "/mpi/energy.csv");
  ASSERT_FALSE(e["proper_dih"].empty());
  EXPECT_GT(e["proper_dih"][0], 100.0);
}

// What the CPU decomposition took on in the twenty-fourth session, on ranks: bitwise the files of the same
// domains in one process (every sum over domains is in fixed point). Two thermostats and two centres of mass
// on the peptide (4 ranks), TIP4P's virtual sites (4 ranks), C-rescale and SD on water (3 ranks).
TEST(MpiTransport, NewInputsOnRanksGiveBitwiseTheFilesOfTheLocalTransport) {
  SKIP_WITHOUT_MPI();
  struct Case {
    const char* name;
    const char* system;
    const char* mdp;
    int ranks;
    const char* dd;
  };
  const Case cases[] = {{"comm", "bonded/solvated", "../../tcgroups/comm_groups.mdp", 4, "--dd 2 2 1"},
                        {"vsite", "vsite/tip4p", "nve.mdp", 4, "--dd 2 2 1"},
                        {"crescale", "spce_1k5", "../pcoupl/iso_rf.mdp", 3, "--dd 3 1 1"},
                        {"sd", "spce_1k5", "../sd/hot.mdp", 3, "--dd 3 1 1"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string out = make_temp_dir(std::string("mpi_new_") + c.name);
    const std::map<std::string, std::string> set = {{"nsteps", "20"},
                                                    {"nstenergy", "10"},
                                                    {"nstcalcenergy", "10"},
                                                    {"nstxout-compressed", "10"},
                                                    {"ld-seed", "5"}};
    std::string log;
    ASSERT_EQ(run_halomd(c.system, c.mdp, set, out + "/local",
                         "--domains " + std::to_string(c.ranks) + " " + c.dd, &log),
              0)
        << log;
    ASSERT_EQ(run_halomd_under(mpirun(c.ranks), c.system, c.mdp, set, out + "/mpi", c.dd, &log), 0) << log;
    expect_same_files(out + "/local", out + "/mpi");
  }
}

// Direct halo pulses (HALOMD_DD_DIRECT=1, domdec/halo_plan.h: each halo zone straight from its owner) bring
// each domain the chained pulses' atoms in the same order with the same positions, and the forces come
// back as integers, so the files are bitwise those of chained pulses: on 4 ranks (x, y and xy pulses
// instead of x and y) and on 8 domains in one process (7 pulses instead of 3).
TEST(MpiTransport, DirectPulsesGiveBitwiseTheFilesOfChainedOnes) {
  SKIP_WITHOUT_MPI();
  const std::string out = make_temp_dir("mpi_direct");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kVrescale, out + "/local", "--domains 4 --dd 2 2 1", &log),
            0)
      << log;
  ASSERT_EQ(run_halomd_under("HALOMD_DD_DIRECT=1 " + mpirun(4), "spce_1k5", "vrescale.mdp", kVrescale,
                             out + "/mpi_direct", "--dd 2 2 1", &log),
            0)
      << log;
  expect_same_files(out + "/local", out + "/mpi_direct");
  const std::string chained = read_text(out + "/local/run.json"),
                    direct = read_text(out + "/mpi_direct/run.json");
  EXPECT_NE(chained.find("\"halo_pulses_exchanged\": 2,"), std::string::npos) << chained;
  EXPECT_NE(chained.find("\"halo_direct\": false"), std::string::npos) << chained;
  EXPECT_NE(direct.find("\"halo_pulses_exchanged\": 3,"), std::string::npos) << direct;
  EXPECT_NE(direct.find("\"halo_direct\": true"), std::string::npos) << direct;

  ASSERT_EQ(
      run_halomd("spce_1k5", "vrescale.mdp", kVrescale, out + "/local8", "--domains 8 --dd 2 2 2", &log), 0)
      << log;
  ASSERT_EQ(run_halomd_under("HALOMD_DD_DIRECT=1 ", "spce_1k5", "vrescale.mdp", kVrescale,
                             out + "/local8_direct", "--domains 8 --dd 2 2 2", &log),
            0)
      << log;
  expect_same_files(out + "/local8", out + "/local8_direct");
  const std::string direct8 = read_text(out + "/local8_direct/run.json");
  EXPECT_NE(direct8.find("\"pulses\": [1, 1, 1]"), std::string::npos) << direct8;
  EXPECT_NE(direct8.find("\"halo_pulses_exchanged\": 7,"), std::string::npos) << direct8;
}

TEST(MpiTransport, TwoPulsesOnThreeRanksGiveBitwiseTheFilesOfTheLocalTransport) {
  SKIP_WITHOUT_MPI();
  const std::string out = make_temp_dir("mpi_pulses");
  // nve.mdp's rlist 1.1: 3 cells of 0.83 nm in x need 2 pulses.
  const std::map<std::string, std::string> set = {{"nsteps", "40"},
                                                  {"nstenergy", "5"},
                                                  {"nstxout-compressed", "10"},
                                                  {"gen-seed", "1"},
                                                  {"ld-seed", "2"}};
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/local", "--domains 3", &log), 0) << log;
  ASSERT_EQ(run_halomd_under(mpirun(3), "spce_1k5", "nve.mdp", set, out + "/mpi", "", &log), 0) << log;
  EXPECT_NE(read_text(out + "/mpi/run.json").find("\"pulses\": [2, 0, 0]"), std::string::npos);
  expect_same_files(out + "/local", out + "/mpi");
}

TEST(MpiTransport, CheckpointOfFourRanksContinuesOnTwoRanksAndOnOneProcess) {
  SKIP_WITHOUT_MPI();
  const std::string out = make_temp_dir("mpi_restart");
  std::string log;
  ASSERT_EQ(run_halomd_under(mpirun(4), "spce_1k5", "vrescale.mdp", kVrescale, out + "/full", "", &log), 0)
      << log;
  // Stopped before step 40 on every rank: the checkpoint of step 30 stays.
  EXPECT_NE(run_halomd_under(mpirun(4), "spce_1k5", "vrescale.mdp", kVrescale, out + "/part",
                             "--stop-at-step 40", &log),
            0);
  const std::string cpt = out + "/part/state.cpt";
  ASSERT_EQ(
      run_halomd_under(mpirun(2), "spce_1k5", "vrescale.mdp", kVrescale, out + "/on2", "--cpi " + cpt, &log),
      0)
      << log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp", kVrescale, out + "/on1", "--cpi " + cpt, &log), 0) << log;
  const io::Checkpoint full = io::read_checkpoint(out + "/full/state.cpt");
  for (const char* run : {"/on2", "/on1"}) {
    const io::Checkpoint c = io::read_checkpoint(out + run + "/state.cpt");
    ASSERT_EQ(c.step, full.step);
    ASSERT_EQ(c.x.size(), full.x.size());
    double worst = 0.0;
    for (size_t i = 0; i < c.x.size(); ++i)
      for (int d = 0; d < 3; ++d) worst = std::max(worst, std::fabs(c.x[i][d] - full.x[i][d]));
    EXPECT_LT(worst, kDdPositionTol) << run;
  }
  // On four ranks again, into the interrupted run's folder: the same bits as the uninterrupted run.
  ASSERT_EQ(
      run_halomd_under(mpirun(4), "spce_1k5", "vrescale.mdp", kVrescale, out + "/part", "--cpi " + cpt, &log),
      0)
      << log;
  expect_same_files(out + "/full", out + "/part");
}

TEST(MpiTransport, BadGridsExit2OnEveryRankWithAClearMessage) {
  SKIP_WITHOUT_MPI();
  const std::string out = make_temp_dir("mpi_errors");
  std::string log;
  EXPECT_EQ(run_halomd_under(mpirun(3), "spce_1k5", "nve.mdp", {}, out + "/a", "--dd 2 1 1", &log), 2) << log;
  EXPECT_NE(log.find("--dd 2x1x1 makes 2 domains, but the run has 3 MPI ranks"), std::string::npos) << log;
  // rlist 1.1: no arrangement of 2 domains fits the 2.5 nm box.
  EXPECT_EQ(run_halomd_under(mpirun(2), "spce_1k5", "nve.mdp", {}, out + "/b", "", &log), 2) << log;
  EXPECT_NE(log.find("2 domains cannot be arranged"), std::string::npos) << log;
  EXPECT_EQ(run_halomd_under(mpirun(2), "spce_1k5", "nve.mdp", {}, out + "/c", "--transport local", &log), 2)
      << log;
  EXPECT_NE(log.find("--transport local runs every domain in one process"), std::string::npos) << log;
}

TEST(MpiTransport, AFailureOnOneRankEndsEveryRank) {
  SKIP_WITHOUT_MPI();
  // The second water moved whole so that its oxygen is 0.02 nm from the first's: the rank that computes the
  // pair stops at step 0, the others wait for it in the halo exchange and must be ended, not left hanging.
  const std::string dir = make_temp_dir("mpi_blowup");
  std::ifstream in(data_path("spce_1k5/conf.gro"));
  std::ofstream conf(dir + "/conf.gro");
  std::string line;
  Vec3 first_o, shift;
  for (int n = 0; std::getline(in, line); ++n) {
    if (n >= 2 && n <= 7) {
      Vec3 x{std::stod(line.substr(20, 8)), std::stod(line.substr(28, 8)), std::stod(line.substr(36, 8))};
      if (n == 2) first_o = x;
      if (n == 5) shift = first_o + Vec3{0.02, 0.0, 0.0} - x;
      if (n >= 5) {
        x += shift;
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%8.3f%8.3f%8.3f", x.x, x.y, x.z);
        line = line.substr(0, 20) + buf + line.substr(44);
      }
    }
    conf << line << "\n";
  }
  conf.close();
  write_mdp_with(data_path("spce_1k5/nve.mdp"), dir + "/run.mdp", {{"rlist", "1.0"}, {"nsteps", "20"}});
  std::string log;
  const std::string cmd = mpirun(4) + HALOMD_BIN + " run -c " + dir + "/conf.gro -p " +
                          data_path("spce_1k5/topol.top") + " -f " + dir + "/run.mdp -o " + dir + "/out";
  EXPECT_EQ(run_command(cmd, &log), 3) << log;
  EXPECT_NE(log.find("run stopped: step 0: atom "), std::string::npos) << log;
}

TEST(MpiTransport, RunsAsOneRankWithoutMpirun) {
  SKIP_WITHOUT_MPI();
  const std::string out = make_temp_dir("mpi_singleton");
  const std::map<std::string, std::string> set = {
      {"nsteps", "10"}, {"nstxout-compressed", "5"}, {"gen-seed", "1"}, {"ld-seed", "2"}};
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/mpi", "--transport mpi", &log), 0) << log;
  ASSERT_EQ(run_halomd("spce_1k5", "nve.mdp", set, out + "/local", "--transport local", &log), 0) << log;
  EXPECT_NE(read_text(out + "/mpi/run.json").find("\"transport\": \"mpi\""), std::string::npos);
  expect_same_files(out + "/local", out + "/mpi");
}

}  // namespace
}  // namespace halomd::test
