#include "cpu/bonded.h"

#include "core/units.h"
#include "cpu/listed_term.h"

namespace halomd {

BondedCpu::BondedCpu(const Topology& top, double epsilon_r)
    : terms_(top.bonded), coulomb_factor_(units::kCoulomb / epsilon_r) {}

void BondedCpu::compute(const std::vector<Vec3>& x, const Box& box, std::vector<Vec3>& f,
                        BondedEnergies* energies) const {
  for (const BondedTerm& t : terms_) {
    const int* a = t.atoms;
    Vec3 fa[4];
    double v = 0.0, v_coulomb = 0.0;
    listed_term(
        t, coulomb_factor_,
        [&](int i, int j) {
          return minimum_image(x[a[i]], j < 0 ? Vec3{t.p[3], t.p[4], t.p[5]} : x[a[j]], box);
        },
        fa, v, v_coulomb);
    const int n = listed_atom_count(t.kind);
    for (int k = 0; k < n; ++k) f[a[k]] += fa[k];
    if (energies) {
      energies->term[bonded_term_of(t.kind)] += v;
      if (t.kind == BondedKind::Pair14)
        energies->term[static_cast<int>(BondedTermIndex::Coulomb14)] += v_coulomb;
      // -1/2 sum_a r_a (x) F_a with r_a relative to the first atom (the forces of one interaction sum to 0).
      for (int k = 1; k < n; ++k)
        add_outer(energies->virial, minimum_image(x[a[k]], x[a[0]], box), fa[k], -0.5);
      if (t.kind == BondedKind::PosRes) {
        double vir[3] = {0, 0, 0};
        posres_virial(t, minimum_image(x[a[0]], Vec3{t.p[3], t.p[4], t.p[5]}, box), fa[0], vir);
        for (int k = 0; k < 3; ++k) energies->virial.m[k][k] += vir[k];
      }
    }
  }
}

}  // namespace halomd
