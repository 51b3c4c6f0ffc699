// ener.edr, GROMACS's energy file: the writer's frames read back and continued from a checkpoint's size;
// the terms (names, units, order) and their values (step 0; every step of a deterministic path) against
// gmx_d's own ener.edr of the same inputs (gmx_d grompp + mdrun run here), for md with and without coupling,
// pressure coupling, PME with position restraints and two tc-grps groups, sd and steep; gmx energy reads
// every frame of halomd's file as halomd's reader does and as energy.csv has it; a continuation writes the
// uninterrupted run's file bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "io/edr.h"
#include "support/run_helpers.h"
#include "support/test_support.h"
#include "tolerances.h"

namespace halomd::test {
namespace {

namespace fs = std::filesystem;
using io::EdrFile;
using io::EnergyTermName;

// "name (unit)" of each term, for comparisons that print readably.
std::vector<std::string> labels(const std::vector<EnergyTermName>& terms) {
  std::vector<std::string> out;
  for (const EnergyTermName& t : terms) out.push_back(t.name + " (" + t.unit + ")");
  return out;
}

TEST(EdrFile, FramesReadBackAndAContinuationKeepsTheCheckpointsFrames) {
  const std::string dir = make_temp_dir("edr_unit");
  const std::string path = dir + "/ener.edr";
  const std::vector<EnergyTermName> terms = {{"Potential", "kJ/mol"}, {"Pressure", "bar"}, {"Lamb", ""}};
  int64_t kept = 0;
  {
    io::EdrWriter w(path, terms, 0.002, -1);
    w.write_frame(0, 0.0, {-1.5e4, 1.25, 1.0});
    w.write_frame(10, 0.02, {-1.6e4, -3.5, 1.0});
    kept = w.size_bytes();
    w.write_frame(20, 0.04, {-1.7e4, 7.0, 1.0});
  }
  EdrFile f = io::read_edr(path);
  EXPECT_EQ(labels(f.terms), labels(terms));
  ASSERT_EQ(f.frames.size(), 3U);
  EXPECT_EQ(f.frames[2].step, 20);
  EXPECT_DOUBLE_EQ(f.frames[2].time_ps, 0.04);
  EXPECT_DOUBLE_EQ(f.frames[2].dt_ps, 0.002);
  EXPECT_EQ(f.frames[0].nsteps, 1);  // GROMACS's first frame
  EXPECT_EQ(f.frames[1].nsteps, 10);
  EXPECT_EQ(f.frames[1].values, (std::vector<double>{-1.6e4, -3.5, 1.0}));  // exact in float

  // Other terms than the file's are refused, naming the file, before anything is cut.
  const auto full = fs::file_size(path);
  try {
    io::EdrWriter other(path, {{"Potential", "kJ/mol"}}, 0.002, kept);
    ADD_FAILURE() << "other terms were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_EQ(fs::file_size(path), full);

  {
    io::EdrWriter w(path, terms, 0.002, kept);
    w.write_frame(30, 0.06, {-1.8e4, 2.0, 1.0});
  }
  f = io::read_edr(path);
  ASSERT_EQ(f.frames.size(), 3U);
  EXPECT_EQ(f.frames[2].step, 30);
  EXPECT_EQ(f.frames[2].nsteps, 20);  // since the kept file's last frame

  // A file cut inside a frame is an error naming the frame.
  fs::resize_file(path, fs::file_size(path) - 6);
  try {
    io::read_edr(path);
    ADD_FAILURE() << "a truncated file was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("frame 3"), std::string::npos) << e.what();
  }
}

struct Case {
  std::string name, system, mdp;
  std::map<std::string, std::string> set;
  bool values = true;       // sd's step-0 kinetic energy comes from random kicks: names only
  bool all_frames = false;  // a deterministic path (Nose-Hoover, Parrinello-Rahman): every frame
};

// Terms gmx mdrun writes that halomd does not: the thermostats' scaling (Lamb-), LINCS's relative deviation.
bool halomd_leaves_out(const std::string& name) {
  return name.rfind("Lamb-", 0) == 0 || name == "Constr. rmsd";
}

// gmx_d grompp + mdrun of the case into dir/g.edr, and halomd's run into dir/h.
void run_both(const Case& c, const std::string& dir) {
  std::string log;
  ASSERT_EQ(run_halomd(c.system, c.mdp, c.set, dir + "/h", "--threads 2", &log), 0) << log;
  const std::string data = data_path(c.system);
  const std::string cmd = "cp -r " + data + "/. " + dir + "/ && cd " + dir +
                          " && GMX_MAXBACKUP=-1 gmx_d -quiet grompp -maxwarn 10 -f h.mdp -c conf.gro -r "
                          "conf.gro -p topol.top -o g.tpr && gmx_d -quiet mdrun -nt 2 -s g.tpr -e g.edr -g "
                          "g.log -c g.gro -o g.trr -cpo g.cpt";
  ASSERT_EQ(run_command(cmd, &log), 0) << log;
}

TEST(EdrFile, TermsAndValuesAreGromacss) {
  if (run_command("command -v gmx_d") != 0) GTEST_SKIP() << "gmx_d not installed";
  const std::map<std::string, std::string> step0 = {{"nsteps", "0"}};
  auto with = [&](std::map<std::string, std::string> set) {
    set.insert(step0.begin(), step0.end());
    return set;
  };
  const std::vector<Case> cases = {
      {"vrescale", "spce_1k5", "vrescale.mdp", step0},
      {"nve_no_dispcorr", "spce_1k5", "vrescale.mdp",
       with({{"tcoupl", "no"}, {"tc-grps", ""}, {"tau-t", ""}, {"ref-t", ""}, {"DispCorr", "no"}})},
      {"crescale_semi", "spce_1k5", "vrescale.mdp",
       with({{"pcoupl", "C-rescale"},
             {"pcoupltype", "semiisotropic"},
             {"tau-p", "2"},
             {"compressibility", "4.5e-5 4.5e-5"},
             {"ref-p", "1 3"},
             {"ref-t", "0"}})},  // C-rescale's step-0 noise (and so the conserved energy) is GROMACS's own
      // Non-Protein is GROMACS's non-Protein group: T-non-Protein.
      {"peptide_pme_posres_npt",
       "posres/solvated",
       "npt.mdp",
       {{"nsteps", "4"}, {"tc-grps", "Protein Non-Protein"}, {"tau-t", "0.5 0.5"}, {"ref-t", "300 300"}},
       true,
       true},
      {"sd", "spce_1k5", "vrescale.mdp", with({{"integrator", "sd"}, {"tcoupl", "no"}}), false},
      {"steep", "spce_1k5", "../em/water.mdp", step0},
      // grompp turns pressure coupling off for minimisation: no box terms.
      {"steep_pcoupl", "spce_1k5", "../em/water.mdp",
       with({{"pcoupl", "C-rescale"},
             {"tau-p", "2"},
             {"compressibility", "4.5e-5"},
             {"ref-p", "1"},
             {"tcoupl", "V-rescale"},
             {"tc-grps", "System"},
             {"tau-t", "0.1"},
             {"ref-t", "300"}})},
      {"martini_harmonic_restricted_angles", "martini", "step0.mdp", {}},
      {"dihedral_restraints", "dihres", "nve.mdp", step0},
      {"virtual_sitesn", "vsiten", "step0.mdp", {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string dir = make_temp_dir("edr_" + c.name);
    run_both(c, dir);
    if (::testing::Test::HasFatalFailure()) return;
    const EdrFile ours = io::read_edr(dir + "/h/ener.edr"), gmx = io::read_edr(dir + "/g.edr");
    std::vector<EnergyTermName> expected;
    for (const EnergyTermName& t : gmx.terms)
      if (!halomd_leaves_out(t.name)) expected.push_back(t);
    EXPECT_EQ(labels(ours.terms), labels(expected));
    ASSERT_FALSE(ours.frames.empty());
    ASSERT_FALSE(gmx.frames.empty());
    EXPECT_EQ(ours.frames[0].step, gmx.frames[0].step);
    EXPECT_DOUBLE_EQ(ours.frames[0].time_ps, gmx.frames[0].time_ps);
    EXPECT_DOUBLE_EQ(ours.frames[0].dt_ps, gmx.frames[0].dt_ps);
    if (!c.values) continue;
    const size_t frames = c.all_frames ? gmx.frames.size() : 1;
    if (c.all_frames) ASSERT_EQ(ours.frames.size(), frames);
    for (size_t f = 0; f < frames; ++f) {
      SCOPED_TRACE(::testing::Message() << "step " << gmx.frames[f].step);
      std::map<std::string, double> ref;
      for (size_t k = 0; k < gmx.terms.size(); ++k) ref[gmx.terms[k].name] = gmx.frames[f].values[k];
      // GROMACS 2022 counts the dispersion correction twice in a minimisation's potential (its issue 5031).
      if (c.name.rfind("steep", 0) == 0) ref["Potential"] -= ref["Disper. corr."];
      const double virial_scale =
          (std::fabs(ref["Vir-XX"]) + std::fabs(ref["Vir-YY"]) + std::fabs(ref["Vir-ZZ"])) / 3;
      for (size_t k = 0; k < ours.terms.size(); ++k) {
        const std::string& name = ours.terms[k].name;
        double want = ref[name];
        const bool vir = name.rfind("Vir-", 0) == 0, bar = ours.terms[k].unit.rfind("bar", 0) == 0;
        // GROMACS's virial is not quite symmetric (its single-sum shift-vector form in mixed arithmetic);
        // halomd's is, and equals the mean of the two off-diagonal elements.
        const char a = name[name.size() - 2], b = name[name.size() - 1];
        if ((vir || name.rfind("Pres-", 0) == 0) && a != b)
          want = 0.5 * (want + ref[name.substr(0, name.size() - 2) + b + a]);
        const double tol = vir   ? kEdrVirialRelTol * virial_scale
                           : bar ? kEdrPressureAbsTol
                                 : kEdrRelTol * std::fabs(want) + 1e-6;
        EXPECT_NEAR(ours.frames[f].values[k], want, tol) << name;
      }
    }
  }
}

// The xvg columns gmx energy writes for every term of `edr` (all selected), by row.
std::vector<std::vector<double>> gmx_energy_rows(const std::string& edr, size_t nterms,
                                                 const std::string& dir) {
  std::string select;
  for (size_t k = 1; k <= nterms; ++k) select += std::to_string(k) + " ";
  std::string log;
  const std::string cmd = "cd " + dir + " && echo '" + select +
                          "0' | GMX_MAXBACKUP=-1 gmx -quiet energy -f " + edr + " -o all.xvg";
  EXPECT_EQ(run_command(cmd, &log), 0) << log;
  std::vector<std::vector<double>> rows;
  std::ifstream in(dir + "/all.xvg");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line[0] == '@') continue;
    std::istringstream w(line);
    std::vector<double> row;
    double v;
    while (w >> v) row.push_back(v);
    rows.push_back(row);
  }
  return rows;
}

TEST(EdrFile, GmxEnergyReadsEveryFrameAsEnergyCsvHasIt) {
  if (run_command("command -v gmx") != 0) GTEST_SKIP() << "gmx not installed";
  const std::string dir = make_temp_dir("edr_gmx_energy");
  std::string log;
  ASSERT_EQ(run_halomd("spce_1k5", "vrescale.mdp",
                       {{"nsteps", "20"},
                        {"nstenergy", "5"},
                        {"nstcalcenergy", "5"},
                        {"pcoupl", "C-rescale"},
                        {"tau-p", "1"},
                        {"compressibility", "4.5e-5"},
                        {"ref-p", "1"},
                        {"nstpcouple", "5"}},
                       dir + "/h", "--threads 2", &log),
            0)
      << log;
  const EdrFile ours = io::read_edr(dir + "/h/ener.edr");
  auto csv = read_csv(dir + "/h/energy.csv");
  ASSERT_EQ(ours.frames.size(), csv["step"].size());
  ASSERT_EQ(ours.frames.size(), 5U);
  const std::vector<std::vector<double>> xvg = gmx_energy_rows("h/ener.edr", ours.terms.size(), dir);
  ASSERT_EQ(xvg.size(), ours.frames.size());
  const std::map<std::string, std::string> column = {{"Potential", "potential"},
                                                     {"Kinetic En.", "kinetic"},
                                                     {"Total Energy", "total"},
                                                     {"Conserved En.", "conserved"},
                                                     {"Temperature", "temperature"},
                                                     {"Pressure", "pressure"},
                                                     {"Box-X", "box_x"},
                                                     {"Volume", "volume"},
                                                     {"Density", "density"},
                                                     {"LJ (SR)", "lj_sr"}};
  for (size_t f = 0; f < xvg.size(); ++f) {
    SCOPED_TRACE(::testing::Message() << "frame " << f);
    ASSERT_EQ(xvg[f].size(), ours.terms.size() + 1);
    EXPECT_NEAR(xvg[f][0], ours.frames[f].time_ps, 1e-9);
    EXPECT_EQ(ours.frames[f].step, static_cast<int64_t>(csv["step"][f]));
    for (size_t k = 0; k < ours.terms.size(); ++k) {
      const double v = ours.frames[f].values[k];
      EXPECT_NEAR(xvg[f][k + 1], v, 1e-6 * std::fabs(v) + 1e-6) << ours.terms[k].name;  // xvg's digits
      auto it = column.find(ours.terms[k].name);
      if (it != column.end()) {  // the float of energy.csv's value
        EXPECT_NEAR(v, csv[it->second][f], 1e-7 * std::fabs(csv[it->second][f])) << ours.terms[k].name;
      }
    }
  }
}

TEST(EdrFile, AContinuationWritesTheUninterruptedFile) {
  expect_threads_and_continuation_change_no_bit("spce_1k5", "vrescale.mdp",
                                                {{"nsteps", "30"},
                                                 {"nstenergy", "4"},
                                                 {"nstcalcenergy", "4"},
                                                 {"nstcheckpoint", "10"},
                                                 {"ld-seed", "7"}},
                                                13, {"energy.csv", "ener.edr"});
}

// A continuation that cannot use the folder's files refuses before it cuts any: with traj.xtc shorter than
// the checkpoint recorded, energy.csv and ener.edr keep every row written after the checkpoint.
TEST(EdrFile, ARefusedContinuationCutsNothing) {
  const std::string out = make_temp_dir("edr_refused");
  const std::map<std::string, std::string> set = {
      {"nsteps", "30"},        {"nstenergy", "2"},          {"nstcalcenergy", "2"},
      {"nstcheckpoint", "10"}, {"nstxout-compressed", "5"}, {"ld-seed", "3"}};
  std::string log;
  EXPECT_NE(run_halomd("spce_1k5", "vrescale.mdp", set, out + "/run", "--stop-at-step 15", &log), 0);
  fs::resize_file(out + "/run/traj.xtc", 8);
  const auto csv = fs::file_size(out + "/run/energy.csv"), edr = fs::file_size(out + "/run/ener.edr");
  EXPECT_EQ(
      run_halomd("spce_1k5", "vrescale.mdp", set, out + "/run", "--cpi " + out + "/run/state.cpt", &log), 2)
      << log;
  EXPECT_NE(log.find("traj.xtc: has 8 bytes, and the checkpoint recorded"), std::string::npos) << log;
  EXPECT_EQ(fs::file_size(out + "/run/energy.csv"), csv);
  EXPECT_EQ(fs::file_size(out + "/run/ener.edr"), edr);
}

}  // namespace
}  // namespace halomd::test
