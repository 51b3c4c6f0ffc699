#include <algorithm>
#include <cstddef>

#include "core/vec3.h"
#include "cpu/nose_hoover.h"
#include "cpu/settle_water.h"
#include "cpu/thermostat.h"
#include "cuda/device_util.cuh"
#include "cuda/update.h"
#include "domdec/drift.h"

namespace halomd::cuda {
namespace {

// A block updates kBlockWaters SETTLE waters with one thread per atom (leap-frog, then the write-back and the
// sums), and its first warp solves SETTLE for them, one water per thread, between the two through shared
// memory: each atom's gathers have their own thread while SETTLE keeps a water per lane. Blocks after the
// waters' update one atom outside waters per thread.
constexpr int kBlockWaters = 32;
constexpr int kBlock = 3 * kBlockWaters;
static_assert(kBlock == kUpdateBlock, "device_data.h's kUpdateBlock is the update kernel's block");

// LINCS for one block's constraints (cpu/lincs.cpp's apply, the same expansion and corrections), every
// thread of the block here: thread t holds slot t's atom (xn: its unconstrained new position, moved onto the
// constraints here; xo_s / xn_s: the block's old and new positions in shared memory) and, for t < ncon,
// constraint t, whose mlambda it returns. The position corrections are gathered per atom over its
// constraints in their order, so the sums do not depend on the schedule. Flags a constraint that cannot be
// solved or turned further than lincs-warnangle (kErrSettle).
__device__ double lincs_block(const UpdateParams& p, const LincsBlockDev& lb, long long step, Vec3& xn,
                              double (*xo_s)[kBlock], double (*xn_s)[kBlock]) {
  __shared__ double s_r[3][kBlock];
  __shared__ double s_rhs[kBlock];
  __shared__ double s_mvb[kBlock];
  const LincsDev& L = p.lincs;
  const int t = threadIdx.x;
  const bool has_con = t < lb.ncon, has_atom = t < lb.natoms;
  LincsConDev c{};
  Vec3 r;
  if (has_con) {
    c = L.con[lb.con_start + t];
    const Vec3 d = min_image(Vec3{xo_s[0][c.a], xo_s[1][c.a], xo_s[2][c.a]},
                             Vec3{xo_s[0][c.b], xo_s[1][c.b], xo_s[2][c.b]}, p.len);
    r = d * (1.0 / sqrt(norm2(d)));
    for (int k = 0; k < 3; ++k) s_r[k][t] = r[k];
  }
  __syncthreads();
  double sol = 0.0, mlambda = 0.0;
  // sum_k A^k rhs with A_ij = coef_ij (r_i . r_j), from this thread's rhs (in s_rhs on return: the last
  // term).
  auto expand = [&](double rhs) {
    sol = rhs;
    if (has_con) s_rhs[t] = rhs;
    __syncthreads();
    for (int k = 0; k < L.order; ++k) {
      double next = 0.0;
      if (has_con)
        for (int q = L.coupling_start[lb.con_start + t]; q < L.coupling_start[lb.con_start + t + 1]; ++q) {
          const int o = L.coupling_other[q];
          next += L.coupling_coef[q] * (r.x * s_r[0][o] + r.y * s_r[1][o] + r.z * s_r[2][o]) * s_rhs[o];
        }
      __syncthreads();
      if (has_con) s_rhs[t] = next;
      sol += next;
      __syncthreads();
    }
  };
  // Moves the atoms along their constraints' old directions by blc sol, weighted by inverse mass.
  const int a = has_atom ? L.atoms[lb.atom_start + t] : -1;
  const double im = a >= 0 ? p.inv_mass[a] : 0.0;
  auto update = [&]() {
    if (has_con) {
      const double mvb = c.blc * sol;
      mlambda += mvb;
      s_mvb[t] = mvb;
    }
    __syncthreads();
    if (has_atom) {
      for (int q = L.atom_con_start[lb.atom_start + t]; q < L.atom_con_start[lb.atom_start + t + 1]; ++q) {
        const int e = L.atom_con[q], k = e >> 1;
        const double s = (e & 1) ? im * s_mvb[k] : -im * s_mvb[k];
        xn += Vec3{s_r[0][k], s_r[1][k], s_r[2][k]} * s;
      }
      for (int d = 0; d < 3; ++d) xn_s[d][t] = xn[d];
    }
    __syncthreads();
  };
  auto bond = [&]() {
    return min_image(Vec3{xn_s[0][c.a], xn_s[1][c.a], xn_s[2][c.a]},
                     Vec3{xn_s[0][c.b], xn_s[1][c.b], xn_s[2][c.b]}, p.len);
  };
  expand(has_con ? c.blc * (dot(r, bond()) - c.length) : 0.0);
  update();
  bool failed = false;
  for (int it = 0; it < L.iterations; ++it) {
    double rhs = 0.0;
    if (has_con) {
      const double dlen2 = 2.0 * c.length * c.length - norm2(bond());
      failed = failed || dlen2 < 0.0;
      rhs = c.blc * (c.length - (dlen2 > 0.0 ? sqrt(dlen2) : 0.0));
    }
    __syncthreads();  // every thread has read xn_s before the update writes it
    expand(rhs);
    update();
  }
  if (has_con) {
    const Vec3 d = bond();
    if (failed || dot(d, r) < L.cos_warn * sqrt(norm2(d)))
      flag_error(p.st, step, L.atoms[lb.atom_start + c.a], kErrSettle);
  }
  return mlambda;
}

// The same rules as the MD loop's StepRequest (engine/md_run.cpp); the executor checks that they agree.
__device__ inline bool tcouple_at(const UpdateParams& p, long long step) {
  return p.vrescale && (step + p.nsttcouple - 1) % p.nsttcouple == 0;
}
__device__ inline bool nose_hoover_at(const UpdateParams& p, long long step) {
  return p.nose_hoover && (step + p.nsttcouple - 1) % p.nsttcouple == 0;
}
__device__ inline bool comm_at(const UpdateParams& p, long long step) {
  return p.comm_linear && step % p.nstcomm == 0;
}

// The coupling of st->step from KE(step - 1/2), as vrescale_lambda (cpu/cpu_executor.cpp). With several
// tc-grps, begin_step_groups_kernel draws the groups' factors after the kernel that called this.
__device__ void begin_step(const UpdateParams& p, StepState* st) {
  st->integral = st->integral_before;
  st->lambda = 1.0;
  if (p.ngroups > 0) return;
  if (tcouple_at(p, st->step)) {
    const double ek = st->ke_prev[0] + st->ke_prev[4] + st->ke_prev[8];
    if (p.berendsen) {  // TemperatureCoupling::factor
      const double l = berendsen_lambda(ek, p.ref_kinetic, p.tau_steps);
      st->integral = st->integral_before - (l * l - 1.0) * ek;
      st->lambda = l;
      return;
    }
    const double ek_new = vrescale_resample_kinetic(ek, p.ref_kinetic, p.ndf, p.tau_steps, p.seed,
                                                    static_cast<int64_t>(st->step));
    st->integral = st->integral_before - (ek_new - ek);
    st->lambda = ek > 0 ? sqrt(ek_new / ek) : 1.0;
  }
}

// Several tc-grps or Nose-Hoover (one thread, after the update or begin_step_kernel): each group's factor for
// st->step from its KE(step - 1/2), the integral summed over the groups in order (CpuExecutor). A kernel of
// its own: a second copy of the resampling inside the update kernel made it spill (72 registers and 620 bytes
// of spills in the water runs' instance, from 126 and none).
// Nose-Hoover: first the energy report's thermostat energy from xi and vxi as the step that just ended left
// them (the CPU's TemperatureCoupling::integral at an energy step), then the coupling of st->step.
__global__ void begin_step_groups_kernel(UpdateParams p, int after_update) {
  StepState* st = p.st;
  // GPU domains: a step that sums over domains ends in finish_dd_step_kernel, which launches this again.
  if (after_update && p.dd && st->red_active) return;
  if (p.nose_hoover) {
    for (int g = 0; g < p.ngroups; ++g) st->group_lambda[g] = 1.0;  // no v-rescale
    double e = 0.0;
    for (int g = 0; g < p.nh_groups; ++g) {
      e += nose_hoover_energy(p.nh_ndf[g], p.nh_qinv[g], p.nh_ref_t[g], st->nh_xi[g], st->nh_vxi[g]);
      st->nh_xi_before[g] = st->nh_xi[g];
      st->nh_vxi_before[g] = st->nh_vxi[g];
    }
    st->rep_integral = e;
    st->nh_step = nose_hoover_at(p, st->step);
    if (!st->nh_step) return;
    const double ke_all = st->ke_prev[0] + st->ke_prev[4] + st->ke_prev[8];
    for (int g = 0; g < p.nh_groups; ++g)
      st->nh_factor[g] =
          nose_hoover_couple(p.ngroups > 0 ? st->group_ke_prev[g] : ke_all, p.nh_ndf[g], p.nh_qinv[g],
                             p.nh_ref_t[g], p.nsttcouple * p.dt, st->nh_xi[g], st->nh_vxi[g]);
    return;
  }
  for (int g = 0; g < p.ngroups; ++g) {
    st->group_lambda[g] = 1.0;
    if (!tcouple_at(p, st->step)) continue;
    const double ek = st->group_ke_prev[g];
    if (p.berendsen) {
      const double l = berendsen_lambda(ek, p.group_ref_kinetic[g], p.group_tau_steps[g]);
      st->integral -= (l * l - 1.0) * ek;
      st->group_lambda[g] = l;
      continue;
    }
    const double ek_new =
        vrescale_resample_kinetic(ek, p.group_ref_kinetic[g], p.group_ndf[g], p.group_tau_steps[g],
                                  p.group_seed[g], static_cast<int64_t>(st->step));
    st->integral -= ek_new - ek;
    st->group_lambda[g] = ek > 0 ? sqrt(ek_new / ek) : 1.0;
  }
}

// What finish_atom needs to write the atom's float record, loaded with x and v: after the writes of
// finish_atom the compiler could not move these loads up, and waits on them were ~15% of the kernel's stall
// samples at 45k atoms (loaded early, the kernel gained ~2%: bench/NOTES.md, eleventh session).
struct AtomRecord {
  int4 img;
  float q;
};

// Leap-frog for one atom (cpu/update.cpp), with the deferred centre-of-mass removal of the previous step;
// with a Nose-Hoover friction factor c or a Parrinello-Rahman term pr (not 0), GROMACS's general form as the
// CPU's leapfrog_coupled.
__device__ inline void leapfrog(const UpdateParams& p, int a, int sa, double lambda, double c, const Vec3& pr,
                                const double* vcm, long long step, Vec3& xo, Vec3& xn, Vec3& vn,
                                AtomRecord& rec) {
  xo = Vec3{p.x[0][a], p.x[1][a], p.x[2][a]};
  vn = Vec3{p.v[0][a], p.v[1][a], p.v[2][a]};
  rec.img = p.img[a];
  rec.q = p.qs[a];
  float4 f = p.f[sa];
  if (p.f_halo) {  // domains: what the force halo brought back, taken (left zero for the next step)
    const float4 h = p.f_halo[a];
    f.x += h.x;
    f.y += h.y;
    f.z += h.z;
    p.f_halo[a] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
  const double im = p.inv_mass[a];
  if (im == 0.0) {
    xn = xo;
    return;
  }
  vn -= Vec3{vcm[0], vcm[1], vcm[2]};
  if (!(f.x * f.x + f.y * f.y + f.z * f.z < p.max_force2)) flag_error(p.st, step, a, kErrForce);
  if (c != 0.0 || pr.x != 0.0 || pr.y != 0.0 || pr.z != 0.0) {
    const Vec3 dv = Vec3{f.x, f.y, f.z} * (im * p.dt);
    for (int d = 0; d < 3; ++d) vn[d] = (lambda * vn[d] + (dv[d] - c * vn[d] - pr[d] * vn[d])) / (1.0 + c);
  } else {
    vn = vn * lambda + Vec3{f.x, f.y, f.z} * (im * p.dt);
  }
  xn = xo + vn * p.dt;
}

// Domain decomposition: a home atom's new position into its slots of the next coordinate halo
// (comm::HaloPrepackDev), the same doubles the exchange kernel would pack.
__device__ inline void prepack_atom(const comm::HaloPrepackDev* h, int a, const Vec3& x) {
  const int np = h->num_pulses;
  if (a >= h->num_home) return;
  bool system = false;
  for (int k = 0; k < np; ++k) {
    const comm::PrepackPulseDev& q = h->pulse[k];
    if (!q.slot_of) continue;
    const int s = q.slot_of[a];
    if (s < 0) continue;
    double* w = q.wire + 3 * static_cast<size_t>(s);
    w[0] = x.x + q.shift[0];
    w[1] = x.y + q.shift[1];
    w[2] = x.z + q.shift[2];
    system = system || q.system;
  }
  if (system) __threadfence_system();  // stores into another GPU's memory: released before the kernel ends
}

// After every block's packing (the last block, one thread): the pulses the update releases itself
// (PrepackPulseDev::signal). Each block's packed values were ordered before its arrival at the last-block
// count by its fence; this fence makes them, and the signal after it, visible in that order.
__device__ inline void signal_prepacked(const comm::HaloPrepackDev* h) {
  if (!h->signals) return;
  const unsigned long long epoch = *reinterpret_cast<const volatile unsigned long long*>(h->epoch) + 1;
  bool system = false;
  for (int k = 0; k < h->num_pulses; ++k) system = system || (h->pulse[k].signal && h->pulse[k].system);
  if (system) {
    __threadfence_system();
  } else {
    __threadfence();
  }
  for (int k = 0; k < h->num_pulses; ++k)
    if (h->pulse[k].signal) *reinterpret_cast<volatile unsigned long long*>(h->pulse[k].signal) = epoch;
}

// Checks, writes back and adds the kinetic energy and momentum of one updated atom.
__device__ inline void finish_atom(const UpdateParams& p, int a, int sa, long long step, const Vec3& xo,
                                   const Vec3& xn, const Vec3& vn, const AtomRecord& rec, long long* ke,
                                   long long* mom) {
  if (!(norm2(xn - xo) < p.max_disp2)) flag_error(p.st, step, a, kErrMoved);
  p.x[0][a] = xn.x;
  p.x[1][a] = xn.y;
  p.x[2][a] = xn.z;
  if (p.prepack) prepack_atom(p.prepack, a, xn);
  p.v[0][a] = vn.x;
  p.v[1][a] = vn.y;
  p.v[2][a] = vn.z;
  p.xq[sa] = float_record(xn, rec.img, p.len, rec.q);
  const double m = p.mass[a], hm = 0.5 * m;
  ke[0] += to_fixed(hm * vn.x * vn.x, kEnergyScale);
  ke[1] += to_fixed(hm * vn.y * vn.y, kEnergyScale);
  ke[2] += to_fixed(hm * vn.z * vn.z, kEnergyScale);
  ke[3] += to_fixed(hm * vn.x * vn.y, kEnergyScale);
  ke[4] += to_fixed(hm * vn.x * vn.z, kEnergyScale);
  ke[5] += to_fixed(hm * vn.y * vn.z, kEnergyScale);
  mom[0] += to_fixed(m * vn.x, kMomentumScale);
  mom[1] += to_fixed(m * vn.y, kMomentumScale);
  mom[2] += to_fixed(m * vn.z, kMomentumScale);
}

// The end of a step from its kinetic-energy and momentum sums (fixed point, over the whole system): the
// step's kinetic energy and centre-of-mass velocity, the energy report, then the next step's coupling.
// comm_mom: the comm-grps' momentum sums (3 per group) at a COM-removal step with several groups, else null.
template <bool kEnergy>
__device__ void end_step(const UpdateParams& p, StepState* st, long long step, const long long* kf,
                         const long long* mom, const long long* comm_mom) {
  const int sym[9] = {0, 3, 4, 3, 1, 5, 4, 5, 2};  // row-major tensor from xx yy zz xy xz yz
  double ke_now[9];
  for (int c = 0; c < 9; ++c) ke_now[c] = static_cast<double>(kf[sym[c]]) / kEnergyScale;
  if (kEnergy) {
    for (int c = 0; c < 9; ++c) {
      st->rep_ke_prev[c] = st->ke_prev[c];
      st->rep_ke_now[c] = ke_now[c];
    }
    st->rep_integral = st->integral;
  }
  for (int c = 0; c < 9; ++c) st->ke_prev[c] = ke_now[c];
  for (int g = 0; g < p.ngroups; ++g) {
    const long long acc =
        static_cast<long long>(atomicExch(reinterpret_cast<unsigned long long*>(&st->group_ke_acc[g]), 0ull));
    const double ke_group = static_cast<double>(acc) / kEnergyScale;
    if (kEnergy) st->rep_group_ke[g] = 0.5 * (st->group_ke_prev[g] + ke_group);
    st->group_ke_prev[g] = ke_group;
  }
  for (int d = 0; d < 3; ++d)
    st->vcm[d] = comm_at(p, step) && p.ncomm == 0 && p.total_mass > 0
                     ? static_cast<double>(mom[d]) / kMomentumScale / p.total_mass
                     : 0.0;
  for (int g = 0; g < p.ncomm; ++g)
    for (int d = 0; d < 3; ++d)
      st->comm_vcm[g][d] =
          comm_mom ? static_cast<double>(comm_mom[3 * g + d]) / kMomentumScale * p.comm_inv_mass[g] : 0.0;
  st->step = step + 1;
  st->integral_before = st->integral;
  begin_step(p, st);
}

__device__ inline long long take(long long* acc) {
  return static_cast<long long>(atomicExch(reinterpret_cast<unsigned long long*>(acc), 0ull));
}

// Domain decomposition: whether the sums of `step` must be summed over domains at its end (the next step
// couples, this one removes the COM motion, or reports energies); every domain decides alike.
template <bool kEnergy>
__device__ inline bool reduce_at(const UpdateParams& p, long long step) {
  // Either thermostat couples the next step from this step's KE(n + 1/2) of the whole system.
  return kEnergy || tcouple_at(p, step + 1) || nose_hoover_at(p, step + 1) || comm_at(p, step);
}

// The waters' blocks (kBlockWaters waters each), then one thread per atom outside waters.
// kExtended: the run has LINCS constraints (their blocks follow the waters'), several tc-grps or comm-grps,
// Nose-Hoover or Parrinello-Rahman; water runs launch the instance without, which has none of that code.
template <bool kEnergy, bool kExtended>
__global__ void __launch_bounds__(kBlock) update_kernel(UpdateParams p, int host_reduce) {
  __shared__ long long s_scratch[32 * 9];
  __shared__ bool s_last;
  __shared__ double s_x[2][3][kBlock];  // per atom of the block: x before and after leap-frog, then SETTLE's
  __shared__ unsigned char s_settled[kBlockWaters];
  const int water_blocks = (p.nsettle + kBlockWaters - 1) / kBlockWaters;
  const bool waters = static_cast<int>(blockIdx.x) < water_blocks;
  const int lincs_blocks = kExtended ? p.lincs.nblocks : 0;
  const int lincs_index = static_cast<int>(blockIdx.x) - water_blocks;
  const bool constrained = kExtended && !waters && lincs_index < lincs_blocks;
  LincsBlockDev lb{};
  if (constrained) lb = p.lincs.blocks[lincs_index];
  // Waters' blocks: this thread's water (of the whole system) and its atom in it (0 O, 1 H1, 2 H2).
  const int wi = blockIdx.x * kBlockWaters + threadIdx.x / 3, k = threadIdx.x % 3;
  // The water first: the gathers of its atoms wait on it, the step state's loads can wait with them.
  SettleDev w{};
  if (waters && wi < p.nsettle) w = p.settles[wi];
  StepState* st = p.st;
  const long long step = st->step;
  const double lambda = st->lambda;
  const double vcm[3] = {st->vcm[0], st->vcm[1], st->vcm[2]};
  const bool comm = comm_at(p, step);
  long long ke[6] = {0, 0, 0, 0, 0, 0};
  long long mom[3] = {0, 0, 0};
  long long cvir[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  int a = -1;  // this thread's atom
  if (waters && wi < p.nsettle) {
    a = k == 0 ? w.o : (k == 1 ? w.h1 : w.h2);
  } else if (constrained) {
    if (static_cast<int>(threadIdx.x) < lb.natoms) a = p.lincs.atoms[lb.atom_start + threadIdx.x];
  } else if (!waters) {
    const int fi = (blockIdx.x - water_blocks - lincs_blocks) * kBlock + threadIdx.x;
    if (fi < p.nfree) a = p.free_atoms[fi];
  }
  // The exchange after this kernel learns that the home atoms are packed (read only after it ends).
  if (p.prepack && blockIdx.x == 0 && threadIdx.x == 0 && p.prepack->packed) *p.prepack->packed = 1;
  int sa = 0;
  Vec3 xo, xn, vn;
  AtomRecord rec{};
  const bool groups = kExtended && p.ngroups > 0;
  const bool comm_groups = kExtended && p.ncomm > 0;
  if (a >= 0) {
    sa = p.sorted_of[a];
    const int g = groups ? p.tc_group[a] : 0;
    const double friction = kExtended && p.nose_hoover && st->nh_step ? st->nh_factor[g] : 0.0;
    const Vec3 pr = kExtended ? Vec3{p.pr_scale[0], p.pr_scale[1], p.pr_scale[2]} : Vec3{};
    double vcm_a[3] = {vcm[0], vcm[1], vcm[2]};
    if (comm_groups) {  // the atom's comm-grps group's
      const int cg = p.comm_group[a];
      for (int d = 0; d < 3; ++d) vcm_a[d] = cg >= 0 ? st->comm_vcm[cg][d] : 0.0;
    }
    leapfrog(p, a, sa, groups ? st->group_lambda[g] : lambda, friction, pr, vcm_a, step, xo, xn, vn, rec);
  }
  if (waters) {  // the same for the whole block: its __syncthreads are reached by all its threads
    const int t = threadIdx.x;
    for (int d = 0; d < 3; ++d) {
      s_x[0][d][t] = xo[d];
      s_x[1][d][t] = xn[d];
    }
    __syncthreads();
    const int sw = blockIdx.x * kBlockWaters + t;  // the water this thread solves (first warp)
    if (t < kBlockWaters && sw < p.nsettle) {
      const SettleDev ws = p.settles[sw];
      Vec3 o[3], n[3], con[3];
      for (int q = 0; q < 3; ++q)
        for (int d = 0; d < 3; ++d) {
          o[q][d] = s_x[0][d][3 * t + q];
          n[q][d] = s_x[1][d][3 * t + q];
        }
      const Vec3 b0 = o[1] - o[0], c0 = o[2] - o[0];
      const bool ok =
          settle_water(ws.mo, ws.mh, ws.d_oh, ws.d_hh, b0, c0, n[0], n[1], n[2], con[0], con[1], con[2]);
      s_settled[t] = ok ? 1 : 0;
      if (!ok) {
        flag_error(st, step, ws.o, kErrSettle);
      } else {
        if (kEnergy) {
          // -1/2 sum_i x_old_i (x) m_i dx_i / dt^2, relative to the old O (settle.cpp).
          const double inv_dt = 1.0 / p.dt, f = inv_dt * inv_dt;
          const Vec3 fb = (con[1] - n[1]) * (ws.mh * f), fc = (con[2] - n[2]) * (ws.mh * f);
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
              double c = 0.0;
              c += -0.5 * b0[i] * fb[j];
              c += -0.5 * c0[i] * fc[j];
              cvir[3 * i + j] += to_fixed(c, kEnergyScale);
            }
        }
        for (int q = 0; q < 3; ++q)
          for (int d = 0; d < 3; ++d) s_x[1][d][3 * t + q] = con[q][d];
      }
    }
    __syncthreads();
    if (a >= 0 && s_settled[t / 3]) {
      const double inv_dt = 1.0 / p.dt;
      const Vec3 c{s_x[1][0][t], s_x[1][1][t], s_x[1][2][t]};
      const Vec3 dl = c - xn;
      xn = c;
      vn += dl * inv_dt;
    }
  }
  if (kExtended &&
      constrained) {  // the same for the whole block: its __syncthreads are reached by all its threads
    const int t = threadIdx.x;
    for (int d = 0; d < 3; ++d) {
      s_x[0][d][t] = xo[d];
      s_x[1][d][t] = xn[d];
    }
    __syncthreads();
    const Vec3 x_start = xn;
    const double mlambda = lincs_block(p, lb, step, xn, s_x[0], s_x[1]);
    if (a >= 0) vn += (xn - x_start) * (1.0 / p.dt);
    if (kEnergy && t < lb.ncon) {
      // F_a = -mlambda r / dt^2 on the first atom, at distance length along r (cpu/lincs.cpp).
      const LincsConDev c = p.lincs.con[lb.con_start + t];
      const Vec3 d = min_image(Vec3{s_x[0][0][c.a], s_x[0][1][c.a], s_x[0][2][c.a]},
                               Vec3{s_x[0][0][c.b], s_x[0][1][c.b], s_x[0][2][c.b]}, p.len);
      const Vec3 r = d * (1.0 / sqrt(norm2(d)));
      const double f = 0.5 * c.length * mlambda / (p.dt * p.dt);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) cvir[3 * i + j] += to_fixed(f * r[i] * r[j], kEnergyScale);
    }
  }
  if (a >= 0) finish_atom(p, a, sa, step, xo, xn, vn, rec, ke, mom);
  if (groups) {  // each group's kinetic energy (CpuExecutor's kinetic_energy_by_group)
    long long gke[kMaxTcGroups] = {};
    if (a >= 0) gke[p.tc_group[a]] = to_fixed(0.5 * p.mass[a] * norm2(vn), kEnergyScale);
    block_sum(gke, s_scratch);
    if (threadIdx.x == 0)
      for (int g = 0; g < p.ngroups; ++g) add_fixed(&st->group_ke_acc[g], gke[g]);
  }

  block_sum(ke, s_scratch);
  if (threadIdx.x == 0)
    for (int c = 0; c < 6; ++c) add_fixed(&st->ke_acc[c], ke[c]);
  if (comm && !comm_groups) {
    block_sum(mom, s_scratch);
    if (threadIdx.x == 0)
      for (int c = 0; c < 3; ++c) add_fixed(&st->mom_acc[c], mom[c]);
  }
  if (comm_groups && comm) {
    // Each comm-grps group's momentum (remove_com_velocity by group): integer atomics in shared memory, so
    // no per-thread array of every group's sums (registers the extended kernel's other runs would pay for).
    __shared__ unsigned long long s_cmom[3 * kMaxCommGroups];
    if (threadIdx.x < 3 * kMaxCommGroups) s_cmom[threadIdx.x] = 0ull;
    __syncthreads();
    // (The group read again: kept from the leap-frog, it held a register through SETTLE and LINCS, which
    // cost the kernel 33 more registers.)
    const int cg = a >= 0 ? p.comm_group[a] : -1;
    if (cg >= 0) {
      const double m = p.mass[a];
      for (int d = 0; d < 3; ++d)
        atomicAdd(&s_cmom[3 * cg + d], static_cast<unsigned long long>(to_fixed(m * vn[d], kMomentumScale)));
    }
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < 3 * p.ncomm)
      add_fixed(&st->comm_mom_acc[threadIdx.x], static_cast<long long>(s_cmom[threadIdx.x]));
  }
  if constexpr (kEnergy) {
    block_sum(cvir, s_scratch);
    if (threadIdx.x == 0)
      for (int c = 0; c < 9; ++c) add_fixed(&st->cvir_acc[c], cvir[c]);
  }

