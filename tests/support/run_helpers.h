// Running `halomd run` from tests on the reference systems, with .mdp options overridden.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/vec3.h"

namespace halomd::test {

// Copies the .mdp at src to dst with the given options replaced or added (GROMACS option names).
void write_mdp_with(const std::string& src, const std::string& dst,
                    const std::map<std::string, std::string>& set);

// Runs `halomd run` on tests/data/<system> with <mdp> modified by `set`, into outdir. Returns the exit
// status; output has the command's stdout and stderr.
int run_halomd(const std::string& system, const std::string& mdp,
               const std::map<std::string, std::string>& set, const std::string& outdir,
               const std::string& extra_args = "", std::string* output = nullptr);
// The same, with the command prefixed by `launcher` (e.g. "mpiexec -n 4 "; empty: run directly).
int run_halomd_under(const std::string& launcher, const std::string& system, const std::string& mdp,
                     const std::map<std::string, std::string>& set, const std::string& outdir,
                     const std::string& extra_args = "", std::string* output = nullptr);

// Runs <system> with <mdp> + set on 1 and on 3 threads, and on 2 threads stopped at step stop_at (non-zero
// exit) then continued from its checkpoint; expects each of `files` non-empty and bitwise the same in the
// three runs; `args` go to every run (--domains N, ...). Returns the temp folder (its one/ holds the 1-thread
// run).
std::string expect_threads_and_continuation_change_no_bit(const std::string& system, const std::string& mdp,
                                                          const std::map<std::string, std::string>& set,
                                                          int stop_at, const std::vector<std::string>& files,
                                                          const std::string& args = "");

// The centre-of-mass velocity (nm/ps) of atoms [first, last) in a run's confout.gro (velocities to 1e-4
// nm/ps), with the masses of tests/data/<system>/topol.top.
Vec3 com_velocity(const std::string& confout, const std::string& system, int first, int last);

// comm-grps' paths of the solvated peptide (bonded/solvated; its first 132 atoms are the protein): each
// group's centre of mass at rest in the run's confout.gro (below 1e-4 nm/ps, its velocities' precision); with
// `rest` (comm-grps = Protein) the water keeps its motion instead, which must be the drift (above 1e-3 nm/ps)
// of the CPU's run of the same .mdp (run here into cpu_out; mdp as run_halomd takes it) within 1e-4.
void expect_comm_groups_at_rest(const std::string& confout, bool rest, const std::string& cpu_out,
                                const std::string& mdp);

// A comm-grps run of the solvated peptide (tcgroups/<name>.mdp, name comm_groups or comm_rest) in run_dir:
// its energy.csv against gmx_d's path (tcgroups/reference_comm*.txt, expect_tc_path_like_gromacs with these
// bounds), and expect_comm_groups_at_rest on its confout.gro (the CPU's run into run_dir + "_cpu").
void expect_comm_run_like_gromacs(const std::string& run_dir, const std::string& name, double energy_rel_tol,
                                  double t_rel_tol);

// The largest position difference (nm, any component) between two checkpoints of the same step.
double checkpoint_position_difference(const std::string& cpt_a, const std::string& cpt_b);

// A water NVE run's energy.csv (e, one row per step) against GROMACS's reference (make_refdata.sh's keys
// nve_steps, nve_total_mean, nve_total_drift_per_ps_from_step10): the same number of rows, the mean total
// energy within kNveMeanRelTol, the drift from step 10 within kDriftFactor x GROMACS's or kDriftRelPerPs.
void expect_nve_like_gromacs(std::map<std::string, std::vector<double>>& e,
                             const std::map<std::string, double>& ref);

// Two noiseless v-rescale groups' energy.csv (e) against gmx_d's path in ref_file (make_tcgroups_refdata.sh:
// step total conserved T-first T-second, the groups `t1`, `t2` of e): the same rows, total and conserved
// energy within energy_rel_tol relative, each group's T within t_rel_tol relative plus t_abs; and the first
// group (the shorter tau-t) kept the smaller fraction of its temperature.
void expect_tc_path_like_gromacs(std::map<std::string, std::vector<double>>& e, const std::string& ref_file,
                                 const std::string& t1, const std::string& t2, double energy_rel_tol,
                                 double t_rel_tol, double t_abs = 0.0);
// The same rows without that last check (thermostats that heat as well as cool).
void expect_group_rows_like_gromacs(std::map<std::string, std::vector<double>>& e,
                                    const std::string& ref_file, const std::string& t1, const std::string& t2,
                                    double energy_rel_tol, double t_rel_tol, double t_abs = 0.0);

// A reference file of rows "case value..." (tests/data/<ref_file>): per case its rows of values.
std::map<std::string, std::vector<std::vector<double>>> read_case_rows(const std::string& ref_file);

// One energy.csv column against the reference rows' values in its place: within tol times |value| (relative)
// or within tol.
struct RowColumn {
  std::string name;
  double tol;
  bool relative = true;
};
// energy.csv (e) row by row against `rows` (step, then one value per column of `columns`, in order; a row may
// end early, e.g. without the box of a run without pressure coupling: those columns are then not compared).
void expect_rows_like_gromacs(std::map<std::string, std::vector<double>>& e,
                              const std::vector<std::vector<double>>& rows,
                              const std::vector<RowColumn>& columns);
// The same columns, each within tol times |value|.
std::vector<RowColumn> relative_columns(const std::vector<std::string>& names, double tol);
// Runs tests/data/<system> with <mdp> as written and `args`, and expects its energy.csv row by row like
// ref_file (data_path-relative; step then the columns' values). Returns the run's energy.csv.
std::map<std::string, std::vector<double>> expect_run_like_gromacs(const std::string& system,
                                                                   const std::string& mdp,
                                                                   const std::string& args,
                                                                   const std::string& ref_file,
                                                                   const std::vector<RowColumn>& columns);

// A 300 K C-rescale run's energy.csv (e: time_ps, density) against gmx_d's ensemble (make_pcoupl_refdata.sh's
// density_mean, density_sd in ref): the mean density from 5 ps on within kDensityMeanAbsTol, its standard
// deviation within a factor kDensitySdFactor.
void expect_density_like_gromacs(std::map<std::string, std::vector<double>>& e,
                                 const std::map<std::string, double>& ref);
// make_pcoupl_refdata.sh's noiseless paths (pcoupl/reference.txt): per case name, its rows of step,
// potential, conserved, pressure, volume, box_x, box_z.
std::map<std::string, std::vector<std::vector<double>>> read_pcoupl_paths();

// Slope of the least-squares line through (x, y).
double linear_slope(const std::vector<double>& x, const std::vector<double>& y);
double mean(const std::vector<double>& v);

}  // namespace halomd::test
