// Running `halomd run` from tests on the reference systems, with .mdp options overridden.
#pragma once

#include <map>
#include <string>
#include <vector>

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

// Slope of the least-squares line through (x, y).
double linear_slope(const std::vector<double>& x, const std::vector<double>& y);
double mean(const std::vector<double>& v);

}  // namespace halomd::test
