#include "support/test_support.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/errors.h"
#include "io/top.h"

namespace halomd::test {

std::string data_path(const std::string& rel) {
  if (rel.starts_with('/')) return rel;  // a system a test wrote itself
  return std::string(HALOMD_TEST_DATA) + "/" + rel;
}

std::string make_temp_dir(const std::string& tag) {
  static std::atomic<int> counter{0};
  auto base = std::filesystem::temp_directory_path() / "halomd_tests";
  auto dir = base / (tag + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::map<std::string, double> read_reference(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open reference file " + path);
  std::map<std::string, double> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name;
    double value;
    if (ss >> name >> value) out[name] = value;
  }
  return out;
}

std::vector<std::string> read_rows(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<std::string> rows;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') rows.push_back(line);
  return rows;
}

std::vector<std::vector<double>> read_number_rows(const std::string& path) {
  std::vector<std::vector<double>> rows;
  for (const std::string& row : read_rows(path)) {
    std::istringstream w(row);
    rows.emplace_back();
    for (double x; w >> x;) rows.back().push_back(x);
  }
  return rows;
}

int run_command(const std::string& cmd, std::string* output) {
  std::string full = cmd + " 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  if (!pipe) return -1;
  std::array<char, 4096> buf;
  std::string text;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) text.append(buf.data(), n);
  int status = pclose(pipe);
  if (output) *output = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::map<std::string, std::vector<double>> read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  {
    std::istringstream ss(line);
    std::string item;
    while (std::getline(ss, item, ',')) names.push_back(item);
  }
  std::map<std::string, std::vector<double>> cols;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string item;
    size_t k = 0;
    while (std::getline(ss, item, ',') && k < names.size()) cols[names[k++]].push_back(std::stod(item));
  }
  return cols;
}

std::map<std::string, double> read_case_terms(const std::string& path, const std::string& which) {
  std::map<std::string, double> out;
  for (const std::string& row : read_rows(path)) {
    std::istringstream w(row);
    std::string name, term;
    double v = 0;
    w >> name >> term >> v;
    if (name == which) out[term] = v;
  }
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string write_top(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

void expect_top_errors(const std::string& dir, const std::string& head,
                       const std::vector<std::pair<std::string, std::string>>& cases,
                       const std::string& tail) {
  for (size_t k = 0; k < cases.size(); ++k) {
    std::string name = "e";  // appended, not "e" + ...: g++ 12 warns falsely (-Wrestrict) on the sum
    name += std::to_string(k) + ".top";
    const std::string path = write_top(dir, name, head + cases[k].first + tail);
    try {
      io::read_top(path);
      ADD_FAILURE() << "no error for case " << k;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path + cases[k].second), std::string::npos) << e.what();
    }
  }
}

TestSystem random_system(std::mt19937_64& rng, const Box& box, int num_molecules) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> image(-2, 2);
  TestSystem s;
  s.box = box;
  for (int m = 0; m < num_molecules; ++m) {
    Vec3 first;
    for (int d = 0; d < 3; ++d) first[d] = (u(rng) + image(rng)) * box.len[d];
    s.x.push_back(first);
    s.molecule.push_back(m);
    if (u(rng) < 0.5) continue;
    for (int h = 0; h < 2; ++h) {
      const double cos_t = 2 * u(rng) - 1, phi = 2 * M_PI * u(rng), sin_t = std::sqrt(1 - cos_t * cos_t);
      s.x.push_back(first + 0.1 * Vec3{sin_t * std::cos(phi), sin_t * std::sin(phi), cos_t});
      s.molecule.push_back(m);
    }
  }
  return s;
}

double json_number(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return NAN;
  return std::stod(json.substr(at + key.size() + 3));
}

}  // namespace halomd::test