  // The last block to finish ends the step (the threadFenceReduction pattern of the CUDA samples).
  if (threadIdx.x == 0) {
    __threadfence();
    s_last = atomicAdd(&st->blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (s_last && threadIdx.x == 0) {
    __threadfence();
    long long kf[6], mom_sum[3];
    for (int c = 0; c < 6; ++c) kf[c] = take(&st->ke_acc[c]);
    for (int c = 0; c < 3; ++c) mom_sum[c] = take(&st->mom_acc[c]);
    // comm-grps: the groups' momenta into comm_red (what GPU domains sum over the domains; 0 but at a
    // COM-removal step), where end_step or finish_dd_step reads them.
    const bool comm_sums = comm_groups && comm;
    if (comm_groups)
      for (int c = 0; c < 3 * p.ncomm; ++c) st->comm_red[c] = comm_sums ? take(&st->comm_mom_acc[c]) : 0;
    bool reduce = false;
    if (p.dd) {
      reduce = reduce_at<kEnergy>(p, step);
      if (host_reduce >= 0 && (host_reduce != 0) != reduce) {
        if (st->reduce_mismatch == 0) st->reduce_mismatch = step + 1;
        reduce = host_reduce != 0;  // what the host enqueued after this kernel
      }
    }
    if (p.dd && groups) {
      // Each group's sum of this domain: kept (reduce_group_ke_prev), and summed over domains with the
      // step's other sums where it reduces (finish_dd_step_kernel puts them back); otherwise end_step takes
      // them as they are, this domain's, as ke_local.
      for (int g = 0; g < p.ngroups; ++g) st->group_red[g] = st->group_ke_local[g] = st->group_ke_acc[g];
    }
    if (!p.dd) {
      end_step<kEnergy>(p, st, step, kf, mom_sum, comm_sums ? st->comm_red : nullptr);
    } else if (!reduce) {
      // Nothing to sum over domains: the step ends here as finish_dd_step_kernel would end it (for such
      // a step the executor launches neither the reduction nor that kernel).
      const long long zero[3] = {0, 0, 0};
      for (int c = 0; c < 6; ++c) st->red[kRedKe + c] = st->ke_local[c] = kf[c];
      st->red_active = 0;
      end_step<false>(p, st, step, kf, zero, nullptr);  // no COM removal: that step reduces
    } else {
      // The sums stay this domain's until the transport has added the other domains' (finish_dd_step).
      for (int c = 0; c < 6; ++c) st->red[kRedKe + c] = st->ke_local[c] = kf[c];
      for (int c = 0; c < 3; ++c) st->red[kRedMom + c] = mom_sum[c];
      for (int c = 0; c < 8; ++c) st->red[kRedNb + c] = kEnergy ? st->nb_acc[c] : 0;
      for (int c = 0; c < 9; ++c) st->red[kRedCvir + c] = kEnergy ? st->cvir_acc[c] : 0;
      st->red_active = 1;
    }
    st->blocks_done = 0;
    if (p.prepack) signal_prepacked(p.prepack);
  }
}

// Domain decomposition, after the reduction over domains: ends the step with the whole system's sums. Only
// steps that sum over domains come here; the others end in update_kernel (KE(n + 1/2) then stays this
// domain's in ke_local until a reduction is asked for: reduce_ke_prev).
template <bool kEnergy>
__global__ void finish_dd_step_kernel(UpdateParams p) {
  StepState* st = p.st;
  const long long step = st->step;
  if (kEnergy) {
    for (int c = 0; c < 8; ++c) st->nb_acc[c] = st->red[kRedNb + c];
    for (int c = 0; c < 9; ++c) st->cvir_acc[c] = st->red[kRedCvir + c];
  }
  for (int g = 0; g < p.ngroups; ++g) st->group_ke_acc[g] = st->group_red[g];  // summed over domains
  end_step<kEnergy>(p, st, step, st->red + kRedKe, st->red + kRedMom,
                    p.ncomm > 0 && comm_at(p, step) ? st->comm_red : nullptr);
}

// Domain decomposition: puts this domain's last kinetic-energy sums into st->red for a reduction the host
// asks for (an energy step or a checkpoint after a step that did not reduce)...
__global__ void stage_ke_prev_kernel(StepState* st) {
  for (int c = 0; c < 6; ++c) st->red[kRedKe + c] = st->ke_local[c];
}
// ... and, after it, makes them KE(n - 1/2) of the whole system.
__global__ void take_ke_prev_kernel(StepState* st) {
  const int sym[9] = {0, 3, 4, 3, 1, 5, 4, 5, 2};
  for (int c = 0; c < 9; ++c) st->ke_prev[c] = static_cast<double>(st->red[kRedKe + sym[c]]) / kEnergyScale;
}
// The same for several tc-grps: this domain's last per-group sums staged, then, summed, each group's
// KE(n - 1/2).
__global__ void stage_group_ke_prev_kernel(StepState* st, int groups) {
  for (int g = 0; g < groups; ++g) st->group_red[g] = st->group_ke_local[g];
}
__global__ void take_group_ke_prev_kernel(StepState* st, int groups) {
  for (int g = 0; g < groups; ++g)
    st->group_ke_prev[g] = static_cast<double>(st->group_red[g]) / kEnergyScale;
}

__global__ void begin_step_kernel(UpdateParams p) { begin_step(p, p.st); }

// Pressure coupling: x *= mu for atoms [0, n), and with velocities v /= mu, the pending centre-of-mass
// velocity too (the next update takes it off v); each atom's float record from the scaled x and the new box
// (p.len).
__global__ void scale_kernel(UpdateParams p, int n, double mu0, double mu1, double mu2, int velocities) {
  const double mu[3] = {mu0, mu1, mu2};
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (velocities && a == 0)
    for (int d = 0; d < 3; ++d) {
      p.st->vcm[d] /= mu[d];
      for (int g = 0; g < p.ncomm; ++g) p.st->comm_vcm[g][d] /= mu[d];
    }
  if (a >= n) return;
  Vec3 x;
  for (int d = 0; d < 3; ++d) {
    x[d] = p.x[d][a] * mu[d];
    p.x[d][a] = x[d];
    if (velocities) p.v[d][a] /= mu[d];
  }
  p.xq[p.sorted_of[a]] = float_record(x, p.img[a], p.len, p.qs[a]);
}

__global__ void scale_positions_kernel(double* x, double* y, double* z, int n, double mu0, double mu1,
                                       double mu2) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n) return;
  x[a] *= mu0;
  y[a] *= mu1;
  z[a] *= mu2;
}

// The largest squared displacement of atoms [0, n) from x0 and the largest distance outside the cell
// (domdec/drift.h), into st->disp2_bits and st->beyond_bits.
__global__ void home_displacement_kernel(UpdateParams p, const double* x0, const double* y0, const double* z0,
                                         int n, CellLimits cell) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  double d2 = 0.0, out = 0.0;
  if (a < n) {
    const double x[3] = {p.x[0][a], p.x[1][a], p.x[2][a]};
    const double dx = x[0] - x0[a], dy = x[1] - y0[a], dz = x[2] - z0[a];
    d2 = dx * dx + dy * dy + dz * dz;
    for (int d = 0; d < 3; ++d) out = fmax(out, domdec::beyond_cell(x[d], cell.lo[d], cell.hi[d]));
  }
  for (int o = 16; o > 0; o >>= 1) {
    d2 = fmax(d2, __shfl_xor_sync(0xffffffffu, d2, o));
    out = fmax(out, __shfl_xor_sync(0xffffffffu, out, o));
  }
  if ((threadIdx.x & 31) == 0 && d2 > 0.0)
    atomicMax(&p.st->disp2_bits, static_cast<unsigned long long>(__double_as_longlong(d2)));
  if ((threadIdx.x & 31) == 0 && out > 0.0)
    atomicMax(&p.st->beyond_bits, static_cast<unsigned long long>(__double_as_longlong(out)));
}

