// A self-test of a GPU halo transport on the ranks of a run (`mpirun -n N halomd devices --check-halo NAME`):
// a random system is decomposed on every rank alike (domdec::build_plan), each rank binds its domain's plan,
// and for several rounds of changing positions and forces the exchanged halo coordinates must equal the
// in-process reference exchange (domdec::exchange_x) and the returned forces its reduction
// (domdec::reduce_f), bit for bit. Needs CUDA (built only with it).
#pragma once

#include <string>

#include "comm/gpu/gpu_halo.h"
#include "domdec/grid.h"

namespace halomd::comm {

// Returns this rank's one-line report; throws RuntimeError naming the round, the atom and the values on the
// first mismatch. The grid must have one domain per rank.
std::string gpu_halo_check(GpuHaloTransport& transport, const domdec::DdGrid& grid, int rounds);

}  // namespace halomd::comm
