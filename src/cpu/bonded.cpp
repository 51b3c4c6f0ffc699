#include "cpu/bonded.h"

#include "core/units.h"
#include "cpu/cmap.h"
#include "cpu/listed_term.h"

namespace halomd {

BondedCpu::BondedCpu(const Topology& top, double epsilon_r)
    : terms_(top.bonded), cmap_(top.cmap_grids), coulomb_factor_(units::kCoulomb / epsilon_r) {
  for (int d = 0; d < 3; ++d) posres_com_frac_[d] = top.posres_com_frac[d];
}

void BondedCpu::compute(const std::vector<Vec3>& x, const Box& box, std::vector<Vec3>& f,
                        BondedEnergies* energies) const {
  compute_terms(terms_, x, box, f, energies);
}

void BondedCpu::compute_terms(std::span<const BondedTerm> terms, std::span<const Vec3> x, const Box& box,
                              std::span<Vec3> f, BondedEnergies* energies) const {
  // A position restraint's reference: its p[3..5] plus the centre of mass scaled with the box (com).
  const Vec3 com{posres_com_frac_[0] * box.len[0], posres_com_frac_[1] * box.len[1],
                 posres_com_frac_[2] * box.len[2]};
  for (const BondedTerm& t : terms) {
    const int* a = t.atoms;
    const Vec3 ref = Vec3{t.p[3], t.p[4], t.p[5]} + com;
    Vec3 fa[5];
    double v = 0.0, v_coulomb = 0.0;
    const auto dx = [&](int i, int j) { return minimum_image(x[a[i]], j < 0 ? ref : x[a[j]], box); };
    if (t.kind == BondedKind::Cmap)
      cmap_term(view_of(cmap_[static_cast<size_t>(t.p[0])]), dx, fa, v);
    else
      listed_term(t, coulomb_factor_, dx, fa, v, v_coulomb);
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
        posres_virial(t, minimum_image(x[a[0]], ref, box), fa[0], vir);
        for (int k = 0; k < 3; ++k) energies->virial.m[k][k] += vir[k];
      }
    }
  }
}

}  // namespace halomd