__global__ void copy_home_state_kernel(HomeState src, HomeState dst, int n) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a < n)
    for (int d = 0; d < 3; ++d) {
      dst.x[d][a] = src.x[d][a];
      dst.v[d][a] = src.v[d][a];
    }
  if (blockIdx.x == 0) {
    const auto* from = reinterpret_cast<const unsigned char*>(src.st);
    auto* to = reinterpret_cast<unsigned char*>(dst.st);
    for (size_t b = threadIdx.x; b < sizeof(StepState); b += blockDim.x) to[b] = from[b];
  }
}

}  // namespace

void launch_update(gpu::GpuCalls& calls, const UpdateParams& p, bool energy, int host_reduce) {
  const int blocks =
      (p.nsettle + kBlockWaters - 1) / kBlockWaters + p.lincs.nblocks + (p.nfree + kBlock - 1) / kBlock;
  if (p.lincs.nblocks > 0 || p.ngroups > 0 || p.nose_hoover || p.pr_coupling || p.ncomm > 0) {
    if (energy)
      calls.launch("update_kernel<energy, extended>", update_kernel<true, true>, blocks, kBlock, 0, p,
                   host_reduce);
    else
      calls.launch("update_kernel<extended>", update_kernel<false, true>, blocks, kBlock, 0, p, host_reduce);
  } else if (energy) {
    calls.launch("update_kernel<energy>", update_kernel<true, false>, blocks, kBlock, 0, p, host_reduce);
  } else {
    calls.launch("update_kernel", update_kernel<false, false>, blocks, kBlock, 0, p, host_reduce);
  }
  if (p.ngroups > 0 || p.nose_hoover)
    calls.launch("begin_step_groups_kernel", begin_step_groups_kernel, 1, 1, 0, p, 1);
}

