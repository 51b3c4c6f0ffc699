// The two exception types that carry every failure in halomd: bad input, and a run that went wrong.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace halomd {

// Bad input: names the file, the line (0 when the error is not tied to one line) and what was expected.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, int line, const std::string& what)
      : std::runtime_error(format(file, line, what)), file_(std::move(file)), line_(line) {}
  const std::string& file() const { return file_; }
  int line() const { return line_; }

 private:
  static std::string format(const std::string& file, int line, const std::string& what) {
    if (file.empty()) return what;
    if (line <= 0) return file + ": " + what;
    return file + ":" + std::to_string(line) + ": " + what;
  }
  std::string file_;
  int line_;
};

// A run that went wrong: names the step and the atom (or -1 when neither applies).
class RuntimeError : public std::runtime_error {
 public:
  RuntimeError(int64_t step, int64_t atom, const std::string& what)
      : std::runtime_error(format(step, atom, what)), step_(step), atom_(atom) {}
  int64_t step() const { return step_; }
  int64_t atom() const { return atom_; }

 private:
  static std::string format(int64_t step, int64_t atom, const std::string& what) {
    std::string s;
    if (step >= 0) s += "step " + std::to_string(step) + ": ";
    if (atom >= 0) s += "atom " + std::to_string(atom + 1) + ": ";
    return s + what;
  }
  int64_t step_;
  int64_t atom_;
};

}  // namespace halomd
