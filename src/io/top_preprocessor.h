// The GROMACS topology preprocessor (#include, #define, #undef, #ifdef/#ifndef/#else/#endif, macro
// substitution, ';' comments, '\' continuation): turns a .top and its includes into logical lines.
#pragma once

#include <string>
#include <vector>

namespace halomd::io {

// One logical line of the expanded topology: comments stripped, continuations joined, macros substituted,
// trimmed and never empty; `file` indexes PreprocessedTop::files, `line` is its first physical line there.
struct TopLine {
  std::string text;
  int file = 0;
  int line = 0;
};

struct PreprocessedTop {
  std::vector<std::string>
      files;  // each file as it was opened: the path given, or the include it was found as
  std::vector<TopLine> lines;
  const std::string& file_of(const TopLine& l) const { return files[l.file]; }
};

// Expands `path`. An #include is looked for in the including file's folder, then in `search_dirs` in order.
// `defines` are "NAME" or "NAME=VALUE" as grompp's -D. Throws InputError naming the file and line.
PreprocessedTop preprocess_top(const std::string& path, const std::vector<std::string>& search_dirs,
                               const std::vector<std::string>& defines);

}  // namespace halomd::io
