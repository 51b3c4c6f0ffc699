#include "io/top_parser.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/errors.h"
#include "io/top_bonded.h"

namespace halomd::io {
namespace {

// Directive names compare as in GROMACS: case-insensitive, '-' and '_' ignored.
std::string normalize(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '-' && c != '_' && c != ' ')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// What a directive holds; Skipped and Interaction cover many names each.
enum class Kind {
  Defaults,
  AtomTypes,
  NonbondParams,
  MoleculeType,
  Atoms,
  Settles,
  Exclusions,
  System,
  Molecules,
  Intermolecular,
  ParamType,
  CmapType,
  Skipped,
  Interaction
};

// Interaction directives, each with its number of atoms per entry (top_bonded.cpp runs some function types of
// [ bonds ], [ angles ], [ dihedrals ] and [ pairs ]; the others are parsed, and refused when used).
constexpr const char* kInteractions =
    "bonds 2 pairs 2 pairs_nb 2 angles 3 dihedrals 4 constraints 2 position_restraints 1 "
    "virtual_sites1 2 virtual_sites2 3 virtual_sites3 4 virtual_sites4 5 virtual_sitesn 1 dummies2 3 "
    "dummies3 4 dummies4 5 dummiesn 1 cmap 5 polarization 2 water_polarization 1 thole_polarization 4 "
    "distance_restraints 2 dihedral_restraints 4 orientation_restraints 2 angle_restraints 4 "
    "angle_restraints_z 2 ";

// Parameter-type directives read for the interactions halomd runs (top_bonded.cpp).
constexpr const char* kParamTypes = "bondtypes angletypes dihedraltypes pairtypes constrainttypes";

// Parameter-type directives only used by interactions halomd cannot run, so skipped unread.
constexpr const char* kSkipped = "implicit_genborn_params implicit_surface_params";

// [ bonds ] function types that are chemical bonds (they count for nrexcl), as GROMACS's IF_CHEMBOND.
bool is_chemical_bond(int funct) {
  return funct == 1 || funct == 2 || funct == 3 || funct == 4 || funct == 5 || funct == 7 || funct == 8;
}

// The whitespace-separated fields of one line of a directive, with checked conversions.
class Fields {
 public:
  Fields(const TopLine& line, const PreprocessedTop& top, const std::string& directive)
      : line_(line), top_(top), directive_(directive) {
    std::istringstream in(line.text);
    for (std::string w; in >> w;) f_.push_back(w);
  }
  size_t size() const { return f_.size(); }
  const std::string& str(size_t k) const { return f_[k]; }
  const std::vector<std::string>& words() const { return f_; }
  std::vector<std::string> words_from(size_t k) const {
    return k < f_.size() ? std::vector<std::string>(f_.begin() + k, f_.end()) : std::vector<std::string>{};
  }
  std::string where() const { return top_.file_of(line_) + ":" + std::to_string(line_.line); }
  std::pair<std::string, int> file_line() const { return {top_.file_of(line_), line_.line}; }
  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError(top_.file_of(line_), line_.line, directive_ + ": " + msg);
  }
  void require(size_t n, const char* layout) const {
    if (f_.size() < n)
      fail("expected at least " + std::to_string(n) + " fields (" + layout + "), got " +
           std::to_string(f_.size()));
  }
  double real(size_t k, const char* what) const {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(f_[k].c_str(), &end);
    if (end != f_[k].c_str() + f_[k].size() || errno == ERANGE || !std::isfinite(v))
      fail("field " + std::to_string(k + 1) + " (" + what + ") is not a number: '" + f_[k] + "'");
    return v;
  }
  int integer(size_t k, const char* what) const {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(f_[k].c_str(), &end, 10);
    if (end != f_[k].c_str() + f_[k].size() || errno == ERANGE || v < -2147483647L || v > 2147483647L)
      fail("field " + std::to_string(k + 1) + " (" + what + ") is not an integer: '" + f_[k] + "'");
    return static_cast<int>(v);
  }
  // A 1-based atom index of a molecule with natoms atoms, returned 0-based.
  int atom(size_t k, int natoms) const {
    const int a = integer(k, "atom index");
    if (a < 1 || a > natoms)
      fail("atom index " + std::to_string(a) + " out of range: the molecule has " + std::to_string(natoms) +
           " atoms");
    return a - 1;
  }

