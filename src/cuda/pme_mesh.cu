#include "cpu/pme_spline.h"
#include "cuda/device_util.cuh"
#include "cuda/pme_mesh_kernels.h"

namespace halomd::cuda {
namespace {

constexpr int kBlock = 128;
// Threads per atom in the spread and the gather: lane l of an atom's group takes the grid planes a = l,
// l + kLanes, ... of its order^3 points (one plane each at order 4), so that a system of a few thousand atoms
// still fills the GPU; the gather's partial forces are summed over the group in a fixed order.
constexpr int kLanes = 4;

// The atom's first grid point and weights per dimension, as PmeCpu::spread computes them; false (and no
// weights) for a position that is not finite.
template <int N>
__device__ inline bool atom_weights(const PmeMeshParams& p, int order, int i, int* first, double (*theta)[N],
                                    double (*dtheta)[N]) {
  for (int d = 0; d < 3; ++d) {
    const double s = p.x[d][i] / p.len[d];
    double u = p.nk[d] * (s - floor(s));
    if (u >= p.nk[d]) u -= p.nk[d];
    if (!(u >= 0.0 && u < p.nk[d])) return false;
    const int k = static_cast<int>(u);
    first[d] = k - order + 1 + p.nk[d];  // in [0, 2 nk): wrapped below by one subtraction
    bspline_weights(u - k, order, theta[d], dtheta[d]);
  }
  return true;
}

// theta[a] and dtheta[a] for a lane's plane a, selected by constant indices so that the weights stay in
// registers where N is a constant order.
template <int N>
__device__ inline void plane_weight(const double* theta, const double* dtheta, int a, double& ta,
                                    double& dta) {
  ta = 0.0;
  dta = 0.0;
#pragma unroll
  for (int k = 0; k < N; ++k)
    if (k == a) {
      ta = theta[k];
      dta = dtheta[k];
    }
}

// Grid index first + j of dimension d, wrapped: first + j < 2 nk, as nk >= 2 (order - 1).
__device__ inline int wrap(int g, int nk) { return g >= nk ? g - nk : g; }

// kOrder: the B-spline order as a constant (4, GROMACS's default and its GPU's only one), or 0 for p.order.
template <int kOrder>
__global__ void pme_spread_kernel(PmeMeshParams p) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int i = static_cast<int>(t / kLanes), lane = static_cast<int>(t % kLanes);
  if (i >= p.n) return;
  const double q = p.q[i];
  if (q == 0.0) return;
  constexpr int N = kOrder > 0 ? kOrder : kPmeMaxOrder;
  const int order = kOrder > 0 ? kOrder : p.order;
  int first[3];
  double theta[3][N], dtheta[3][N];
  if (!atom_weights<N>(p, order, i, first, theta, dtheta)) {
    if (lane == 0) flag_error(p.st, p.st->step, i, kErrForce);  // the run stops naming the step and atom
    return;
  }
  int gz[N];
  for (int c = 0; c < order; ++c) gz[c] = wrap(first[2] + c, p.nk[2]);
  for (int a = lane; a < order; a += kLanes) {
    const int gx = wrap(first[0] + a, p.nk[0]);
    double ta, dta;
    plane_weight<N>(theta[0], dtheta[0], a, ta, dta);
    for (int b = 0; b < order; ++b) {
      const int gy = wrap(first[1] + b, p.nk[1]);
      unsigned long long* row = p.grid_fixed + (static_cast<long long>(gx) * p.nk[1] + gy) * p.nk[2];
      const double qxy = q * ta * theta[1][b];
      for (int c = 0; c < order; ++c)
        atomicAdd(row + gz[c], static_cast<unsigned long long>(llrint(qxy * theta[2][c] * kPmeGridScale)));
    }
  }
}

__global__ void pme_grid_from_fixed_kernel(PmeMeshParams p, long long points) {
  const long long g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= points) return;
  p.grid[g] = static_cast<PmeReal>(static_cast<double>(static_cast<long long>(p.grid_fixed[g])) *
                                   (1.0 / kPmeGridScale));
  p.grid_fixed[g] = 0;
}

template <bool kEnergy>
__global__ void pme_solve_kernel(PmeMeshParams p, long long points) {
  const long long g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  double sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // energy, then xx yy zz xy xz yz, one spare
  if (g < points) {
    const int kz = static_cast<int>(g % p.nzc);
    const int ky = static_cast<int>((g / p.nzc) % p.nk[1]);
    const int kx = static_cast<int>(g / (static_cast<long long>(p.nzc) * p.nk[1]));
    PmeComplex& c = p.spectrum[g];
    if (kx == 0 && ky == 0 && kz == 0) {
      c = PmeComplex{0, 0};
    } else {
      const double mx = (kx < (p.nk[0] + 1) / 2 ? kx : kx - p.nk[0]) / p.len[0];
      const double my = (ky < (p.nk[1] + 1) / 2 ? ky : ky - p.nk[1]) / p.len[1];
      const double mz = kz / p.len[2];  // the half spectrum, as PmeCpu::solve
      const double m2 = mx * mx + my * my + mz * mz;
      const double pi = 3.14159265358979323846;
      const double factor = pi * pi / (p.beta * p.beta);
      const double gm = p.epsfac * exp(-factor * m2) /
                        (pi * p.volume * m2 * p.moduli[0][kx] * p.moduli[1][ky] * p.moduli[2][kz]);
      if (kEnergy) {
        const double weight = (kz == 0 || 2 * kz == p.nk[2]) ? 1.0 : 2.0;
        const double cx = c.x, cy = c.y;
        const double em = 0.5 * weight * gm * (cx * cx + cy * cy);
        const double vf = 2.0 * (1.0 + factor * m2) / m2;
        sums[0] = em;
        sums[1] = em * (1.0 - vf * mx * mx);
        sums[2] = em * (1.0 - vf * my * my);
        sums[3] = em * (1.0 - vf * mz * mz);
        sums[4] = -em * vf * mx * my;
        sums[5] = -em * vf * mx * mz;
        sums[6] = -em * vf * my * mz;
      }
      c = PmeComplex{static_cast<PmeReal>(c.x * gm), static_cast<PmeReal>(c.y * gm)};
    }
  }
  if (kEnergy) {
    __shared__ double s_scratch[32 * 8];
    block_sum(sums, s_scratch);
    if (threadIdx.x == 0)
      for (int k = 0; k < 7; ++k) add_fixed(&p.st->pme_acc[k], to_fixed(sums[k], kEnergyScale));
  }
}

