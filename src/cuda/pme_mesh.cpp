#include "cuda/pme_mesh.h"

#include <string>

#include "core/errors.h"
#include "core/units.h"
#include "cpu/pme.h"
#include "gpu/cuda_check.h"
#include "gpu/upload.h"

namespace halomd::cuda {
namespace {

void check_cufft(cufftResult r, const char* call) {
  if (r != CUFFT_SUCCESS)
    throw RuntimeError(-1, -1, std::string(call) + " failed (cufftResult " + std::to_string(r) + ")");
}

using gpu::upload;

// The transforms for PmeReal (float: R2C / C2R; double: D2Z / Z2D).
constexpr cufftType kForwardType = sizeof(PmeReal) == sizeof(float) ? CUFFT_R2C : CUFFT_D2Z;
constexpr cufftType kBackwardType = sizeof(PmeReal) == sizeof(float) ? CUFFT_C2R : CUFFT_Z2D;
cufftResult forward(cufftHandle plan, float* grid, float2* spectrum) {
  return cufftExecR2C(plan, grid, reinterpret_cast<cufftComplex*>(spectrum));
}
cufftResult forward(cufftHandle plan, double* grid, double2* spectrum) {
  return cufftExecD2Z(plan, grid, reinterpret_cast<cufftDoubleComplex*>(spectrum));
}
cufftResult backward(cufftHandle plan, float2* spectrum, float* grid) {
  return cufftExecC2R(plan, reinterpret_cast<cufftComplex*>(spectrum), grid);
}
cufftResult backward(cufftHandle plan, double2* spectrum, double* grid) {
  return cufftExecZ2D(plan, reinterpret_cast<cufftDoubleComplex*>(spectrum), grid);
}

}  // namespace

PmeMesh::~PmeMesh() {
  if (plans_) {
    (void)cufftDestroy(forward_);
    (void)cufftDestroy(backward_);
  }
}

void PmeMesh::setup(const MdParams& mdp, const Box& grid_box, const Box& box, const Topology& top,
                    gpu::GpuCalls& calls) {
  if (mdp.coulombtype != CoulombType::Pme) return;
  nk_ = pme_grid_size(grid_box.len, mdp);
  PmeMeshParams& p = p_;
  p.n = top.num_atoms();
  p.order = mdp.pme_order;
  for (int d = 0; d < 3; ++d) {
    p.nk[d] = nk_[d];
    if (nk_[d] < 2 * (p.order - 1))
      throw InputError("", 0, "the PME grid needs at least 2 (pme-order - 1) points per dimension");
    upload(calls, moduli_[d], bspline_moduli(nk_[d], p.order), "PME B-spline moduli");
    p.moduli[d] = moduli_[d].get();
  }
  p.nzc = nk_[2] / 2 + 1;
  p.beta = ewald_coefficient(mdp.rcoulomb, mdp.ewald_rtol);
  p.epsfac = units::kCoulomb / mdp.epsilon_r;
  net_charge_ = 0.0;
  for (double c : top.charge) net_charge_ += c;
  set_box(box);
  upload(calls, q_, top.charge, "PME charges");
  p.q = q_.get();
  const size_t points = static_cast<size_t>(nk_[0]) * nk_[1] * nk_[2];
  grid_fixed_.allocate(points, "PME charge grid (fixed point)");
  calls.memset_async(grid_fixed_.get(), 0, grid_fixed_.bytes());
  grid_.allocate(points, "PME grid");
  spectrum_.allocate(static_cast<size_t>(nk_[0]) * nk_[1] * p.nzc, "PME spectrum");
  p.grid_fixed = grid_fixed_.get();
  p.grid = grid_.get();
  p.spectrum = spectrum_.get();
  check_cufft(cufftPlan3d(&forward_, nk_[0], nk_[1], nk_[2], kForwardType), "cufftPlan3d (forward)");
  const cufftResult back = cufftPlan3d(&backward_, nk_[0], nk_[1], nk_[2], kBackwardType);
  if (back != CUFFT_SUCCESS) (void)cufftDestroy(forward_);
  check_cufft(back, "cufftPlan3d (backward)");
  plans_ = true;
  // Each plan run once here, on the zeroed grid, so that cuFFT's lazy set-up happens outside any graph
  // capture and its errors show at start.
  check_cufft(cufftSetStream(forward_, calls.stream()), "cufftSetStream");
  check_cufft(cufftSetStream(backward_, calls.stream()), "cufftSetStream");
  calls.memset_async(grid_.get(), 0, grid_.bytes());
  check_cufft(forward(forward_, grid_.get(), spectrum_.get()), "cufftExec (forward)");
  check_cufft(backward(backward_, spectrum_.get(), grid_.get()), "cufftExec (backward)");
  calls.sync();
  active_ = true;
}

void PmeMesh::set_box(const Box& box) {
  PmeMeshParams& p = p_;
  for (int d = 0; d < 3; ++d) p.len[d] = box.len[d];
  p.volume = box.volume();
  charged_energy_ = -units::kPi * net_charge_ * net_charge_ * p.epsfac / (2.0 * p.volume * p.beta * p.beta);
}

PmeMeshParams PmeMesh::params(const DeviceSystem& ds) const {
  PmeMeshParams p = p_;
  for (int d = 0; d < 3; ++d) p.x[d] = ds.x[d].get();
  p.sorted_of = ds.sorted_of.get();
  p.f = ds.nonbonded.f;
  p.st = ds.st.get();
  return p;
}

void PmeMesh::enqueue_mesh(gpu::GpuCalls& calls, const DeviceSystem& ds, bool energy, const GridSum& sum) {
  const PmeMeshParams p = params(ds);
  launch_pme_spread(calls, p);
  if (sum) sum(calls, p.grid_fixed);
  if (!external_grid_) launch_pme_grid_from_fixed(calls, p);
  // The plans follow the calls' current stream (the side stream when the mesh overlaps the pair kernel).
  check_cufft(cufftSetStream(forward_, calls.stream()), "cufftSetStream");
  check_cufft(forward(forward_, p.grid, p.spectrum), "cufftExec (forward)");
  calls.count_library_call();
  launch_pme_solve(calls, p, energy);
  check_cufft(cufftSetStream(backward_, calls.stream()), "cufftSetStream");
  check_cufft(backward(backward_, p.spectrum, p.grid), "cufftExec (backward)");
  calls.count_library_call();
}

void PmeMesh::enqueue_gather(gpu::GpuCalls& calls, const DeviceSystem& ds) {
  launch_pme_gather(calls, params(ds));
}

void PmeMesh::add_energies(const StepState& h, StepEnergies* e) const {
  if (!active_) return;
  auto sum = [&h](int k) { return static_cast<double>(h.pme_acc[k]) / kEnergyScale; };
  e->coulomb_recip = sum(0) + charged_energy_;
  // Xi = -1/2 sum r (x) F; GROMACS adds -E_net/V of the net-charge correction to the diagonal (cpu/pme.cpp).
  const int idx[3][3] = {{1, 4, 5}, {4, 2, 6}, {5, 6, 3}};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      e->virial.m[a][b] += -0.5 * sum(idx[a][b]) - (a == b ? charged_energy_ / p_.volume : 0.0);
}

}  // namespace halomd::cuda