void launch_scale(gpu::GpuCalls& calls, const UpdateParams& p, const double (&mu)[3], bool velocities,
                  int n) {
  const int count = n < 0 ? p.n : n;
  calls.launch("scale_kernel", scale_kernel, std::max(1, (count + 127) / 128), 128, 0, p, count, mu[0], mu[1],
               mu[2], velocities ? 1 : 0);
}

void launch_scale_positions(gpu::GpuCalls& calls, double* const (&x)[3], int n, const double (&mu)[3]) {
  if (n <= 0) return;
  calls.launch("scale_positions_kernel", scale_positions_kernel, (n + 127) / 128, 128, 0, x[0], x[1], x[2], n,
               mu[0], mu[1], mu[2]);
}

void launch_begin_step(gpu::GpuCalls& calls, const UpdateParams& p) {
  calls.launch("begin_step_kernel", begin_step_kernel, 1, 1, 0, p);
  if (p.ngroups > 0 || p.nose_hoover)
    calls.launch("begin_step_groups_kernel", begin_step_groups_kernel, 1, 1, 0, p, 0);
}

void launch_finish_dd_step(gpu::GpuCalls& calls, const UpdateParams& p, bool energy) {
  if (energy)
    calls.launch("finish_dd_step_kernel<energy>", finish_dd_step_kernel<true>, 1, 1, 0, p);
  else
    calls.launch("finish_dd_step_kernel", finish_dd_step_kernel<false>, 1, 1, 0, p);
  if (p.ngroups > 0 || p.nose_hoover)
    calls.launch("begin_step_groups_kernel", begin_step_groups_kernel, 1, 1, 0, p, 0);
}

