// The files a run writes into its output folder: energy.csv, ener.edr, traj.xtc, traj.trr, confout.gro,
// state.cpt, run.json.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "engine/energies.h"
#include "engine/energy_file.h"
#include "io/checkpoint.h"
#include "io/edr.h"
#include "io/gro.h"
#include "io/trr.h"
#include "io/xtc.h"

namespace halomd {

class RunOutputs {
 public:
  // Creates outdir, or refuses one that already holds results unless `resume` names a checkpoint inside it:
  // then energy.csv, ener.edr and the trajectories are truncated to the sizes the checkpoint recorded and
  // appended to. `terms`: what energy.csv and ener.edr hold; dt_ps: the time step (0 for minimisation).
  RunOutputs(const std::string& outdir, const io::Checkpoint* resume, bool resume_here,
             const EnergyTerms& terms, double dt_ps, bool write_xtc, bool write_trr = false);
  ~RunOutputs();
  RunOutputs(const RunOutputs&) = delete;
  RunOutputs& operator=(const RunOutputs&) = delete;

  void write_energy(const EnergyRow& row);  // a row of energy.csv and a frame of ener.edr, flushed at once
  void write_frame(int64_t step, double time_ps, const Box& box, const std::vector<Vec3>& x,
                   double precision);
  // A traj.trr frame with whichever of x, v and f are given (null: not at this step).
  void write_trr(int64_t step, double time_ps, const Box& box, const std::vector<Vec3>* x,
                 const std::vector<Vec3>* v, const std::vector<Vec3>* f);
  void write_checkpoint(io::Checkpoint& cpt);  // fills in the file sizes
  void write_confout(const io::GroFile& gro);
  std::string path(const std::string& name) const { return outdir_ + "/" + name; }

 private:
  std::string outdir_;
  EnergyTerms terms_;
  std::FILE* energy_ = nullptr;
  int64_t energy_bytes_ = 0;
  // The keep_bytes of a file when continuing (-1: a new file); refuses to write into a file the checkpoint
  // records no size for. Cuts nothing.
  int64_t kept_bytes(const std::string& name, bool write, const io::Checkpoint* resume, bool resume_here,
                     int64_t recorded) const;
  // A trajectory this run does not write, cut back to `keep` (-1: none): the size the next checkpoint
  // records.
  int64_t cut_unwritten(const std::string& name, int64_t keep);

  std::unique_ptr<io::EdrWriter> edr_;
  std::unique_ptr<io::XtcWriter> xtc_;
  std::unique_ptr<io::TrrWriter> trr_;
  int64_t xtc_carried_ = -1, trr_carried_ = -1;
};

// True when `path` lies inside `dir` (after resolving both).
bool is_inside_dir(const std::string& path, const std::string& dir);

}  // namespace halomd
