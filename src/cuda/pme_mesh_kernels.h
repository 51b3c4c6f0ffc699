// The kernels of PME's mesh part on the GPU (pme_mesh.cu), behind plain structs for nvcc's C++17: spread the
// charges onto the grid in 64-bit fixed point (the same sums whatever the order, so a run is bitwise
// repeatable), solve in reciprocal space between cuFFT's transforms, and gather the forces onto the
// non-bonded kernel's (cpu/pme.h is the double-precision reference, the same definitions).
#pragma once

#include <cuda_runtime.h>

#include "cuda/device_data.h"
#include "gpu/gpu_calls.h"

namespace halomd::cuda {

// The grid and spectrum the transforms work on: float, as GROMACS's GPU PME (the charges are summed in
// fixed point before, and the solve's factors are computed in double).
using PmeReal = float;
using PmeComplex = float2;

// Charge-grid fixed point: 2^40 units per e (grid values stay far below 2^23 e; a resolution of 1e-12 e).
constexpr double kPmeGridScale = 1099511627776.0;

struct PmeMeshParams {
  int n = 0;      // atoms
  int order = 4;  // B-spline order
  int nk[3] = {};
  int nzc = 0;  // nk[2] / 2 + 1: the half spectrum's last dimension
  double len[3] = {};
  double beta = 0.0, epsfac = 0.0, volume = 0.0;
  const double* x[3] = {};  // original order, unwrapped
  const double* q = nullptr;
  const int* sorted_of = nullptr;
  const double* moduli[3] = {};              // bspline_moduli per dimension
  unsigned long long* grid_fixed = nullptr;  // nk[0] nk[1] nk[2], zero between steps
  PmeReal* grid = nullptr;                   // the same, real (the transforms' input and output)
  PmeComplex* spectrum = nullptr;            // nk[0] nk[1] nzc
  float4* f = nullptr;      // the non-bonded kernel's forces, sorted order: mesh forces added
  StepState* st = nullptr;  // energy steps: pme_acc
};

// Charges onto grid_fixed.
void launch_pme_spread(gpu::GpuCalls& calls, const PmeMeshParams& p);
// grid from grid_fixed, which is zeroed again for the next step.
void launch_pme_grid_from_fixed(gpu::GpuCalls& calls, const PmeMeshParams& p);
// Multiplies the spectrum by the influence function; with energy, adds the mesh energy and its sum_m E_m
// (delta - 2 (1 + pi^2 m^2/beta^2) m (x) m / m^2) to st->pme_acc (fixed point, kEnergyScale).
void launch_pme_solve(gpu::GpuCalls& calls, const PmeMeshParams& p, bool energy);
// The mesh forces from the back-transformed grid, added to f.
void launch_pme_gather(gpu::GpuCalls& calls, const PmeMeshParams& p);

}  // namespace halomd::cuda
