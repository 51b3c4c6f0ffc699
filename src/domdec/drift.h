// How far atoms may drift from a halo plan before it misses a pair: the test that lets GPU domains keep a
// plan over several neighbour searches (cuda_dd_executor.cpp, `plan_still_holds`).
//
// A plan built with rlist' = rlist + 2 skin (HaloRange) at t0 holds every pair within rlist at t while
//   max |x(t) - x(t0)| over all atoms + max beyond_cell(x(t)) over all atoms <= 2 skin,
// where beyond_cell measures how far an atom lies outside its owner's cell widened by the plan's margin,
// in decomposed dimensions, in the owner's frame. Why: the eighth-shell rule (zones.h) has domain D compute
// a pair (a, b) when, in each dimension d where a has zone offset > 0, b has offset 0, i.e. b's owner
// spans D's cell in d. At t0, b was within margin of that cell, so x_b[d](t) <= hi[d] + margin +
// beyond_b; the pair within rlist puts x_a[d](t) below that + rlist, and so x_a[d](t0) below
// hi[d] + margin + rlist + beyond_b + |dx_a| <= hi[d] + rlist' + margin: the send range a was chosen with.
// The same holds with a and b swapped. The old test, every atom within skin of x(t0), is the case
// beyond <= |dx| <= skin; this one lets atoms away from the faces move up to twice as far.
// The lower side of beyond_cell is not needed for the pairs: it bounds how far the local atoms spread
// beyond their extent at t0 (by the same 2 skin as before), which the GPU search box has room for.
// tests/test_domdec.cpp ("PlanHoldsWhileDriftIsWithinTheSkin") checks this on random drifts, and that a
// drift beyond it does miss pairs.
#pragma once

#include "core/host_device.h"

namespace halomd::domdec {

// How far coordinate x lies outside [lo - margin, hi + margin] (0 inside). lo and hi come with the margin
// already applied; a dimension with one domain passes -inf/+inf.
HALOMD_HOST_DEVICE inline double beyond_cell(double x, double lo_margin, double hi_margin) {
  const double above = x - hi_margin, below = lo_margin - x;
  const double out = above > below ? above : below;
  return out > 0.0 ? out : 0.0;
}

// The drift measure the skin bounds: the plan holds while this is <= skin.
inline double plan_drift(double max_displacement, double max_beyond_cell) {
  return 0.5 * (max_displacement + max_beyond_cell);
}

// The skin left to a plan after pressure coupling scaled the box, the positions, the references and the plan
// (rebox_plan) by m_d per decomposed dimension since it was built (m_min, m_max: the least and greatest).
// Scaling is a similarity: the plan is the one built in the new box with rlist' and the margin scaled by m_d,
// and the rule above holds with the margin scaled and rlist' m_d in place of rlist + 2 skin, so a shrink
// leaves (2 skin - (1 - m_min) rlist') / 2. A growth spreads the local atoms by (m_max - 1) times their
// extent (at most `extent`), which takes from the room the GPU search box keeps for 2 skin of spread.
// Below zero: the plan must go.
inline double skin_after_scaling(double skin, double plan_rlist, double extent, double m_min, double m_max) {
  const double shrink = m_min < 1.0 ? (1.0 - m_min) * plan_rlist : 0.0;
  const double spread = m_max > 1.0 ? (m_max - 1.0) * extent : 0.0;
  return skin - 0.5 * (shrink > spread ? shrink : spread);
}

}  // namespace halomd::domdec
