// Virtual sites on the CPU (GROMACS's vsite2, vsite3 and vsite3out): their positions from the constructing
// atoms, and their forces spread onto those atoms. Constructions go through the minimum image of the box,
// as GROMACS's, from atom i.
#pragma once

#include <span>
#include <vector>

#include "core/box.h"
#include "core/topology.h"
#include "core/vec3.h"

namespace halomd {

// Places every site of `vsites` (atom indices into x) from its constructing atoms; with v and dt, sets the
// sites' velocities to their displacement from x_old over dt (GROMACS's, for the output only: sites are
// massless).
void construct_vsites(std::span<const VirtualSite> vsites, std::vector<Vec3>& x, const Box& box,
                      const std::vector<Vec3>* x_old = nullptr, std::vector<Vec3>* v = nullptr,
                      double dt = 0.0);

// Moves each site's force onto its constructing atoms (the chain rule of the construction; the site's force
// becomes 0). With virial, adds the change of -1/2 sum x (x) F that the spreading makes (0 for the linear
// constructions; the pair virial already holds the sites' forces at the sites).
void spread_vsite_forces(std::span<const VirtualSite> vsites, const std::vector<Vec3>& x,
                         std::vector<Vec3>& f, const Box& box, Tensor* virial);

}  // namespace halomd
