// Writing (and, for continuations and tests, reading) GROMACS energy files (.edr, enxio format version 5),
// so that gmx energy, gmx dump -e and other readers of ener.edr take halomd's energies.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/frame_file.h"

namespace halomd::io {

struct EnergyTermName {
  std::string name;  // GROMACS's, e.g. "LJ (SR)", "Pres-XX", "T-System"
  std::string unit;  // e.g. "kJ/mol", "bar", "" for a number without unit
  bool operator==(const EnergyTermName&) const = default;
};

// The file's frames in single precision, as a mixed-precision gmx mdrun writes them, each with the value of
// every term at its step and no running sums (GROMACS's "sum steps: 0": gmx energy averages the frames).
class EdrWriter {
 public:
  // keep_bytes < 0: a new file that starts with the terms' names. keep_bytes >= 0: a continuation (a
  // checkpoint's size of the file): the file must hold these terms, in this order (checked before anything
  // is cut), and is cut back to keep_bytes and appended to. dt_ps: the time step (0 for minimisation).
  // Throws InputError naming the file.
  EdrWriter(const std::string& path, const std::vector<EnergyTermName>& terms, double dt_ps,
            int64_t keep_bytes);

  // One frame: `values` in the order of the terms. Flushed on return.
  void write_frame(int64_t step, double time_ps, const std::vector<double>& values);
  int64_t size_bytes() const { return file_.size_bytes(); }

 private:
  size_t nterms_;
  double dt_ps_;
  int64_t last_step_;  // step of the file's last frame (-1: none yet)
  FrameFile file_;
};

struct EdrFrame {
  int64_t step = 0;
  double time_ps = 0.0;
  int64_t nsteps = 0;  // steps since the previous frame
  double dt_ps = 0.0;
  std::vector<double> values;  // one per term
};

struct EdrFile {
  std::vector<EnergyTermName> terms;
  std::vector<EdrFrame> frames;
};

// Reads an .edr of format version 5 (GROMACS 4.5 and later, single or double precision; running sums and
// extra blocks are skipped). Throws InputError naming the file and frame on a malformed file.
EdrFile read_edr(const std::string& path, int64_t max_bytes = -1);

}  // namespace halomd::io
