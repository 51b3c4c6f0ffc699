// Helpers shared by the tests: reading reference files and energy.csv, running the halomd binary.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace halomd::test {

// Path of a file under tests/data.
std::string data_path(const std::string& rel);
// A fresh empty folder under the build's temp area, unique per call.
std::string make_temp_dir(const std::string& tag);
// Reads "name value" lines (# comments allowed) from a reference file written by tests/make_refdata.sh.
std::map<std::string, double> read_reference(const std::string& path);
// Runs a shell command, returns its exit status; stdout+stderr captured into *output when given.
int run_command(const std::string& cmd, std::string* output = nullptr);
// Reads a CSV with a header line into columns by name.
std::map<std::string, std::vector<double>> read_csv(const std::string& path);
std::string read_text(const std::string& path);

}  // namespace halomd::test
