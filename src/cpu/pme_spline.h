// The cardinal B-spline weights of smooth PME (Essmann et al., J. Chem. Phys. 103, 8577 (1995), eqs. 4.1 and
// 4.2), one definition for the CPU mesh (cpu/pme.cpp) and the CUDA kernels (cuda/pme_mesh.cu).
#pragma once

#include "core/host_device.h"

namespace halomd {

// The largest pme-order (GROMACS's limit too): per-atom weight arrays are sized by it.
inline constexpr int kPmeMaxOrder = 12;

// Cardinal B-spline weights of order `order` at fraction w in [0, 1): theta[j] weighs grid point
// floor(u) - order + 1 + j of an atom at grid coordinate u = floor(u) + w, dtheta[j] is d theta[j] / du.
// The recursion M_k(u) = u/(k-1) M_{k-1}(u) + (k-u)/(k-1) M_{k-1}(u-1), evaluated for the `order` points
// u = w + order - 1 - j at once; the derivative dM_n(u)/du = M_{n-1}(u) - M_{n-1}(u - 1) from the order - 1
// weights.
HALOMD_HOST_DEVICE inline void bspline_weights(double w, int order, double* theta, double* dtheta) {
  theta[order - 1] = 0.0;
  theta[1] = w;
  theta[0] = 1.0 - w;
  for (int k = 3; k < order; ++k) {
    const double div = 1.0 / (k - 1);
    theta[k - 1] = div * w * theta[k - 2];
    for (int l = 1; l < k - 1; ++l)
      theta[k - l - 1] = div * ((w + l) * theta[k - l - 2] + (k - l - w) * theta[k - l - 1]);
    theta[0] = div * (1.0 - w) * theta[0];
  }
  dtheta[0] = -theta[0];
  for (int j = 1; j < order; ++j) dtheta[j] = theta[j - 1] - theta[j];
  const double div = 1.0 / (order - 1);
  theta[order - 1] = div * w * theta[order - 2];
  for (int l = 1; l < order - 1; ++l)
    theta[order - l - 1] = div * ((w + l) * theta[order - l - 2] + (order - l - w) * theta[order - l - 1]);
  theta[0] = div * (1.0 - w) * theta[0];
}

}  // namespace halomd
