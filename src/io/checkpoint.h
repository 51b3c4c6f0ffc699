// The checkpoint file (state.cpt): everything a run needs to continue bitwise as if never interrupted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/box.h"
#include "core/vec3.h"

namespace halomd::io {

// The state at the START of step `step`: x(step), v(step - dt/2), the half-step kinetic energy of
// v(step - dt/2), the thermostat's integral, the seeds of the random streams, and the sizes the output
// files had when it was written (so a continuation into the same folder can drop what came after).
struct Checkpoint {
  int64_t step = 0;
  double dt = 0.0;
  double tinit = 0.0;
  Box box;
  std::vector<Vec3> x;
  std::vector<Vec3> v;
  Tensor ke_half_prev;
  double thermostat_integral = 0.0;  // kJ/mol taken out by the thermostat (Conserved = Total + this)
  uint64_t ld_seed = 0;
  uint64_t gen_seed = 0;
  int64_t energy_csv_bytes = -1;
  int64_t xtc_bytes = -1;
  int64_t atoms_hash = 0;  // a hash of masses and charges, to refuse a checkpoint of another system
  int64_t trr_bytes = -1;
  double barostat_integral = 0.0;           // kJ/mol: C-rescale's or Berendsen's work on the box (Conserved)
  std::vector<double> ke_half_prev_groups;  // per tc-grps group, with several groups
  std::vector<double> nh_xi, nh_vxi;        // tcoupl = Nose-Hoover: per group
  Vec3 pr_boxv;                             // pcoupl = Parrinello-Rahman: the box velocity (nm/ps, diagonal)
  Tensor pr_pres_prev;                      // and the pressure (bar) the next coupling step reads
  int32_t tcoupl = -1, pcoupl = -1;         // the run's Tcoupl and Pcoupl (-1: a version before 5)
  int64_t edr_bytes = -1;                   // ener.edr's size (-1: none, or a version before 6)
};

// Written to path + ".tmp" and renamed, so an interrupted write never destroys the previous checkpoint.
void write_checkpoint(const std::string& path, const Checkpoint& cpt);
// Throws InputError naming the file on a missing, truncated or corrupted (checksum) file.
Checkpoint read_checkpoint(const std::string& path);

}  // namespace halomd::io