 private:
  const TopLine& line_;
  const PreprocessedTop& top_;
  std::string directive_;
  std::vector<std::string> f_;
};

class Parser {
 public:
  explicit Parser(const PreprocessedTop& top) : top_(top) {
    const std::pair<const char*, Kind> named[] = {{"defaults", Kind::Defaults},
                                                  {"atomtypes", Kind::AtomTypes},
                                                  {"nonbond_params", Kind::NonbondParams},
                                                  {"moleculetype", Kind::MoleculeType},
                                                  {"atoms", Kind::Atoms},
                                                  {"settles", Kind::Settles},
                                                  {"exclusions", Kind::Exclusions},
                                                  {"system", Kind::System},
                                                  {"molecules", Kind::Molecules},
                                                  {"intermolecular_interactions", Kind::Intermolecular},
                                                  {"cmaptypes", Kind::CmapType}};
    for (const auto& [name, kind] : named) kinds_[normalize(name)] = kind;
    std::istringstream skipped(kSkipped);
    for (std::string name; skipped >> name;) kinds_[normalize(name)] = Kind::Skipped;
    std::istringstream param_types(kParamTypes);
    for (std::string name; param_types >> name;) kinds_[normalize(name)] = Kind::ParamType;
    std::istringstream interactions(kInteractions);
    for (std::string name; interactions >> name;) {
      kinds_[normalize(name)] = Kind::Interaction;
      interactions >> nral_[normalize(name)];
    }
  }

  TopData run();

 private:
  void header(const TopLine& line, size_t order);
  void entry(const TopLine& line);
  void defaults(const Fields& f);
  void atom_type(const Fields& f);
  void nonbond_param(const Fields& f);
  void molecule_type(const Fields& f, const TopLine& line);
  void atom(const Fields& f);
  void settle(const Fields& f);
  void exclusion(const Fields& f);
  void molecule(const Fields& f);
  void interaction(const Fields& f);
  void cmap_type(const Fields& f);
  void virtual_site(const Fields& f, TopMoleculeType& m, const std::vector<int>& atoms, int funct);
  void virtual_site_n(const Fields& f, TopMoleculeType& m);
  void add_vsite(const Fields& f, TopMoleculeType& m, const VirtualSite& v);
  TopMoleculeType& current(const Fields& f) {
    if (d_.molecule_types.empty())
      f.fail("found before any [ moleculetype ] (expected [ moleculetype ] first)");
    return d_.molecule_types.back();
  }
  const TopAtomType& known_type(const Fields& f, size_t k) const {
    auto it = d_.atom_types.find(f.str(k));
    if (it == d_.atom_types.end()) f.fail("unknown atom type '" + f.str(k) + "' (not in any [ atomtypes ])");
    return it->second;
  }