template <int kOrder>
__global__ void pme_gather_kernel(PmeMeshParams p) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int i = static_cast<int>(t / kLanes), lane = static_cast<int>(t % kLanes);
  if (i >= p.n) return;
  const double q = p.q[i];
  if (q == 0.0) return;  // the whole group returns: the sums below are within the group
  constexpr int N = kOrder > 0 ? kOrder : kPmeMaxOrder;
  const int order = kOrder > 0 ? kOrder : p.order;
  int first[3];
  double theta[3][N], dtheta[3][N];
  if (!atom_weights<N>(p, order, i, first, theta, dtheta)) return;  // flagged by the spread
  int gz[N];
  for (int c = 0; c < order; ++c) gz[c] = wrap(first[2] + c, p.nk[2]);
  double fx = 0, fy = 0, fz = 0;
  for (int a = lane; a < order; a += kLanes) {
    const int gx = wrap(first[0] + a, p.nk[0]);
    double ta, dta;
    plane_weight<N>(theta[0], dtheta[0], a, ta, dta);
    for (int b = 0; b < order; ++b) {
      const int gy = wrap(first[1] + b, p.nk[1]);
      const PmeReal* row = p.grid + (static_cast<long long>(gx) * p.nk[1] + gy) * p.nk[2];
      for (int c = 0; c < order; ++c) {
        const double phi = static_cast<double>(__ldg(row + gz[c]));
        fx += dta * theta[1][b] * theta[2][c] * phi;
        fy += ta * dtheta[1][b] * theta[2][c] * phi;
        fz += ta * theta[1][b] * dtheta[2][c] * phi;
      }
    }
  }
  // The group's lanes are consecutive and aligned, and all of them are here (same atom, same branches).
  const unsigned group = ((1u << kLanes) - 1u) << (threadIdx.x & 31 & ~(kLanes - 1));
  for (int m = 1; m < kLanes; m <<= 1) {
    fx += __shfl_xor_sync(group, fx, m);
    fy += __shfl_xor_sync(group, fy, m);
    fz += __shfl_xor_sync(group, fz, m);
  }
  if (lane != 0) return;
  float4& f = p.f[p.sorted_of[i]];
  f.x -= static_cast<float>(q * fx * p.nk[0] / p.len[0]);
  f.y -= static_cast<float>(q * fy * p.nk[1] / p.len[1]);
  f.z -= static_cast<float>(q * fz * p.nk[2] / p.len[2]);
}

int blocks_for(long long items) { return static_cast<int>((items + kBlock - 1) / kBlock); }

}  // namespace

void launch_pme_spread(gpu::GpuCalls& calls, const PmeMeshParams& p) {
  if (p.n == 0) return;  // a domain without home atoms
  const long long threads = static_cast<long long>(p.n) * kLanes;
  if (p.order == 4)
    calls.launch("pme_spread_kernel", pme_spread_kernel<4>, blocks_for(threads), kBlock, 0, p);
  else
    calls.launch("pme_spread_kernel", pme_spread_kernel<0>, blocks_for(threads), kBlock, 0, p);
}

void launch_pme_grid_from_fixed(gpu::GpuCalls& calls, const PmeMeshParams& p) {
  const long long points = static_cast<long long>(p.nk[0]) * p.nk[1] * p.nk[2];
  calls.launch("pme_grid_from_fixed_kernel", pme_grid_from_fixed_kernel, blocks_for(points), kBlock, 0, p,
               points);
}

void launch_pme_solve(gpu::GpuCalls& calls, const PmeMeshParams& p, bool energy) {
  const long long points = static_cast<long long>(p.nk[0]) * p.nk[1] * p.nzc;
  if (energy)
    calls.launch("pme_solve_kernel<energy>", pme_solve_kernel<true>, blocks_for(points), kBlock, 0, p,
                 points);
  else
    calls.launch("pme_solve_kernel", pme_solve_kernel<false>, blocks_for(points), kBlock, 0, p, points);
}

void launch_pme_gather(gpu::GpuCalls& calls, const PmeMeshParams& p) {
  if (p.n == 0) return;
  const long long threads = static_cast<long long>(p.n) * kLanes;
  if (p.order == 4)
    calls.launch("pme_gather_kernel", pme_gather_kernel<4>, blocks_for(threads), kBlock, 0, p);
  else
    calls.launch("pme_gather_kernel", pme_gather_kernel<0>, blocks_for(threads), kBlock, 0, p);
}

}  // namespace halomd::cuda
