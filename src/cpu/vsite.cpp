#include "cpu/vsite.h"

namespace halomd {

void construct_vsites(std::span<const VirtualSite> vsites, std::vector<Vec3>& x, const Box& box,
                      const std::vector<Vec3>* x_old, std::vector<Vec3>* v, double dt) {
  for (const VirtualSite& s : vsites) {
    const Vec3& xi = x[s.atoms[0]];
    const Vec3 rij = minimum_image(x[s.atoms[1]], xi, box);
    Vec3 xs;
    switch (s.kind) {
      case VsiteKind::Two:
        xs = xi + rij * s.p[0];
        break;
      case VsiteKind::Three:
        xs = xi + rij * s.p[0] + minimum_image(x[s.atoms[2]], xi, box) * s.p[1];
        break;
      case VsiteKind::ThreeOut: {
        const Vec3 rik = minimum_image(x[s.atoms[2]], xi, box);
        xs = xi + rij * s.p[0] + rik * s.p[1] + cross(rij, rik) * s.p[2];
        break;
      }
    }
    x[s.site] = xs;
    if (v && x_old) (*v)[s.site] = minimum_image(xs, (*x_old)[s.site], box) * (1.0 / dt);
  }
}

void spread_vsite_forces(std::span<const VirtualSite> vsites, const std::vector<Vec3>& x,
                         std::vector<Vec3>& f, const Box& box, Tensor* virial) {
  // In reverse order, so that a site built from another site passes its force on before that one spreads.
  for (auto it = vsites.rbegin(); it != vsites.rend(); ++it) {
    const VirtualSite& s = *it;
    const Vec3 fs = f[s.site];
    f[s.site] = Vec3{};
    const int n = s.kind == VsiteKind::Two ? 2 : 3;
    Vec3 fa[3];
    const Vec3 rij = minimum_image(x[s.atoms[1]], x[s.atoms[0]], box);
    switch (s.kind) {
      case VsiteKind::Two:
        fa[1] = fs * s.p[0];
        break;
      case VsiteKind::Three:
        fa[1] = fs * s.p[0];
        fa[2] = fs * s.p[1];
        break;
      case VsiteKind::ThreeOut: {
        // d x_s / d x_j = a + c [r_ik]x, d x_s / d x_k = b - c [r_ij]x (the cross product's derivatives):
        // f_j = a F + c r_ik x F, f_k = b F - c r_ij x F.
        const Vec3 rik = minimum_image(x[s.atoms[2]], x[s.atoms[0]], box);
        fa[1] = fs * s.p[0] + cross(rik, fs) * s.p[2];
        fa[2] = fs * s.p[1] - cross(rij, fs) * s.p[2];
        break;
      }
    }
    fa[0] = fs;
    for (int k = 1; k < n; ++k) fa[0] -= fa[k];
    for (int k = 0; k < n; ++k) f[s.atoms[k]] += fa[k];
    if (virial) {
      // -1/2 (sum_k x_k (x) f_k - x_s (x) F) = -1/2 sum_k (x_k - x_s) (x) f_k, as the f_k sum to F.
      for (int k = 0; k < n; ++k)
        add_outer(*virial, minimum_image(x[s.atoms[k]], x[s.site], box), fa[k], -0.5);
    }
  }
}

}  // namespace halomd
