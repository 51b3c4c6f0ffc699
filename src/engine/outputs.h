// The files a run writes into its output folder: energy.csv, traj.xtc, traj.trr, confout.gro, state.cpt,
// run.json.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "engine/energies.h"
#include "io/checkpoint.h"
#include "io/gro.h"
#include "io/trr.h"
#include "io/xtc.h"

namespace halomd {

class RunOutputs {
 public:
  // Creates outdir, or refuses one that already holds results unless `resume` names a checkpoint inside it:
  // then energy.csv and traj.xtc are truncated to the sizes the checkpoint recorded and appended to.
  // `bonded`: the listed interactions' terms that energy.csv has columns for.
  RunOutputs(const std::string& outdir, const io::Checkpoint* resume, bool resume_here,
             const BondedTermMask& bonded, bool write_xtc, bool write_trr = false, bool volume = false,
             const std::vector<std::string>& temperature_groups = {});
  ~RunOutputs();
  RunOutputs(const RunOutputs&) = delete;
  RunOutputs& operator=(const RunOutputs&) = delete;

  void write_energy(const EnergyRow& row);  // flushed at once
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
  BondedTermMask bonded_;
  bool volume_ = false;
  std::FILE* energy_ = nullptr;
  int64_t energy_bytes_ = 0;
  // The keep_bytes of a trajectory file when continuing (-1: a new file), cutting back a file this run
  // does not write; *carried: the size the next checkpoint records for a file not written (-1: none).
  int64_t trajectory_bytes(const std::string& name, bool write, const io::Checkpoint* resume,
                           bool resume_here, int64_t recorded, int64_t* carried);

  std::unique_ptr<io::XtcWriter> xtc_;
  std::unique_ptr<io::TrrWriter> trr_;
  int64_t xtc_carried_ = -1, trr_carried_ = -1;
};

// True when `path` lies inside `dir` (after resolving both).
bool is_inside_dir(const std::string& path, const std::string& dir);

}  // namespace halomd
