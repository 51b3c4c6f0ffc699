#include "cpu/vsite.h"

#include "cpu/vsite_term.h"

namespace halomd {

void construct_vsites(std::span<const VirtualSite> vsites, std::vector<Vec3>& x, const Box& box,
                      const std::vector<Vec3>* x_old, std::vector<Vec3>* v, double dt) {
  for (const VirtualSite& s : vsites) {
    const Vec3& xi = x[s.atoms[0]];
    Vec3 xs;
    if (s.kind == VsiteKind::N) {  // GROMACS's constr_vsiten: from the first atom, through minimum images
      Vec3 sum{};
      for (int k = 1; k < s.n; ++k) sum += minimum_image(x[s.atoms[k]], xi, box) * s.p[k];
      xs = xi + sum;
    } else {
      const Vec3 rij = minimum_image(x[s.atoms[1]], xi, box);
      const Vec3 rik = s.kind == VsiteKind::Two ? Vec3{} : minimum_image(x[s.atoms[2]], xi, box);
      xs = vsite_position(s.kind, s.p, xi, rij, rik);
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
    if (s.kind == VsiteKind::N) {  // linear: w_k F on each atom, no change of the virial
      for (int k = 0; k < s.n; ++k) f[s.atoms[k]] += fs * s.p[k];
      continue;
    }
    const Vec3 rij = minimum_image(x[s.atoms[1]], x[s.atoms[0]], box);
    const Vec3 rik = s.kind == VsiteKind::Two ? Vec3{} : minimum_image(x[s.atoms[2]], x[s.atoms[0]], box);
    Vec3 fa[3];
    const int n = vsite_forces(s.kind, s.p, fs, rij, rik, fa);
    for (int k = 0; k < n; ++k) f[s.atoms[k]] += fa[k];
    if (virial) {
      // -1/2 (sum_k x_k (x) f_k - x_s (x) F) = -1/2 sum_k (x_k - x_s) (x) f_k, as the f_k sum to F.
      for (int k = 0; k < n; ++k)
        add_outer(*virial, minimum_image(x[s.atoms[k]], x[s.site], box), fa[k], -0.5);
    }
  }
}

}  // namespace halomd
