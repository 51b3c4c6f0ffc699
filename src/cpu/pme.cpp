#include "cpu/pme.h"

#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numbers>

#include "core/errors.h"
#include "core/units.h"

namespace halomd {

namespace {

// FFTW's planner is not thread-safe; plans are made and destroyed under this lock. (FFTW_ESTIMATE picks the
// same algorithm every run on one machine; another CPU may pick other SIMD codelets, so bits are per
// machine.)
std::mutex g_fftw_planner;

}  // namespace

void PmeCpu::FftwFree::operator()(void* p) const { fftw_free(p); }

void PmeCpu::FftwDestroyPlan::operator()(void* p) const {
  const std::lock_guard<std::mutex> lock(g_fftw_planner);
  fftw_destroy_plan(static_cast<fftw_plan>(p));
}

double ewald_coefficient(double rc, double rtol) {
  double beta = 5.0;
  int doublings = 0;
  do {
    beta *= 2.0;
    ++doublings;
  } while (std::erfc(beta * rc) > rtol);
  double low = 0.0, high = beta;
  for (int i = 0; i < doublings + 60; ++i) {
    beta = 0.5 * (low + high);
    if (std::erfc(beta * rc) > rtol)
      low = beta;
    else
      high = beta;
  }
  return beta;
}

std::vector<double> bspline_moduli(int n, int order) {
  // M_order at the integers 1 .. order - 1: the weights of an atom on a grid point (w = 0), in reverse.
  std::vector<double> theta(order), dtheta(order);
  bspline_weights(0.0, order, theta.data(), dtheta.data());
  std::vector<double> mod(n);
  for (int m = 0; m < n; ++m) {
    double re = 0.0, im = 0.0;
    for (int k = 0; k < order - 1; ++k) {
      const double arg = (2.0 * std::numbers::pi * m * (k + 1)) / n;
      re += theta[order - 2 - k] * std::cos(arg);  // M(k + 1)
      im += theta[order - 2 - k] * std::sin(arg);
    }
    mod[m] = re * re + im * im;
  }
  // Odd orders on even grids have a zero modulus at m = n/2, which GROMACS replaces by its neighbours' mean.
  if (order % 2 == 1 && n % 2 == 0) mod[n / 2] = 0.5 * (mod[n / 2 - 1] + mod[n / 2 + 1]);
  return mod;
}

std::array<int, 3> pme_grid_size(const Vec3& box_len, const MdParams& mdp) {
  // GROMACS 2022's calcFftGrid: the sizes below 45 it lists, and above them multiples of 4 (plus 90) among
  // powers of two times 45 .. 84, of which 45 itself is never tried.
  static constexpr int kSmall[] = {6, 8, 10, 12, 14, 16, 20, 24, 25, 28, 32, 36, 40, 42, 44};
  static constexpr int kBase[] = {45, 48, 50, 52, 54, 56, 60, 64, 70, 72, 75, 80, 81, 84};
  std::array<int, 3> n{};
  for (int d = 0; d < 3; ++d) {
    if (mdp.fourier_n[d] > 0) {
      n[d] = mdp.fourier_n[d];
      continue;
    }
    int nmin = static_cast<int>(box_len[d] / mdp.fourier_spacing + 0.999);
    nmin = std::max(nmin, 2 * (mdp.pme_order - 1));
    if (nmin <= kSmall[std::size(kSmall) - 1]) {
      n[d] = *std::lower_bound(std::begin(kSmall), std::end(kSmall), nmin);
      continue;
    }
    int fac2 = 1;
    while (fac2 * kBase[std::size(kBase) - 1] < nmin) fac2 *= 2;
    int best = 0;
    for (int i = static_cast<int>(std::size(kBase)) - 1; i > 0; --i) {
      const int attempt = fac2 * kBase[i];
      if (((attempt % 4 == 0 && attempt != 140) || attempt == 90) && attempt >= nmin) best = attempt;
    }
    n[d] = best;
  }
  return n;
}

PmeCpu::PmeCpu(const MdParams& mdp, const Box& box, std::span<const double> charge, int threads)
    : charge_(charge), threads_(std::max(1, threads)), order_(mdp.pme_order), len_(box.len) {
  n_ = pme_grid_size(box.len, mdp);
  beta_ = ewald_coefficient(mdp.rcoulomb, mdp.ewald_rtol);
  epsfac_ = units::kCoulomb / mdp.epsilon_r;
  for (double c : charge) net_charge_ += c;
  set_box(box);
  for (int d = 0; d < 3; ++d)
    if (n_[d] < 2 * (order_ - 1))
      throw InputError("", 0,
                       "the PME grid (" + std::to_string(n_[d]) + " points in dimension " + "xyz"[d] +
                           ") needs at least 2 (pme-order - 1) = " + std::to_string(2 * (order_ - 1)) +
                           " points");
  for (int d = 0; d < 3; ++d) {
    moduli_[d] = bspline_moduli(n_[d], order_);
    wrap_[d].resize(n_[d] + order_);
    for (int k = -order_; k < n_[d]; ++k) wrap_[d][k + order_] = (k + n_[d]) % n_[d];
  }
  const size_t real_size = static_cast<size_t>(n_[0]) * n_[1] * n_[2];
  const size_t complex_size = static_cast<size_t>(n_[0]) * n_[1] * (n_[2] / 2 + 1);
  grid_.reset(fftw_alloc_real(real_size));
  spectrum_.reset(fftw_alloc_complex(complex_size));
  if (!grid_ || !spectrum_) throw std::bad_alloc();
  const size_t atoms = charge.size();
  first_.resize(3 * atoms);
  theta_.resize(3 * order_ * atoms);
  dtheta_.resize(3 * order_ * atoms);
  auto* spectrum = static_cast<fftw_complex*>(spectrum_.get());
  // FFTW_ESTIMATE: the same algorithm every run, so a continuation gives the same bits.
  const std::lock_guard<std::mutex> lock(g_fftw_planner);
  forward_.reset(fftw_plan_dft_r2c_3d(n_[0], n_[1], n_[2], grid_.get(), spectrum, FFTW_ESTIMATE));
  backward_.reset(fftw_plan_dft_c2r_3d(n_[0], n_[1], n_[2], spectrum, grid_.get(), FFTW_ESTIMATE));
  if (!forward_ || !backward_) throw RuntimeError(-1, -1, "FFTW could not plan the PME grid's transforms");
}

void PmeCpu::set_box(const Box& box) {
  len_ = box.len;
  charged_energy_ =
      -std::numbers::pi * net_charge_ * net_charge_ * epsfac_ / (2.0 * box.volume() * beta_ * beta_);
}

void PmeCpu::compute(std::span<const Vec3> x, bool want_energy, std::span<Vec3> f, PmeEnergies& out,
                     int64_t step) {
  if (x.size() != charge_.size() || f.size() != charge_.size())
    throw RuntimeError(step, -1, "internal error: PME got positions or forces for another number of atoms");
  spread(x, step);
  fftw_execute(static_cast<fftw_plan>(forward_.get()));
  solve(want_energy, out);
  fftw_execute(static_cast<fftw_plan>(backward_.get()));
  gather(f);
}

void PmeCpu::spread(std::span<const Vec3> x, int64_t step) {
  const int natoms = static_cast<int>(x.size());
  const int p = order_;
  int bad = natoms;  // the lowest atom with a position that is not finite
  // Grid coordinates and weights per atom. Positions are unwrapped: the fraction of the box is taken first.
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(min : bad)
  for (int i = 0; i < natoms; ++i) {
    for (int d = 0; d < 3; ++d) {
      const double s = x[i][d] / len_[d];
      double u = n_[d] * (s - std::floor(s));
      if (u >= n_[d]) u -= n_[d];      // s - floor(s) rounded up to 1
      if (!(u >= 0.0 && u < n_[d])) {  // NaN or infinite: no grid point
        bad = std::min(bad, i);
        u = 0.0;
      }
      const int k = static_cast<int>(u);
      first_[3 * i + d] = k - p + 1;
      bspline_weights(u - k, p, &theta_[(3 * i + d) * p], &dtheta_[(3 * i + d) * p]);
    }
  }
  if (bad < natoms) throw RuntimeError(step, bad, "the position is not finite (PME spread)");
  // Each thread owns a slab of x planes and adds every atom's share to it in atom order: the grid does not
  // depend on the thread count.
  const int n0 = n_[0], n1 = n_[1], n2 = n_[2];
  std::fill(grid_.get(), grid_.get() + static_cast<size_t>(n0) * n1 * n2, 0.0);
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int x0 = n0 * t / nt, x1 = n0 * (t + 1) / nt;
    for (int i = 0; i < natoms; ++i) {
      const double q = charge_[i];
      if (q == 0.0) continue;
      const double* tx = &theta_[(3 * i) * p];
      const double* ty = tx + p;
      const double* tz = ty + p;
      for (int a = 0; a < p; ++a) {
        const int gx = wrap_[0][first_[3 * i] + a + p];
        if (gx < x0 || gx >= x1) continue;
        for (int b = 0; b < p; ++b) {
          const int gy = wrap_[1][first_[3 * i + 1] + b + p];
          double* row = grid_.get() + (static_cast<size_t>(gx) * n1 + gy) * n2;
          const double qxy = q * tx[a] * ty[b];
          for (int c = 0; c < p; ++c) row[wrap_[2][first_[3 * i + 2] + c + p]] += qxy * tz[c];
        }
      }
    }
  }
}

