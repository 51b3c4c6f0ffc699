#include "cuda/lincs_gpu.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/errors.h"
#include "core/units.h"
#include "gpu/upload.h"

namespace halomd::cuda {

LincsLayout lincs_layout(const Topology& top) {
  LincsLayout out;
  const int n = static_cast<int>(top.constraints.size());
  if (n == 0) return out;
  const int na = top.num_atoms();
  if (!top.frozen.empty()) {
    // freezegrps: a constraint between two fully frozen atoms is left out, as LincsCpu leaves it out; a
    // frozen atom takes GROMACS's ALMOST_ZERO in the coefficients (the update gives it no inverse mass: it
    // stays).
    Topology t;
    t.mass = top.mass;
    t.settles = top.settles;
    for (const Constraint& c : top.constraints)
      if (!top.frozen_pair(c.a, c.b)) t.constraints.push_back(c);
    for (int i = 0; i < na; ++i) t.mass[i] = top.fully_frozen(i) ? 1e30 : top.mass[i];
    return lincs_layout(t);
  }
  std::vector<double> inv_mass(na);
  for (int i = 0; i < na; ++i) inv_mass[i] = top.mass[i] > 0 ? 1.0 / top.mass[i] : 0.0;
  // Constraints sharing an atom are coupled: groups by union-find over the constraints.
  std::vector<int> parent(n), first_of_atom(na, -1);
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&parent](int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  // The update kernel moves a SETTLE water's atoms in the water's block and LINCS's in theirs: an atom in
  // both would be updated twice at once.
  std::vector<char> in_settle(na, 0);
  for (const Settle& w : top.settles) in_settle[w.o] = in_settle[w.h1] = in_settle[w.h2] = 1;
  for (const Constraint& c : top.constraints)
    for (int atom : {c.a, c.b})
      if (in_settle[atom])
        throw InputError(
            "", 0,
            "atom " + std::to_string(atom + 1) +
                " is in a SETTLE water and in a LINCS constraint; the GPU's update solves each atom "
                "by one of them only (use --backend cpu, or leave the water's bonds unconstrained)");
  std::vector<std::vector<int>> of_atom(na);
  for (int i = 0; i < n; ++i)
    for (int atom : {top.constraints[i].a, top.constraints[i].b}) {
      of_atom[atom].push_back(i);
      if (first_of_atom[atom] < 0)
        first_of_atom[atom] = i;
      else
        parent[root(i)] = root(first_of_atom[atom]);
    }
  // The groups in the order of their first constraint, each one's constraints ascending.
  std::vector<std::vector<int>> groups;
  std::vector<int> group_of_root(n, -1);
  for (int i = 0; i < n; ++i) {
    const int r = root(i);
    if (group_of_root[r] < 0) {
      group_of_root[r] = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    groups[group_of_root[r]].push_back(i);
  }
  auto atoms_of = [&top](const std::vector<int>& cons) {
    std::vector<int> atoms;
    for (int i : cons) {
      atoms.push_back(top.constraints[i].a);
      atoms.push_back(top.constraints[i].b);
    }
    std::sort(atoms.begin(), atoms.end());
    atoms.erase(std::unique(atoms.begin(), atoms.end()), atoms.end());
    return atoms;
  };
  // Whole groups into blocks of at most kUpdateBlock atoms and constraints, in order.
  std::vector<std::vector<int>> blocks(1);
  int block_atoms = 0;
  for (const std::vector<int>& g : groups) {
    const int ga = static_cast<int>(atoms_of(g).size()), gc = static_cast<int>(g.size());
    if (ga > kUpdateBlock || gc > kUpdateBlock)
      throw InputError("", 0,
                       "a group of " + std::to_string(gc) + " coupled constraints on " + std::to_string(ga) +
                           " atoms (from atom " + std::to_string(top.constraints[g[0]].a + 1) +
                           ") is more than the GPU's LINCS solves in one block (" +
                           std::to_string(kUpdateBlock) + "): use constraints = h-bonds, or --backend cpu");
    if (block_atoms + ga > kUpdateBlock || static_cast<int>(blocks.back().size()) + gc > kUpdateBlock) {
      blocks.emplace_back();
      block_atoms = 0;
    }
    blocks.back().insert(blocks.back().end(), g.begin(), g.end());
    block_atoms += ga;
  }
  std::vector<int> local(n, -1), slot_of(na, -1);
  out.coupling_start.push_back(0);
  out.atom_con_start.push_back(0);
  for (std::vector<int>& cons : blocks) {
    std::sort(cons.begin(), cons.end());
    const std::vector<int> atoms = atoms_of(cons);
    LincsBlockDev b{static_cast<int>(out.atoms.size()), static_cast<int>(atoms.size()),
                    static_cast<int>(out.con.size()), static_cast<int>(cons.size())};
    out.blocks.push_back(b);
    for (size_t s = 0; s < atoms.size(); ++s) slot_of[atoms[s]] = static_cast<int>(s);
    for (size_t k = 0; k < cons.size(); ++k) local[cons[k]] = static_cast<int>(k);
    for (int i : cons) {
      const Constraint& c = top.constraints[i];
      const double blc = 1.0 / std::sqrt(inv_mass[c.a] + inv_mass[c.b]);
      out.con.push_back({slot_of[c.a], slot_of[c.b], c.length, blc});
    }
    // The coupling as LincsCpu builds it: per constraint, its atoms' other constraints in index order.
    for (int i : cons) {
      const Constraint& ci = top.constraints[i];
      const double blc_i = 1.0 / std::sqrt(inv_mass[ci.a] + inv_mass[ci.b]);
      for (int atom : {ci.a, ci.b})
        for (int j : of_atom[atom]) {
          if (j == i) continue;
          const Constraint& cj = top.constraints[j];
          const double blc_j = 1.0 / std::sqrt(inv_mass[cj.a] + inv_mass[cj.b]);
          const bool first_i = ci.a == atom, first_j = cj.a == atom;
          out.coupling_other.push_back(local[j]);
          out.coupling_coef.push_back((first_i == first_j ? -1.0 : 1.0) * inv_mass[atom] * blc_i * blc_j);
        }
      out.coupling_start.push_back(static_cast<int>(out.coupling_other.size()));
    }
    for (int atom : atoms) {
      out.atoms.push_back(atom);
      for (int j : of_atom[atom])
        out.atom_con.push_back(local[j] << 1 | (top.constraints[j].b == atom ? 1 : 0));
      out.atom_con_start.push_back(static_cast<int>(out.atom_con.size()));
    }
  }
  return out;
}

using gpu::upload_grow;

void LincsGpu::setup(const ExecutorConfig& cfg, gpu::GpuCalls& calls, UpdateParams& up) {
  const LincsLayout l = lincs_layout(*cfg.top);
  if (l.blocks.empty()) return;
  set_layout(l, *cfg.mdp, calls, up);
}

void LincsGpu::set_layout(const LincsLayout& l, const MdParams& mdp, gpu::GpuCalls& calls, UpdateParams& up) {
  LincsDev& d = up.lincs;
  d.nblocks = static_cast<int>(l.blocks.size());
  d.order = mdp.lincs_order;
  d.iterations = mdp.lincs_iter;
  d.cos_warn = std::cos(mdp.lincs_warnangle * units::kPi / 180.0);
  d.blocks = upload_grow(calls, blocks_, l.blocks, "LINCS blocks");
  d.atoms = upload_grow(calls, atoms_, l.atoms, "LINCS atoms");
  d.con = upload_grow(calls, con_, l.con, "LINCS constraints");
  d.coupling_start = upload_grow(calls, coupling_start_, l.coupling_start, "LINCS coupling");
  d.coupling_other = upload_grow(calls, coupling_other_, l.coupling_other, "LINCS coupling");
  d.coupling_coef = upload_grow(calls, coupling_coef_, l.coupling_coef, "LINCS coupling");
  d.atom_con_start = upload_grow(calls, atom_con_start_, l.atom_con_start, "LINCS atoms' constraints");
  d.atom_con = upload_grow(calls, atom_con_, l.atom_con, "LINCS atoms' constraints");
}

}  // namespace halomd::cuda
