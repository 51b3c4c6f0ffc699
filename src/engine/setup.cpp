#include "engine/setup.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/errors.h"
#include "core/units.h"
#include "io/mdp.h"
#include "io/top.h"

namespace halomd {
namespace {

std::vector<std::string> split_flags(const std::string& s, const std::string& flag) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string word;
  while (in >> word)
    if (word.rfind(flag, 0) == 0 && word.size() > flag.size()) out.push_back(word.substr(flag.size()));
  return out;
}

}  // namespace

double choose_rlist(const MdParams& mdp, const Topology& top) {
  const double rc = std::max(mdp.rvdw, mdp.rcoulomb);
  double m_min = 1e30;
  for (double m : top.mass)
    if (m > 0.0) m_min = std::min(m_min, m);
  if (m_min == 1e30) return rc;
  double temp = 300.0;
  if (mdp.tcoupl != Tcoupl::No) temp = std::max(temp, mdp.ref_t);
  if (mdp.gen_vel) temp = std::max(temp, mdp.gen_temp);
  const double sigma = std::sqrt(units::kBoltzmann * temp / m_min) * std::max(0, mdp.nstlist - 1) * mdp.dt;
  return rc + 3.0 * std::sqrt(2.0) * sigma;
}

void make_molecules_whole(const Topology& top, const Box& box, std::vector<Vec3>& x) {
  const int n = top.num_atoms();
  int first = 0;
  for (int i = 1; i <= n; ++i) {
    if (i < n && top.molecule[i] == top.molecule[first]) continue;
    for (int a = first + 1; a < i; ++a)
      for (int d = 0; d < 3; ++d) {
        const double diff = x[a][d] - x[first][d];
        x[a][d] -= box.len[d] * std::round(diff / box.len[d]);
      }
    first = i;
  }
}

std::vector<Vec3> molecules_in_box(const Topology& top, const Box& box, const std::vector<Vec3>& x) {
  std::vector<Vec3> out = x;
  const int n = top.num_atoms();
  int first = 0;
  for (int i = 1; i <= n; ++i) {
    if (i < n && top.molecule[i] == top.molecule[first]) continue;
    Vec3 shift;
    for (int d = 0; d < 3; ++d) shift[d] = -box.len[d] * std::floor(x[first][d] / box.len[d]);
    for (int a = first; a < i; ++a) out[a] += shift;
    first = i;
  }
  return out;
}

SimulationInputs load_inputs(const RunOptions& options) {
  SimulationInputs in;
  in.mdp = io::read_mdp(options.mdp);
  in.gro = io::read_gro(options.conf);
  io::TopOptions topt;
  topt.include_dirs = options.include_dirs;
  for (const std::string& d : split_flags(in.mdp.include, "-I")) topt.include_dirs.push_back(d);
  topt.defines = split_flags(in.mdp.define, "-D");
  in.top = io::read_top(options.top, topt);
  io::check_topology_matches(in.top, options.top, in.gro, options.conf);
  if (!in.top.unsupported.empty())
    throw InputError(options.top, 0,
                     in.top.unsupported +
                         ": not supported yet (halomd runs rigid water and "
                         "Lennard-Jones particles: [ settles ], no bonded terms)");

  MdParams& p = in.mdp;
  if (p.verlet_buffer_tolerance > 0) {
    p.rlist = choose_rlist(p, in.top);
    in.rlist_source = "verlet-buffer-tolerance > 0: rlist from halomd's conservative buffer rule";
  } else {
    in.rlist_source = "rlist from the .mdp";
  }
  const double half = in.gro.box.min_half_edge();
  if (p.rlist >= half)
    throw InputError(options.mdp, 0,
                     "the pair-list cut-off rlist = " + std::to_string(p.rlist) +
                         " nm is not shorter than half the smallest box edge of " + options.conf + " (" +
                         std::to_string(half) + " nm); use a larger box or a shorter cut-off");

  const int nconstr = 3 * static_cast<int>(in.top.settles.size());
  in.ndf = 3.0 * in.top.num_atoms() - nconstr - (p.comm_mode == CommMode::Linear ? 3.0 : 0.0);
  if (in.ndf <= 0) throw InputError(options.top, 0, "the system has no degrees of freedom");
  return in;
}

}  // namespace halomd