void PmeCpu::solve(bool want_energy, PmeEnergies& out) {
  const int n0 = n_[0], n1 = n_[1], n2 = n_[2], nzc = n2 / 2 + 1;
  auto* s = static_cast<fftw_complex*>(spectrum_.get());
  const double pi = std::numbers::pi;
  const double volume = len_.x * len_.y * len_.z;
  const double factor = pi * pi / (beta_ * beta_);
  // Per x plane partial sums (energy, then the 6 virial components), added in plane order afterwards.
  std::vector<double> plane_sums(want_energy ? 7 * static_cast<size_t>(n0) : 0, 0.0);
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (int kx = 0; kx < n0; ++kx) {
    const double mx = (kx < (n0 + 1) / 2 ? kx : kx - n0) / len_.x;
    double e = 0, vxx = 0, vyy = 0, vzz = 0, vxy = 0, vxz = 0, vyz = 0;
    for (int ky = 0; ky < n1; ++ky) {
      const double my = (ky < (n1 + 1) / 2 ? ky : ky - n1) / len_.y;
      for (int kz = 0; kz < nzc; ++kz) {
        fftw_complex& c = s[(static_cast<size_t>(kx) * n1 + ky) * nzc + kz];
        if (kx == 0 && ky == 0 && kz == 0) {
          c[0] = c[1] = 0.0;
          continue;
        }
        const double mz = kz / len_.z;  // the half spectrum: kz <= n2/2, +n2/2 at Nyquist as GROMACS
        const double m2 = mx * mx + my * my + mz * mz;
        // The influence function f/eps_r exp(-pi^2 m^2 / beta^2) / (pi V m^2 B(m)) (Essmann eq. 3.9, 4.7).
        const double g = epsfac_ * std::exp(-factor * m2) /
                         (pi * volume * m2 * moduli_[0][kx] * moduli_[1][ky] * moduli_[2][kz]);
        if (want_energy) {
          // The half spectrum stands for both m and -m, except where they coincide (kz = 0, kz = n2/2).
          const double weight = (kz == 0 || 2 * kz == n2) ? 1.0 : 2.0;
          const double em = 0.5 * weight * g * (c[0] * c[0] + c[1] * c[1]);
          const double vf = 2.0 * (1.0 + factor * m2) / m2;
          e += em;
          // Essmann eq. 2.10: sum r (x) F = sum_m E_m (delta - 2 (1 + pi^2 m^2 / beta^2) m (x) m / m^2).
          vxx += em * (1.0 - vf * mx * mx);
          vyy += em * (1.0 - vf * my * my);
          vzz += em * (1.0 - vf * mz * mz);
          vxy -= em * vf * mx * my;
          vxz -= em * vf * mx * mz;
          vyz -= em * vf * my * mz;
        }
        c[0] *= g;
        c[1] *= g;
      }
    }
    if (want_energy) {
      double* ps = &plane_sums[7 * static_cast<size_t>(kx)];
      ps[0] = e;
      ps[1] = vxx;
      ps[2] = vyy;
      ps[3] = vzz;
      ps[4] = vxy;
      ps[5] = vxz;
      ps[6] = vyz;
    }
  }
  if (!want_energy) return;
  double sum[7] = {};
  for (int kx = 0; kx < n0; ++kx)
    for (int c = 0; c < 7; ++c) sum[c] += plane_sums[7 * static_cast<size_t>(kx) + c];
  out.energy = sum[0] + charged_energy_;
  // The virial Xi = -1/2 sum r (x) F; GROMACS adds -E_net/V of the net-charge correction to its diagonal
  // (ewald_charge_correction: an energy per volume where the strain derivative would give -E_net/2; kept so
  // that charged systems report GROMACS's pressure).
  const int idx[3][3] = {{1, 4, 5}, {4, 2, 6}, {5, 6, 3}};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      out.virial.m[a][b] = -0.5 * sum[idx[a][b]] - (a == b ? charged_energy_ / volume : 0.0);
}

