// Leap-frog integration, kinetic energy and centre-of-mass motion removal of the CPU reference.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/vec3.h"

namespace halomd {

// v(t+dt/2) = lambda v(t-dt/2) + f/m dt and x' = x + v(t+dt/2) dt (GROMACS's leap-frog with the v-rescale
// factor lambda applied to the old velocity). Atoms of zero mass are left where they are.
void leapfrog_update(const std::vector<Vec3>& x, std::vector<Vec3>& v, const std::vector<Vec3>& f,
                     const std::vector<double>& inv_mass, double lambda, double dt, std::vector<Vec3>& x_new,
                     int threads);

// The leap-frog of a Nose-Hoover or Parrinello-Rahman coupling step (GROMACS's updateMDLeapfrogGeneral, the
// reversible Nose-Hoover form of Holian et al. 1995): v(t+dt/2)_d = (l v_d + (f_d/m dt - c v_d - p_d v_d)) /
// (1 + c) with l = lambda[g] (v-rescale), c = factor[g] (0.5 nsttcouple dt vxi) for atom i's group g
// (group[i], or 0 without groups) and p = pr_scale (nstpcouple dt M); x' = x + v(t+dt/2) dt.
void leapfrog_coupled(const std::vector<Vec3>& x, std::vector<Vec3>& v, const std::vector<Vec3>& f,
                      const std::vector<double>& inv_mass, const std::vector<double>& lambda,
                      const std::vector<double>& factor, const std::vector<int>* group, const Vec3& pr_scale,
                      double dt, std::vector<Vec3>& x_new, int threads);

// The same with a v-rescale factor per temperature-coupling group: atom i takes lambdas[group[i]].
void leapfrog_update(const std::vector<Vec3>& x, std::vector<Vec3>& v, const std::vector<Vec3>& f,
                     const std::vector<double>& inv_mass, const std::vector<double>& lambdas,
                     const std::vector<int>& group, double dt, std::vector<Vec3>& x_new, int threads);

// freezegrps after an update (the leap-frog, or either half of SD): each frozen dimension (bit d of
// frozen[global[i]], or of frozen[i] where `global` is empty) keeps x and has v = 0, as GROMACS's update
// does. Fully frozen atoms need no such pass (their inverse mass for the update is 0 and their v stays 0);
// nothing is done when `frozen` is empty.
void keep_frozen_dimensions(const std::vector<uint8_t>& frozen, std::span<const int> global,
                            const std::vector<Vec3>& x, std::vector<Vec3>& v, std::vector<Vec3>& x_new);

// The velocities along frozen dimensions set to 0 (after a centre-of-mass removal, or at a start); the same
// `global` and no-op as keep_frozen_dimensions.
void zero_frozen_velocities(const std::vector<uint8_t>& frozen, std::span<const int> global,
                            std::vector<Vec3>& v);

// 1/2 sum m v . v per group (group[i] in [0, groups)) in fixed point (kEnergyFixedScale), and in kJ/mol.
std::vector<int64_t> kinetic_energy_by_group_fixed(const std::vector<Vec3>& v,
                                                   const std::vector<double>& mass,
                                                   const std::vector<int>& group, int groups);
std::vector<double> kinetic_energy_by_group(const std::vector<Vec3>& v, const std::vector<double>& mass,
                                            const std::vector<int>& group, int groups);

// 1/2 sum m v (x) v, kJ/mol, summed in fixed point (independent of the thread count).
Tensor kinetic_energy_tensor(const std::vector<Vec3>& v, const std::vector<double>& mass, int threads);

// Subtracts the centre-of-mass velocity from every atom (comm-mode Linear).
void remove_com_velocity(std::vector<Vec3>& v, const std::vector<double>& mass);
// The same per comm-grps group (group[i] in [0, groups), or -1: atom i keeps its velocity).
void remove_com_velocity(std::vector<Vec3>& v, const std::vector<double>& mass, const std::vector<int>& group,
                         int groups);

// Index of the first atom that moved more than max_nm between x and x_new or whose position is not finite,
// else -1.
int find_runaway_atom(const std::vector<Vec3>& x, const std::vector<Vec3>& x_new, double max_nm);

}  // namespace halomd
