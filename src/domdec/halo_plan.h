// The halo plan of one neighbour-search step: each domain's local atoms and, for each dimension and pulse,
// which of them it sends to its lower neighbour and where what it receives from its upper neighbour lands.
//
// Coordinates go forward: in dimension d (x, then y, then z; a dimension with one domain is skipped), every
// domain sends to its lower neighbour (coordinate - 1, periodic) the atoms that lie less than
// range.send_range() above that neighbour's upper boundary, i.e. x[d] - lo < send_range with lo the
// sender's lower boundary. Pulse 1 chooses among the sender's home atoms and everything it received in
// earlier dimensions (so edge and corner atoms travel through them); pulse p > 1 among what it received in
// pulse p - 1 of this dimension. A sender with coordinate 0 adds L[d] to coordinate d of what it sends, so
// receivers see these atoms above their upper boundary. Forces come back through the same pulses in reverse
// order and are added into the sender's `send` atoms (exchange.h).
//
// Direct pulses (an option, where every decomposed dimension needs one pulse): each halo zone comes straight
// from the domain that owns its atoms, one pulse per zone offset o in {0, 1}^3 (decomposed dimensions only,
// o != 0; x the lowest bit of the order): the domain sends to the one at coords - o its home atoms with
// x[d] - lo[d] < range in every d where o[d] = 1. An edge or corner atom then needs one hop instead of one
// per dimension, and no pulse forwards anything, so none waits for another. What a receiver gets is the
// chained plan's, atom for atom and bit for bit, in the same local order (a chained pulse's candidates are
// the home atoms first, then the earlier pulses' atoms in their order, and a forwarder's shift leaves the
// coordinates the next selection tests unchanged): only the pulses that carry them differ (tested).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/box.h"
#include "domdec/grid.h"