void PmeCpu::gather(std::span<Vec3> f) const {
  const int natoms = static_cast<int>(f.size());
  const int p = order_;
  const int n1 = n_[1], n2 = n_[2];
  // F_i = -q_i sum_k grad(theta_x theta_y theta_z)(k) phi(k), phi the back-transformed convolution.
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (int i = 0; i < natoms; ++i) {
    const double q = charge_[i];
    if (q == 0.0) continue;
    const double* tx = &theta_[(3 * i) * p];
    const double* ty = tx + p;
    const double* tz = ty + p;
    const double* dx = &dtheta_[(3 * i) * p];
    const double* dy = dx + p;
    const double* dz = dy + p;
    double fx = 0, fy = 0, fz = 0;
    for (int a = 0; a < p; ++a) {
      const int gx = wrap_[0][first_[3 * i] + a + p];
      for (int b = 0; b < p; ++b) {
        const int gy = wrap_[1][first_[3 * i + 1] + b + p];
        const double* row = grid_.get() + (static_cast<size_t>(gx) * n1 + gy) * n2;
        for (int c = 0; c < p; ++c) {
          const double phi = row[wrap_[2][first_[3 * i + 2] + c + p]];
          fx += dx[a] * ty[b] * tz[c] * phi;
          fy += tx[a] * dy[b] * tz[c] * phi;
          fz += tx[a] * ty[b] * dz[c] * phi;
        }
      }
    }
    f[i].x -= q * fx * n_[0] / len_.x;
    f[i].y -= q * fy * n_[1] / len_.y;
    f[i].z -= q * fz * n_[2] / len_.z;
  }
}

}  // namespace halomd
