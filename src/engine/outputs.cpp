#include "engine/outputs.h"

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "fmt/format.h"

namespace fs = std::filesystem;

namespace halomd {
namespace {

const char* const kResultFiles[] = {"energy.csv",  "ener.edr",  "traj.xtc", "traj.trr",
                                    "confout.gro", "state.cpt", "run.json"};

}  // namespace

bool is_inside_dir(const std::string& path, const std::string& dir) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::path(path), ec).parent_path();
  const fs::path d = fs::weakly_canonical(fs::path(dir), ec);
  return p == d;
}

RunOutputs::RunOutputs(const std::string& outdir, const io::Checkpoint* resume, bool resume_here,
                       const EnergyTerms& terms, double dt_ps, bool write_xtc, bool write_trr)
    : outdir_(outdir), terms_(terms) {
  std::error_code ec;
  fs::create_directories(outdir, ec);
  if (!fs::is_directory(outdir)) throw InputError(outdir, 0, "cannot create the output folder");
  if (!resume_here) {
    for (const char* name : kResultFiles)
      if (fs::exists(path(name)))
        throw InputError(outdir, 0,
                         std::string("already holds results (") + name +
                             "); choose a new folder, or continue the run with --cpi " + path("state.cpt"));
  }
  // Everything that can refuse a continuation is checked before any file is cut.
  const std::string epath = path("energy.csv");
  const std::string expected_header = energy_csv_header(terms.bonded, terms.volume, terms.csv_groups);
  const bool continue_csv = resume_here && resume && resume->energy_csv_bytes >= 0 && fs::exists(epath);
  if (continue_csv) {
    // Rows are appended under the existing header: it must have this version's columns (coul_recip came
    // later).
    std::ifstream existing(epath);
    std::string header;
    std::getline(existing, header);
    if (header != expected_header)
      throw InputError(epath, 1,
                       "has other columns than this halomd writes (" + expected_header +
                           "): continue into a new folder (--cpi with another -o)");
    std::error_code ec;
    if (static_cast<int64_t>(fs::file_size(epath, ec)) < resume->energy_csv_bytes || ec)
      throw InputError(epath, 0,
                       "is shorter than the checkpoint recorded: it does not hold the checkpoint's rows");
  }
  const int64_t edr_keep = kept_bytes("ener.edr", true, resume, resume_here, resume ? resume->edr_bytes : -1);
  const int64_t xtc_keep =
      kept_bytes("traj.xtc", write_xtc, resume, resume_here, resume ? resume->xtc_bytes : -1);
  const int64_t trr_keep =
      kept_bytes("traj.trr", write_trr, resume, resume_here, resume ? resume->trr_bytes : -1);
  // The edr writer checks that the file holds this run's terms before it cuts it.
  edr_ = std::make_unique<io::EdrWriter>(path("ener.edr"), edr_names(terms), dt_ps, edr_keep);

  if (continue_csv) {
    fs::resize_file(epath, static_cast<uintmax_t>(resume->energy_csv_bytes));
    energy_ = std::fopen(epath.c_str(), "ab");
    energy_bytes_ = resume->energy_csv_bytes;
  } else {
    energy_ = std::fopen(epath.c_str(), "wb");
    if (energy_) energy_bytes_ = std::fprintf(energy_, "%s\n", expected_header.c_str());
  }
  if (!energy_) throw InputError(epath, 0, "cannot open for writing");
  std::fflush(energy_);
  if (write_xtc) xtc_ = std::make_unique<io::XtcWriter>(path("traj.xtc"), xtc_keep);
  xtc_carried_ = write_xtc ? -1 : cut_unwritten("traj.xtc", xtc_keep);
  if (write_trr) trr_ = std::make_unique<io::TrrWriter>(path("traj.trr"), trr_keep);
  trr_carried_ = write_trr ? -1 : cut_unwritten("traj.trr", trr_keep);
}

