// The listed interactions' kernel on the GPU (listed.cu), behind a plain struct for nvcc's C++17: one thread
// per interaction computes it in double with cpu/listed_term.h (the CPU reference's definition) and adds its
// forces in 64-bit fixed point, so that the sums do not depend on the order and a run is bitwise repeatable;
// a second pass adds them to the non-bonded kernel's forces.
#pragma once

#include <cuda_runtime.h>

#include "core/topology.h"
#include "cpu/cmap.h"
#include "cuda/device_data.h"
#include "gpu/gpu_calls.h"

namespace halomd::cuda {

// Listed forces' fixed point: 2^32 units per kJ/mol/nm (cpu/fixed_point.h's force scale), so an atom's sum
// overflows above ~2.1e9. A term's force component at or above kListedForceLimit stops the run (a blow-up;
// the update stops any atom's force above 1e8 too), so twenty such terms on one atom still fit.
constexpr double kListedForceScale = 4294967296.0;
constexpr double kListedForceLimit = 1e8;

// StepState::listed_acc: the energy terms (core/bonded_terms.h's order), then the virial, row-major.
constexpr int kListedVirial = kNumBondedTerms;

struct ListedParams {
  int n_terms = 0;
  int n_atoms = 0;
  double coulomb_factor = 0.0;  // f / epsilon_r, for Coulomb-14
  double len[3] = {};
  double posres_com[3] = {};  // the position restraints' centre of mass (refcoord-scaling = com), nm
  const BondedTerm* terms = nullptr;
  const CmapView* cmaps = nullptr;  // Topology::cmap_grids on the device (a CMAP term's p[0] indexes them)
  const double* x[3] = {};          // original order, unwrapped (DeviceSystem::x)
  unsigned long long* f_fixed = nullptr;  // 3 per atom, original order; zero between steps
  const int* sorted_of = nullptr;
  float4* f = nullptr;      // the non-bonded kernel's forces, sorted order: listed forces added
  StepState* st = nullptr;  // energy steps: listed_acc; a blow-up: error
};

// The interactions' forces into f_fixed (with energy, their energies and virial into st->listed_acc), then
// f_fixed added to f and zeroed.
void launch_listed(gpu::GpuCalls& calls, const ListedParams& p, bool energy);

// The two parts apart (GPU domains, cuda_dd_executor.cpp): the interactions' forces into f_fixed, and
// f_fixed of atoms [first, last) added to dst[map[i]] (dst[i] where map is null) and zeroed.
void launch_listed_terms(gpu::GpuCalls& calls, const ListedParams& p, bool energy);
void launch_listed_add(gpu::GpuCalls& calls, const ListedParams& p, int first, int last, float4* dst,
                       const int* map);

}  // namespace halomd::cuda
