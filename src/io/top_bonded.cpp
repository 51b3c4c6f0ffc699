#include "io/top_bonded.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/units.h"

namespace halomd::io {
namespace {

// What halomd runs of each directive: the A-state parameter count per function type (grompp's nrfpA),
// and the kind of term. Bonds funct 5 is a connection only (exclusions, no energy).
struct FunctInfo {
  int nparams = 0;
  BondedKind kind = BondedKind::Bond;
  bool connection = false;
  bool constraint = false;  // [ constraints ]: the length, for LINCS
};

bool funct_info(const std::string& directive, int funct, FunctInfo* info) {
  if (directive == "bonds") {
    if (funct == 1 || funct == 2) *info = {2, funct == 1 ? BondedKind::Bond : BondedKind::G96Bond, false};
    if (funct == 5) *info = {0, BondedKind::Bond, true};
    if (funct == 6) *info = {2, BondedKind::Harmonic, false};
    return funct == 1 || funct == 2 || funct == 5 || funct == 6;
  }
  if (directive == "angles") {
    if (funct == 1) *info = {2, BondedKind::Angle, false};
    if (funct == 2) *info = {2, BondedKind::G96Angle, false};
    if (funct == 5) *info = {4, BondedKind::UreyBradley, false};
    if (funct == 10) *info = {2, BondedKind::RestrictedAngle, false};
    return funct == 1 || funct == 2 || funct == 5 || funct == 10;
  }
  if (directive == "dihedrals") {
    if (funct == 1 || funct == 9) *info = {3, BondedKind::ProperDih, false};
    if (funct == 2) *info = {2, BondedKind::ImproperDih, false};
    if (funct == 3) *info = {6, BondedKind::RyckaertBell, false};
    if (funct == 4) *info = {3, BondedKind::PeriodicImproper, false};
    return (funct >= 1 && funct <= 4) || funct == 9;
  }
  if (directive == "pairs") {
    if (funct == 1) *info = {2, BondedKind::Pair14, false};
    return funct == 1;
  }
  if (directive == "positionrestraints") {  // [ position_restraints ] (the parser drops the _); the
                                            // references: the run's -r
    if (funct == 1) *info = {3, BondedKind::PosRes, false};
    return funct == 1;
  }
  if (directive == "dihedralrestraints") {  // [ dihedral_restraints ]: type phi dphi kfac (GROMACS >= 2018)
    if (funct == 1) *info = {3, BondedKind::DihRestraint, false};
    return funct == 1;
  }
  if (directive == "cmap") {
    if (funct == 1) *info = {0, BondedKind::Cmap, false};
    return funct == 1;
  }
  if (directive == "constraints") {  // funct 1 also makes exclusions (the parser's bond graph), 2 does not
    *info = {1, BondedKind::Bond, false, true};
    return funct == 1 || funct == 2;
  }
  return false;
}

int num_atoms_of(const std::string& directive) {
  return directive == "angles" ? 3 : directive == "dihedrals" ? 4 : 2;
}

// The list a function type's parameter types are kept in: dihedral funct 1 and 9 share one.
std::string list_key(const std::string& directive, int funct) {
  return directive + " " + std::to_string(directive == "dihedrals" && funct == 1 ? 9 : funct);
}

// The A-state parameters of a line: nA words, or nA plus the B state (nA, or nA - 1 for the periodic
// dihedrals, whose multiplicity is not repeated), of which the B state is dropped.
std::vector<double> a_state(const std::vector<std::string>& words, int na, const TopFail& fail) {
  const int n = static_cast<int>(words.size());
  if (n != na && n != 2 * na && !(na == 3 && n == 5))
    fail("expected " + std::to_string(na) + " parameters (or " + std::to_string(2 * na) +
         " with the B state), got " + std::to_string(n));
  std::vector<double> p;
  for (int k = 0; k < na; ++k) {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(words[k].c_str(), &end);
    if (end != words[k].c_str() + words[k].size() || errno == ERANGE || !std::isfinite(v))
      fail("parameter " + std::to_string(k + 1) + " is not a number: '" + words[k] + "'");
    p.push_back(v);
  }
  return p;
}

bool same_names(const std::vector<std::string>& a, const std::vector<std::string>& b, bool reversed) {
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k] != b[reversed ? b.size() - 1 - k : k]) return false;
  return true;
}

// How many names of a [ dihedraltypes ] entry match the atoms' types exactly, "X" matching any; -1 when
// one does not match.
int dihedral_score(const std::vector<std::string>& entry, const std::vector<std::string>& types,
                   bool reversed) {
  int score = 0;
  for (size_t k = 0; k < 4; ++k) {
    const std::string& e = entry[reversed ? 3 - k : k];
    if (e == "X") continue;
    if (e != types[k]) return -1;
    ++score;
  }
  return score;
}

