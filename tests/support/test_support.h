// Helpers shared by the tests: reading reference files and energy.csv, running the halomd binary.
#pragma once

#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/box.h"
#include "core/vec3.h"

namespace halomd::test {

// tests/data/<rel>; an absolute path (a system a test wrote into its temp folder) as it is.
std::string data_path(const std::string& rel);
// A fresh empty folder under the build's temp area, unique per call.
std::string make_temp_dir(const std::string& tag);
// Reads "name value" lines (# comments allowed) from a reference file written by tests/make_refdata.sh.
std::map<std::string, double> read_reference(const std::string& path);
// The lines of a table file (tests/data/*/reference.txt written by a make_*_refdata.sh script) that are
// neither empty nor # comments; throws when the file cannot be opened.
std::vector<std::string> read_rows(const std::string& path);
// The same rows as numbers (a path of gmx_d's: step, then the values its script wrote).
std::vector<std::vector<double>> read_number_rows(const std::string& path);
// The "case term value" rows of such a file (path as data_path gives it) for one case, by term.
std::map<std::string, double> read_case_terms(const std::string& path, const std::string& which);
// Runs a shell command, returns its exit status; stdout+stderr captured into *output when given.
int run_command(const std::string& cmd, std::string* output = nullptr);
// Reads a CSV with a header line into columns by name.
std::map<std::string, std::vector<double>> read_csv(const std::string& path);
std::string read_text(const std::string& path);
// Writes `text` to dir/name and returns that path (topologies made inside a test).
std::string write_top(const std::string& dir, const std::string& name, const std::string& text);
// For each case (head + its text + tail, written to dir as e<k>.top), io::read_top must throw an InputError
// whose message holds the file's path followed by the case's expected text (":line: ...").
void expect_top_errors(const std::string& dir, const std::string& head,
                       const std::vector<std::pair<std::string, std::string>>& cases,
                       const std::string& tail);
// The number after "key": in run.json's text (NaN when the key is not there).
double json_number(const std::string& json, const std::string& key);

// Random molecules for the domain-decomposition property tests: 1-atom and 3-atom molecules (the first
// atom anywhere at a random box image in [-2, 2], two more 0.1 nm from it), unwrapped and whole.
struct TestSystem {
  Box box;
  std::vector<Vec3> x;
  std::vector<int> molecule;  // molecule index of each atom
};
TestSystem random_system(std::mt19937_64& rng, const Box& box, int num_molecules);

}  // namespace halomd::test