void launch_stage_group_ke_prev(gpu::GpuCalls& calls, StepState* st, int groups) {
  calls.launch("stage_group_ke_prev_kernel", stage_group_ke_prev_kernel, 1, 1, 0, st, groups);
}

void launch_take_group_ke_prev(gpu::GpuCalls& calls, StepState* st, int groups) {
  calls.launch("take_group_ke_prev_kernel", take_group_ke_prev_kernel, 1, 1, 0, st, groups);
}

void launch_stage_ke_prev(gpu::GpuCalls& calls, StepState* st) {
  calls.launch("stage_ke_prev_kernel", stage_ke_prev_kernel, 1, 1, 0, st);
}

void launch_take_ke_prev(gpu::GpuCalls& calls, StepState* st) {
  calls.launch("take_ke_prev_kernel", take_ke_prev_kernel, 1, 1, 0, st);
}

void launch_home_displacement(gpu::GpuCalls& calls, const UpdateParams& p, const double* const x0[3], int n,
                              const CellLimits& cell) {
  static_assert(offsetof(StepState, beyond_bits) == offsetof(StepState, disp2_bits) + 8);
  calls.memset_async(&p.st->disp2_bits, 0, 2 * sizeof(p.st->disp2_bits));
  if (n <= 0) return;
  calls.launch("home_displacement_kernel", home_displacement_kernel, (n + 127) / 128, 128, 0, p, x0[0], x0[1],
               x0[2], n, cell);
}

void launch_copy_home_state(gpu::GpuCalls& calls, const HomeState& src, const HomeState& dst, int n) {
  calls.launch("copy_home_state_kernel", copy_home_state_kernel, std::max(1, (n + 127) / 128), 128, 0, src,
               dst, n);
}

}  // namespace halomd::cuda