// The entry for the atoms' types: exact names either way round; for dihedrals the first with the most
// real (non-"X") matches, either way round (toppush.cpp's defaultInteractionsOfType).
const TopParamType* find_type(const std::vector<TopParamType>& list, const std::vector<std::string>& types,
                              bool dihedral) {
  const TopParamType* best = nullptr;
  int best_score = -1;
  for (const TopParamType& e : list) {
    if (!dihedral) {
      if (same_names(e.names, types, false) || same_names(e.names, types, true)) return &e;
      continue;
    }
    const int score = std::max(dihedral_score(e.names, types, false), dihedral_score(e.names, types, true));
    if (score > best_score) {
      best = &e;
      best_score = score;
      if (score == 4) break;
    }
  }
  return best_score >= 0 ? best : nullptr;
}

std::pair<double, double> c6_c12_of(int rule, double v, double w) {
  if (rule == 1) return {v, w};
  const double s6 = std::pow(v, 6);
  return {4.0 * w * s6, 4.0 * w * s6 * s6};
}

// A term from its A-state parameters in the file's units (degrees for angles), in halomd's (radians).
BondedTerm make_term(BondedKind kind, const std::vector<int>& atoms, const std::vector<double>& p) {
  constexpr double kDeg = units::kPi / 180.0;
  BondedTerm t;
  t.kind = kind;
  std::copy(atoms.begin(), atoms.end(), t.atoms);
  switch (kind) {
    case BondedKind::Angle:
      t.p[0] = p[0] * kDeg;
      t.p[1] = p[1];
      break;
    case BondedKind::G96Angle:
    case BondedKind::RestrictedAngle:
      t.p[0] = std::cos(p[0] * kDeg);
      t.p[1] = p[1];
      break;
    case BondedKind::UreyBradley:
      t.p[0] = p[0] * kDeg;
      std::copy(p.begin() + 1, p.begin() + 4, t.p + 1);
      break;
    case BondedKind::ProperDih:
    case BondedKind::PeriodicImproper:
      t.p[0] = p[0] * kDeg;
      t.p[1] = p[1];
      t.p[2] = std::round(p[2]);
      break;
    case BondedKind::ImproperDih:
      t.p[0] = p[0] * kDeg;
      t.p[1] = p[1];
      break;
    case BondedKind::DihRestraint:
      t.p[0] = p[0] * kDeg;
      t.p[1] = p[1] * kDeg;
      t.p[2] = p[2];
      break;
    default:
      std::copy(p.begin(), p.end(), t.p);
  }
  return t;
}

}  // namespace

std::pair<double, double> lj_c6_c12(const TopData& d, const std::string& a, const std::string& b) {
  auto nb = d.nonbond_params.find({std::min(a, b), std::max(a, b)});
  if (nb != d.nonbond_params.end()) return c6_c12_of(d.comb_rule, nb->second.first, nb->second.second);
  const TopAtomType& ta = d.atom_types.at(a);
  const TopAtomType& tb = d.atom_types.at(b);
  if (d.comb_rule == 1) return {std::sqrt(ta.v * tb.v), std::sqrt(ta.w * tb.w)};
  const double sigma = d.comb_rule == 2 ? 0.5 * (ta.v + tb.v) : std::sqrt(ta.v * tb.v);
  return c6_c12_of(d.comb_rule, sigma, std::sqrt(ta.w * tb.w));
}

void add_param_type(TopData& d, const std::string& directive, const std::vector<std::string>& fields,
                    const TopFail& fail) {
  const std::string kind = directive.substr(0, directive.size() - 5) + "s";  // "bondtypes" -> "bonds"
  int nnames = num_atoms_of(kind);
  // The old two-name [ dihedraltypes ]: the third word is the function type.
  if (kind == "dihedrals" && fields.size() > 2 && fields[2].size() == 1 && std::isdigit(fields[2][0]))
    nnames = 2;
  if (static_cast<int>(fields.size()) < nnames + 1)
    fail("expected " + std::to_string(nnames) + " type names and the function type");
  char* end = nullptr;
  const long funct = std::strtol(fields[nnames].c_str(), &end, 10);
  if (end != fields[nnames].c_str() + fields[nnames].size())
    fail("the function type '" + fields[nnames] + "' is not an integer");
  FunctInfo info;
  if (!funct_info(kind, static_cast<int>(funct), &info) || info.connection) return;  // never used by halomd
  TopParamType e;
  e.names.assign(fields.begin(), fields.begin() + nnames);
  if (nnames == 2 && kind == "dihedrals")  // funct 2: atoms i and l; otherwise j and k
    e.names = funct == 2 ? std::vector<std::string>{e.names[0], "X", "X", e.names[1]}
                         : std::vector<std::string>{"X", e.names[0], e.names[1], "X"};
  e.funct = static_cast<int>(funct);
  const std::vector<double> p =
      a_state(std::vector<std::string>(fields.begin() + nnames + 1, fields.end()), info.nparams, fail);
  e.terms.push_back(p);

  std::vector<TopParamType>& list = d.param_types[list_key(kind, e.funct)];
  // A funct 9 line right after one with the same names adds a term to its block.
  if (e.funct == 9 && !list.empty() && list.back().funct == 9 && list.back().names == e.names) {
    list.back().terms.push_back(p);
    return;
  }
  for (TopParamType& old : list) {
    if (!same_names(old.names, e.names, false) && !same_names(old.names, e.names, true)) continue;
    if (old.terms == e.terms) return;  // the same again: dropped, as grompp does
    if (old.funct == 9 || e.funct == 9)
      fail(
          "a second block of parameters for dihedral type 9 and the same types (only consecutive lines make "
          "one block)");
    std::fprintf(stderr,
                 "halomd: warning: [ %s ] %s: defined again with other parameters; the last one is used\n",
                 directive.c_str(), fields[0].c_str());
    old = std::move(e);  // the last definition wins, as in grompp
    return;
  }
  list.push_back(std::move(e));
}

