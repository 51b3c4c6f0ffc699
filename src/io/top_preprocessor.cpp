#include "io/top_preprocessor.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "core/errors.h"

namespace halomd::io {
namespace {

namespace fs = std::filesystem;

// Deeper nesting than this is taken to be an #include cycle.
constexpr int kMaxIncludeDepth = 64;

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\f\v");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\f\v") - b + 1);
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Splits "word rest..." at the first blank: the word and the trimmed rest.
std::pair<std::string, std::string> split_word(const std::string& s) {
  const std::string t = trim(s);
  size_t e = 0;
  while (e < t.size() && !std::isspace(static_cast<unsigned char>(t[e]))) ++e;
  return {t.substr(0, e), trim(t.substr(e))};
}

bool is_file(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// One open #ifdef/#ifndef of the file being read.
struct Conditional {
  bool parent_active;  // whether the lines around the block are read
  bool condition;      // whether the #ifdef part (before #else) is read
  bool in_else = false;
  int line;
  std::string directive;  // "#ifdef NAME", for messages
};

// Whether lines at this point are read: every enclosing block is on its taken branch.
bool is_active(const std::vector<Conditional>& ifs) {
  return ifs.empty() || (ifs.back().parent_active && ifs.back().condition != ifs.back().in_else);
}

class Preprocessor {
 public:
  Preprocessor(std::vector<std::string> search_dirs, const std::vector<std::string>& defines)
      : search_dirs_(std::move(search_dirs)) {
    for (const std::string& d : defines) {
      const size_t eq = d.find('=');
      defines_[trim(d.substr(0, eq))] = eq == std::string::npos ? "" : trim(d.substr(eq + 1));
    }
  }

  void read_file(const std::string& path, int depth);
  PreprocessedTop take() { return std::move(out_); }

 private:
  void directive(const std::string& text, int file, int line, std::vector<Conditional>& ifs, int depth);
  void include(const std::string& arg, int file, int line, int depth);
  std::string substitute(const std::string& text) const;
  [[noreturn]] void fail(int file, int line, const std::string& msg) const {
    throw InputError(out_.files[file], line, msg);
  }

  std::vector<std::string> search_dirs_;
  std::map<std::string, std::string> defines_;
  PreprocessedTop out_;
};

void Preprocessor::read_file(const std::string& path, int depth) {
  std::ifstream in(path);
  out_.files.push_back(path);
  const int file = static_cast<int>(out_.files.size()) - 1;
  if (!in) fail(file, 0, "cannot open the topology file");
  std::vector<Conditional> ifs;
  std::string raw;
  int lineno = 0;
  while (std::getline(in, raw)) {
    const int first = ++lineno;
    // Comments go first, then a trailing '\' joins the next physical line.
    std::string text = trim(raw.substr(0, raw.find(';')));
    while (!text.empty() && text.back() == '\\') {
      text = trim(text.substr(0, text.size() - 1));
      if (!std::getline(in, raw)) break;
      ++lineno;
      text = trim(text + " " + trim(raw.substr(0, raw.find(';'))));
    }
    if (text.empty()) continue;
    if (text[0] == '#') {
      directive(text, file, first, ifs, depth);
    } else if (is_active(ifs)) {
      const std::string expanded = trim(substitute(text));
      if (!expanded.empty()) out_.lines.push_back({expanded, file, first});
    }
  }
  if (!ifs.empty())
    fail(file, ifs.back().line,
         ifs.back().directive + " is not closed: expected #endif before the end of the file");
}

void Preprocessor::directive(const std::string& text, int file, int line, std::vector<Conditional>& ifs,
                             int depth) {
  const auto [word, arg] = split_word(text.substr(1));
  const std::string name = "#" + word;
  const bool active = is_active(ifs);
  if (name == "#ifdef" || name == "#ifndef") {
    const std::string macro = split_word(arg).first;
    if (macro.empty()) fail(file, line, name + ": expected a macro name");
    const bool defined = defines_.count(macro) > 0;
    ifs.push_back({active, name == "#ifdef" ? defined : !defined, false, line, name + " " + macro});
  } else if (name == "#else") {
    if (ifs.empty()) fail(file, line, "#else without #ifdef or #ifndef");
    if (ifs.back().in_else)
      fail(file, line,
           "second #else for the " + ifs.back().directive + " on line " + std::to_string(ifs.back().line));
    ifs.back().in_else = true;
  } else if (name == "#endif") {
    if (ifs.empty()) fail(file, line, "#endif without #ifdef or #ifndef");
    ifs.pop_back();
  } else if (name == "#include" || name == "#define" || name == "#undef") {
    if (!active) return;
    if (name == "#include") return include(arg, file, line, depth);
    const auto [macro, value] = split_word(arg);
    if (macro.empty()) fail(file, line, name + ": expected a macro name");
    if (name == "#define")
      defines_[macro] = value;
    else
      defines_.erase(macro);
  } else {
    fail(file, line,
         "unknown preprocessor directive '" + name +
             "' (expected #include, #define, #undef, #ifdef, #ifndef, #else or #endif)");
  }
}

void Preprocessor::include(const std::string& arg, int file, int line, int depth) {
  const char close = arg.empty() ? '\0' : (arg[0] == '"' ? '"' : (arg[0] == '<' ? '>' : '\0'));
  const size_t end = close ? arg.find(close, 1) : std::string::npos;
  if (end == std::string::npos || end == 1)
    fail(file, line, "expected #include \"file\" or #include <file>, got '#include " + arg + "'");
  const std::string name = arg.substr(1, end - 1);
  if (depth + 1 > kMaxIncludeDepth)
    fail(file, line,
         "#include \"" + name + "\": includes nested more than " + std::to_string(kMaxIncludeDepth) +
             " deep (does a file include itself?)");
  std::vector<std::string> dirs;
  std::string found;
  if (fs::path(name).is_absolute()) {
    if (is_file(name)) found = name;
  } else {
    dirs.push_back(fs::path(out_.files[file]).parent_path().string());
    dirs.insert(dirs.end(), search_dirs_.begin(), search_dirs_.end());
    for (const std::string& dir : dirs) {
      const std::string candidate = dir.empty() ? name : (fs::path(dir) / name).string();
      if (is_file(candidate)) {
        found = candidate;
        break;
      }
    }
  }
  if (found.empty()) {
    std::string searched;
    for (const std::string& d : dirs) searched += (searched.empty() ? "" : ", ") + (d.empty() ? "." : d);
    fail(file, line,
         "#include \"" + name + "\": file not found" +
             (dirs.empty() ? std::string() : " (searched: " + searched + ")"));
  }
  read_file(found, depth + 1);
}

// Replaces every whole word that is a defined macro by its value (one pass, values are not rescanned).
std::string Preprocessor::substitute(const std::string& text) const {
  if (defines_.empty()) return text;
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (!is_word_char(text[i])) {
      out += text[i++];
      continue;
    }
    size_t e = i;
    while (e < text.size() && is_word_char(text[e])) ++e;
    const std::string word = text.substr(i, e - i);
    auto it = defines_.find(word);
    out += it == defines_.end() ? word : it->second;
    i = e;
  }
  return out;
}

}  // namespace

PreprocessedTop preprocess_top(const std::string& path, const std::vector<std::string>& search_dirs,
                               const std::vector<std::string>& defines) {
  Preprocessor pp(search_dirs, defines);
  pp.read_file(path, 0);
  return pp.take();
}

}  // namespace halomd::io
