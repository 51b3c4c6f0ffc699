// The command-line side of a run: which files, which backend, how many threads (the .mdp holds the physics).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace halomd {

struct RunOptions {
  std::string conf;    // .gro
  std::string top;     // .top
  std::string mdp;     // .mdp
  std::string outdir;  // created; refused when it already holds results, unless --cpi continues into it
  std::string backend = "cpu";
  std::string cpi;    // checkpoint to continue from, or empty
  std::string ref;    // -r: the position restraints' reference structure (.gro); empty: conf, as grompp
  std::string index;  // -n: an index file (.ndx); its groups are then the only ones the .mdp may name
  int threads = 1;
  std::vector<std::string> include_dirs;  // -I for the .top, besides the .mdp's include
  std::string command_line;               // as typed, for run.json
  int64_t stop_at_step = -1;  // testing aid: stop (exit 4) before this step as if the process were killed
  // Domain decomposition (docs/USER_GUIDE.md): how many domains (0: one, or one per rank under mpirun), the
  // halo transport ("local", "mpi"; empty: mpi under mpirun with several ranks, local when several domains
  // are asked for) and the grid (--dd NX NY NZ; empty: chosen like GROMACS).
  int domains = 0;
  std::string transport;
  std::vector<int> dd;
};

}  // namespace halomd
