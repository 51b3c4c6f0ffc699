#include "io/mdp.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"

namespace halomd::io {
namespace {

// Keys and enum values are compared as GROMACS does (gmx_strcasecmp_min): case-insensitive, '-' and '_'
// ignored.
std::string normalize(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '-' && c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A number as %g writes it (1.1, not 1.100000).
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

struct Entry {
  std::string key;    // as written
  std::string value;  // trimmed, never empty
  int line = 0;
};

// Options that GROMACS reads but that change nothing in an md run of what halomd supports (minimiser,
// PME/Ewald, constraint-solver, pressure-coupling, free-energy and wall parameters while those features are
// off, group-scheme leftovers, user fields, title): any value is accepted and ignored.
constexpr const char* kNoEffect =
    "title cpp bd-fric niter fcstep nstcgsteep nbfgscorr rtpi shake-sor "
    "shake-tol ewald-rtol-lj lj-pme-comb-rule rcoulomb-switch "
    "table-extension nstcalclr nh-chain-length "
    "print-nose-hoover-chain-variables simulation-part "
    "wall-type wall-r-linpot wall-atomtype wall-density wall-ewald-zfac disre-weighting disre-mixed disre-fc "
    "disre-tau nstdisreout orire-fc orire-tau orire-fitgrp nstorireout couple-moltype couple-lambda0 "
    "couple-lambda1 couple-intramol init-lambda init-lambda-state delta-lambda nstdhdl fep-lambdas "
    "mass-lambdas coul-lambdas vdw-lambdas bonded-lambdas restraint-lambdas temperature-lambdas "
    "calc-lambda-neighbors init-lambda-weights dhdl-print-energy sc-function sc-alpha sc-power sc-r-power "
    "sc-sigma sc-coul sc-gapsys-scale-linpoint-lj sc-gapsys-scale-linpoint-q sc-gapsys-sigma-lj "
    "separate-dhdl-file dhdl-derivatives dh-hist-size dh-hist-spacing simulated-tempering-scaling "
    "sim-temp-low sim-temp-high user1-grps user2-grps userint1 userint2 userint3 userint4 userreal1 "
    "userreal2 userreal3 userreal4 mts-levels mts-level2-forces mts-level2-factor qmmm-grps andersen-seed ";

// Entries GROMACS 2022's grompp ignores as obsolete (readir.cpp), found in older .mdp files such as many
// tutorials' (ns_type = grid): accepted and ignored, as there.
constexpr const char* kObsolete =
    "domain-decomposition dihre dihre-fc dihre-tau nstdihreout optimize-fft adress-type adress-const-wf "
    "adress-ex-width adress-hy-width adress-ex-forcecap adress-interface-correction adress-site "
    "adress-reference-coords adress-tf-grp-names adress-cg-grp-names adress-do-hybridpairs rlistlong "
    "pull-print-com2 gb-algorithm nstgbradii rgbradii gb-epsilon-solvent gb-saltconc gb-obc-alpha "
    "gb-obc-beta "
    "gb-obc-gamma gb-dielectric-offset sa-algorithm sa-surface-tension ns-type ";

// Options accepted only at their GROMACS default, which is what halomd does; anything else is refused by
// name. Grouped by that default: no (or false), 0 (every number of the value), empty.
enum class Only { No, Zero, Empty };
constexpr const char* kOnlyNo =
    "free-energy implicit-solvent mts periodic-molecules qmmm morse pull awh rotation disre "
    "orire simulated-tempering swapcoords adress density-guided-simulation-active qmmm-cp2k-active ";
constexpr const char* kOnlyZero = "init-step nwall cos-acceleration deform ";
constexpr const char* kOnlyEmpty = "acc-grps accelerate imd-group energygrp-excl energygrp-table ";

class MdpReader {
 public:
  explicit MdpReader(std::string path) : path_(std::move(path)) { register_options(); }

  void read();
  MdParams result() {
    derive();
    return p_;
  }

 private:
  using Handler = std::function<void(const Entry&)>;
  [[noreturn]] void fail(int line, const std::string& msg) const { throw InputError(path_, line, msg); }
  [[noreturn]] void refuse(const Entry& e, const std::string& supported) const {
    fail(e.line, e.key + " = " + e.value + " is not supported (" + supported + ")");
  }
  double real(const Entry& e) const;
  int64_t int64(const Entry& e) const;
  int integer(const Entry& e) const;
  bool yes_no(const Entry& e) const;
  // The value of an enum option among `names` (GROMACS spellings, compared normalised): its index.
  int choice(const Entry& e, const std::vector<std::string>& names) const;
  std::vector<double> reals(const Entry& e) const;
  // One or two numbers (xy and z for semi-isotropic coupling; GROMACS reads more for other types).
  void one_or_two(const Entry& e, double out[2]);
  // A group option: one group, recorded for the check against the topology (it must hold every atom).
  void group(const Entry& e);
  void default_only(const Entry& e, Only only) const;
  void register_options();
  void derive_pme();
  void derive_annealing(MdParams& p);
  std::string ewald_geometry_ = "3d";
  double epsilon_surface_ = 0.0;
  // Registers an option under its name and old names (all count as one option for duplicates).
  void add(const std::vector<std::string>& keys, Handler h) {
    for (const std::string& k : keys) {
      handlers_[normalize(k)] = h;
      canonical_[normalize(k)] = normalize(keys.front());
    }
  }
  int line_of(const char* key) const {
    auto it = line_.find(normalize(key));
    return it == line_.end() ? 0 : it->second;
  }
  bool given(const char* key) const { return line_.count(normalize(key)) > 0; }
  void derive();

  std::string path_;
  MdParams p_;
  std::map<std::string, Handler> handlers_;
  std::map<std::string, std::string> canonical_;  // normalised name or old name -> normalised name
  std::map<std::string, int> line_;               // normalised key -> line it was given on
  std::map<std::string, int> value_counts_;  // normalised key -> number of values (compressibility, ref-p)
  Entry pcoupltype_;                         // checked when pressure coupling is on
  std::vector<double> anneal_time_, anneal_temp_;  // every annealed group's points, in group order
};

double MdpReader::real(const Entry& e) const {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(e.value.c_str(), &end);
  if (end != e.value.c_str() + e.value.size() || errno == ERANGE || !std::isfinite(v))
    fail(e.line, e.key + " = " + e.value + ": expected a number");
  return v;
}

int64_t MdpReader::int64(const Entry& e) const {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(e.value.c_str(), &end, 10);
  if (end != e.value.c_str() + e.value.size() || errno == ERANGE)
    fail(e.line, e.key + " = " + e.value + ": expected an integer");
  return v;
}

int MdpReader::integer(const Entry& e) const {
  const int64_t v = int64(e);
  if (v < INT_MIN || v > INT_MAX)
    fail(e.line, e.key + " = " + e.value + ": expected an integer that fits 32 bits");
  return static_cast<int>(v);
}

bool MdpReader::yes_no(const Entry& e) const { return choice(e, {"no", "yes"}) == 1; }

int MdpReader::choice(const Entry& e, const std::vector<std::string>& names) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (normalize(names[i]) == normalize(e.value)) return static_cast<int>(i);
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  refuse(e, "supported: " + list);
}

void MdpReader::one_or_two(const Entry& e, double out[2]) {
  const std::vector<std::string> w = words(e.value);
  if (w.empty() || w.size() > 6) fail(e.line, e.key + " = " + e.value + ": expected 1 to 6 values");
  // isotropic: the first; semiisotropic: xy and z (GROMACS's layouts: 1, 2, or 6 for the other types).
  for (size_t k = 0; k < w.size() && k < 2; ++k) out[k] = real(Entry{e.key, w[k], e.line});
  if (w.size() == 1) out[1] = out[0];
  value_counts_[normalize(e.key)] = static_cast<int>(w.size());
}

std::vector<double> MdpReader::reals(const Entry& e) const {
  std::vector<double> out;
  for (const std::string& w : words(e.value)) out.push_back(real(Entry{e.key, w, e.line}));
  return out;
}

void MdpReader::group(const Entry& e) {
  if (words(e.value).size() != 1)
    refuse(e, "supported: one group holding every atom (System, or e.g. SOL or Water in a water box)");
  p_.groups.push_back({e.key, e.value, e.line});
}

void MdpReader::default_only(const Entry& e, Only only) const {
  switch (only) {
    case Only::No:
      for (const std::string& w : words(e.value))
        if (normalize(w) != "no" && normalize(w) != "false")
          refuse(e, "halomd accepts only " + e.key + " = no");
      return;
    case Only::Zero:
      for (const std::string& w : words(e.value)) {
        char* end = nullptr;
        const double v = std::strtod(w.c_str(), &end);
        if (end != w.c_str() + w.size() || v != 0.0) refuse(e, "halomd accepts only " + e.key + " = 0");
      }
      return;
    case Only::Empty:
      refuse(e, "halomd accepts only an empty " + e.key);
  }
}

void MdpReader::register_options() {
  for (const std::string& k : words(kNoEffect)) add({k}, [](const Entry&) {});
  for (const std::string& k : words(kObsolete)) add({k}, [](const Entry&) {});
  const std::pair<const char*, Only> only_default[] = {
      {kOnlyNo, Only::No}, {kOnlyZero, Only::Zero}, {kOnlyEmpty, Only::Empty}};
  for (const auto& [names, only] : only_default)
    for (const std::string& k : words(names))
      add({k}, [this, only = only](const Entry& e) { default_only(e, only); });
  add({"energygrps"}, [this](const Entry& e) {
    if (words(e.value).size() <= 1) return group(e);
    p_.energygrps = words(e.value);
    p_.energygrps_line = e.line;
  });
  add({"integrator"}, [this](const Entry& e) {
    const Integrator kinds[] = {Integrator::Md, Integrator::Sd, Integrator::Steep};
    p_.integrator = kinds[choice(e, {"md", "sd", "steep"})];
    p_.integrator_line = e.line;
  });
  add({"emtol"}, [this](const Entry& e) { p_.emtol = real(e); });
  add({"emstep"}, [this](const Entry& e) { p_.emstep = real(e); });
  add({"dt"}, [this](const Entry& e) { p_.dt = real(e); });
  add({"nsteps"}, [this](const Entry& e) { p_.nsteps = int64(e); });
  add({"tinit"}, [this](const Entry& e) { p_.tinit = real(e); });
  add({"cutoff-scheme"}, [this](const Entry& e) { choice(e, {"Verlet"}); });
  add({"nstlist"}, [this](const Entry& e) { p_.nstlist = integer(e); });
  add({"rlist"}, [this](const Entry& e) {
    p_.rlist = real(e);
    p_.rlist_set = true;
  });
  add({"verlet-buffer-tolerance", "verlet-buffer-drift"},
      [this](const Entry& e) { p_.verlet_buffer_tolerance = real(e); });
  add({"coulombtype"}, [this](const Entry& e) {
    const CoulombType types[] = {CoulombType::ReactionField, CoulombType::CutOff, CoulombType::Pme};
    p_.coulombtype = types[choice(e, {"Reaction-Field", "Cut-off", "PME"})];
    p_.coulombtype_line = e.line;
  });
  add({"fourierspacing"}, [this](const Entry& e) { p_.fourier_spacing = real(e); });
  add({"fourier-nx"}, [this](const Entry& e) { p_.fourier_n[0] = integer(e); });
  add({"fourier-ny"}, [this](const Entry& e) { p_.fourier_n[1] = integer(e); });
  add({"fourier-nz"}, [this](const Entry& e) { p_.fourier_n[2] = integer(e); });
  add({"pme-order"}, [this](const Entry& e) { p_.pme_order = integer(e); });
  add({"ewald-rtol"}, [this](const Entry& e) { p_.ewald_rtol = real(e); });
  // Only PME reads these (checked in derive_pme); GROMACS ignores them with reaction field and cut-off.
  add({"ewald-geometry"}, [this](const Entry& e) { ewald_geometry_ = e.value; });
  add({"epsilon-surface"}, [this](const Entry& e) { epsilon_surface_ = real(e); });
  // With the Verlet scheme reaction field always uses the potential shifted by c_rf, whichever modifier is
  // named; plain cut-off is shifted by 1/rc only with Potential-shift (GROMACS 2022, checked with gmx_d).
  add({"coulomb-modifier"}, [this](const Entry& e) {
    p_.coulomb_modifier = choice(e, {"Potential-shift", "Potential-shift-Verlet", "None"}) == 2
                              ? CoulombModifier::None
                              : CoulombModifier::PotentialShift;
  });
  add({"rcoulomb"}, [this](const Entry& e) { p_.rcoulomb = real(e); });
  add({"epsilon-r"}, [this](const Entry& e) { p_.epsilon_r = real(e); });
  add({"epsilon-rf"}, [this](const Entry& e) { p_.epsilon_rf = real(e); });
  add({"vdwtype"}, [this](const Entry& e) { choice(e, {"Cut-off"}); });
  add({"vdw-modifier"}, [this](const Entry& e) {
    const VdwModifier kinds[] = {VdwModifier::PotentialShift, VdwModifier::PotentialShift, VdwModifier::None,
                                 VdwModifier::ForceSwitch, VdwModifier::PotentialSwitch};
    p_.vdw_modifier = kinds[choice(
        e, {"Potential-shift", "Potential-shift-Verlet", "None", "Force-switch", "Potential-switch"})];
    p_.vdw_modifier_line = e.line;
  });
  add({"rvdw"}, [this](const Entry& e) { p_.rvdw = real(e); });
  add({"rvdw-switch"}, [this](const Entry& e) { p_.rvdw_switch = real(e); });
  add({"DispCorr"}, [this](const Entry& e) {
    const DispCorr values[] = {DispCorr::No, DispCorr::EnerPres, DispCorr::Ener};
    p_.dispcorr = values[choice(e, {"no", "EnerPres", "Ener"})];
  });
  add({"tcoupl"}, [this](const Entry& e) {
    const Tcoupl kinds[] = {Tcoupl::No, Tcoupl::VRescale, Tcoupl::NoseHoover, Tcoupl::Berendsen};
    p_.tcoupl = kinds[choice(e, {"no", "V-rescale", "Nose-Hoover", "Berendsen"})];
    p_.tcoupl_line = e.line;
  });
  add({"tc-grps"}, [this](const Entry& e) {
    // One group must hold every atom (checked with the topology); several must share the atoms out.
    p_.tc_grps = words(e.value);
    p_.tc_grps_line = e.line;
    if (p_.tc_grps.size() == 1) p_.groups.push_back({e.key, e.value, e.line});
  });
  add({"pcoupl"}, [this](const Entry& e) {
    // GROMACS's other barostat (MTTK) is refused by name.
    const int k = choice(e, {"no", "C-rescale", "Parrinello-Rahman", "Berendsen"});
    const Pcoupl kinds[] = {Pcoupl::No, Pcoupl::CRescale, Pcoupl::ParrinelloRahman, Pcoupl::Berendsen};
    p_.pcoupl = kinds[k];
    p_.pcoupl_line = e.line;
  });
  add({"pcoupltype"}, [this](const Entry& e) {
    // Checked against what C-rescale runs only when pressure coupling is on (a leftover is harmless).
    pcoupltype_ = e;
  });
  add({"tau-p"}, [this](const Entry& e) { p_.tau_p = real(e); });
  add({"refcoord-scaling"}, [this](const Entry& e) {
    // Read for position restraints (engine/setup.cpp runs them with no scaling, refuses the others there).
    p_.refcoord_scaling = choice(e, {"no", "all", "com"});
    p_.refcoord_scaling_line = e.line;
  });
  add({"compressibility"}, [this](const Entry& e) { one_or_two(e, p_.compressibility); });
  add({"ref-p"}, [this](const Entry& e) { one_or_two(e, p_.ref_p); });
  add({"nstpcouple"}, [this](const Entry& e) { p_.nstpcouple = integer(e); });
  add({"tau-t"}, [this](const Entry& e) { p_.tau_ts = reals(e); });
  add({"ref-t"}, [this](const Entry& e) { p_.ref_ts = reals(e); });
  add({"nsttcouple"}, [this](const Entry& e) { p_.nsttcouple = integer(e); });
  // Simulated annealing (checked against tc-grps in derive()).
  add({"annealing"}, [this](const Entry& e) {
    p_.annealing.clear();
    const std::vector<std::string> w = words(e.value);
    if (w.size() == 1 && (normalize(w[0]) == "no" || normalize(w[0]) == "n")) return;
    for (const std::string& v : w) {
      const std::string k = normalize(v);
      if (k == "no" || k == "n")
        p_.annealing.push_back(Annealing::No);
      else if (k == "single" || k == "s")
        p_.annealing.push_back(Annealing::Single);
      else if (k == "periodic" || k == "p")
        p_.annealing.push_back(Annealing::Periodic);
      else
        fail(e.line, "annealing = " + e.value + ": each group's is no, single or periodic");
    }
    p_.annealing_line = e.line;
  });
  add({"annealing-npoints"}, [this](const Entry& e) {
    p_.anneal_npoints.clear();
    for (double n : reals(e)) {
      if (n != std::floor(n)) fail(e.line, "annealing-npoints takes whole numbers");
      p_.anneal_npoints.push_back(static_cast<int>(n));
    }
  });
  add({"annealing-time"}, [this](const Entry& e) { anneal_time_ = reals(e); });
  add({"annealing-temp"}, [this](const Entry& e) { anneal_temp_ = reals(e); });
  add({"comm-mode"}, [this](const Entry& e) {
    p_.comm_mode = choice(e, {"Linear", "None"}) == 0 ? CommMode::Linear : CommMode::None;
  });
  add({"nstcomm"}, [this](const Entry& e) { p_.nstcomm = integer(e); });
  add({"comm-grps"}, [this](const Entry& e) {
    p_.comm_grps = words(e.value);
    p_.comm_grps_line = e.line;
  });
  // Frozen atoms (checked against the topology in engine/setup.cpp): freezedim has Y or N for x, y and z of
  // each group, grompp reading only each value's first letter.
  add({"freezegrps"}, [this](const Entry& e) {
    p_.freeze_grps = words(e.value);
    p_.freeze_grps_line = e.line;
  });
  add({"freezedim"}, [this](const Entry& e) {
    p_.freeze_dims.clear();
    p_.freezedim_line = e.line;
    for (const std::string& w : words(e.value)) {
      const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
      if (c != 'Y' && c != 'N') fail(e.line, "freezedim = " + e.value + ": use Y or N for each dimension");
      p_.freeze_dims.push_back(c == 'Y');
    }
  });
  // electric-field-x, -y, -z: E0 omega t0 sigma, as grompp requires all four.
  for (int d = 0; d < 3; ++d)
    add({std::string("electric-field-") + "xyz"[d]}, [this, d](const Entry& e) {
      const std::vector<double> v = reals(e);
      if (v.size() != 4)
        fail(e.line,
             e.key + " = " + e.value + ": give E0 (V/nm), omega (1/ps), t0 (ps) and sigma (ps), as grompp");
      p_.electric_field[d] = {v[0], v[1], v[2], v[3]};
      if (v[0] != 0.0 && (p_.electric_field_line == 0 || e.line < p_.electric_field_line))
        p_.electric_field_line = e.line;  // the first line of a field that is on
    });
  add({"pbc"}, [this](const Entry& e) { choice(e, {"xyz"}); });
  add({"gen-vel"}, [this](const Entry& e) { p_.gen_vel = yes_no(e); });
  add({"gen-temp"}, [this](const Entry& e) { p_.gen_temp = real(e); });
  add({"gen-seed"}, [this](const Entry& e) { p_.gen_seed = int64(e); });
  add({"ld-seed"}, [this](const Entry& e) { p_.ld_seed = int64(e); });
  add({"continuation", "unconstrained-start"}, [this](const Entry& e) { p_.continuation = yes_no(e); });
  add({"constraints"}, [this](const Entry& e) {
    p_.constraints = static_cast<MdParams::Constraints>(choice(e, {"none", "h-bonds", "all-bonds"}));
    p_.constraints_line = e.line;
  });
  add({"constraint-algorithm"}, [this](const Entry& e) {
    p_.constraint_shake = choice(e, {"lincs", "shake"}) == 1;
    p_.constraint_algorithm_line = e.line;
  });
  add({"lincs-order"}, [this](const Entry& e) { p_.lincs_order = integer(e); });
  add({"lincs-iter"}, [this](const Entry& e) { p_.lincs_iter = integer(e); });
  add({"lincs-warnangle"}, [this](const Entry& e) { p_.lincs_warnangle = real(e); });
  add({"nstcalcenergy"}, [this](const Entry& e) { p_.nstcalcenergy = integer(e); });
  add({"nstenergy"}, [this](const Entry& e) { p_.nstenergy = integer(e); });
  add({"nstxout"}, [this](const Entry& e) { p_.nstxout = integer(e); });
  add({"nstvout"}, [this](const Entry& e) { p_.nstvout = integer(e); });
  add({"nstfout"}, [this](const Entry& e) {
    p_.nstfout = integer(e);
    p_.nstfout_line = e.line;
  });
  add({"nstxout-compressed", "nstxtcout"}, [this](const Entry& e) { p_.nstxout_compressed = integer(e); });
  add({"compressed-x-precision", "xtc-precision"},
      [this](const Entry& e) { p_.compressed_x_precision = real(e); });
  add({"compressed-x-grps", "xtc-grps"}, [this](const Entry& e) {
    p_.xtc_groups = words(e.value);  // their atoms (engine/setup.cpp)
    p_.xtc_groups_line = e.line;
  });
  add({"nstlog"}, [this](const Entry& e) { p_.nstlog = integer(e); });
  add({"nstcheckpoint"}, [this](const Entry& e) { p_.nstcheckpoint = int64(e); });
  add({"define"}, [this](const Entry& e) { p_.define = e.value; });
  add({"include"}, [this](const Entry& e) { p_.include = e.value; });
}

void MdpReader::read() {
  std::ifstream in(path_);
  if (!in) fail(0, "cannot open the .mdp file");
  std::string raw;
  std::map<std::string, Entry> seen;
  for (int lineno = 1; std::getline(in, raw); ++lineno) {
    const std::string line = trim(raw.substr(0, raw.find(';')));
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    // Only the first '=' separates: a value may hold more (define = -DA=1).
    if (eq == std::string::npos) fail(lineno, "expected 'option = value', got '" + line + "'");
    Entry e{trim(line.substr(0, eq)), trim(line.substr(eq + 1)), lineno};
    if (e.key.empty()) fail(lineno, "expected 'option = value', the option name is missing");
    // An empty value leaves the option at its default, as in GROMACS (gmx grompp -po writes such lines).
    if (e.value.empty()) continue;
    auto h = handlers_.find(normalize(e.key));
    if (h == handlers_.end()) fail(lineno, "unknown option '" + e.key + "'");
    const std::string key = canonical_.at(h->first);
    if (auto it = seen.find(key); it != seen.end())
      fail(lineno, "option '" + e.key + "' is given twice (first as '" + it->second.key + "' on line " +
                       std::to_string(it->second.line) + ")");
    h->second(e);
    seen.emplace(key, e);
    line_[key] = lineno;
  }
}

// Checks across options, and the settings GROMACS 2022's grompp derives (checked with gmx grompp 2022.5).
void MdpReader::derive() {
  MdParams& p = p_;
  if (p.dt <= 0.0) fail(line_of("dt"), "dt must be positive, got " + num(p.dt));
  // steep takes nsteps = -1: no limit on the trial steps (it stops at emtol or machine precision).
  if (p.nsteps < 0 && !(p.integrator == Integrator::Steep && p.nsteps == -1))
    fail(line_of("nsteps"), "nsteps = -1 (run forever) is not supported: expected nsteps >= 0");
  if (p.nstlist < 1) fail(line_of("nstlist"), "nstlist must be at least 1, got " + std::to_string(p.nstlist));
  if (p.rcoulomb <= 0.0 || p.rvdw <= 0.0)
    fail(line_of(p.rvdw <= 0.0 ? "rvdw" : "rcoulomb"), "rcoulomb and rvdw must be positive cut-offs (nm)");
  // The Verlet scheme with reaction field (or plain cut-off) needs one cut-off for both (grompp refuses too);
  // with PME grompp allows rcoulomb > rvdw, which halomd's kernels do not implement.
  if (p.rvdw != p.rcoulomb)
    fail(std::max(line_of("rvdw"), line_of("rcoulomb")),
         "rvdw (" + num(p.rvdw) + ") must equal rcoulomb (" + num(p.rcoulomb) + ")" +
             (p.coulombtype == CoulombType::Pme ? ": halomd has no PME with rcoulomb > rvdw"
                                                : " with reaction-field or cut-off electrostatics and the "
                                                  "Verlet scheme"));
  if (p.coulombtype == CoulombType::Pme) derive_pme();
  if (p.verlet_buffer_tolerance == 0.0)
    fail(line_of("verlet-buffer-tolerance"),
         "verlet-buffer-tolerance = 0 is not allowed: expected a positive tolerance, or -1 to use rlist");
  if (p.verlet_buffer_tolerance < 0.0 && p.rlist < std::max(p.rvdw, p.rcoulomb))
    fail(line_of("rlist"),
         "with verlet-buffer-tolerance = -1, rlist (" + num(p.rlist) +
             ") must be at least max(rvdw, rcoulomb) = " + num(std::max(p.rvdw, p.rcoulomb)));
  if (p.epsilon_r <= 0.0)
    fail(line_of("epsilon-r"), "epsilon-r must be positive (0, meaning infinity, is not supported)");
  if (p.epsilon_rf < 0.0) fail(line_of("epsilon-rf"), "epsilon-rf must be 0 (infinity) or positive");
  if (p.vdw_modifier == VdwModifier::ForceSwitch || p.vdw_modifier == VdwModifier::PotentialSwitch) {
    const std::string name = p.vdw_modifier == VdwModifier::ForceSwitch ? "Force-switch" : "Potential-switch";
    if (!(p.rvdw_switch >= 0.0 && p.rvdw_switch < p.rvdw))
      fail(line_of("rvdw-switch"),
           "rvdw-switch must be at least 0 and below rvdw with vdw-modifier = " + name);
    // As GROMACS's dispersion correction (which integrates the switched potential from rvdw-switch).
    if (p.dispcorr != DispCorr::No && p.rvdw_switch == 0.0)
      fail(line_of("rvdw-switch"), "rvdw-switch can not be zero with DispCorr and vdw-modifier = " + name);
  }

  if (p.integrator == Integrator::Sd && p.tcoupl != Tcoupl::No) {
    // As grompp: "sd handles temperature coupling implicitly" (a note).
    std::fprintf(stderr,
                 "halomd: note: %s:%d: tcoupl is set to no: integrator = sd couples the temperature itself\n",
                 path_.c_str(), line_of("tcoupl"));
    p.tcoupl = Tcoupl::No;
  }
  if (p.temperature_coupled()) {
    const std::string name = p.integrator == Integrator::Sd  ? "integrator = sd"
                             : p.tcoupl == Tcoupl::VRescale  ? "tcoupl = V-rescale"
                             : p.tcoupl == Tcoupl::Berendsen ? "tcoupl = Berendsen"
                                                             : "tcoupl = Nose-Hoover";
    for (const char* key : {"tc-grps", "tau-t", "ref-t"})
      if (!given(key))
        fail(line_of(p.integrator == Integrator::Sd ? "integrator" : "tcoupl"),
             name + " needs " + key +
                 " (expected tc-grps = System, or another group of every atom, and one tau-t and ref-t)");
    for (const char* key : {"tau-t", "ref-t"}) {
      const size_t n = std::string(key) == "tau-t" ? p.tau_ts.size() : p.ref_ts.size();
      if (n != p.tc_grps.size())
        fail(line_of(key), std::string(key) + " has " + std::to_string(n) + " values for the " +
                               std::to_string(p.tc_grps.size()) +
                               " groups of tc-grps (expected one per group)");
    }
    for (double t : p.tau_ts)
      if (t <= 0.0) fail(line_of("tau-t"), "tau-t must be positive with " + name);
  }
  for (double t : p.ref_ts)
    if (t < 0.0) fail(line_of("ref-t"), "ref-t must not be negative");
  derive_annealing(p);
  if (p.freeze_dims.size() != 3 * p.freeze_grps.size())
    fail(line_of(p.freeze_dims.empty() ? "freezegrps" : "freezedim"),
         "freezedim has " + std::to_string(p.freeze_dims.size()) + " values for the " +
             std::to_string(p.freeze_grps.size()) +
             " groups of freezegrps (expected Y or N for x, y and z of each group)");
  // The first group's values serve where one temperature is meant (C-rescale's kT, as GROMACS 2022).
  if (!p.tau_ts.empty()) p.tau_t = p.tau_ts[0];
  if (!p.ref_ts.empty()) p.ref_t = p.ref_ts[0];
  if (p.gen_temp < 0.0) fail(line_of("gen-temp"), "gen-temp must not be negative");
  // nsttcouple = -1 as gmx grompp 2022.5 writes it (probed over tau-t and dt by test_io_mdp's
  // NsttcoupleDefaultIsGromppsChoice): 10 steps, whatever nstlist is, unless the shortest tau-t is at most
  // 10 dt; then a thermostat that wants nmin steps per tau-t (tcouple_min_steps: Berendsen 5, Nose-Hoover 20)
  // couples every tau-t / (nmin dt) steps, at least 1, lowered to a divisor of 10. V-rescale keeps 10.
  if (p.nsttcouple == -1) {
    p.nsttcouple = 10;
    const int nmin = tcouple_min_steps(p.tcoupl);
    if (nmin > 0 && !p.tau_ts.empty()) {
      const double tau_min = *std::min_element(p.tau_ts.begin(), p.tau_ts.end());
      // The small allowances keep a tau-t of exactly 10 dt (or 2 x 5 dt) on grompp's side of the rounding.
      if (tau_min <= 10 * p.dt * (1 + 1e-6)) {
        p.nsttcouple = std::max(1, static_cast<int>(tau_min / (nmin * p.dt) + 1e-6));
        while (10 % p.nsttcouple != 0) --p.nsttcouple;
      }
    }
  }
  if (p.nsttcouple < 1) fail(line_of("nsttcouple"), "nsttcouple must be positive, or -1 for the default");

  const std::pair<const char*, int64_t> intervals[] = {{"nstcalcenergy", p.nstcalcenergy},
                                                       {"nstenergy", p.nstenergy},
                                                       {"nstlog", p.nstlog},
                                                       {"nstxout-compressed", p.nstxout_compressed},
                                                       {"nstxout", p.nstxout},
                                                       {"nstvout", p.nstvout},
                                                       {"nstfout", p.nstfout},
                                                       {"nstcheckpoint", p.nstcheckpoint}};
  for (const auto& [key, value] : intervals)
    if (value < 0) fail(line_of(key), std::string(key) + " must not be negative (0 means never)");
  if (p.compressed_x_precision <= 0.0)
    fail(line_of("compressed-x-precision"), "compressed-x-precision must be positive");
  // grompp lowers nstcalcenergy to nstenergy when energies are written more often than computed (a note),
  // and wants nstenergy a multiple of nstcalcenergy (a warning, so an error without -maxwarn): refused here.
  if (p.nstenergy > 0 && p.nstcalcenergy > p.nstenergy) p.nstcalcenergy = p.nstenergy;
  if (p.nstenergy > 0 && p.nstcalcenergy > 0 && p.nstenergy % p.nstcalcenergy != 0)
    fail(line_of("nstenergy"), "nstenergy (" + std::to_string(p.nstenergy) +
                                   ") must be a multiple of nstcalcenergy (" +
                                   std::to_string(p.nstcalcenergy) + ")");
  // nstcomm = 0 turns centre-of-mass motion removal off, as in GROMACS. A negative nstcomm (a grompp warning)
  // is refused. nstcomm < nstcalcenergy is kept: grompp 2022 only notes that it costs extra work.
  if (p.nstcomm < 0)
    fail(line_of("nstcomm"), "nstcomm must not be negative (use comm-mode to choose the mode)");
  if (p.nstcomm == 0) p.comm_mode = CommMode::None;
  if (p.pcoupl != Pcoupl::No) {
    const std::string barostat = p.pcoupl == Pcoupl::CRescale    ? "C-rescale"
                                 : p.pcoupl == Pcoupl::Berendsen ? "Berendsen"
                                                                 : "Parrinello-Rahman";
    if (pcoupltype_.line > 0)
      p.pcoupltype = choice(pcoupltype_, {"isotropic", "semiisotropic"}) == 0 ? PcouplType::Isotropic
                                                                              : PcouplType::SemiIsotropic;
    if (p.pcoupltype == PcouplType::SemiIsotropic)
      for (const char* key : {"compressibility", "ref-p"}) {
        auto it = value_counts_.find(normalize(key));
        if (it != value_counts_.end() && it->second != 2)
          fail(line_of(key), std::string(key) + ": pcoupltype = semiisotropic takes two values (xy and z)");
      }
    // As grompp 2022 (readir.cpp): C-rescale needs a thermostat (Parrinello-Rahman without one is NPH), tau-p
    // and the compressibility must be positive; nstpcouple = -1 is ir_optimal_nstpcouple: 10, or fewer (a
    // divisor of 10) when tau-p < 10 x 10 dt.
    if (p.integrator == Integrator::Sd && p.pcoupl == Pcoupl::ParrinelloRahman)
      fail(
          p.pcoupl_line,
          "pcoupl = Parrinello-Rahman with integrator = sd is not supported (C-rescale and Berendsen are, or "
          "integrator = md with Nose-Hoover)");
    if (!p.temperature_coupled() && p.pcoupl == Pcoupl::CRescale)
      fail(p.pcoupl_line, "pcoupl = " + barostat +
                              " needs temperature coupling (tcoupl = V-rescale, Nose-Hoover or Berendsen, or "
                              "integrator = sd), as in "
                              "GROMACS");
    if (p.tau_p <= 0.0) fail(line_of("tau-p"), "tau-p must be positive");
    // As grompp: one direction of a semi-isotropic pair may be 0 (that direction keeps its length).
    const bool semi = p.pcoupltype == PcouplType::SemiIsotropic;
    if (p.compressibility[0] < 0.0 || p.compressibility[1] < 0.0 ||
        (p.compressibility[0] == 0.0 && (!semi || p.compressibility[1] == 0.0)))
      fail(given("compressibility") ? line_of("compressibility") : p.pcoupl_line,
           "compressibility must be > 0 when using pressure coupling " + barostat +
               " (e.g. 4.5e-5 1/bar for water; one of a semiisotropic pair may be 0)");
    if (p.nstpcouple == -1) {
      const int want =
          10 * p.dt <= p.tau_p ? 10 : std::max(1, static_cast<int>(p.tau_p / (10 * p.dt) + 0.001));
      p.nstpcouple = want;
      while (10 % p.nstpcouple != 0) --p.nstpcouple;
    }
    if (p.nstpcouple < 1) fail(line_of("nstpcouple"), "nstpcouple must be at least 1 (or -1)");
  }
  if (p.lincs_order < 1) fail(line_of("lincs-order"), "lincs-order must be at least 1");
  if (p.lincs_iter < 0) fail(line_of("lincs-iter"), "lincs-iter must not be negative");
  if (p.lincs_warnangle <= 0.0 || p.lincs_warnangle > 90.0)
    fail(line_of("lincs-warnangle"), "lincs-warnangle must be above 0 and at most 90 degrees");
}

// PME's options, checked as grompp 2022 checks them.
// As grompp 2022 (readir.cpp do_index): one annealing value per tc-grps group; with any group annealed, one
// annealing-npoints value per group (none of 1), as many times and temperatures as the points of all groups
// together, each group's first time not after tinit, its times in order, no negative temperature. halomd
// anneals the reference of v-rescale's and Berendsen's thermostats on the CPU.
void MdpReader::derive_annealing(MdParams& p) {
  if (p.annealing.empty()) return;
  const int line = p.annealing_line;
  if (p.annealing.size() != p.tc_grps.size())
    fail(line, "annealing has " + std::to_string(p.annealing.size()) + " values for the " +
                   std::to_string(p.tc_grps.size()) + " groups of tc-grps (expected one per group)");
  if (!p.annealed()) return;
  if (p.integrator == Integrator::Sd || p.tcoupl == Tcoupl::NoseHoover || p.tcoupl == Tcoupl::No)
    fail(line, "annealing is supported with tcoupl = V-rescale or Berendsen (integrator = md)");
  if (p.anneal_npoints.size() != p.annealing.size())
    fail(line_of("annealing-npoints"), "annealing-npoints has " + std::to_string(p.anneal_npoints.size()) +
                                           " values for the " + std::to_string(p.annealing.size()) +
                                           " annealing groups (expected one per group)");
  size_t total = 0;
  for (int n : p.anneal_npoints) {
    if (n == 1 || n < 0)
      fail(line_of("annealing-npoints"), "annealing-npoints: give at least a start and an end point");
    total += static_cast<size_t>(n);
  }
  if (anneal_time_.size() != total)
    fail(line_of("annealing-time"), "annealing-time has " + std::to_string(anneal_time_.size()) +
                                        " values, annealing-npoints asks for " + std::to_string(total));
  if (anneal_temp_.size() != total)
    fail(line_of("annealing-temp"), "annealing-temp has " + std::to_string(anneal_temp_.size()) +
                                        " values, annealing-npoints asks for " + std::to_string(total));
  p.anneal_times.assign(p.annealing.size(), {});
  p.anneal_temps.assign(p.annealing.size(), {});
  size_t k = 0;
  for (size_t g = 0; g < p.annealing.size(); ++g)
    for (int j = 0; j < p.anneal_npoints[g]; ++j, ++k) {
      const double t = anneal_time_[k], temp = anneal_temp_[k];
      if (j == 0 && t > p.tinit + 1e-12)
        fail(line_of("annealing-time"), "annealing-time: a group's first time point is after tinit");
      if (j > 0 && t < p.anneal_times[g].back())
        fail(line_of("annealing-time"), "annealing-time: time points out of order");
      if (temp < 0.0) fail(line_of("annealing-temp"), "annealing-temp: a negative temperature");
      p.anneal_times[g].push_back(t);
      p.anneal_temps[g].push_back(temp);
    }
  for (size_t g = 0; g < p.annealing.size(); ++g)
    if (p.annealing[g] == Annealing::Periodic && p.anneal_times[g].back() <= 0.0)
      fail(line_of("annealing-time"),
           "annealing-time: a periodic group's last time point (its period) must be "
           "positive");
}

void MdpReader::derive_pme() {
  MdParams& p = p_;
  if (p.pme_order < 3 || p.pme_order > 12)
    fail(line_of("pme-order"), "pme-order must be between 3 and 12, got " + std::to_string(p.pme_order));
  if (normalize(ewald_geometry_) != "3d")
    fail(line_of("ewald-geometry"),
         "ewald-geometry = " + ewald_geometry_ + " is not supported with coulombtype = PME (supported: 3d)");
  if (epsilon_surface_ != 0.0)
    fail(line_of("epsilon-surface"), "epsilon-surface = " + num(epsilon_surface_) +
                                         " is not supported with coulombtype = PME (supported: 0)");
  if (!(p.ewald_rtol > 0.0 && p.ewald_rtol < 1.0))
    fail(line_of("ewald-rtol"), "ewald-rtol must be between 0 and 1, got " + num(p.ewald_rtol));
  const char* keys[] = {"fourier-nx", "fourier-ny", "fourier-nz"};
  bool all_given = true;
  for (int d = 0; d < 3; ++d) {
    if (p.fourier_n[d] < 0)
      fail(line_of(keys[d]), std::string(keys[d]) + " must not be negative (0: from fourierspacing)");
    if (p.fourier_n[d] > 0 && p.fourier_n[d] < 2 * (p.pme_order - 1))
      fail(line_of(keys[d]), std::string(keys[d]) + " = " + std::to_string(p.fourier_n[d]) +
                                 " is too small: PME needs at least 2 (pme-order - 1) = " +
                                 std::to_string(2 * (p.pme_order - 1)) + " grid points per dimension");
    all_given = all_given && p.fourier_n[d] > 0;
  }
  if (!all_given && !(p.fourier_spacing > 0.0))
    fail(line_of("fourierspacing"),
         "fourierspacing must be positive unless fourier-nx, -ny and -nz are all set");
}

}  // namespace

MdParams read_mdp(const std::string& path) {
  MdpReader reader(path);
  reader.read();
  return reader.result();
}

}  // namespace halomd::io
