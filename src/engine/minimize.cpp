#include "engine/minimize.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "core/errors.h"
#include "cpu/cpu_forces.h"
#include "cpu/dispersion_correction.h"
#include "cpu/lincs.h"
#include "cpu/settle.h"
#include "cpu/vsite.h"
#include "engine/backends.h"
#include "engine/outputs.h"
#include "fmt/format.h"

namespace halomd {
namespace {

// One configuration of the minimisation: its (projected) forces and what the loop decides on.
struct EmState {
  std::vector<Vec3> x, f;
  StepEnergies e;
  double epot = 0.0;
  double fmax = 0.0;
  int fmax_atom = 0;
  double fnorm = 0.0;  // sqrt(sum |f|^2 / N)
};

class Minimizer {
 public:
  Minimizer(const SimulationInputs& in, int threads)
      : in_(in),
        unit_(unit_masses(in.top)),
        settle_(unit_),
        // A trial step is rejected only where LINCS cannot solve it (a turn of 90 degrees), not at
        // lincs-warnangle: GROMACS rejects on a relative deviation of 0.5 after a warning.
        lincs_(unit_, in.mdp.lincs_order, in.mdp.lincs_iter, 90.0, true),
        forces_(in.top, in.mdp, in.gro.box, in.gro.box, threads),
        dispcorr_(in.top, in.mdp),
        threads_(threads) {}

  // GROMACS's energy minimisers constrain with unit masses (atoms2md): the constraints move every atom alike.
  static Topology unit_masses(const Topology& top) {
    Topology t = top;
    t.mass.assign(t.mass.size(), 1.0);
    return t;
  }

  // Puts x on the constraints with itself as the reference (init_em); false when that fails.
  bool constrain(const std::vector<Vec3>& ref, std::vector<Vec3>& x) const {
    const int lincs_failed = lincs_.apply(ref, x, nullptr, 1.0, nullptr, in_.gro.box);
    const int settle_failed = settle_.apply(ref, x, nullptr, 1.0, nullptr, threads_);
    return lincs_failed < 0 && settle_failed < 0;
  }

  // Energies and forces at s.x, the forces with the constraints' components taken out (evaluate_energy).
  void evaluate(EmState& s, int64_t count) {
    s.f.assign(s.x.size(), Vec3{});
    s.e = StepEnergies{};
    construct_vsites(in_.top.vsites, s.x, in_.gro.box);
    forces_.compute(s.x, true, count, s.f, &s.e, timers_);
    s.epot = s.e.lj + s.e.coulomb + s.e.coulomb_recip + dispcorr_.energy(in_.gro.box);
    for (double v : s.e.bonded) s.epot += v;
    Tensor projection;
    lincs_.project(s.x, s.f, &projection, in_.gro.box);
    settle_.project(s.x, s.f, &projection);
    s.e.virial += projection;
    double sum2 = 0.0;
    s.fmax = -1.0;
    for (size_t i = 0; i < s.f.size(); ++i) {
      const double f2 = norm2(free_part(static_cast<int>(i), s.f[i]));
      sum2 += f2;
      if (f2 > s.fmax) {
        s.fmax = f2;
        s.fmax_atom = static_cast<int>(i);
      }
    }
    s.fmax = std::sqrt(s.fmax);
    s.fnorm = std::sqrt(sum2 / static_cast<double>(s.f.size()));
  }

  const DispersionCorrection& dispcorr() const { return dispcorr_; }

  // f without its frozen dimensions (freezegrps): what the step moves along and the largest force and the
  // norm are taken of, as GROMACS's do_em_step and get_f_norm_max.
  Vec3 free_part(int i, Vec3 f) const {
    if (!in_.top.frozen.empty())
      for (int d = 0; d < 3; ++d)
        if (in_.top.frozen[i] & (1u << d)) f[d] = 0.0;
    return f;
  }

