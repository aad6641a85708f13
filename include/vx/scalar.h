/* Scalars for code the cpu target generates: runtime traps, Rust's integer
 * semantics (overflow and division by zero trap; `as` wraps; float -> int
 * saturates), and bf16 as a storage type that computes in f32.
 * Header-only C++17. */
#ifndef VX_SCALAR_H
#define VX_SCALAR_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "vx/data.h"

namespace vx::rt {

/* A trap ends the process with status 101 (Rust's panic status), naming the
 * source location; `vxc run` turns it into a clear error. */
[[noreturn]] inline void trap(const char* what, const char* where) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: runtime trap: %s at %s\n", what, where);
  std::fflush(stderr);
  std::_Exit(101);
}

/* bf16 storage; arithmetic happens in f32 and rounds on the way back. */
struct bf16 {
  uint16_t bits = 0;
  bf16() = default;
  bf16(float f) : bits(vx_bf16_from_f32(f)) {}  // NOLINT: implicit, like a float type
  operator float() const { return vx_f32_from_bf16(bits); }
};

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

/* Checked integer arithmetic. `S` variants treat operands as signed, `U` as
 * unsigned (the value is stored in the signed C++ type of its width). */
template <typename T>
inline T add_s(T a, T b, const char* at) {
  T r;
  if (__builtin_add_overflow(a, b, &r)) trap("integer overflow in `+`", at);
  return r;
}
template <typename T>
inline T sub_s(T a, T b, const char* at) {
  T r;
  if (__builtin_sub_overflow(a, b, &r)) trap("integer overflow in `-`", at);
  return r;
}
template <typename T>
inline T mul_s(T a, T b, const char* at) {
  T r;
  if (__builtin_mul_overflow(a, b, &r)) trap("integer overflow in `*`", at);
  return r;
}
template <typename T>
inline T add_u(T a, T b, const char* at) {
  Unsigned<T> r;
  if (__builtin_add_overflow(static_cast<Unsigned<T>>(a), static_cast<Unsigned<T>>(b), &r))
    trap("integer overflow in `+`", at);
  return static_cast<T>(r);
}
template <typename T>
inline T sub_u(T a, T b, const char* at) {
  Unsigned<T> r;
  if (__builtin_sub_overflow(static_cast<Unsigned<T>>(a), static_cast<Unsigned<T>>(b), &r))
    trap("integer overflow in `-`", at);
  return static_cast<T>(r);
}
template <typename T>
inline T mul_u(T a, T b, const char* at) {
  Unsigned<T> r;
  if (__builtin_mul_overflow(static_cast<Unsigned<T>>(a), static_cast<Unsigned<T>>(b), &r))
    trap("integer overflow in `*`", at);
  return static_cast<T>(r);
}
template <typename T>
inline T div_s(T a, T b, const char* at) {
  if (b == 0) trap("division by zero", at);
  if (std::is_signed_v<T> && a == std::numeric_limits<T>::min() && b == static_cast<T>(-1))
    trap("integer overflow in `/`", at);
  return a / b;  // truncates toward zero, as Rust
}
template <typename T>
inline T rem_s(T a, T b, const char* at) {
  if (b == 0) trap("remainder by zero", at);
  if (std::is_signed_v<T> && a == std::numeric_limits<T>::min() && b == static_cast<T>(-1))
    trap("integer overflow in `%`", at);
  return a % b;
}
template <typename T>
inline T div_u(T a, T b, const char* at) {
  if (b == 0) trap("division by zero", at);
  return static_cast<T>(static_cast<Unsigned<T>>(a) / static_cast<Unsigned<T>>(b));
}
template <typename T>
inline T rem_u(T a, T b, const char* at) {
  if (b == 0) trap("remainder by zero", at);
  return static_cast<T>(static_cast<Unsigned<T>>(a) % static_cast<Unsigned<T>>(b));
}

/* Float -> integer `as`: saturating, NaN -> 0 (Rust). `To` is the signed
 * storage type; `Sem` the semantic type (signed or unsigned). */
template <typename Sem, typename To, typename F>
inline To fp_to_int(F x) {
  double d = static_cast<double>(x);
  if (std::isnan(d)) return 0;
  const double lo = static_cast<double>(std::numeric_limits<Sem>::min());
  const double hi = static_cast<double>(std::numeric_limits<Sem>::max());
  if (d <= lo) return static_cast<To>(std::numeric_limits<Sem>::min());
  if (d >= hi) return static_cast<To>(std::numeric_limits<Sem>::max());
  return static_cast<To>(static_cast<Sem>(d));
}

}  // namespace vx::rt

#endif /* VX_SCALAR_H */
