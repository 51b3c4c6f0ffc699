// Loading and checking a run's inputs (.gro, .top, .mdp) and deriving what GROMACS derives from them.
#pragma once

#include <string>
#include <vector>

#include "core/md_params.h"
#include "core/topology.h"
#include "engine/run_options.h"
#include "io/gro.h"

namespace halomd {

struct SimulationInputs {
  MdParams mdp;
  Topology top;
  io::GroFile gro;
  double ndf = 0.0;            // degrees of freedom: 3N - constraints - 3 with COM removal
  std::vector<int> tc_group;   // per atom: its tc-grps group (all 0 for one group)
  std::vector<double> tc_ndf;  // per tc-grps group: its degrees of freedom (GROMACS's calc_nrdf_tc)
  // per tc-grps entry: the group's name as GROMACS spells it in its energy terms (T-non-Protein for
  // Non-Protein); "rest" without tc-grps.
  std::vector<std::string> tc_group_names;
  // comm-grps other than the whole system: per atom its group (-1: none, its motion is kept), and their
  // count.
  std::vector<int> comm_group;
  int comm_groups = 0;
  // compressed-x-grps other than the whole system: the group's atoms, ascending (traj.xtc holds these).
  std::vector<int> xtc_atoms;
  std::string rlist_source;  // how rlist was chosen, for the log
};

// Reads and cross-checks the three inputs. Every problem is an InputError naming the file (and line) before
// any step runs: unsupported interactions, a cut-off longer than half the box, molecule counts that do not
// match. With verlet-buffer-tolerance > 0, rlist is GROMACS 2022's estimate for a 1x1 list (verlet_buffer.h).
SimulationInputs load_inputs(const RunOptions& options);

// Puts each molecule whole, walking its bonds, constraints, SETTLEs and virtual sites from its first atom
// (each atom at the image nearest the one it is reached from; unconnected atoms nearest the first atom), so
// that a molecule longer than half the box is whole too. Positions stay unwrapped from then on.
void make_molecules_whole(const Topology& top, const Box& box, std::vector<Vec3>& x);

// A copy of x with each molecule shifted by whole box vectors so that its first atom lies in the box: what
// the trajectory and confout.gro show (molecules whole, in the unit cell).
std::vector<Vec3> molecules_in_box(const Topology& top, const Box& box, const std::vector<Vec3>& x);

}  // namespace halomd