bool add_interaction(const TopData& d, TopMoleculeType& m, const std::string& directive,
                     const std::vector<int>& atoms, int funct, const std::vector<std::string>& params,
                     const TopFail& fail) {
  FunctInfo info;
  if (!funct_info(directive, funct, &info)) return false;
  if (info.connection) return true;
  if (info.kind == BondedKind::Cmap) {
    // The first [ cmaptypes ] entry whose types are the atoms' bonded types in order (toppush.cpp's
    // default_cmap_params: no reversal, no wildcards); no parameters on the line.
    if (!params.empty()) fail("a [ cmap ] entry takes no parameters (they come from [ cmaptypes ])");
    std::vector<std::string> types;
    for (int a : atoms) types.push_back(d.bonded_type.at(m.atoms[a].type));
    for (size_t k = 0; k < d.cmap_types.size(); ++k)
      if (d.cmap_types[k].names == types) {
        BondedTerm t;
        t.kind = BondedKind::Cmap;
        std::copy(atoms.begin(), atoms.end(), t.atoms);
        t.p[0] = static_cast<double>(k);
        m.interactions.push_back(t);
        return true;
      }
    std::string names;
    for (const std::string& t : types) names += " " + t;
    fail("no [ cmaptypes ] entry for the bonded types" + names);
  }
  std::vector<std::vector<double>> sets;
  if (info.kind == BondedKind::PosRes && params.size() != 3 && params.size() != 6)
    fail(
        "a position restraint needs its force constants (fcx fcy fcz, kJ/mol/nm^2; 6 with the B state), "
        "got " +
        std::to_string(params.size()) + " values");
  if (info.kind == BondedKind::DihRestraint && params.size() != 3 && params.size() != 6)
    fail(
        "a dihedral restraint needs phi dphi kfac (degrees, degrees, kJ/mol/rad^2; 6 with the B state), "
        "got " +
        std::to_string(params.size()) + " values");
  if (!params.empty()) {
    sets.push_back(a_state(params, info.nparams, fail));
    if (info.kind == BondedKind::Pair14)
      std::tie(sets[0][0], sets[0][1]) = c6_c12_of(d.comb_rule, sets[0][0], sets[0][1]);
  } else if (info.kind == BondedKind::Pair14) {
    // [ pairtypes ] by atom type, unscaled; else with gen-pairs the LJ pair times fudgeLJ.
    const std::string& a = m.atoms[atoms[0]].type;
    const std::string& b = m.atoms[atoms[1]].type;
    auto it = d.param_types.find(list_key("pairs", 1));
    const TopParamType* e = it == d.param_types.end() ? nullptr : find_type(it->second, {a, b}, false);
    if (e) {
      const auto [c6, c12] = c6_c12_of(d.comb_rule, e->terms[0][0], e->terms[0][1]);
      sets.push_back({c6, c12});
    } else if (d.gen_pairs) {
      const auto [c6, c12] = lj_c6_c12(d, a, b);
      sets.push_back({d.fudge_lj * c6, d.fudge_lj * c12});
    } else {
      fail("no [ pairtypes ] entry for atom types " + a + " " + b + " (and gen-pairs = no)");
    }
  } else {
    std::vector<std::string> types;
    for (int a : atoms) types.push_back(d.bonded_type.at(m.atoms[a].type));
    auto it = d.param_types.find(list_key(directive, funct));
    const TopParamType* e =
        it == d.param_types.end() ? nullptr : find_type(it->second, types, directive == "dihedrals");
    if (!e) {
      std::string names;
      for (const std::string& t : types) names += " " + t;
      fail("no [ " + directive.substr(0, directive.size() - 1) + "types ] entry with function type " +
           std::to_string(funct) + " for the bonded types" + names);
    }
    sets = e->terms;
  }
  if (info.constraint) {
    m.constraints.push_back({atoms[0], atoms[1], sets[0][0]});
    return true;
  }
  for (const std::vector<double>& p : sets) {
    if (info.kind == BondedKind::RyckaertBell &&
        std::all_of(p.begin(), p.end(), [](double c) { return c == 0; }))
      continue;  // grompp drops Ryckaert-Bellemans terms without parameters
    BondedTerm t = make_term(info.kind, atoms, p);
    if (info.kind == BondedKind::Pair14)
      t.p[2] = d.fudge_qq * m.atoms[atoms[0]].charge * m.atoms[atoms[1]].charge;
    m.interactions.push_back(t);
  }
  return true;
}

}  // namespace halomd::io
