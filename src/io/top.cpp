#include "io/top.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/errors.h"
#include "io/cmap_grid.h"
#include "io/top_bonded.h"
#include "io/top_parser.h"
#include "io/top_preprocessor.h"

namespace halomd::io {
namespace {

namespace fs = std::filesystem;

constexpr const char* kGromacsShareTop = "/usr/share/gromacs/top";

// Where #include looks after the including file's folder: -I folders, $GMXLIB, then the GROMACS install.
std::vector<std::string> search_dirs(const TopOptions& options) {
  std::vector<std::string> dirs = options.include_dirs;
  if (const char* lib = std::getenv("GMXLIB")) {
    const std::string s = lib;
    for (size_t b = 0; b <= s.size();) {
      const size_t e = std::min(s.find(':', b), s.size());
      if (e > b) dirs.push_back(s.substr(b, e - b));
      b = e + 1;
    }
  }
  std::error_code ec;
  if (fs::is_directory(kGromacsShareTop, ec)) dirs.push_back(kGromacsShareTop);
  return dirs;
}

void fill_lj(const TopData& d, const std::string& path, Topology& t) {
  const int n = t.num_types();
  t.c6.assign(n * n, 0.0);
  t.c12.assign(n * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const std::string& a = t.type_names[i];
      const std::string& b = t.type_names[j];
      // GROMACS manual, "Non-bonded interactions": the combination rule, or [ nonbond_params ].
      const auto [c6, c12] = lj_c6_c12(d, a, b);
      if (!std::isfinite(c6) || !std::isfinite(c12))
        throw InputError(path, 0,
                         "the Lennard-Jones parameters of atom types " + a + " and " + b +
                             " do not combine to finite C6, C12 (negative sigma or epsilon?)");
      t.c6[i * n + j] = c6;
      t.c12[i * n + j] = c12;
    }
}

// Exclusions of one molecule type, local indices, sorted, without self: atoms up to nrexcl bonds apart over
// the bond graph ([ bonds ], [ constraints ] type 1, [ settles ]), plus [ exclusions ] in both directions.
std::vector<std::vector<int>> local_exclusions(const TopMoleculeType& m) {
  const int n = static_cast<int>(m.atoms.size());
  std::vector<std::vector<int>> neighbours(n);
  for (const auto& [a, b] : m.bonds) {
    neighbours[a].push_back(b);
    neighbours[b].push_back(a);
  }
  std::vector<std::set<int>> excl(n);
  std::vector<int> depth(n, -1);
  for (int start = 0; start < n && m.nrexcl > 0; ++start) {
    std::fill(depth.begin(), depth.end(), -1);
    std::vector<int> frontier{start};
    depth[start] = 0;
    for (int level = 1; level <= m.nrexcl && !frontier.empty(); ++level) {
      std::vector<int> next;
      for (int a : frontier)
        for (int b : neighbours[a])
          if (depth[b] < 0) {
            depth[b] = level;
            next.push_back(b);
            excl[start].insert(b);
          }
      frontier.swap(next);
    }
  }
  for (const std::vector<int>& line : m.exclusions)
    for (size_t k = 1; k < line.size(); ++k) {
      excl[line[0]].insert(line[k]);
      excl[line[k]].insert(line[0]);
    }
  std::vector<std::vector<int>> out(n);
  for (int a = 0; a < n; ++a) {
    excl[a].erase(a);
    out[a].assign(excl[a].begin(), excl[a].end());
  }
  return out;
}

Topology expand(const TopData& d, const std::string& path) {
  Topology t;
  t.system_name = d.system_name;
  int64_t total = 0;
  for (const auto& [mi, count] : d.molecules)
    total += static_cast<int64_t>(count) * d.molecule_types[mi].atoms.size();
  if (total == 0)
    throw InputError(path, 0, "the system has no atoms: expected [ molecules ] with at least one molecule");
  if (total > INT_MAX) throw InputError(path, 0, "the system has more than 2^31 - 1 atoms");
  t.mass.reserve(total);
  t.excl_start.assign(1, 0);

  std::map<std::string, int> type_index;
  std::map<int, std::vector<std::vector<int>>> exclusions;  // per molecule type, made when first used
  size_t unsupported_order = d.unsupported.empty() ? SIZE_MAX : d.unsupported_order;
  t.unsupported = d.unsupported;
  int molecule = 0;
  for (const auto& [mi, count] : d.molecules) {
    const TopMoleculeType& m = d.molecule_types[mi];
    const int natoms = static_cast<int>(m.atoms.size());
    t.molecules.push_back({m.name, count, natoms, t.num_atoms()});
    if (count == 0) continue;
    if (!m.unsupported.empty() && m.unsupported_order < unsupported_order) {
      unsupported_order = m.unsupported_order;
      t.unsupported = m.unsupported;
    }
    if (!exclusions.count(mi)) {
      // Only virtual sites may be massless (grompp refuses any other atom without mass).
      std::vector<char> site(natoms, 0);
      for (const VirtualSite& v : m.vsites) site[v.site] = 1;
      for (int a = 0; a < natoms; ++a)
        if (!(m.atoms[a].mass > 0.0) && !site[a])
          throw InputError(m.file, m.line,
                           "[ moleculetype ] " + m.name + ": atom " + std::to_string(a + 1) + " (" +
                               m.atoms[a].residue + " " + m.atoms[a].name + ") has mass " +
                               std::to_string(m.atoms[a].mass) +
                               " (expected more than 0: only virtual sites may be massless)");
      exclusions[mi] = local_exclusions(m);
    }
    const std::vector<std::vector<int>>& local = exclusions[mi];
    for (int c = 0; c < count; ++c, ++molecule) {
      const int base = t.num_atoms();
      for (int a = 0; a < natoms; ++a) {
        const TopMoleculeAtom& atom = m.atoms[a];
        auto [it, added] = type_index.emplace(atom.type, t.num_types());
        if (added) t.type_names.push_back(atom.type);
        t.mass.push_back(atom.mass);
        t.charge.push_back(atom.charge);
        t.type.push_back(it->second);
        t.molecule.push_back(molecule);
        t.atom_name.push_back(atom.name);
        t.residue_name.push_back(atom.residue);
        for (int j : local[a]) t.excl.push_back(base + j);
        t.excl_start.push_back(static_cast<int>(t.excl.size()));
      }
      for (const TopSettle& s : m.settles)
        t.settles.push_back({base + s.oxygen, base + s.oxygen + 1, base + s.oxygen + 2, s.d_oh, s.d_hh});
      for (const Constraint& c : m.constraints) t.constraints.push_back({base + c.a, base + c.b, c.length});
      // Built by kind, as GROMACS builds them (vsite2, vsite3, vsite3out, vsiten; each in file order), so
      // that a site built from another kind of site finds it placed; forces are spread in the reverse order.
      std::vector<size_t> order(m.vsites.size());
      for (size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::stable_sort(order.begin(), order.end(), [&m](size_t a, size_t b) {
        return static_cast<int>(m.vsites[a].kind) < static_cast<int>(m.vsites[b].kind);
      });
      for (size_t k : order) {
        VirtualSite v = m.vsites[k];
        v.site += base;
        for (int& a : v.atoms) a += base;
        t.vsites.push_back(v);
        t.vsite_where.push_back(m.vsite_where[k]);
      }
      for (BondedTerm term : m.interactions) {
        for (int& a : term.atoms) a += base;
        t.bonded.push_back(term);
      }
    }
  }
  fill_lj(d, path, t);
  for (const TopCmapType& c : d.cmap_types) t.cmap_grids.push_back(make_cmap_grid(c.spacing, c.values));
  return t;
}

// The text of a line before its ';' comment, trimmed.
std::string code_of(const std::string& line) {
  std::string s = line.substr(0, line.find(';'));
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool is_molecules_header(const std::string& code) {
  if (code.empty() || code[0] != '[' || code.back() != ']') return false;
  std::string name;
  for (char c : code.substr(1, code.size() - 2))
    if (c != ' ' && c != '\t') name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name == "molecules";
}

// A relative #include found next to the original .top is rewritten to an absolute path, so the copy also
// works from another folder.
std::string fix_include(const std::string& line, const fs::path& in_dir, bool same_dir) {
  const std::string code = code_of(line);
  if (same_dir || code.rfind("#include", 0) != 0) return line;
  const size_t open = code.find_first_of("\"<");
  const size_t close = open == std::string::npos ? open : code.find_first_of("\">", open + 1);
  if (close == std::string::npos) return line;
  const fs::path name = code.substr(open + 1, close - open - 1);
  std::error_code ec;
  if (name.is_absolute() || !fs::is_regular_file(in_dir / name, ec)) return line;
  return "#include \"" + fs::absolute(in_dir / name, ec).lexically_normal().string() + "\"";
}

}  // namespace

Topology read_top(const std::string& path, const TopOptions& options) {
  const PreprocessedTop pp = preprocess_top(path, search_dirs(options), options.defines);
  return expand(parse_top(pp), path);
}

void check_topology_matches(const Topology& top, const std::string& top_path, const GroFile& gro,
                            const std::string& gro_path) {
  if (top.num_atoms() != gro.num_atoms())
    throw InputError(top_path, 0,
                     "[ molecules ] has " + std::to_string(top.num_atoms()) + " atoms, " + gro_path +
                         " has " + std::to_string(gro.num_atoms()));
  int mismatches = 0, first = -1;
  for (int i = 0; i < top.num_atoms(); ++i)
    if (top.atom_name[i] != gro.atom_name[i]) {
      if (first < 0) first = i;
      ++mismatches;
    }
  // As grompp: different names are only a warning, and the topology's names are used.
  if (mismatches > 0)
    std::cerr << "warning: " << mismatches << " of " << top.num_atoms() << " atom names in " << gro_path
              << " do not match " << top_path << " (first: atom " << first + 1 << ", '"
              << gro.atom_name[first] << "' in " << gro_path << ", '" << top.atom_name[first] << "' in "
              << top_path << "); the topology's names are used\n";
}

void write_replicated_top(const std::string& in_path, const std::string& out_path, int copies) {
  if (copies < 1)
    throw InputError(in_path, 0, "cannot replicate the topology " + std::to_string(copies) + " times");
  std::ifstream in(in_path);
  if (!in) throw InputError(in_path, 0, "cannot open the topology file");
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);

  size_t header = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (is_molecules_header(code_of(lines[i]))) {
      if (header != lines.size())
        throw InputError(in_path, static_cast<int>(i + 1),
                         "a second [ molecules ] (expected one to replicate)");
      header = i;
    }
  if (header == lines.size())
    throw InputError(in_path, 0,
                     "no [ molecules ] in this file to replicate (it must not be in an #include)");
  size_t end = header + 1;
  std::vector<std::pair<std::string, long>> entries;
  for (; end < lines.size(); ++end) {
    const std::string code = code_of(lines[end]);
    if (code.empty()) continue;
    if (code[0] == '[') break;
    const int lineno = static_cast<int>(end + 1);
    if (code[0] == '#')
      throw InputError(in_path, lineno,
                       "[ molecules ]: cannot replicate a list containing preprocessor directives");
    std::istringstream fields(code);
    std::string name, count_text, extra;
    fields >> name >> count_text;
    char* stop = nullptr;
    const long count = std::strtol(count_text.c_str(), &stop, 10);
    if (count_text.empty() || *stop != '\0' || count < 0)
      throw InputError(in_path, lineno, "[ molecules ]: expected 'name count', got '" + code + "'");
    entries.push_back({name, count});
  }
  std::vector<std::pair<std::string, long>> merged;
  for (int c = 0; c < copies; ++c)
    for (const auto& e : entries) {
      if (!merged.empty() && merged.back().first == e.first)
        merged.back().second += e.second;
      else
        merged.push_back(e);
    }

  std::error_code ec;
  const fs::path in_dir = fs::absolute(in_path, ec).parent_path();
  const fs::path out_dir = fs::absolute(out_path, ec).parent_path();
  const bool same_dir = fs::equivalent(in_dir, out_dir, ec);
  const std::string tmp = out_path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw InputError(tmp, 0, "cannot open for writing");
    for (size_t i = 0; i <= header; ++i) out << fix_include(lines[i], in_dir, same_dir) << "\n";
    out << "; " << copies << " copies of the list in " << in_path << " (halomd genconf)\n";
    for (const auto& [name, count] : merged) out << name << " " << count << "\n";
    for (size_t i = end; i < lines.size(); ++i) out << fix_include(lines[i], in_dir, same_dir) << "\n";
    out.flush();
    if (!out) throw InputError(tmp, 0, "error while writing (disk full?)");
  }
  fs::rename(tmp, out_path, ec);
  if (ec) throw InputError(out_path, 0, "cannot rename " + tmp + " to it: " + ec.message());
}

}  // namespace halomd::io
