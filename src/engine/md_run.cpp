#include "engine/md_run.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "core/errors.h"
#include "core/executor.h"
#include "core/phase_timers.h"
#include "core/random.h"
#include "core/units.h"
#include "cpu/coupling.h"
#include "cpu/dispersion_correction.h"
#include "cpu/lincs.h"
#include "cpu/settle.h"
#include "cpu/update.h"
#include "cpu/vsite.h"
#include "engine/backends.h"
#include "engine/minimize.h"
#include "engine/outputs.h"
#include "engine/run_report.h"
#include "engine/setup.h"
#include "engine/step_counters.h"
#include "fmt/format.h"

namespace halomd {
namespace {

uint64_t resolve_seed(int64_t seed) {
  if (seed >= 0) return static_cast<uint64_t>(seed);
  std::random_device rd;
  // Under mpirun every rank reads the same inputs but would draw its own: rank 0's draw for all, so that the
  // domains couple (v-rescale, C-rescale's noise) and generate velocities with one seed. Collective.
  return same_on_every_process((static_cast<uint64_t>(rd()) << 31) ^ rd());
}

int64_t atoms_hash(const Topology& top) {
  uint64_t h = mix64(top.mass.size());
  for (int i = 0; i < top.num_atoms(); ++i)
    h = mix64(h ^ static_cast<uint64_t>(std::llround(top.mass[i] * 1e6)) ^
              (static_cast<uint64_t>(std::llround(top.charge[i] * 1e6)) << 20));
  return static_cast<int64_t>(h >> 1);
}

// Maxwell-Boltzmann velocities at gen-temp, as grompp's maxwell_speed and stopcm_gr: scaled so that the atoms
// with mass have gen-temp over 3 degrees of freedom each, then the centre-of-mass motion removed (the caller
// then clears frozen dimensions, as mdrun does). The start's constraining then takes the constrained motion
// out, which leaves ~gen-temp over the remaining degrees of freedom, as in GROMACS.
void generate_velocities(const Topology& top, double temp, uint64_t seed, std::vector<Vec3>& v) {
  int with_mass = 0;
  for (int i = 0; i < top.num_atoms(); ++i) {
    CounterRandom rng(seed, RandomStream::GenVel, static_cast<uint64_t>(i));
    const double sd = top.mass[i] > 0 ? std::sqrt(units::kBoltzmann * temp / top.mass[i]) : 0.0;
    v[i] = {sd * rng.normal(), sd * rng.normal(), sd * rng.normal()};
    with_mass += top.mass[i] > 0 ? 1 : 0;
  }
  const double ke = kinetic_energy_tensor(v, top.mass, 1).trace();
  if (ke > 0) {
    const double scale = std::sqrt(temp * 3.0 * with_mass * units::kBoltzmann / (2.0 * ke));
    for (Vec3& a : v) a *= scale;
  }
  remove_com_velocity(v, top.mass);
}

// GROMACS's do_constrain_first: constrain x(0), then v(-dt/2) through the position x(0) - dt v.
void constrain_start(const SettleCpu& settle, const LincsCpu& lincs, double dt, const Box& box,
                     std::vector<Vec3>& x, std::vector<Vec3>& v, int threads) {
  if (settle.empty() && lincs.empty()) return;
  const std::vector<Vec3> ref = x;
  settle.apply(ref, x, nullptr, dt, nullptr, threads);
  lincs.apply(ref, x, nullptr, dt, nullptr, box);
  std::vector<Vec3> back(x.size());
  for (size_t i = 0; i < x.size(); ++i) back[i] = x[i] - v[i] * dt;
  const std::vector<Vec3> back_unconstrained = back;
  settle.apply(x, back, nullptr, dt, nullptr, threads);
  lincs.apply(x, back, nullptr, dt, nullptr, box);
  for (size_t i = 0; i < x.size(); ++i) v[i] -= (back[i] - back_unconstrained[i]) * (1.0 / dt);
}

MdState to_md_state(const io::Checkpoint& c) {
  MdState s;
  s.step = c.step;
  s.x = c.x;
  s.v = c.v;
  s.ke_half_prev = c.ke_half_prev;
  s.ke_half_prev_groups = c.ke_half_prev_groups;
  s.thermostat_integral = c.thermostat_integral;
  s.nh_xi = c.nh_xi;
  s.nh_vxi = c.nh_vxi;
  return s;
}

void from_md_state(const MdState& s, io::Checkpoint& c) {
  c.step = s.step;
  c.x = s.x;
  c.v = s.v;
  c.ke_half_prev = s.ke_half_prev;
  c.ke_half_prev_groups = s.ke_half_prev_groups;
  c.thermostat_integral = s.thermostat_integral;
  c.nh_xi = s.nh_xi;
  c.nh_vxi = s.nh_vxi;
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

// Parrinello-Rahman for a rectangular box (GROMACS 2022's parrinellorahman_pcoupl, isotropic and
// semi-isotropic), at a coupling step with the pressure of the step before it: the box velocity grows by
// dt_pc W^-1 V a, W^-1 = 4 pi^2 compressibility / (3 tau-p^2 L_max), a the relative volume acceleration
// shared by the coupled directions; then M = boxv / L, which the update takes off the velocities, and mu =
// (L + dt_pc boxv) / L, which scales the positions after it (the box follows). The first step of a new run
// does not accelerate the box (GROMACS's bInitStep).
struct ParrinelloRahmanStep {
  Vec3 m, mu;
};
double pr_inv_mass(const MdParams& p, int d, double max_len) {
  const double c =
      p.pcoupltype == PcouplType::Isotropic ? p.compressibility[0] : p.compressibility[d < 2 ? 0 : 1];
  return 4.0 * units::kPi * units::kPi * c / (3.0 * p.tau_p * p.tau_p * max_len);
}
double pr_ref(const MdParams& p, int d) {
  return p.pcoupltype == PcouplType::Isotropic ? p.ref_p[0] : p.ref_p[d < 2 ? 0 : 1];
}
ParrinelloRahmanStep parrinello_rahman(const MdParams& p, const Tensor& pres, const Box& box, bool init,
                                       Vec3& boxv) {
  const double dtpc = p.nstpcouple * p.dt;
  const Vec3& l = box.len;
  if (!init) {
    const double vol = box.volume(), max_len = std::max({l.x, l.y, l.z});
    double t[3];
    for (int d = 0; d < 3; ++d) t[d] = (pres.m[d][d] - pr_ref(p, d)) / l[d];
    Vec3 a;
    if (p.pcoupltype == PcouplType::Isotropic) {
      const double atot = l.x * l.y * t[2] + l.x * t[1] * l.z + t[0] * l.y * l.z;
      const double arel = atot / (3.0 * vol);
      for (int d = 0; d < 3; ++d) a[d] = pr_inv_mass(p, 0, max_len) * vol * arel * l[d];
    } else {
      const double atot = l.x * t[1] + t[0] * l.y;
      const double arel = atot / (2.0 * l.x * l.y);
      for (int d = 0; d < 2; ++d) a[d] = pr_inv_mass(p, d, max_len) * vol * arel * l[d];
      a[2] = t[2] * pr_inv_mass(p, 2, max_len) * vol;
    }
    for (int d = 0; d < 3; ++d) boxv[d] += dtpc * a[d];
  }
  ParrinelloRahmanStep s;
  for (int d = 0; d < 3; ++d) {
    s.m[d] = boxv[d] / l[d];
    s.mu[d] = (l[d] + dtpc * boxv[d]) / l[d];
  }
  return s;
}
// The barostat's share of the conserved energy (GROMACS's NPT_energy): the box's kinetic energy
// sum_d boxv_d^2 / (2 W^-1_d PRESFAC) and P_ref V (the mean reference pressure).
double parrinello_rahman_energy(const MdParams& p, const Box& box, const Vec3& boxv) {
  const double max_len = std::max({box.len.x, box.len.y, box.len.z});
  double e = 0.0, trace = 0.0;
  for (int d = 0; d < 3; ++d) {
    const double inv_mass = pr_inv_mass(p, d, max_len);
    if (inv_mass > 0) e += 0.5 * boxv[d] * boxv[d] / (inv_mass * units::kPresFac);
    trace += pr_ref(p, d);
  }
  return e + box.volume() * trace / (3.0 * units::kPresFac);
}

}  // namespace

// amu per nm^3 in kg/m^3 (1.66053906660e-27 kg / 1e-27 m^3), GROMACS's Density.
constexpr double kAmuKgPerNm3 = 1.66053906660;

// GROMACS's energy terms of one step from what the executor summed (PHYSICS.md).
EnergyRow energy_row(int64_t step, double time_ps, const StepEnergies& e, const DispersionCorrection& dc,
                     const Box& box, double ndf) {
  EnergyRow row;
  row.step = step;
  row.time_ps = time_ps;
  row.lj_sr = e.lj;
  row.coulomb_sr = e.coulomb;
  row.coul_recip = e.coulomb_recip;
  row.disp_corr = dc.energy(box);
  row.bonded = e.bonded;
  row.potential = 0.0;
  for (double v : row.bonded) row.potential += v;
  row.potential += row.lj_sr + row.coulomb_sr + row.coul_recip + row.disp_corr;
  Tensor vir = e.virial;
  const double dc_vir = dc.virial_diagonal(box);
  for (int a = 0; a < 3; ++a) vir.m[a][a] += dc_vir;
  row.kinetic = e.kinetic.trace();
  row.total = row.potential + row.kinetic;
  row.conserved = row.total + e.thermostat_integral;
  row.temperature = ndf > 0.0 ? 2.0 * row.kinetic / (ndf * units::kBoltzmann) : 0.0;  // 0: all frozen
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      row.pressure_tensor.m[a][b] = 2.0 / box.volume() * (e.kinetic.m[a][b] - vir.m[a][b]) * units::kPresFac;
  row.pressure = row.pressure_tensor.trace() / 3.0;
  row.virial = vir;
  row.pres_dc = -2.0 * dc_vir * units::kPresFac / box.volume();
  if (!std::isfinite(row.potential) || !std::isfinite(row.kinetic))
    throw RuntimeError(step, -1, "energies are not finite");
  return row;
}

namespace {

// C-rescale's scaling matrix (Bernetti and Bussi, J. Chem. Phys. 153, 114107, 2020; GROMACS 2022's
// crescale_pcoupl): from the step's pressure tensor (bar) and volume, the reference temperature, and a
// Gaussian per coupled direction, mu = exp(-c (P_ref - P)/3 + sqrt(2 kT c PRESFAC / V) g / 3) with
// c = compressibility nstpcouple dt / tau_p; semi-isotropic couples xy (mean of Pxx and Pyy) and z apart.
Tensor crescale_mu(const MdParams& p, const Tensor& pres, const Box& box, uint64_t seed, int64_t step) {
  CounterRandom rng(seed, RandomStream::Barostat, static_cast<uint64_t>(step));
  // The first group's reference, annealed where it is (GROMACS 2022's opts.ref_t[0] at the step).
  const double kt = units::kBoltzmann * annealed_ref_t(p, 0, p.tinit + static_cast<double>(step) * p.dt),
               volume = box.volume();
  auto factor = [&](int k) { return p.compressibility[k] * p.nstpcouple * p.dt / p.tau_p; };
  Tensor mu;
  if (p.pcoupltype == PcouplType::Isotropic) {
    const double c = factor(0), scalar = pres.trace() / 3.0;
    const double m = std::exp(-c * (p.ref_p[0] - scalar) / 3.0 +
                              std::sqrt(2.0 * kt * c * units::kPresFac / volume) * rng.normal() / 3.0);
    for (int d = 0; d < 3; ++d) mu.m[d][d] = m;
  } else {
    const double cxy = factor(0), cz = factor(1);
    const double pxy = 0.5 * (pres.m[0][0] + pres.m[1][1]);
    const double gxy = rng.normal(), gz = rng.normal();
    const double mxy =
        std::exp(-cxy * (p.ref_p[0] - pxy) / 3.0 +
                 std::sqrt(2.0 * 2.0 * kt * cxy * units::kPresFac / (3.0 * volume)) / 2.0 * gxy);
    mu.m[0][0] = mu.m[1][1] = mxy;
    mu.m[2][2] = std::exp(-cz * (p.ref_p[1] - pres.m[2][2]) / 3.0 +
                          std::sqrt(2.0 * kt * cz * units::kPresFac / (3.0 * volume)) * gz);
  }
  return mu;
}

// Berendsen's barostat (GROMACS 2022 berendsen_pcoupl): mu_dd = 1 - nstpcouple dt compressibility / tau-p
// (ref-p - P) / 3 from the step's pressure (isotropic: its trace / 3; semi-isotropic: the mean of xx and yy
// for x and y, zz for z), first order and deterministic; the positions and the box scale by mu, the
// velocities do not.
Tensor berendsen_mu(const MdParams& p, const Tensor& pres) {
  auto factor = [&](int k) { return p.compressibility[k] * p.nstpcouple * p.dt / p.tau_p; };
  Tensor mu;
  if (p.pcoupltype == PcouplType::Isotropic) {
    const double m = 1.0 - factor(0) * (p.ref_p[0] - pres.trace() / 3.0) / 3.0;
    for (int d = 0; d < 3; ++d) mu.m[d][d] = m;
  } else {
    const double pxy = 0.5 * (pres.m[0][0] + pres.m[1][1]);
    mu.m[0][0] = mu.m[1][1] = 1.0 - factor(0) * (p.ref_p[0] - pxy) / 3.0;
    mu.m[2][2] = 1.0 - factor(1) * (p.ref_p[1] - pres.m[2][2]) / 3.0;
  }
  return mu;
}

}  // namespace

RunSummary run_md(const RunOptions& options) {
  SimulationInputs in = load_inputs(options);
  if (in.mdp.integrator == Integrator::Steep) return run_minimization(options, in);
  const MdParams& mdp = in.mdp;
  const Topology& top = in.top;
  const int natoms = top.num_atoms();
  const int threads = std::max(1, options.threads);
  Box box = in.gro.box;  // the current box: pressure coupling changes it after its steps
  DispersionCorrection dispcorr(top, mdp);

  // The state at the start of step `step`.
  io::Checkpoint st;
  const bool resume = !options.cpi.empty();
  const bool resume_here = resume && is_inside_dir(options.cpi, options.outdir);
  if (resume) {
    st = io::read_checkpoint(options.cpi);
    if (static_cast<int>(st.x.size()) != natoms || st.atoms_hash != atoms_hash(top))
      throw InputError(options.cpi, 0, "checkpoint is of a different system than " + options.top);
    if (st.dt != mdp.dt) throw InputError(options.mdp, 0, "dt differs from the checkpoint's");
    // The executors take the time from tinit (the applied field, annealing), the outputs from the checkpoint.
    if (st.tinit != mdp.tinit) throw InputError(options.mdp, 0, "tinit differs from the checkpoint's");
    // As GROMACS, a continuation keeps the run's coupling algorithms (their state is in the checkpoint).
    if (st.tcoupl >= 0 && st.tcoupl != static_cast<int32_t>(mdp.tcoupl))
      throw InputError(options.mdp, mdp.tcoupl_line,
                       "tcoupl differs from the checkpoint's run: a continuation keeps the thermostat");
    if (st.pcoupl >= 0 && st.pcoupl != static_cast<int32_t>(mdp.pcoupl))
      throw InputError(options.mdp, mdp.pcoupl_line,
                       "pcoupl differs from the checkpoint's run: a continuation keeps the barostat");
    if (mdp.tcoupl == Tcoupl::NoseHoover && st.tcoupl >= 0 &&
        st.nh_xi.size() != std::max<size_t>(1, mdp.tc_grps.size()))
      throw InputError(options.mdp, mdp.tc_grps_line,
                       "tc-grps has another number of groups than the checkpoint's Nose-Hoover run");
    st.tcoupl = static_cast<int32_t>(mdp.tcoupl);  // also for a checkpoint of a version before 5
    st.pcoupl = static_cast<int32_t>(mdp.pcoupl);
    box = st.box;
    // A checkpoint of a run with other freezegrps: its velocities along the now frozen dimensions are dropped
    // (the GPUs' update leaves a fully frozen atom's velocity as it finds it).
    zero_frozen_velocities(top.frozen, {}, st.v);
  } else {
    st.tcoupl = static_cast<int32_t>(mdp.tcoupl);
    st.pcoupl = static_cast<int32_t>(mdp.pcoupl);
    SettleCpu settle(top);
    LincsCpu lincs(top, mdp.lincs_order, mdp.lincs_iter, mdp.lincs_warnangle, true);
    st.step = 0;
    st.dt = mdp.dt;
    st.tinit = mdp.tinit;
    st.box = box;
    st.x = in.gro.x;
    make_molecules_whole(top, box, st.x);
    st.ld_seed = resolve_seed(mdp.ld_seed);
    // Drawn only when velocities are generated (0 in the checkpoint otherwise: two runs of the same inputs
    // write the same checkpoints).
    st.gen_seed =
        mdp.gen_vel ? resolve_seed(mdp.gen_seed) : static_cast<uint64_t>(std::max<int64_t>(0, mdp.gen_seed));
    st.v = in.gro.has_velocities() ? in.gro.v : std::vector<Vec3>(natoms);
    if (mdp.gen_vel) generate_velocities(top, mdp.gen_temp, st.gen_seed, st.v);
    // Frozen dimensions start at rest (GROMACS's mdrun clears them before constraining the start; here for
    // continuation = yes too, where an input's velocity there would otherwise stay).
    zero_frozen_velocities(top.frozen, {}, st.v);
    if (!mdp.continuation) {
      constrain_start(settle, lincs, mdp.dt, box, st.x, st.v, threads);
      // Then the virtual sites from the constrained atoms (md.cpp; a continuation keeps the input's).
      construct_vsites(top.vsites, st.x, box);
      // GROMACS's first compute_globals then removes the centre-of-mass motion (md.cpp).
      // (per comm-grps group where there are several).
      if (mdp.comm_mode == CommMode::Linear && in.comm_groups > 0)
        remove_com_velocity(st.v, top.mass, in.comm_group, in.comm_groups);
      else if (mdp.comm_mode == CommMode::Linear)
        remove_com_velocity(st.v, top.mass);
      // The constraining moved frozen atoms too (two frozen atoms of one constraint alike): still at rest.
      zero_frozen_velocities(top.frozen, {}, st.v);
    }
    st.ke_half_prev = kinetic_energy_tensor(st.v, top.mass, threads);
    st.atoms_hash = atoms_hash(top);
  }

  PhaseTimers timers;
  ExecutorConfig cfg;
  cfg.top = &top;
  cfg.mdp = &mdp;
  cfg.box = box;
  cfg.grid_box = in.gro.box;
  cfg.ndf = in.ndf;
  if (in.comm_groups > 0) {
    cfg.comm_group = &in.comm_group;
    cfg.comm_groups = in.comm_groups;
  }
  if (in.tc_ndf.size() > 1) {
    cfg.tc_group = &in.tc_group;
    cfg.tc_ndf = in.tc_ndf;
  }
  cfg.ld_seed = st.ld_seed;
  cfg.threads = threads;
  cfg.timers = &timers;
  std::unique_ptr<Executor> exec = make_executor(options, cfg);
  exec->load(to_md_state(st));
  const bool writer = exec->writes_outputs();

  std::unique_ptr<RunOutputs> out;
  if (writer)
    out = std::make_unique<RunOutputs>(options.outdir, resume ? &st : nullptr, resume_here, energy_terms(in),
                                       mdp.dt, mdp.nstxout_compressed > 0,
                                       mdp.nstxout > 0 || mdp.nstvout > 0 || mdp.nstfout > 0);
  RunReport report(options, in, natoms);

  const int64_t first = st.step;
  const int64_t last = mdp.nsteps;
  const bool tty = writer && isatty(STDERR_FILENO);
  io::GroFile final_frame = in.gro;
  StepCounters counted;
  using Clock = std::chrono::steady_clock;
  const auto t_start = Clock::now();
  auto t_steady = t_start;
  int64_t steady_first = first;
  auto t_progress = t_start;
  MdState state;
  std::vector<Vec3> frame_x;
  MdState trr_state;  // x(step) and v(step - dt/2) of a traj.trr frame
  std::vector<Vec3> trr_x, trr_f;
  auto every = [](int n, int64_t step) { return n > 0 && step % n == 0; };
  const bool pcoupl = mdp.pcoupl == Pcoupl::CRescale || mdp.pcoupl == Pcoupl::Berendsen;
  const bool berendsen_p = mdp.pcoupl == Pcoupl::Berendsen;
  const bool pr = mdp.pcoupl == Pcoupl::ParrinelloRahman;
  double total_mass = 0.0;
  for (double m : top.mass) total_mass += m;

  for (int64_t step = first; step <= last; ++step) {
    if (step == options.stop_at_step) throw RuntimeError(step, -1, "stopped by --stop-at-step (testing aid)");
    StepRequest req;
    req.step = step;
    // A checkpoint step searches too, as a run continued from that checkpoint does at its first step: then
    // both run the same steps from the same state (on domains, the same partition and so the same frames),
    // also where the checkpoint interval is no multiple of nstlist.
    const bool checkpoint_due = step > first && mdp.nstcheckpoint > 0 && step % mdp.nstcheckpoint == 0;
    req.ns = step == first || step % mdp.nstlist == 0 || checkpoint_due;
    // The first step of a new run has a row; a continuation's first step only where the uninterrupted run
    // had one (GROMACS 2022 logs the first step of a new simulation only), so that a checkpoint written
    // between energy steps continues into the same energy.csv.
    const bool energy_row_step = step % mdp.nstenergy == 0 || step == last || (step == first && !resume);
    // C-rescale and Berendsen act after steps 0, nstpcouple, ... with that step's pressure (GROMACS 2022).
    const bool pcouple_step = pcoupl && step % mdp.nstpcouple == 0;
    // Parrinello-Rahman couples at steps 0, ... (step + nstpcouple - 1 a multiple of nstpcouple) with the
    // pressure of the step before, kept from steps 0, nstpcouple, ... (GROMACS 2022's pres_prev).
    const bool pr_step = pr && (step + mdp.nstpcouple - 1) % mdp.nstpcouple == 0;
    const bool pr_pressure_step = pr && step % mdp.nstpcouple == 0;
    req.energy = energy_row_step || pcouple_step || pr_pressure_step;
    req.tcouple = mdp.tcoupl != Tcoupl::No && (step + mdp.nsttcouple - 1) % mdp.nsttcouple == 0;
    req.comm = mdp.comm_mode == CommMode::Linear && step % mdp.nstcomm == 0;
    const bool checkpoint_step = checkpoint_due;
    const bool frame_step = every(mdp.nstxout_compressed, step);
    // traj.trr at the steps GROMACS writes them (multiples of each interval; none added at the last step).
    const bool trr_x_step = every(mdp.nstxout, step), trr_v_step = every(mdp.nstvout, step);
    const bool trr_f_step = every(mdp.nstfout, step);
    const bool output_step = frame_step || checkpoint_step || trr_x_step || trr_v_step || trr_f_step;

    timers.start(Phase::Output);
    if (checkpoint_step || step == last) exec->save(state);
    if (checkpoint_step && writer) {
      from_md_state(state, st);
      st.box = box;
      out->write_checkpoint(st);
    }
    if (step == last && writer) {
      final_frame.x = molecules_in_box(top, box, state.x);
      final_frame.v = state.v;
      final_frame.box = box;
    }
    if (frame_step) {
      if (step == last || checkpoint_step)  // the positions just saved: no second download
        frame_x = state.x;
      else
        exec->positions(frame_x);
    }
    if (trr_v_step)
      exec->frame(trr_state.x, trr_state.v);
    else if (trr_x_step)
      exec->positions(trr_state.x);
    timers.stop();
    if (req.ns && step == first + mdp.nstlist) {
      t_steady = Clock::now();  // steady state: the first NS window is left out of ns/day
      steady_first = step;
    }

    Tensor scale_mu;  // C-rescale's or Berendsen's scaling of this step (pcouple_step), applied after its
                      // outputs
    ParrinelloRahmanStep prs;
    if (pr_step) {
      prs = parrinello_rahman(mdp, st.pr_pres_prev, box, step == first && !resume, st.pr_boxv);
      req.pr = true;
      req.pr_scale = prs.m * (mdp.nstpcouple * mdp.dt);
    }
    const CallCounters before = exec->counters();
    const auto t_step = Clock::now();
    StepEnergies se;
    exec->step(req, req.energy ? &se : nullptr);
    // A Parrinello-Rahman coupling step takes its term from the host (GPUs run it kernel by kernel): counted
    // with the energy and output steps, not as a regular step.
    counted.add(req.ns, req.energy || output_step || req.pr, before, exec->counters(),
                std::chrono::duration<double>(Clock::now() - t_step).count());

    timers.start(Phase::Output);
    if (req.energy) {
      EnergyRow row = energy_row(step, st.tinit + step * mdp.dt, se, dispcorr, box, in.ndf);
      row.box = box.len;
      row.volume = box.volume();
      row.density = total_mass * kAmuKgPerNm3 / row.volume;
      for (size_t g = 0; g < se.group_kinetic.size(); ++g)
        row.group_temperature.push_back(  // 0 without degrees of freedom, as GROMACS's calc_temp
            in.tc_ndf[g] > 0.0 ? 2.0 * se.group_kinetic[g] / (in.tc_ndf[g] * units::kBoltzmann) : 0.0);
      if (pcouple_step) {
        scale_mu = berendsen_p ? berendsen_mu(mdp, row.pressure_tensor)
                               : crescale_mu(mdp, row.pressure_tensor, box, st.ld_seed, step);
        // The barostat's work on the box, -2 sum_d (mu_dd - 1) Vir_dd with the step's whole virial
        // (dispersion correction included), is the conserved energy's share (GROMACS's baros_integral).
        for (int d = 0; d < 3; ++d)
          st.barostat_integral -=
              2.0 * (scale_mu.m[d][d] - 1.0) * (se.virial.m[d][d] + dispcorr.virial_diagonal(box));
      }
      row.conserved += st.barostat_integral;
      if (pr) {
        if (pr_pressure_step) st.pr_pres_prev = row.pressure_tensor;
        // With the box and box velocity at the step's end, as GROMACS's conserved energy.
        Box next = box;
        if (pr_step)
          for (int d = 0; d < 3; ++d) next.len[d] += mdp.nstpcouple * mdp.dt * st.pr_boxv[d];
        row.conserved += parrinello_rahman_energy(mdp, next, st.pr_boxv);
        row.box_velocity = st.pr_boxv;
      }
      if (energy_row_step && writer) {
        out->write_energy(row);
        report.add_energy(row);
      }
    }
    if (frame_step && writer) {
      std::vector<Vec3> shown = molecules_in_box(top, box, frame_x);
      if (!in.xtc_atoms.empty()) {  // compressed-x-grps: the group's atoms, in their order
        std::vector<Vec3> group(in.xtc_atoms.size());
        for (size_t k = 0; k < group.size(); ++k) group[k] = shown[in.xtc_atoms[k]];
        shown = std::move(group);
      }
      out->write_frame(step, st.tinit + step * mdp.dt, box, shown, mdp.compressed_x_precision);
    }
    if (trr_x_step || trr_v_step || trr_f_step) {
      if (trr_f_step && !exec->last_forces(trr_f))
        throw RuntimeError(step, -1, "internal error: this executor does not give its forces (nstfout)");
      if (writer) {
        if (trr_x_step) trr_x = molecules_in_box(top, box, trr_state.x);  // as traj.xtc shows them
        out->write_trr(step, st.tinit + step * mdp.dt, box, trr_x_step ? &trr_x : nullptr,
                       trr_v_step ? &trr_state.v : nullptr, trr_f_step ? &trr_f : nullptr);
      }
    }
    if (pcouple_step) {  // C-rescale or Berendsen, after the step's outputs, which show x(step) in box(step)
      for (int d = 0; d < 3; ++d) box.len[d] *= scale_mu.m[d][d];
      if (mdp.rlist >= box.min_half_edge())
        throw RuntimeError(step, -1,
                           fmt::format("pressure coupling shrank the box to {:.4f} nm, less than twice the "
                                       "pair-list cut-off {:.4f} nm",
                                       2.0 * box.min_half_edge(), mdp.rlist));
      if (berendsen_p)
        exec->scale_positions(scale_mu, box);  // Berendsen leaves the velocities
      else
        exec->scale_coordinates(scale_mu, box);
    }
    if (pr_step) {  // after the step's outputs, which show x(step) in box(step)
      Tensor mu;
      for (int d = 0; d < 3; ++d) {
        box.len[d] += mdp.nstpcouple * mdp.dt * st.pr_boxv[d];
        mu.m[d][d] = prs.mu[d];
      }
      if (mdp.rlist >= box.min_half_edge())
        throw RuntimeError(step, -1,
                           fmt::format("pressure coupling shrank the box to {:.4f} nm, less than twice the "
                                       "pair-list cut-off {:.4f} nm",
                                       2.0 * box.min_half_edge(), mdp.rlist));
      exec->scale_positions(mu, box);
    }
    timers.stop();

    if (tty && std::chrono::duration<double>(Clock::now() - t_progress).count() > 1.0) {
      t_progress = Clock::now();
      print_progress(step, last, first, std::chrono::duration<double>(t_progress - t_start).count(), mdp.dt);
    }
  }
  if (tty) std::fprintf(stderr, "\n");

  const auto t_end = Clock::now();
  exec->save(state);
  if (writer) {
    if (last >= first) out->write_confout(final_frame);
    from_md_state(state, st);
    st.box = box;
    out->write_checkpoint(st);
  }

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
  if (writer) report.finish(sum, timers, out->path("run.json"), *exec, counted);
  return sum;
}

}  // namespace halomd
