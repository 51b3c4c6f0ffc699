#include "support/run_helpers.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "support/test_support.h"

namespace halomd::test {
namespace {

std::string normalise_key(std::string k) {
  std::string out;
  for (char c : k) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

void write_mdp_with(const std::string& src, const std::string& dst,
                    const std::map<std::string, std::string>& set) {
  std::ifstream in(src);
  std::ofstream out(dst);
  std::map<std::string, std::string> pending;
  for (const auto& [k, v] : set) pending[normalise_key(k)] = v;
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos && line.find(';') > eq) {
      const std::string key = normalise_key(line.substr(0, eq));
      auto it = pending.find(key);
      if (it != pending.end()) {
        out << key << " = " << it->second << "\n";
        pending.erase(it);
        continue;
      }
    }
    out << line << "\n";
  }
  for (const auto& [k, v] : pending) out << k << " = " << v << "\n";
}

int run_halomd(const std::string& system, const std::string& mdp,
               const std::map<std::string, std::string>& set, const std::string& outdir,
               const std::string& extra_args, std::string* output) {
  return run_halomd_under("", system, mdp, set, outdir, extra_args, output);
}

int run_halomd_under(const std::string& launcher, const std::string& system, const std::string& mdp,
                     const std::map<std::string, std::string>& set, const std::string& outdir,
                     const std::string& extra_args, std::string* output) {
  const std::string dir = data_path(system);
  const std::string mdp_out = outdir + ".mdp";
  write_mdp_with(dir + "/" + mdp, mdp_out, set);
  const std::string cmd = launcher + std::string(HALOMD_BIN) + " run -c " + dir + "/conf.gro -p " + dir +
                          "/topol.top -f " + mdp_out + " -o " + outdir + " " + extra_args;
  return run_command(cmd, output);
}

double linear_slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double a : v) s += a;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

}  // namespace halomd::test
