#include "io/gro.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/errors.h"

namespace halomd::io {
namespace {

// Columns of an atom line (0-based): residue number, residue name, atom name, atom number, then coordinates.
constexpr size_t kCoordStart = 20;

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// The whole of `text` (surrounding blanks allowed) as one number; false when it is not exactly one number.
bool parse_double(const std::string& text, double& value) {
  const std::string t = trim(text);
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size() && errno != ERANGE && std::isfinite(value);
}

bool parse_int(const std::string& text, long& value) {
  const std::string t = trim(text);
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtol(t.c_str(), &end, 10);
  return end == t.c_str() + t.size() && errno != ERANGE;
}

// Reads lines and counts them, so every error can name its line.
class LineReader {
 public:
  explicit LineReader(const std::string& path) : in_(path) {}
  bool is_open() const { return static_cast<bool>(in_); }
  bool next(std::string& line) {
    if (!std::getline(in_, line)) return false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++count_;
    return true;
  }
  int count() const { return count_; }

 private:
  std::ifstream in_;
  int count_ = 0;
};

// Field width of x, y and z: the distance between the first two decimal points after the atom number (as
// GROMACS reads old variable-precision files); the third decimal point must be as far again.
int coordinate_width(const std::string& line, const std::string& path, int lineno) {
  const size_t p1 = line.find('.', kCoordStart);
  const size_t p2 = p1 == std::string::npos ? p1 : line.find('.', p1 + 1);
  const size_t p3 = p2 == std::string::npos ? p2 : line.find('.', p2 + 1);
  if (p3 == std::string::npos)
    throw InputError(
        path, lineno,
        "expected x, y and z with decimal points in fixed columns from column 21, got '" + line + "'");
  if (p3 - p2 != p2 - p1)
    throw InputError(path, lineno,
                     "the decimal points of x, y and z are not equally spaced (fixed columns expected)");
  return static_cast<int>(p2 - p1);
}

// Reads three fixed-width numbers starting at column `start`.
Vec3 read_triple(const std::string& line, size_t start, int width, const char* what, const std::string& path,
                 int lineno) {
  Vec3 v;
  for (int d = 0; d < 3; ++d) {
    const size_t b = start + static_cast<size_t>(d) * width;
    const std::string field = b < line.size() ? line.substr(b, width) : "";
    if (!parse_double(field, v[d]))
      throw InputError(path, lineno,
                       std::string("expected ") + what + " " + "xyz"[d] + " as a number in columns " +
                           std::to_string(b + 1) + "-" + std::to_string(b + width) + ", got '" + field + "'");
  }
  return v;
}

void read_atom_line(const std::string& line, int width, bool want_v, GroFile& gro, const std::string& path,
                    int lineno) {
  long resnr = 0;
  if (!parse_int(line.substr(0, 5), resnr))
    throw InputError(path, lineno,
                     "expected a residue number in columns 1-5, got '" + line.substr(0, 5) + "'");
  gro.residue_number.push_back(static_cast<int>(resnr));
  gro.residue_name.push_back(trim(line.size() > 5 ? line.substr(5, 5) : ""));
  gro.atom_name.push_back(trim(line.size() > 10 ? line.substr(10, 5) : ""));
  // Columns 16-20 (the atom number) are not read: they wrap past 99,999 and carry no information.
  gro.x.push_back(read_triple(line, kCoordStart, width, "position", path, lineno));
  const size_t vstart = kCoordStart + 3 * static_cast<size_t>(width);
  const bool has_v = line.size() > vstart && !trim(line.substr(vstart)).empty();
  if (has_v != want_v)
    throw InputError(
        path, lineno,
        has_v ? "this atom line has velocities but the first atom line has none (expected velocities "
                "for all atoms or none)"
              : "this atom line has no velocities but the first atom line has them (expected velocities "
                "for all atoms or none)");
  if (has_v) gro.v.push_back(read_triple(line, vstart, width, "velocity", path, lineno));
}

// Box line: v1(x) v2(y) v3(z) [v1(y) v1(z) v2(x) v2(z) v3(x) v3(y)], free format.
Box read_box_line(const std::string& line, const std::string& path, int lineno) {
  std::vector<double> values;
  size_t pos = 0;
  while (true) {
    const size_t b = line.find_first_not_of(" \t\r", pos);
    if (b == std::string::npos) break;
    const size_t e = std::min(line.find_first_of(" \t\r", b), line.size());
    double value = 0.0;
    if (!parse_double(line.substr(b, e - b), value))
      throw InputError(path, lineno, "expected the box as numbers, got '" + line.substr(b, e - b) + "'");
    values.push_back(value);
    pos = e;
  }
  if (values.size() != 3 && values.size() != 9)
    throw InputError(path, lineno,
                     "expected 3 or 9 numbers on the box line, got " + std::to_string(values.size()));
  for (size_t k = 3; k < values.size(); ++k)
    if (values[k] != 0.0)
      throw InputError(path, lineno,
                       "triclinic boxes are not supported (the off-diagonal box elements must be 0)");
  Box box;
  box.len = {values[0], values[1], values[2]};
  for (int d = 0; d < 3; ++d)
    if (!(box.len[d] > 0.0))
      throw InputError(path, lineno, "expected positive box edge lengths, got " + std::to_string(box.len[d]));
  return box;
}

}  // namespace

GroFile read_gro(const std::string& path) {
  LineReader in(path);
  if (!in.is_open()) throw InputError(path, 0, "cannot open the .gro file");
  GroFile gro;
  if (!in.next(gro.title)) throw InputError(path, 0, "the file is empty (expected a title line)");
  std::string line;
  if (!in.next(line))
    throw InputError(path, 1, "expected the number of atoms on line 2, the file ends at line 1");
  long natoms = 0;
  if (!parse_int(line, natoms) || natoms < 0 || natoms > 1000000000L)
    throw InputError(path, in.count(),
                     "expected the number of atoms (a non-negative integer), got '" + line + "'");
  const int n = static_cast<int>(natoms);
  gro.x.reserve(n);
  int width = 0;
  bool want_v = false;
  for (int i = 0; i < n; ++i) {
    if (!in.next(line))
      throw InputError(
          path, in.count(),
          "expected " + std::to_string(n) + " atom lines, file ends at line " + std::to_string(in.count()));
    if (i == 0) {
      width = coordinate_width(line, path, in.count());
      const size_t vstart = kCoordStart + 3 * static_cast<size_t>(width);
      want_v = line.size() > vstart && !trim(line.substr(vstart)).empty();
      if (want_v) gro.v.reserve(n);
    }
    read_atom_line(line, width, want_v, gro, path, in.count());
  }
  if (!in.next(line))
    throw InputError(path, in.count(),
                     "expected the box line after " + std::to_string(n) + " atom lines, file ends at line " +
                         std::to_string(in.count()));
  gro.box = read_box_line(line, path, in.count());
  return gro;
}

void write_gro(const std::string& path, const GroFile& gro) {
  const size_t n = gro.x.size();
  if (gro.residue_number.size() != n || gro.residue_name.size() != n || gro.atom_name.size() != n ||
      (!gro.v.empty() && gro.v.size() != n))
    throw InputError(path, 0, "cannot write: the per-atom arrays of the coordinates differ in length");
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw InputError(tmp, 0, "cannot open for writing");
  std::string title = gro.title;
  for (char& c : title)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(f, "%s\n%5d\n", title.c_str(), static_cast<int>(n));
  for (size_t i = 0; i < n; ++i) {
    // As gmx: names cut to 5 characters, numbers modulo 100,000 so the columns stay fixed.
    std::fprintf(f, "%5d%-5.5s%5.5s%5d%8.3f%8.3f%8.3f", gro.residue_number[i] % 100000,
                 gro.residue_name[i].c_str(), gro.atom_name[i].c_str(), static_cast<int>((i + 1) % 100000),
                 gro.x[i].x, gro.x[i].y, gro.x[i].z);
    if (gro.has_velocities()) std::fprintf(f, "%8.4f%8.4f%8.4f", gro.v[i].x, gro.v[i].y, gro.v[i].z);
    std::fputc('\n', f);
  }
  std::fprintf(f, "%10.5f %9.5f %9.5f\n", gro.box.len.x, gro.box.len.y, gro.box.len.z);
  const bool ok = std::ferror(f) == 0;
  if (std::fclose(f) != 0 || !ok) {
    std::remove(tmp.c_str());
    throw InputError(tmp, 0, "error while writing (disk full?)");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw InputError(path, 0, "cannot rename " + tmp + " to it: " + ec.message());
}

}  // namespace halomd::io
