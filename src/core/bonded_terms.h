// The energy terms of GROMACS's listed interactions that halomd runs: their order (gmx energy's: Bond,
// G96Bond, Harmonic Pot., Angle, G96Angle, Restr. Angles, U-B, Proper Dih., Ryckaert-Bell., Improper
// Dih., Per. Imp. Dih., CMAP Dih., LJ-14, Coulomb-14, then Position Rest. and Dih. Rest.) and halomd's
// energy.csv columns, shared by the executors and the outputs.
#pragma once

#include <array>

#include "core/host_device.h"
#include "core/topology.h"

namespace halomd {

enum class BondedTermIndex {
  Bond,
  G96Bond,
  Harmonic,
  Angle,
  G96Angle,
  RestrictedAngle,
  UreyBradley,
  ProperDih,
  RyckaertBell,
  ImproperDih,
  PeriodicImproper,
  CmapDih,
  Lj14,
  Coulomb14,
  PosRes,
  DihRestraint,
};
inline constexpr int kNumBondedTerms = 16;
using BondedTermValues = std::array<double, kNumBondedTerms>;
using BondedTermMask = std::array<bool, kNumBondedTerms>;

inline constexpr const char* kBondedCsvNames[kNumBondedTerms] = {
    "bond",         "g96bond",    "harmonic_pot",  "angle",        "g96angle",    "restricted_angles",
    "urey_bradley", "proper_dih", "ryckaert_bell", "improper_dih", "per_imp_dih", "cmap_dih",
    "lj14",         "coulomb14",  "posres",        "dih_rest"};

// The energy term an interaction's energy goes to (Pair14: LJ-14; its Coulomb part goes to Coulomb-14).
HALOMD_HOST_DEVICE inline int bonded_term_of(BondedKind k) {
  switch (k) {
    case BondedKind::Bond:
      return static_cast<int>(BondedTermIndex::Bond);
    case BondedKind::G96Bond:
      return static_cast<int>(BondedTermIndex::G96Bond);
    case BondedKind::Angle:
      return static_cast<int>(BondedTermIndex::Angle);
    case BondedKind::G96Angle:
      return static_cast<int>(BondedTermIndex::G96Angle);
    case BondedKind::UreyBradley:
      return static_cast<int>(BondedTermIndex::UreyBradley);
    case BondedKind::ProperDih:
      return static_cast<int>(BondedTermIndex::ProperDih);
    case BondedKind::RyckaertBell:
      return static_cast<int>(BondedTermIndex::RyckaertBell);
    case BondedKind::ImproperDih:
      return static_cast<int>(BondedTermIndex::ImproperDih);
    case BondedKind::PeriodicImproper:
      return static_cast<int>(BondedTermIndex::PeriodicImproper);
    case BondedKind::Pair14:
      return static_cast<int>(BondedTermIndex::Lj14);
    case BondedKind::PosRes:
      return static_cast<int>(BondedTermIndex::PosRes);
    case BondedKind::Cmap:
      return static_cast<int>(BondedTermIndex::CmapDih);
    case BondedKind::Harmonic:
      return static_cast<int>(BondedTermIndex::Harmonic);
    case BondedKind::RestrictedAngle:
      return static_cast<int>(BondedTermIndex::RestrictedAngle);
    case BondedKind::DihRestraint:
      return static_cast<int>(BondedTermIndex::DihRestraint);
  }
  return 0;
}

// Which terms a topology has: GROMACS writes only those, and so does energy.csv.
inline BondedTermMask bonded_terms_present(const Topology& top) {
  BondedTermMask present{};
  for (const BondedTerm& t : top.bonded) {
    present[bonded_term_of(t.kind)] = true;
    if (t.kind == BondedKind::Pair14) present[static_cast<int>(BondedTermIndex::Coulomb14)] = true;
  }
  return present;
}

}  // namespace halomd
