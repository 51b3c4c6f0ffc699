// GROMACS's long-range dispersion correction (DispCorr EnerPres / Ener) for LJ beyond rvdw, with the constant
// potential shift inside the cut-off included as GROMACS does (GROMACS manual, "Long range Van der Waals
// interactions"; mdlib/dispersioncorrection.cpp).
#pragma once

#include "core/box.h"
#include "core/md_params.h"
#include "core/topology.h"

namespace halomd {

class DispersionCorrection {
 public:
  DispersionCorrection(const Topology& top, const MdParams& mdp);
  // Energy in kJ/mol.
  double energy(const Box& box) const;
  // Added to each diagonal element of the virial (kJ/mol); 0 unless EnerPres.
  double virial_diagonal(const Box& box) const;
  double average_c6() const { return avg_c6_; }

 private:
  bool enabled_ = false;
  bool pressure_ = false;
  double num_atoms_ = 0.0;
  double avg_c6_ = 0.0;  // over all atom pairs, excluded pairs left out
  double ener_diff_six_ = 0.0;
  double ener_shift_six_ = 0.0;
  double vir_diff_six_ = 0.0;
  void switched(const MdParams& mdp);  // force-switch and potential-switch
};

}  // namespace halomd
