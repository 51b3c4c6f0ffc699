// The HALOMD_* environment variables that tune a run (docs/USER_GUIDE.md lists them): read as numbers, with
// a clear error for anything else instead of a silent 0.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <string>

#include "core/errors.h"

namespace halomd {

// The value of `name` as a number, or `fallback` when it is unset or empty.
inline double env_number(const char* name, double fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(v, &end);
  while (end && (*end == ' ' || *end == '\t')) ++end;
  if (errno != 0 || end == v || *end != '\0')
    throw InputError("", 0,
                     std::string("the environment variable ") + name + " must be a number, got '" + v + "'");
  return x;
}

inline int env_int(const char* name, int fallback) {
  const double x = env_number(name, fallback);
  if (x != static_cast<double>(static_cast<int>(x)))
    throw InputError("", 0,
                     std::string("the environment variable ") + name + " must be an integer, got '" +
                         std::getenv(name) + "'");
  return static_cast<int>(x);
}

// The value of `name` as text, or "" when it is unset.
inline std::string env_string(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace halomd