namespace halomd::domdec {

// One pulse as one domain sees it: what it sends (to send_to) and what it receives (from recv_from).
struct Pulse {
  int dim = 0;            // 0 x, 1 y, 2 z (a direct pulse: the highest dimension of its offset)
  int pulse = 1;          // 1-based within the dimension (1 for direct pulses)
  IVec3 offset;           // the zone offset its atoms gain: the unit vector of dim, or a direct pulse's o
  int send_to = -1;       // the domain at coords - offset (the lower neighbour in dim)
  int recv_from = -1;     // the domain at coords + offset
  std::vector<int> send;  // this domain's local atoms sent, in this order; forces come back into them
  Vec3 shift;             // added by this domain to the coordinates it sends (nm)
  int recv_start = 0;     // what recv_from sends lands in this domain's local atoms
  int recv_count = 0;     //   [recv_start, recv_start + recv_count), in its send order
};

// One domain's part of the plan: everything a rank needs to run its pulses.
struct DomainPlan {
  int domain = 0;
  IVec3 coords;
  Vec3 lo, hi;  // the home cell (nm)
  int num_home = 0;
  // Per local atom: home atoms first (ascending global index), then each pulse's atoms in pulse order.
  std::vector<int> global;
  std::vector<IVec3> image;   // box images: x_local = x_global + image * L up to rounding (exchange.h has the
                              // exact rule)
  std::vector<Vec3> shift;    // image * L (nm)
  std::vector<IVec3> zone;    // zone offset: how many cells above this domain's cell, per dimension, the
                              // atom's molecule is owned (0 0 0 for home atoms); see zones.h
  std::vector<Pulse> pulses;  // exchange order: x pulses 1..Px, then y, then z (direct: direct_offsets)
  int num_local() const { return static_cast<int>(global.size()); }
};

// The decomposition of one neighbour-search step.
struct DdPlan {
  DdGrid grid;
  Box box;
  HaloRange range;
  IVec3 pulses;         // per dimension; 0 where not decomposed (chained pulses)
  bool direct = false;  // the domains' pulses are direct pulses (one per zone offset)
  std::vector<DomainPlan> domains;
  // The pulses each domain exchanges: the chained ones, or one per zone offset where direct.
  int num_pulses() const;
};

// --- Building blocks: each works on what one domain holds at that stage (an MPI rank can call them). ---

// A domain's plan with its home atoms (ascending global index) and their images; the home atoms' local
// positions are x_global + image * L (place_home in exchange.h).
DomainPlan start_domain(const DdGrid& grid, const Box& box, int domain, std::span<const int> home,
                        std::span<const IVec3> home_image);

// The local atoms pulse `pulse` (1-based) of dimension `dim` chooses from: [first, last).
struct IndexRange {
  int first = 0, last = 0;
};
// dim_start: the domain's number of local atoms when dimension `dim` began.
IndexRange send_candidates(const DomainPlan& plan, int dim, int pulse, int dim_start);

// The candidates i in [first, last) with x_local[i][dim] - lo < range, ascending. threads: up to that many
// OpenMP threads (core/parallel.h: the same result with any count), here and below.
std::vector<int> select_send(std::span<const Vec3> x_local, IndexRange candidates, int dim, double lo,
                             double range, int threads = 1);

// Appends to plan.pulses the pulse (dim, pulse) that sends `send`; recv_start/recv_count stay to be set
// by append_received.
Pulse& add_pulse(DomainPlan& plan, const DdGrid& grid, const Box& box, int dim, int pulse,
                 std::vector<int> send);

// A pulse's name for messages: its dimensions ("x", "y", "xy", ...) and, past the first, its number.
std::string pulse_name(const Pulse& p);

// Direct pulses (above): possible where every decomposed dimension needs one pulse (pulses_per_dim).
bool direct_pulses_possible(const DdGrid& grid, const IVec3& pulses);
// The zone offsets of the direct pulses, in exchange order (the chained plan's receive order).
std::vector<IVec3> direct_offsets(const DdGrid& grid);
// The home atoms i (ascending) with x_local[i][d] - lo[d] < range in every dimension where offset[d] = 1.
std::vector<int> select_send_direct(std::span<const Vec3> x_local, int num_home, const IVec3& offset,
                                    const Vec3& lo, double range, int threads = 1);
// Appends the direct pulse of `offset` that sends `send` (recv_start/recv_count as for add_pulse).
Pulse& add_direct_pulse(DomainPlan& plan, const DdGrid& grid, const Box& box, const IVec3& offset,
                        std::vector<int> send);

// The plan of the same atoms after the box was scaled (pressure coupling between repartitions): the home
// cell, the local atoms' shifts and the pulses' shifts from `box`; the atoms, their order and what each
// pulse sends stay. With the positions scaled alike, this is the plan built in the old box seen in the new
// one, which holds while the drift stays within domdec/drift.h's skin_after_scaling.
void rebox_plan(DomainPlan& plan, const DdGrid& grid, const Box& box);

// What travels at a neighbour-search step for one pulse, already in the receiver's frame.
struct HaloAtoms {
  std::vector<int> global;
  std::vector<IVec3> image;  // sender's image, + 1 in each dimension of the pulse's offset where it wrapped
  std::vector<IVec3> zone;   // sender's zone + the pulse's offset
  std::vector<Vec3> x;       // sender's x_local + shift
};
HaloAtoms pack_sent(const DomainPlan& sender, std::span<const Vec3> x_sender, const Pulse& pulse,
                    int threads = 1);

// Appends the atoms received in `pulse` (this domain's last added pulse) and records their range.
void append_received(DomainPlan& plan, std::vector<Vec3>& x_local, const Box& box, const HaloAtoms& atoms,
                     int threads = 1);
// The same for plan.pulses[pulse], where pulses were added ahead of their atoms (direct pulses, exchanged
// together): the pulses' atoms must still be appended in pulse order.
void append_received_for(DomainPlan& plan, int pulse, std::vector<Vec3>& x_local, const Box& box,
                         const HaloAtoms& atoms, int threads = 1);

// --- The driver: all domains in one process (tests, the local transport, the benchmark). ---

// Assigns whole molecules (assignment.h), measures the margin, validates the grid (InputError) and builds
// every domain's pulses. x: global positions (unwrapped, molecules whole). When x_local is given it
// receives each domain's local positions as the exchange would produce them.
DdPlan build_plan(const DdGrid& grid, const Box& box, std::span<const Vec3> x,
                  std::span<const int> molecule_of_atom, double rlist,
                  std::vector<std::vector<Vec3>>* x_local = nullptr, bool direct = false);

// The same with the first atom of each atom's molecule (first_atoms()) and the range given: range.margin
// must be at least molecule_margin(x, first_atom), else pairs can be missed. direct (here and above): direct
// pulses where direct_pulses_possible (DdPlan::direct says whether they were used), else chained ones.
DdPlan build_plan_with(const DdGrid& grid, const Box& box, std::span<const Vec3> x,
                       std::span<const int> first_atom, const HaloRange& range,
                       std::vector<std::vector<Vec3>>* x_local = nullptr, bool direct = false);

}  // namespace halomd::domdec
