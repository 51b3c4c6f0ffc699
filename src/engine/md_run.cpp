#include "engine/md_run.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "core/errors.h"
#include "core/random.h"
#include "core/units.h"
#include "cpu/dispersion_correction.h"
#include "cpu/nonbonded.h"
#include "cpu/pairlist.h"
#include "cpu/settle.h"
#include "cpu/thermostat.h"
#include "cpu/update.h"
#include "engine/outputs.h"
#include "engine/phase_timers.h"
#include "engine/run_report.h"
#include "engine/setup.h"

namespace halomd {
namespace {

// An atom that moves further than this in one step has blown up (nm).
constexpr double kMaxStepDisplacement = 0.1;

uint64_t resolve_seed(int64_t seed) {
  if (seed >= 0) return static_cast<uint64_t>(seed);
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 31) ^ rd();
}

int64_t atoms_hash(const Topology& top) {
  uint64_t h = mix64(top.mass.size());
  for (int i = 0; i < top.num_atoms(); ++i)
    h = mix64(h ^ static_cast<uint64_t>(std::llround(top.mass[i] * 1e6)) ^
              (static_cast<uint64_t>(std::llround(top.charge[i] * 1e6)) << 20));
  return static_cast<int64_t>(h >> 1);
}

// Maxwell-Boltzmann velocities at gen-temp, centre-of-mass motion removed and scaled to gen-temp exactly.
void generate_velocities(const Topology& top, double temp, double ndf, uint64_t seed, std::vector<Vec3>& v) {
  for (int i = 0; i < top.num_atoms(); ++i) {
    CounterRandom rng(seed, RandomStream::GenVel, static_cast<uint64_t>(i));
    const double sd = top.mass[i] > 0 ? std::sqrt(units::kBoltzmann * temp / top.mass[i]) : 0.0;
    v[i] = {sd * rng.normal(), sd * rng.normal(), sd * rng.normal()};
  }
  remove_com_velocity(v, top.mass);
  const double ke = kinetic_energy_tensor(v, top.mass, 1).trace();
  if (ke > 0) {
    const double scale = std::sqrt(temp * ndf * units::kBoltzmann / (2.0 * ke));
    for (Vec3& a : v) a *= scale;
  }
}

// GROMACS's do_constrain_first: constrain x(0), then v(-dt/2) through the position x(0) - dt v.
void constrain_start(const SettleCpu& settle, double dt, std::vector<Vec3>& x, std::vector<Vec3>& v,
                     int threads) {
  if (settle.empty()) return;
  const std::vector<Vec3> ref = x;
  settle.apply(ref, x, nullptr, dt, nullptr, threads);
  std::vector<Vec3> back(x.size());
  for (size_t i = 0; i < x.size(); ++i) back[i] = x[i] - v[i] * dt;
  const std::vector<Vec3> back_unconstrained = back;
  settle.apply(x, back, nullptr, dt, nullptr, threads);
  for (size_t i = 0; i < x.size(); ++i) v[i] -= (back[i] - back_unconstrained[i]) * (1.0 / dt);
}

void print_progress(int64_t step, int64_t last, int64_t first, double elapsed, double dt) {
  const double done = static_cast<double>(step - first);
  if (done <= 0 || elapsed <= 0) return;
  const double per_step = elapsed / done;
  const double left = per_step * static_cast<double>(last - step);
  const double nsday = dt * 1e-3 * 86400.0 / per_step;
  std::fprintf(stderr, "\rstep %lld / %lld, %.1f ns/day, %.0f s left   ", static_cast<long long>(step),
               static_cast<long long>(last), nsday, left);
  std::fflush(stderr);
}

}  // namespace

