// The non-bonded forces over the cluster-pair list (cuda/cluster_list.h): step 3 of the plan in
// bench/NOTES.md (sixteenth session). The same interactions as cuda/nonbonded.h (LJ plain or
// potential-shift, reaction field, the reaction-field correction of excluded pairs), over a half list of
// (super-cluster, j-cluster) entries instead of per-atom lists.
//
// Layout: at a search the atoms take the list's slots as their sorted order (padding slots hold no atom),
// so the update kernel reads forces and writes float positions by slot as it does by sorted atom.
// Forces are summed in 64-bit fixed point (kForceScale per kJ/mol/nm) by atomics, so the sum does not depend
// on the order blocks run in and a run stays bitwise repeatable; a finishing pass per slot adds the
// excluded pairs' correction, converts to float for the update kernel and zeroes the sums.
#pragma once

#include <cuda_runtime.h>

#include "cuda/device_data.h"
#include "gpu/gpu_calls.h"

namespace halomd::cuda {

// 2^32 per kJ/mol/nm: 2e-10 resolution, sums up to 2e9 (an atom with more has blown up).
inline constexpr double kForceScale = 4294967296.0;

struct ClusterNbParams {
  int ntypes, max_slots;
  int pair_blocks;  // the pair kernel's blocks (they take the work items in turn)
  float rc2, k_rf, c_rf, sh6, sh12;
  float len[3], inv_len[3];
  // The list (cluster_list.h): work items (super, shift, first, count), j-clusters (cj, imask, masks or
  // -1), pair masks; the counts in use, on the device; the build's slot of each atom and its overflow flag.
  const int4* work;
  const int4* j;
  const unsigned long long* masks;
  const int* num_work;
  const int* num_slots;
  const int* slot_atom;
  const int* overflow;
  const double* w[3];  // the build's wrapped positions, per atom
  double inv_box[3];   // 1 / box edges, as the build wraps with
  // Original order.
  const double* x[3];
  const float* qs;  // q sqrt(f/eps_r)
  const int* type;
  const int* excl_start;
  const int* excl;
  const float2* lj;  // ntypes^2 (c6, c12)
  int* sorted_of;    // written at a search: each atom's slot
  int4* img;         // written at a search: each atom's periodic image
  // Slot order.
  float4* xq;
  int* type_s;
  int* atom_of;              // -1: padding
  unsigned long long* ffix;  // 3 per slot, zero between steps
  float4* f;
  StepState* st;
};

// At a search, after build_cluster_list: the atoms into their slots (positions wrapped as the list saw
// them, charges, types), each atom's slot and image; a list that exceeded a capacity is reported as
// kErrListFull at the step.
void launch_cluster_order(gpu::GpuCalls& calls, const ClusterNbParams& p);

// Every step: the pair forces, then the finishing pass that leaves them in f (slot order). With energy,
// the LJ, Coulomb and virial sums are added to st->nb_acc with the full-list convention of nonbonded.h
// (every pair twice), which the caller zeroes before.
void launch_cluster_nonbonded(gpu::GpuCalls& calls, const ClusterNbParams& p, bool energy);

}  // namespace halomd::cuda
