// Building the halo plans of this process's domains at a neighbour-search step, pulse by pulse through a
// transport: the distributed form of domdec::build_plan_with, from the same building blocks, so that every
// transport gives every domain the plan (and the local positions, bit for bit) the in-process driver gives.
#pragma once

#include <span>
#include <vector>

#include "comm/halo_transport.h"
#include "domdec/halo_plan.h"

namespace halomd::comm {

// One domain's home atoms at the search: ascending global indices, their images, and their positions in
// the domain's frame (domdec::shifted(x, image, box)).
struct HomeAtoms {
  std::span<const int> global;
  std::span<const domdec::IVec3> image;
  std::span<const Vec3> x_frame;
};

// home: one entry per slot (transport.domains()); fills plans[s] and x_local[s] (home positions, then every
// pulse's atoms). range.margin must be the same on every process. exchange_s, when given, gains the wall
// time spent in the transport's exchanges (the rest is this process's own work). threads: the per-atom loops
// of each domain on up to that many OpenMP threads (the same plans with any count). direct: direct pulses
// (domdec/halo_plan.h) where domdec::direct_pulses_possible, else chained ones; every process must pass
// the same.
void build_plans(HaloTransport& transport, const domdec::DdGrid& grid, const Box& box,
                 const domdec::HaloRange& range, std::span<const HomeAtoms> home,
                 std::vector<domdec::DomainPlan>& plans, std::vector<std::vector<Vec3>>& x_local,
                 double* exchange_s = nullptr, int threads = 1, bool direct = false);

}  // namespace halomd::comm