RunSummary run_md(const RunOptions& options) {
  SimulationInputs in = load_inputs(options);
  const MdParams& mdp = in.mdp;
  const Topology& top = in.top;
  const int natoms = top.num_atoms();
  const int threads = std::max(1, options.threads);
  const Box box = in.gro.box;

  SettleCpu settle(top);
  NonbondedCpu nonbonded(top, mdp, threads);
  DispersionCorrection dispcorr(top, mdp);
  std::vector<double> inv_mass(natoms);
  for (int i = 0; i < natoms; ++i) inv_mass[i] = top.mass[i] > 0 ? 1.0 / top.mass[i] : 0.0;

  // The state at the start of step `step`.
  io::Checkpoint st;
  const bool resume = !options.cpi.empty();
  const bool resume_here = resume && is_inside_dir(options.cpi, options.outdir);
  if (resume) {
    st = io::read_checkpoint(options.cpi);
    if (static_cast<int>(st.x.size()) != natoms || st.atoms_hash != atoms_hash(top))
      throw InputError(options.cpi, 0, "checkpoint is of a different system than " + options.top);
    if (st.dt != mdp.dt) throw InputError(options.mdp, 0, "dt differs from the checkpoint's");
  } else {
    st.step = 0;
    st.dt = mdp.dt;
    st.tinit = mdp.tinit;
    st.box = box;
    st.x = in.gro.x;
    make_molecules_whole(top, box, st.x);
    st.ld_seed = resolve_seed(mdp.ld_seed);
    st.gen_seed = resolve_seed(mdp.gen_seed);
    st.v = in.gro.has_velocities() ? in.gro.v : std::vector<Vec3>(natoms);
    if (mdp.gen_vel) generate_velocities(top, mdp.gen_temp, in.ndf, st.gen_seed, st.v);
    if (!mdp.continuation) constrain_start(settle, mdp.dt, st.x, st.v, threads);
    st.ke_half_prev = kinetic_energy_tensor(st.v, top.mass, threads);
    st.atoms_hash = atoms_hash(top);
  }

  RunOutputs out(options.outdir, resume ? &st : nullptr, resume_here, mdp.nstxout_compressed > 0);
  RunReport report(options, in, natoms);
  PhaseTimers timers;

  const int64_t first = st.step;
  const int64_t last = mdp.nsteps;
  const bool tty = isatty(STDERR_FILENO);
  const double ref_kinetic = 0.5 * in.ndf * units::kBoltzmann * mdp.ref_t;
  PairList list;
  std::vector<Vec3> f(natoms), x_new(natoms);
  io::GroFile final_frame = in.gro;
  using Clock = std::chrono::steady_clock;
  const auto t_start = Clock::now();
  auto t_steady = t_start;
  int64_t steady_first = first;
  auto t_progress = t_start;

  for (int64_t step = first; step <= last; ++step) {
    if (step == options.stop_at_step) throw RuntimeError(step, -1, "stopped by --stop-at-step (testing aid)");
    const bool ns_step = step == first || step % mdp.nstlist == 0;
    if (step > first && mdp.nstcheckpoint > 0 && step % mdp.nstcheckpoint == 0) {
      timers.start(Phase::Output);
      out.write_checkpoint(st);
      timers.stop();
    }
    if (ns_step && step == first + mdp.nstlist) {
      t_steady = Clock::now();  // steady state: the first NS window is left out of ns/day
      steady_first = step;
    }
    const bool energy_step = step % mdp.nstenergy == 0 || step == last || step == first;
    if (ns_step) {
      timers.start(Phase::NeighbourSearch);
      build_pair_list(st.x, box, mdp.rlist, top, threads, list);
      timers.stop();
    }
    timers.start(Phase::Nonbonded);
    NonbondedEnergies nb;
    nonbonded.compute(list, st.x, box, energy_step, step, f, nb);
    timers.stop();

    timers.start(Phase::Update);
    double lambda = 1.0;
    if (mdp.tcoupl == Tcoupl::VRescale && (step + mdp.nsttcouple - 1) % mdp.nsttcouple == 0) {
      const double ek = st.ke_half_prev.trace();
      const double tau_steps = mdp.tau_t / (mdp.nsttcouple * mdp.dt);
      const double ek_new = vrescale_resample_kinetic(ek, ref_kinetic, in.ndf, tau_steps, st.ld_seed, step);
      lambda = ek > 0 ? std::sqrt(ek_new / ek) : 1.0;
      st.thermostat_integral -= ek_new - ek;
    }
    const std::vector<Vec3> v_old = step == last ? st.v : std::vector<Vec3>();
    leapfrog_update(st.x, st.v, f, inv_mass, lambda, mdp.dt, x_new, threads);
    timers.stop();
    timers.start(Phase::Constraints);
    Tensor constr_virial;
    if (settle.apply(st.x, x_new, &st.v, mdp.dt, energy_step ? &constr_virial : nullptr, threads) >= 0 ||
        find_runaway_atom(st.x, x_new, kMaxStepDisplacement) >= 0) {
      const int atom = find_runaway_atom(st.x, x_new, kMaxStepDisplacement);
      throw RuntimeError(step, atom,
                         "the system blew up: an atom moved more than 0.1 nm in one step or a water "
                         "could not be constrained (time step too long, or bad starting structure?)");
    }
    timers.stop();

    timers.start(Phase::Energies);
    const Tensor ke_half = kinetic_energy_tensor(st.v, top.mass, threads);
    if (mdp.comm_mode == CommMode::Linear && step % mdp.nstcomm == 0) remove_com_velocity(st.v, top.mass);
    if (energy_step) {
      EnergyRow row;
      row.step = step;
      row.time_ps = st.tinit + step * mdp.dt;
      row.lj_sr = nb.lj;
      row.coulomb_sr = nb.coulomb;
      row.disp_corr = dispcorr.energy(box);
      row.potential = row.lj_sr + row.coulomb_sr + row.disp_corr;
      Tensor ke;
      Tensor vir = nb.virial;
      vir += constr_virial;
      const double dc_vir = dispcorr.virial_diagonal(box);
      for (int a = 0; a < 3; ++a) {
        vir.m[a][a] += dc_vir;
        for (int b = 0; b < 3; ++b) ke.m[a][b] = 0.5 * (st.ke_half_prev.m[a][b] + ke_half.m[a][b]);
      }
      row.kinetic = ke.trace();
      row.total = row.potential + row.kinetic;
      row.conserved = row.total + st.thermostat_integral;
      row.temperature = 2.0 * row.kinetic / (in.ndf * units::kBoltzmann);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          row.pressure_tensor.m[a][b] = 2.0 / box.volume() * (ke.m[a][b] - vir.m[a][b]) * units::kPresFac;
      row.pressure = row.pressure_tensor.trace() / 3.0;
      if (!std::isfinite(row.potential) || !std::isfinite(row.kinetic))
        throw RuntimeError(step, -1, "energies are not finite");
      timers.stop();
      timers.start(Phase::Output);
      out.write_energy(row);
      report.add_energy(row);
    }
    timers.stop();
    timers.start(Phase::Output);
    if (mdp.nstxout_compressed > 0 && step % mdp.nstxout_compressed == 0)
      out.write_frame(step, st.tinit + step * mdp.dt, box, molecules_in_box(top, box, st.x),
                      mdp.compressed_x_precision);
    if (step == last) {
      final_frame.x = molecules_in_box(top, box, st.x);
      final_frame.v = v_old;
    }
    timers.stop();

    st.x.swap(x_new);
    st.ke_half_prev = ke_half;
    st.step = step + 1;
    if (tty && std::chrono::duration<double>(Clock::now() - t_progress).count() > 1.0) {
      t_progress = Clock::now();
      print_progress(step, last, first, std::chrono::duration<double>(t_progress - t_start).count(), mdp.dt);
    }
  }
  if (tty) std::fprintf(stderr, "\n");

  const auto t_end = Clock::now();
  if (last >= first) out.write_confout(final_frame);
  out.write_checkpoint(st);

  RunSummary sum;
  sum.first_step = first;
  sum.last_step = last;
  sum.steps = std::max<int64_t>(0, last - first + 1);
  sum.wall_s = std::chrono::duration<double>(t_end - t_start).count();
  const int64_t steady_steps = last + 1 - steady_first;
  const double steady_s = std::chrono::duration<double>(t_end - t_steady).count();
  const double per_step = steady_steps > 0 && steady_s > 0 ? steady_s / steady_steps
                                                           : (sum.steps > 0 ? sum.wall_s / sum.steps : 0.0);
  sum.ns_per_day = per_step > 0 ? mdp.dt * 1e-3 * 86400.0 / per_step : 0.0;
  report.finish(sum, timers, out.path("run.json"), list.num_pairs());
  return sum;
}

}  // namespace halomd
