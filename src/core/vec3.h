// A small 3-vector and 3x3 tensor for host and device code (nm, nm/ps, kJ/mol/nm, ...).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/host_device.h"

namespace halomd {

// a + b and a - b; for integers modulo 2^N, as the fixed-point sums (cpu/fixed_point.h) and the GPU's
// unsigned atomics add: in a blow-up an out-of-range value gives a wrong sum, never a signed overflow
// (undefined behaviour).
template <class T>
HALOMD_HOST_DEVICE inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <class T>
HALOMD_HOST_DEVICE inline T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}

template <class T>
struct Vec3T {
  T x{}, y{}, z{};
  HALOMD_HOST_DEVICE T& operator[](int d) { return d == 0 ? x : (d == 1 ? y : z); }
  HALOMD_HOST_DEVICE const T& operator[](int d) const { return d == 0 ? x : (d == 1 ? y : z); }
  HALOMD_HOST_DEVICE Vec3T& operator+=(const Vec3T& o) {
    x = wrap_add(x, o.x);
    y = wrap_add(y, o.y);
    z = wrap_add(z, o.z);
    return *this;
  }
  HALOMD_HOST_DEVICE Vec3T& operator-=(const Vec3T& o) {
    x = wrap_sub(x, o.x);
    y = wrap_sub(y, o.y);
    z = wrap_sub(z, o.z);
    return *this;
  }
  HALOMD_HOST_DEVICE Vec3T& operator*=(T s) {
    x *= s;
    y *= s;
    z *= s;
    return *this;
  }
};

// Exact equality, component by component (for integer vectors and bitwise checks).
template <class T>
HALOMD_HOST_DEVICE inline bool operator==(const Vec3T<T>& a, const Vec3T<T>& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}
template <class T>
HALOMD_HOST_DEVICE inline bool operator!=(const Vec3T<T>& a, const Vec3T<T>& b) {
  return !(a == b);
}

template <class T>
HALOMD_HOST_DEVICE inline Vec3T<T> operator+(Vec3T<T> a, const Vec3T<T>& b) {
  return a += b;
}
template <class T>
HALOMD_HOST_DEVICE inline Vec3T<T> operator-(Vec3T<T> a, const Vec3T<T>& b) {
  return a -= b;
}
template <class T>
HALOMD_HOST_DEVICE inline Vec3T<T> operator*(Vec3T<T> a, T s) {
  return a *= s;
}
template <class T>
HALOMD_HOST_DEVICE inline Vec3T<T> operator*(T s, Vec3T<T> a) {
  return a *= s;
}
template <class T>
HALOMD_HOST_DEVICE inline T dot(const Vec3T<T>& a, const Vec3T<T>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <class T>
HALOMD_HOST_DEVICE inline Vec3T<T> cross(const Vec3T<T>& a, const Vec3T<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T>
HALOMD_HOST_DEVICE inline T norm2(const Vec3T<T>& a) {
  return dot(a, a);
}

using Vec3 = Vec3T<double>;
// A force in fixed point (cpu/fixed_point.h's 2^32 units per kJ/mol/nm): sums of them are exact and do not
// depend on their order (thread counts, domains, transports).
using FixedVec3 = Vec3T<int64_t>;

// 3x3 tensor, row-major: t[i][j].
struct Tensor {
  double m[3][3]{};
  Tensor& operator+=(const Tensor& o) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] += o.m[i][j];
    return *this;
  }
  double trace() const { return m[0][0] + m[1][1] + m[2][2]; }
};

// a (x) b: outer product added to t, scaled by s.
inline void add_outer(Tensor& t, const Vec3& a, const Vec3& b, double s) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) t.m[i][j] += s * a[i] * b[j];
}

}  // namespace halomd
