// Smooth particle-mesh Ewald (Essmann et al., J. Chem. Phys. 103, 8577 (1995)) for the CPU reference: the
// reciprocal-space part of coulombtype = PME, with GROMACS 2022's grid choice, B-spline moduli and energy
// terms, so that "Coul. recip." agrees with gmx_d (PHYSICS.md). FFTs by FFTW (double, r2c/c2r).
#pragma once

#include <array>
#include <memory>
#include <span>
#include <vector>

#include "core/box.h"
#include "core/md_params.h"
#include "core/vec3.h"
#include "cpu/pme_spline.h"

namespace halomd {

// GROMACS's Ewald splitting coefficient beta (nm^-1) for cut-off rc and tolerance rtol: the beta with
// erfc(beta rc) = rtol, found as calc_ewaldcoeff_q finds it (doubling, then 60 bisections).
double ewald_coefficient(double rc, double rtol);

// The PME grid GROMACS 2022 chooses (calcFftGrid): per dimension fourier-n where given, else the smallest
// FFT-friendly size whose spacing L / n is at most fourierspacing.
std::array<int, 3> pme_grid_size(const Vec3& box_len, const MdParams& mdp);

// |sum_k M_n(k + 1) exp(2 pi i m k / n)|^2 for m = 0 .. n-1 (Essmann eq. 4.4): the moduli the influence
// function divides by, with GROMACS's fix for the near-zero moduli of odd orders.
std::vector<double> bspline_moduli(int n, int order);

struct PmeEnergies {
  double energy = 0.0;  // Coul. recip. (with the net-charge correction), kJ/mol
  Tensor virial;        // -1/2 sum r (x) F of the reciprocal part, kJ/mol
};

class PmeCpu {
 public:
  // charge: per atom (e), fixed for the run; threads: OpenMP threads of the spread, solve and gather.
  PmeCpu(const MdParams& mdp, const Box& box, std::span<const double> charge, int threads);
  PmeCpu(const PmeCpu&) = delete;
  PmeCpu& operator=(const PmeCpu&) = delete;

  // Adds the reciprocal-space forces (kJ/mol/nm) to f; sets the energy and virial when want_energy. The
  // result does not depend on the thread count (every grid point and every atom is summed in one order).
  // Throws RuntimeError naming `step` and the atom when a position is not finite.
  void compute(std::span<const Vec3> x, bool want_energy, std::span<Vec3> f, PmeEnergies& out,
               int64_t step = -1);

  // A new box (pressure coupling): the grid stays, the reciprocal box and the net-charge term follow.
  void set_box(const Box& box);

  const std::array<int, 3>& grid() const { return n_; }
  double beta() const { return beta_; }
  // The net-charge correction -pi Q^2 / (2 V beta^2) f/eps_r (kJ/mol), part of Coul. recip.
  double charged_system_energy() const { return charged_energy_; }

 private:
  void spread(std::span<const Vec3> x, int64_t step);
  void solve(bool want_energy, PmeEnergies& out);
  void gather(std::span<Vec3> f) const;

  std::span<const double> charge_;
  int threads_ = 1;
  int order_ = 4;
  std::array<int, 3> n_{};
  Vec3 len_;
  double beta_ = 0.0;
  double epsfac_ = 0.0;
  double charged_energy_ = 0.0;
  double net_charge_ = 0.0;
  std::array<std::vector<double>, 3> moduli_;  // bspline_moduli per dimension
  std::array<std::vector<int>, 3> wrap_;       // grid index k + order for k in [-order, n): k mod n
  // Per atom: the first grid point in each dimension and the order weights and derivatives.
  std::vector<int> first_;      // 3 per atom
  std::vector<double> theta_;   // 3 * order per atom
  std::vector<double> dtheta_;  // 3 * order per atom
  struct FftwFree {
    void operator()(void* p) const;
  };
  struct FftwDestroyPlan {
    void operator()(void* p) const;
  };
  std::unique_ptr<double, FftwFree> grid_;           // real grid, n0 n1 n2 (FFTW-aligned)
  std::unique_ptr<void, FftwFree> spectrum_;         // fftw_complex, n0 n1 (n2 / 2 + 1)
  std::unique_ptr<void, FftwDestroyPlan> forward_;   // fftw_plan r2c
  std::unique_ptr<void, FftwDestroyPlan> backward_;  // fftw_plan c2r
};

}  // namespace halomd