int64_t RunOutputs::kept_bytes(const std::string& name, bool write, const io::Checkpoint* resume,
                               bool resume_here, int64_t recorded) const {
  const std::string file = path(name);
  if (!resume_here || !resume || !fs::exists(file)) return -1;
  // Without a recorded size the checkpoint was written without this file: it is not this run's to cut or to
  // overwrite.
  if (recorded < 0 && write)
    throw InputError(
        file, 0,
        "exists, but the checkpoint records no size for it (written while the run had no such "
        "output, or by a continuation from a checkpoint of an older halomd): continue into a new "
        "folder (--cpi with another -o)");
  // The files' own checks (io/frame_file.h), here before any file is cut.
  std::error_code ec;
  const auto have = static_cast<int64_t>(fs::file_size(file, ec));
  if (write && recorded >= 0 && (ec || have < recorded || recorded % 4 != 0))
    throw InputError(file, 0,
                     "has " + std::to_string(have) + " bytes, and the checkpoint recorded " +
                         std::to_string(recorded) + ": it does not hold the checkpoint's frames");
  return recorded;
}

int64_t RunOutputs::cut_unwritten(const std::string& name, int64_t keep) {
  if (keep < 0) return -1;
  // Not written from here on: cut back to the checkpoint's frames, and keep that size for the next one.
  const std::string file = path(name);
  std::error_code ec;
  if (static_cast<int64_t>(fs::file_size(file, ec)) > keep) fs::resize_file(file, keep, ec);
  if (ec) throw InputError(file, 0, "cannot truncate to the checkpoint's frames: " + ec.message());
  return keep;
}

RunOutputs::~RunOutputs() {
  if (energy_) std::fclose(energy_);
}

void RunOutputs::write_energy(const EnergyRow& r) {
  std::string line = fmt::format("{},{:.6f},", r.step, r.time_ps);
  for (int k = 0; k < kNumBondedTerms; ++k)
    if (terms_.bonded[k]) line += fmt::format("{:.10g},", r.bonded[k]);
  line += fmt::format("{:.10g},{:.10g},{:.10g},{:.10g},{:.10g},{:.10g},{:.10g},{:.10g},{:.10g},{:.10g}\n",
                      r.lj_sr, r.coulomb_sr, r.coul_recip, r.disp_corr, r.potential, r.kinetic, r.total,
                      r.conserved, r.temperature, r.pressure);
  line.pop_back();  // the newline, after the optional columns
  if (terms_.volume)
    line += fmt::format(",{:.10g},{:.10g},{:.10g},{:.10g},{:.10g}", r.box.x, r.box.y, r.box.z, r.volume,
                        r.density);
  for (double t : r.group_temperature) line += fmt::format(",{:.10g}", t);
  line += "\n";
  std::fwrite(line.data(), 1, line.size(), energy_);
  std::fflush(energy_);
  energy_bytes_ += static_cast<int64_t>(line.size());
  edr_->write_frame(r.step, r.time_ps, edr_values(terms_, r));
}

void RunOutputs::write_frame(int64_t step, double time_ps, const Box& box, const std::vector<Vec3>& x,
                             double precision) {
  if (xtc_) xtc_->write_frame(step, time_ps, box, x, precision);
}

void RunOutputs::write_trr(int64_t step, double time_ps, const Box& box, const std::vector<Vec3>* x,
                           const std::vector<Vec3>* v, const std::vector<Vec3>* f) {
  if (trr_) trr_->write_frame(step, time_ps, box, x, v, f);
}

void RunOutputs::write_checkpoint(io::Checkpoint& cpt) {
  cpt.energy_csv_bytes = energy_bytes_;
  cpt.edr_bytes = edr_->size_bytes();
  cpt.xtc_bytes = xtc_ ? xtc_->size_bytes() : xtc_carried_;
  cpt.trr_bytes = trr_ ? trr_->size_bytes() : trr_carried_;
  io::write_checkpoint(path("state.cpt"), cpt);
}

void RunOutputs::write_confout(const io::GroFile& gro) { io::write_gro(path("confout.gro"), gro); }

}  // namespace halomd