  const PreprocessedTop& top_;
  TopData d_;
  std::map<std::string, Kind> kinds_;
  std::map<std::string, int> nral_;
  // The directive being read: its kind, normalised name, "[ name ]" as written, and where its header is.
  Kind kind_ = Kind::Skipped;
  std::string name_, shown_, where_;
  size_t order_ = 0;
  std::string intermolecular_where_;  // where [ intermolecular_interactions ] began
  size_t intermolecular_order_ = 0;
  bool have_directive_ = false, have_defaults_ = false, intermolecular_ = false;
};

TopData Parser::run() {
  for (size_t i = 0; i < top_.lines.size(); ++i) {
    const TopLine& line = top_.lines[i];
    if (line.text[0] == '[')
      header(line, i);
    else
      entry(line);
  }
  for (const TopMoleculeType& m : d_.molecule_types)
    if (m.atoms.empty())
      throw InputError(m.file, m.line,
                       "[ moleculetype ] " + m.name + " has no [ atoms ] (expected at least one atom)");
  return std::move(d_);
}

void Parser::header(const TopLine& line, size_t order) {
  const size_t close = line.text.find(']');
  if (close == std::string::npos || close + 1 != line.text.size())
    throw InputError(top_.file_of(line), line.line,
                     "expected a directive as '[ name ]', got '" + line.text + "'");
  std::string name = line.text.substr(1, close - 1);
  name.erase(0, name.find_first_not_of(" \t"));
  name.erase(name.find_last_not_of(" \t") + 1);
  auto it = kinds_.find(normalize(name));
  if (it == kinds_.end())
    throw InputError(top_.file_of(line), line.line, "unknown directive [ " + name + " ]");
  kind_ = it->second;
  name_ = normalize(name);
  shown_ = "[ " + name + " ]";
  where_ = top_.file_of(line) + ":" + std::to_string(line.line);
  order_ = order;
  have_directive_ = true;
  if (kind_ == Kind::Intermolecular) {
    intermolecular_ = true;
    intermolecular_where_ = where_;
    intermolecular_order_ = order;
  }
  if (kind_ == Kind::MoleculeType || kind_ == Kind::System || kind_ == Kind::Molecules)
    intermolecular_ = false;
}

void Parser::entry(const TopLine& line) {
  // Text before the first directive is ignored, as grompp does (GROMACS's AMBER and CHARMM files start with
  // a banner of '*' lines).
  if (!have_directive_) return;
  const Fields f(line, top_, shown_);
  switch (kind_) {
    case Kind::Defaults:
      return defaults(f);
    case Kind::AtomTypes:
      return atom_type(f);
    case Kind::NonbondParams:
      return nonbond_param(f);
    case Kind::MoleculeType:
      return molecule_type(f, line);
    case Kind::Atoms:
      return atom(f);
    case Kind::Settles:
      return settle(f);
    case Kind::Exclusions:
      return exclusion(f);
    case Kind::System:
      d_.system_name += (d_.system_name.empty() ? "" : " ") + line.text;
      return;
    case Kind::Molecules:
      return molecule(f);
    case Kind::Intermolecular:
      f.fail("expected interaction directives such as [ bonds ] inside it, not entries");
    case Kind::ParamType:
      return add_param_type(d_, name_, f.words(), [&f](const std::string& msg) { f.fail(msg); });
    case Kind::CmapType:
      return cmap_type(f);
    case Kind::Skipped:
      return;
    case Kind::Interaction:
      return interaction(f);
  }
}

void Parser::defaults(const Fields& f) {
  if (have_defaults_) f.fail("a second [ defaults ] (expected one, before [ atomtypes ])");
  have_defaults_ = true;
  f.require(2, "nbfunc comb-rule [gen-pairs fudgeLJ fudgeQQ]");
  if (f.integer(0, "nbfunc") != 1)
    f.fail("nbfunc = " + f.str(0) + " is not supported (expected 1, Lennard-Jones)");
  d_.comb_rule = f.integer(1, "comb-rule");
  if (d_.comb_rule < 1 || d_.comb_rule > 3) f.fail("comb-rule = " + f.str(1) + ": expected 1, 2 or 3");
  if (f.size() > 2) {
    const std::string g = normalize(f.str(2));
    if (g != "yes" && g != "no") f.fail("gen-pairs = " + f.str(2) + ": expected yes or no");
    d_.gen_pairs = g == "yes";
  }
  if (f.size() > 3) d_.fudge_lj = f.real(3, "fudgeLJ");
  if (f.size() > 4) d_.fudge_qq = f.real(4, "fudgeQQ");
}

// Layouts differ between force fields (with or without bonded type and atomic number), so fields are found
// from the end: ... mass charge ptype V W, with the name first.
void Parser::atom_type(const Fields& f) {
  if (!have_defaults_)
    f.fail("found before [ defaults ] (expected [ defaults ] first: it sets the combination rule)");
  f.require(6, "name [bonded-type] [at.num] mass charge ptype V W");
  const size_t n = f.size();
  const std::string ptype = normalize(f.str(n - 3));
  if (ptype != "a" && ptype != "s" && ptype != "v" && ptype != "d")
    f.fail("expected the particle type (A, S, V or D) as the third field from the end, got '" + f.str(n - 3) +
           "'");
  TopAtomType t;
  t.mass = f.real(n - 5, "mass");
  t.charge = f.real(n - 4, "charge");
  t.v = f.real(n - 2, "V");
  t.w = f.real(n - 1, "W");
  d_.atom_types[f.str(0)] = t;  // a later definition replaces an earlier one, as in grompp
  // The bonded type (grompp's push_at): a one-letter particle type as the sixth word means the line has
  // both the bonded type and the atomic number; as the fourth, neither; otherwise the second word is the
  // atomic number when it is an integer, else the bonded type. Without one, the type's own name.
  auto one_letter = [&f](size_t k) {
    return f.size() > k && f.str(k).size() == 1 && std::isalpha(static_cast<unsigned char>(f.str(k)[0]));
  };
  bool has_bonded_type = one_letter(5);
  if (!has_bonded_type && !one_letter(3)) {
    char* end = nullptr;
    std::strtol(f.str(1).c_str(), &end, 10);
    has_bonded_type = end != f.str(1).c_str() + f.str(1).size();
  }
  d_.bonded_type[f.str(0)] = has_bonded_type ? f.str(1) : f.str(0);
}

void Parser::nonbond_param(const Fields& f) {
  f.require(5, "type-i type-j func V W");
  known_type(f, 0);
  known_type(f, 1);
  if (f.integer(2, "func") != 1)
    f.fail("func = " + f.str(2) + " is not supported (expected 1, Lennard-Jones)");
  const auto key = std::minmax(f.str(0), f.str(1));
  d_.nonbond_params[{key.first, key.second}] = {f.real(3, "V"), f.real(4, "W")};
}

void Parser::molecule_type(const Fields& f, const TopLine& line) {
  f.require(2, "name nrexcl");
  for (const TopMoleculeType& m : d_.molecule_types)
    if (m.name == f.str(0))
      f.fail("molecule type '" + f.str(0) + "' is defined twice (first at " + m.file + ":" +
             std::to_string(m.line) + ")");
  TopMoleculeType m;
  m.name = f.str(0);
  m.nrexcl = f.integer(1, "nrexcl");
  if (m.nrexcl < 0) f.fail("nrexcl must not be negative, got " + f.str(1));
  m.file = top_.file_of(line);
  m.line = line.line;
  d_.molecule_types.push_back(std::move(m));
}

void Parser::atom(const Fields& f) {
  TopMoleculeType& m = current(f);
  f.require(6, "nr type resnr residue atom cgnr [charge [mass]]");
  const int nr = f.integer(0, "nr");
  if (nr != static_cast<int>(m.atoms.size()) + 1)
    f.fail("atoms must be numbered 1, 2, 3, ... in order: expected " + std::to_string(m.atoms.size() + 1) +
           ", got " + f.str(0));
  const TopAtomType& type = known_type(f, 1);
  f.integer(5, "cgnr");
  TopMoleculeAtom a;
  a.type = f.str(1);
  a.residue = f.str(3);
  a.name = f.str(4);
  // Charge and mass default to the atom type's (grompp does the same); B-state fields are ignored.
  a.charge = f.size() > 6 ? f.real(6, "charge") : type.charge;
  a.mass = f.size() > 7 ? f.real(7, "mass") : type.mass;
  m.atoms.push_back(a);
}

void Parser::settle(const Fields& f) {
  TopMoleculeType& m = current(f);
  f.require(4, "OW funct doh dhh");
  const int natoms = static_cast<int>(m.atoms.size());
  const int o = f.integer(0, "OW");
  if (o < 1 || o + 2 > natoms)
    f.fail("atom index " + f.str(0) +
           " out of range: the oxygen and the two atoms after it must be within the " +
           std::to_string(natoms) + " atoms of the molecule");
  if (f.integer(1, "funct") != 1) f.fail("funct = " + f.str(1) + " is not supported (expected 1)");
  TopSettle s{o - 1, f.real(2, "doh"), f.real(3, "dhh")};
  if (s.d_oh <= 0.0 || s.d_hh <= 0.0) f.fail("doh and dhh must be positive distances (nm)");
  m.settles.push_back(s);
  m.bonds.push_back({s.oxygen, s.oxygen + 1});
  m.bonds.push_back({s.oxygen, s.oxygen + 2});
}

void Parser::exclusion(const Fields& f) {
  TopMoleculeType& m = current(f);
  std::vector<int> atoms;
  for (size_t k = 0; k < f.size(); ++k) atoms.push_back(f.atom(k, static_cast<int>(m.atoms.size())));
  m.exclusions.push_back(std::move(atoms));
}

void Parser::molecule(const Fields& f) {
  f.require(2, "name count");
  const int count = f.integer(1, "count");
  if (count < 0) f.fail("count must not be negative, got " + f.str(1));
  for (size_t i = 0; i < d_.molecule_types.size(); ++i)
    if (d_.molecule_types[i].name == f.str(0)) {
      d_.molecules.push_back({static_cast<int>(i), count});
      return;
    }
  f.fail("unknown molecule '" + f.str(0) + "' (no [ moleculetype ] of that name)");
}

// [ virtual_sites2 ] 1 (site i j a) and [ virtual_sites3 ] 1 (site i j k a b) and 4 (... a b c): the
// parameters written on the line (grompp can also derive some from constraints; halomd cannot), and a
// massless site (ptype D or V), as grompp requires.
void Parser::virtual_site(const Fields& f, TopMoleculeType& m, const std::vector<int>& atoms, int funct) {
  const bool two = name_ == "virtualsites2";
  const size_t nparams = two ? 1 : funct == 4 ? 3 : 2;
  const size_t first = atoms.size() + 1;
  if (f.size() != first + nparams)
    f.fail("expected " + std::to_string(nparams) + " parameters after the function type, got " +
           std::to_string(f.size() < first ? 0 : f.size() - first) +
           " (halomd takes a virtual site's parameters from its line only)");
  VirtualSite v;
  v.kind = two ? VsiteKind::Two : funct == 4 ? VsiteKind::ThreeOut : VsiteKind::Three;
  v.site = atoms[0];
  for (size_t k = 1; k < atoms.size(); ++k) v.atoms[k - 1] = atoms[k];
  for (size_t k = 0; k < nparams; ++k) v.p[k] = f.real(first + k, "virtual site parameter");
  add_vsite(f, m, v);
}

// A site of any kind: massless, as grompp requires, and constructed once.
void Parser::add_vsite(const Fields& f, TopMoleculeType& m, const VirtualSite& v) {
  if (m.atoms[v.site].mass != 0.0)
    f.fail("atom " + std::to_string(v.site + 1) + " is a virtual site but has mass " +
           std::to_string(m.atoms[v.site].mass) + " (expected 0: ptype D or V)");
  for (const VirtualSite& old : m.vsites)
    if (old.site == v.site) f.fail("atom " + std::to_string(v.site + 1) + " is constructed twice");
  m.vsites.push_back(v);
  m.vsite_where.push_back(f.where());
}

// [ virtual_sitesn ]: the site, the function type and its atoms: 1 their centre of geometry, 2 of mass (the
// atoms' masses), 3 of weights (atom weight pairs), as grompp's push_vsitesn.
void Parser::virtual_site_n(const Fields& f, TopMoleculeType& m) {
  const int natoms = static_cast<int>(m.atoms.size());
  VirtualSite v;
  v.kind = VsiteKind::N;
  v.site = f.atom(0, natoms);
  const int funct = f.integer(1, "funct");
  if (funct < 1 || funct > 3)
    f.fail("function type " + f.str(1) + " (expected 1: centre of geometry, 2: of mass, 3: of weights)");
  std::vector<int> atoms;
  std::vector<double> w;
  if (funct == 3) {
    if (f.size() % 2 != 0)
      f.fail("expected pairs of an atom and its weight after the function type (funct 3)");
    for (size_t k = 2; k + 1 < f.size(); k += 2) {
      atoms.push_back(f.atom(k, natoms));
      w.push_back(f.real(k + 1, "weight"));
    }
  } else {
    for (size_t k = 2; k < f.size(); ++k) atoms.push_back(f.atom(k, natoms));
    for (int a : atoms) w.push_back(funct == 1 ? 1.0 : m.atoms[a].mass);
  }
  if (atoms.size() > static_cast<size_t>(kMaxVsiteAtoms))
    f.fail("a site built from " + std::to_string(atoms.size()) + " atoms (halomd takes at most " +
           std::to_string(kMaxVsiteAtoms) + ")");
  double sum = 0.0;
  for (double x : w) sum += x;
  if (!(sum > 0.0)) {
    std::string msg = "the constructing atoms' weights sum to ";
    msg += std::to_string(sum);
    msg += funct == 2 ? " (the centre of mass of massless atoms)" : " (expected a positive sum)";
    f.fail(msg);
  }
  v.n = static_cast<int>(atoms.size());
  for (int k = 0; k < v.n; ++k) {
    v.atoms[k] = atoms[k];
    v.p[k] = w[k] / sum;
  }
  add_vsite(f, m, v);
}

// [ cmaptypes ]: five bonded types, funct 1, the grid's two sizes (equal, as grompp requires) and its values
// (one line, joined from its continuation lines by the preprocessor).
void Parser::cmap_type(const Fields& f) {
  f.require(8, "5 bonded types, funct 1, grid size in phi and psi, values");
  const int funct = f.integer(5, "funct");
  if (funct != 1) f.fail("function type " + std::to_string(funct) + " (expected 1)");
  const int nx = f.integer(6, "grid size in phi"), ny = f.integer(7, "grid size in psi");
  if (nx < 2 || nx != ny)
    f.fail("grid of " + std::to_string(nx) + " x " + std::to_string(ny) +
           " points (expected the same number of points, at least 2, in phi and psi)");
  const size_t want = static_cast<size_t>(nx) * static_cast<size_t>(ny);
  if (f.size() - 8 != want)
    f.fail(std::to_string(f.size() - 8) + " grid values for a grid of " + std::to_string(nx) + " x " +
           std::to_string(ny) + " (expected " + std::to_string(want) + ")");
  if (!d_.cmap_types.empty() && d_.cmap_types.front().spacing != nx)
    f.fail("grid of " + std::to_string(nx) + " points, the earlier [ cmaptypes ] have " +
           std::to_string(d_.cmap_types.front().spacing) + " (GROMACS takes one grid size for all)");
  TopCmapType c;
  c.names.assign(f.words().begin(), f.words().begin() + 5);
  c.spacing = nx;
  for (size_t k = 8; k < f.size(); ++k) c.values.push_back(f.real(k, "grid value"));
  d_.cmap_types.push_back(std::move(c));
}

// Checks the atom indices, records the bonds that make exclusions, and marks the directive as unsupported.
void Parser::interaction(const Fields& f) {
  const bool site_list = name_ == "virtualsitesn" || name_ == "dummiesn";
  const int nral = nral_.at(name_);
  f.require(site_list ? 3 : nral, site_list ? "site funct atoms..." : "atom indices [funct parameters...]");
  if (intermolecular_) {
    for (int k = 0; k < nral; ++k)
      if (f.integer(k, "atom index") < 1)
        f.fail("atom index " + f.str(k) + " out of range: expected at least 1");
    if (d_.unsupported.empty()) {
      d_.unsupported = intermolecular_where_ + ": [ intermolecular_interactions ]";
      d_.unsupported_order = intermolecular_order_;
    }
    return;
  }
  TopMoleculeType& m = current(f);
  if (site_list) return virtual_site_n(f, m);
  const int natoms = static_cast<int>(m.atoms.size());
  std::vector<int> atoms;
  for (size_t k = 0; k < static_cast<size_t>(nral); ++k) atoms.push_back(f.atom(k, natoms));
  const int funct = f.size() > static_cast<size_t>(nral) ? f.integer(nral, "funct") : 1;
  if ((name_ == "virtualsites2" && funct == 1) || (name_ == "virtualsites3" && (funct == 1 || funct == 4)))
    return virtual_site(f, m, atoms, funct);
  if ((name_ == "bonds" && is_chemical_bond(funct)) || (name_ == "constraints" && funct == 1))
    m.bonds.push_back({atoms[0], atoms[1]});
  if (add_interaction(d_, m, name_, atoms, funct, f.words_from(nral + 1),
                      [&f](const std::string& msg) { f.fail(msg); }))
    return;
  if (m.unsupported.empty()) {
    m.unsupported = f.where() + ": " + shown_ + " function type " + std::to_string(funct);
    m.unsupported_order = order_;
  }
}

}  // namespace

TopData parse_top(const PreprocessedTop& top) { return Parser(top).run(); }

}  // namespace halomd::io
