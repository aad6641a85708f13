/* Scalars for generated code (the cpu target and the CUDA layer of b200 and
 * h100, host and device): runtime traps, Rust's integer semantics (overflow
 * and division by zero trap; `as` wraps; float -> int saturates), and bf16 as
 * a storage type that computes in f32. Header-only C++17. */
#ifndef VX_SCALAR_H
#define VX_SCALAR_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "vx/data.h"
#include "vx/hd.h"

namespace vx::rt {

/* A trap ends the process with status 101 (Rust's panic status), naming the
 * source location; `vxc run` turns it into a clear error. On a GPU it prints
 * the same line and aborts the kernel (`__trap`), which the launcher reports
 * as a CUDA error of the Vx function. */
[[noreturn]] VX_HD inline void trap(const char* what, const char* where) {
#if defined(__CUDA_ARCH__)
  printf("error: runtime trap: %s at %s\n", what, where);
  __trap();
  __builtin_unreachable();
#else
  std::fflush(stdout);
  std::fprintf(stderr, "error: runtime trap: %s at %s\n", what, where);
  std::fflush(stderr);
  std::_Exit(101);
#endif
}

/* bf16 storage; arithmetic happens in f32 and rounds on the way back. */
struct bf16 {
  uint16_t bits = 0;
  bf16() = default;
  VX_HD bf16(float f) : bits(vx_bf16_from_f32(f)) {}  // NOLINT: implicit, like a float type
  VX_HD operator float() const { return vx_f32_from_bf16(bits); }
};

/* f16 storage (b200 and h100 tensors), the same way. */
struct f16 {
  uint16_t bits = 0;
  f16() = default;
  VX_HD f16(float f) : bits(vx_f16_from_f32(f)) {}  // NOLINT: implicit, like a float type
  VX_HD operator float() const { return vx_f32_from_f16(bits); }
};

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

/* Overflow-checked add, subtract and multiply of one integer type, as the
 * compiler builtins (which device code does not have) compute them. */
template <typename T>
VX_HD inline bool add_overflows(T a, T b, T* r) {
#if defined(__CUDA_ARCH__)
  *r = static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b));
  if constexpr (std::is_signed_v<T>) return (a >= 0) == (b >= 0) && (*r >= 0) != (a >= 0);
  else return *r < a;
#else
  return __builtin_add_overflow(a, b, r);
#endif
}
template <typename T>
VX_HD inline bool sub_overflows(T a, T b, T* r) {
#if defined(__CUDA_ARCH__)
  *r = static_cast<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b));
  if constexpr (std::is_signed_v<T>) return (a >= 0) != (b >= 0) && (*r >= 0) != (a >= 0);
  else return b > a;
#else
  return __builtin_sub_overflow(a, b, r);
#endif
}
template <typename T>
VX_HD inline bool mul_overflows(T a, T b, T* r) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_signed_v<T>) {
    __int128 p = static_cast<__int128>(a) * static_cast<__int128>(b);
    *r = static_cast<T>(p);
    return p != static_cast<__int128>(*r);
  } else {
    unsigned __int128 p = static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(b);
    *r = static_cast<T>(p);
    return p != static_cast<unsigned __int128>(*r);
  }
#else
  return __builtin_mul_overflow(a, b, r);
#endif
}

/* Checked integer arithmetic. `S` variants treat operands as signed, `U` as
 * unsigned (the value is stored in the signed C++ type of its width). */
template <typename T>
VX_HD inline T add_s(T a, T b, const char* at) {
  T r;
  if (add_overflows(a, b, &r)) trap("integer overflow in `+`", at);
  return r;
}
template <typename T>
VX_HD inline T sub_s(T a, T b, const char* at) {
  T r;
  if (sub_overflows(a, b, &r)) trap("integer overflow in `-`", at);
  return r;
}
template <typename T>
VX_HD inline T mul_s(T a, T b, const char* at) {
  T r;
  if (mul_overflows(a, b, &r)) trap("integer overflow in `*`", at);
  return r;
}
template <typename T>
VX_HD inline T add_u(T a, T b, const char* at) {
  Unsigned<T> r;
  if (add_overflows(static_cast<Unsigned<T>>(a), static_cast<Unsigned<T>>(b), &r)) trap("integer overflow in `+`", at);
  return static_cast<T>(r);
}
template <typename T>
VX_HD inline T sub_u(T a, T b, const char* at) {
  Unsigned<T> r;
  if (sub_overflows(static_cast<Unsigned<T>>(a), static_cast<Unsigned<T>>(b), &r)) trap("integer overflow in `-`", at);
  return static_cast<T>(r);
}
template <typename T>
VX_HD inline T mul_u(T a, T b, const char* at) {
  Unsigned<T> r;
  if (mul_overflows(static_cast<Unsigned<T>>(a), static_cast<Unsigned<T>>(b), &r)) trap("integer overflow in `*`", at);
  return static_cast<T>(r);
}
template <typename T>
VX_HD inline T div_s(T a, T b, const char* at) {
  if (b == 0) trap("division by zero", at);
  if (std::is_signed_v<T> && a == std::numeric_limits<T>::min() && b == static_cast<T>(-1))
    trap("integer overflow in `/`", at);
  return a / b;  // truncates toward zero, as Rust
}
template <typename T>
VX_HD inline T rem_s(T a, T b, const char* at) {
  if (b == 0) trap("remainder by zero", at);
  if (std::is_signed_v<T> && a == std::numeric_limits<T>::min() && b == static_cast<T>(-1))
    trap("integer overflow in `%`", at);
  return a % b;
}
template <typename T>
VX_HD inline T div_u(T a, T b, const char* at) {
  if (b == 0) trap("division by zero", at);
  return static_cast<T>(static_cast<Unsigned<T>>(a) / static_cast<Unsigned<T>>(b));
}
template <typename T>
VX_HD inline T rem_u(T a, T b, const char* at) {
  if (b == 0) trap("remainder by zero", at);
  return static_cast<T>(static_cast<Unsigned<T>>(a) % static_cast<Unsigned<T>>(b));
}

/* Float -> integer `as`: saturating, NaN -> 0 (Rust). `To` is the signed
 * storage type; `Sem` the semantic type (signed or unsigned). */
template <typename Sem, typename To, typename F>
VX_HD inline To fp_to_int(F x) {
  double d = static_cast<double>(x);
  if (d != d) return 0;  // NaN
  const double lo = static_cast<double>(std::numeric_limits<Sem>::min());
  const double hi = static_cast<double>(std::numeric_limits<Sem>::max());
  if (d <= lo) return static_cast<To>(std::numeric_limits<Sem>::min());
  if (d >= hi) return static_cast<To>(std::numeric_limits<Sem>::max());
  return static_cast<To>(static_cast<Sem>(d));
}

}  // namespace vx::rt

#endif /* VX_SCALAR_H */