 private:
  const SimulationInputs& in_;
  Topology unit_;
  SettleCpu settle_;
  LincsCpu lincs_;
  CpuForces forces_;
  DispersionCorrection dispcorr_;
  PhaseTimers timers_;
  int threads_;
};

}  // namespace

RunSummary run_minimization(const RunOptions& options, const SimulationInputs& in) {
  const MdParams& mdp = in.mdp;
  if (options.backend != "cpu" || decomposed(options))
    throw InputError(options.mdp, 0,
                     "integrator = steep runs with --backend cpu and one domain (no --dd, one rank)");
  if (!options.cpi.empty())
    throw InputError(options.cpi, 0, "integrator = steep does not continue from a checkpoint");
  if (mdp.electric_field_on())
    throw InputError(options.mdp, mdp.electric_field_line,
                     "electric-field with integrator = steep is not supported yet (md and sd apply it)");
  const Box& box = in.gro.box;
  const int threads = std::max(1, options.threads);
  Minimizer em(in, threads);
  RunOutputs out(options.outdir, nullptr, false, energy_terms(in), 0.0, false, true);

  const auto t_start = std::chrono::steady_clock::now();
  EmState min, trial;
  trial.x = in.gro.x;
  make_molecules_whole(in.top, box, trial.x);
  if (!mdp.continuation && !em.constrain(std::vector<Vec3>(trial.x), trial.x))
    throw RuntimeError(0, -1, "the starting structure cannot be constrained");

  // do_steep: a trial step of ustep along the forces from the lowest-energy state so far, accepted when the
  // energy goes down (the step grows by 1.2), else halved; converged when the largest force is below emtol.
  double ustep = mdp.emstep;
  int64_t count = 0, accepted = 0;
  bool done = false, abort = false;
  const double no_energy = std::numeric_limits<double>::infinity();
  while (!done && !abort) {
    abort = mdp.nsteps >= 0 && count == mdp.nsteps;
    bool evaluated = true;
    if (count > 0) {
      const double a = ustep / min.fmax;
      trial.x = min.x;
      for (size_t i = 0; i < trial.x.size(); ++i)
        trial.x[i] += em.free_part(static_cast<int>(i), min.f[i]) * a;
      evaluated = em.constrain(min.x, trial.x);
    }
    if (evaluated) {
      em.evaluate(trial, count);
    } else {
      trial.epot = no_energy;  // a step the constraints cannot follow is rejected
    }
    if (count == 0 || trial.epot < min.epot) {
      ++accepted;
      done = trial.fmax < mdp.emtol;
      std::swap(min, trial);
      if (count > 0) ustep *= 1.2;
      out.write_energy(energy_row(count, static_cast<double>(count), min.e, em.dispcorr(), box, in.ndf));
      const bool x_frame = mdp.nstxout > 0 && accepted % mdp.nstxout == 0;
      const bool f_frame = mdp.nstfout > 0 && accepted % mdp.nstfout == 0;
      if (x_frame || f_frame)
        out.write_trr(count, static_cast<double>(count), box, x_frame ? &min.x : nullptr, nullptr,
                      f_frame ? &min.f : nullptr);
    } else {
      ustep *= 0.5;
    }
    if (count == mdp.nsteps || ustep < 1e-12) abort = true;
    ++count;
  }
  // The lowest-energy state: a last traj.trr frame (always, as GROMACS) and confout.gro.
  out.write_trr(count, static_cast<double>(count), box, &min.x, nullptr, mdp.nstfout > 0 ? &min.f : nullptr);
  io::GroFile final_frame = in.gro;
  final_frame.x = molecules_in_box(in.top, box, min.x);
  final_frame.v.clear();
  out.write_confout(final_frame);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();

  std::string verdict;
  if (done)
    verdict = fmt::format("Steepest Descents converged to Fmax < {:g} in {} steps", mdp.emtol, count);
  else if (mdp.nsteps < 0 || count < mdp.nsteps)
    verdict = fmt::format(
        "Steepest Descents converged to machine precision in {} steps, but did not reach the requested Fmax "
        "< "
        "{:g}",
        count, mdp.emtol);
  else
    verdict = fmt::format("Steepest Descents did not converge to Fmax < {:g} in {} steps", mdp.emtol, count);
  std::printf(
      "\n%s.\nPotential Energy  = %.8e\nMaximum force     = %.8e on atom %d\nNorm of force     = %.8e\n",
      verdict.c_str(), min.epot, min.fmax, min.fmax_atom + 1, min.fnorm);
  std::ofstream json(out.path("run.json"));
  json << fmt::format(
      "{{\n  \"version\": \"{}\",\n  \"integrator\": \"steep\",\n  \"backend\": \"cpu\",\n  \"atoms\": {},\n"
      "  \"steps\": {},\n  \"accepted_steps\": {},\n  \"converged\": {},\n  \"potential\": {:.10g},\n"
      "  \"fmax\": {:.10g},\n  \"fmax_atom\": {},\n  \"fnorm\": {:.10g},\n  \"emtol\": {:g},\n  \"wall_s\": "
      "{:.6f}\n}}\n",
      HALOMD_VERSION, in.top.num_atoms(), count, accepted, done ? "true" : "false", min.epot, min.fmax,
      min.fmax_atom + 1, min.fnorm, mdp.emtol, wall_s);
  RunSummary sum;
  sum.last_step = count;
  sum.steps = count;
  sum.wall_s = wall_s;
  return sum;
}

}  // namespace halomd
