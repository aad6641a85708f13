/* Elementwise ops on VMEM buffers: `+ - *`, scale, and on-chip compute. Each result is a new
 * buffer of the arena (the operands may still be borrowed elsewhere).
 * Header-only C++17. */
#ifndef VX_ELEMENTWISE_H
#define VX_ELEMENTWISE_H

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "vx/debug.h"
#include "vx/reduce.h"
#include "vx/vmath.h"
#include "vx/memory.h"
#include "vx/wide.h"

namespace vx::rt {

/* The binary operators, one functor each (`a op b` in f32, f64 for f64). */
namespace fn2 {
#define VX_BINARY_FN(NAME, EXPR)  \
  struct NAME {                   \
    template <typename V>         \
    V operator()(V x, V y) const { \
      return EXPR;                \
    }                             \
  };
VX_BINARY_FN(add, x + y)
VX_BINARY_FN(sub, x - y)
VX_BINARY_FN(mul, x * y)
VX_BINARY_FN(div, x / y)
VX_BINARY_FN(max, (x > y || x != x) ? x : y)  // NaN where either is, as jnp.maximum
VX_BINARY_FN(min, (x < y || x != x) ? x : y)
#undef VX_BINARY_FN
}  // namespace fn2

/* `a op b` in f32, rounded to T; f32 buffers at the CPU's vector width (wide.h). */
template <typename T, typename F>
inline Buf<T> map2(Arena& arena, const Buf<T>& a, const Buf<T>& b, const char* at, F f) {
  Buf<T> r = allocate<T>(arena, a.n, at);
  if constexpr (std::is_same_v<T, float>)
    wide::vv<F>(r.data, a.data, b.data, a.n);
  else
    for (uint64_t i = 0; i < a.n; ++i)
      r.data[i] = static_cast<T>(f(static_cast<float>(a.data[i]), static_cast<float>(b.data[i])));
  return r;
}

template <typename T>
inline Buf<T> add(Arena& arena, const Buf<T>& a, const Buf<T>& b, const char* at) {
  return map2(arena, a, b, at, fn2::add{});
}
template <typename T>
inline Buf<T> sub(Arena& arena, const Buf<T>& a, const Buf<T>& b, const char* at) {
  return map2(arena, a, b, at, fn2::sub{});
}
template <typename T>
inline Buf<T> mul(Arena& arena, const Buf<T>& a, const Buf<T>& b, const char* at) {
  return map2(arena, a, b, at, fn2::mul{});
}
inline Buf<double> add(Arena& arena, const Buf<double>& a, const Buf<double>& b, const char* at) {
  Buf<double> r = allocate<double>(arena, a.n, at);
  for (uint64_t i = 0; i < a.n; ++i) r.data[i] = a.data[i] + b.data[i];
  return r;
}
inline Buf<double> sub(Arena& arena, const Buf<double>& a, const Buf<double>& b, const char* at) {
  Buf<double> r = allocate<double>(arena, a.n, at);
  for (uint64_t i = 0; i < a.n; ++i) r.data[i] = a.data[i] - b.data[i];
  return r;
}
inline Buf<double> mul(Arena& arena, const Buf<double>& a, const Buf<double>& b, const char* at) {
  Buf<double> r = allocate<double>(arena, a.n, at);
  for (uint64_t i = 0; i < a.n; ++i) r.data[i] = a.data[i] * b.data[i];
  return r;
}

/* x * s in f32 (f64 for f64 buffers: the factor, an f32, is exact there). */
template <typename T>
inline void scale_into(const Buf<T>& y, const Buf<T>& x, float s, const char*) {
  if constexpr (std::is_same_v<T, float>)
    wide::scale(y.data, x.data, s, x.n);
  else if constexpr (std::is_same_v<T, double>)
    for (uint64_t i = 0; i < x.n; ++i) y.data[i] = x.data[i] * static_cast<double>(s);
  else
    for (uint64_t i = 0; i < x.n; ++i) y.data[i] = static_cast<T>(static_cast<float>(x.data[i]) * s);
}

template <typename T>
inline Buf<T> scale(Arena& arena, const Buf<T>& x, float s, const char* at) {
  Buf<T> r = allocate<T>(arena, x.n, at);
  scale_into(r, x, s, at);
  return r;
}

/* ---- on-chip compute (compute.md) ----
 * The unary functions of src/target/Unary.def (one functor each, named as
 * the row), fills, copies and row reductions. Each computes in f32 (f64 for
 * f64 buffers) and rounds to the element type; `_into` forms, `fill` and
 * `copy_into` write an existing buffer and allocate nothing. */
namespace fn {
#define VX_UNARY_FN(NAME, EXPR) \
  struct NAME {                 \
    template <typename V>       \
    static V f(V x) {           \
      return EXPR;              \
    }                           \
  };
// e^x, ln x and tanh x in f32: vx/vmath.h's vectorised polynomials (what
// vxsim and the CUDA interpreter compute too), with a loop over a whole
// buffer (`bulk`) dispatched to the machine's widest vectors.
#define VX_UNARY_VMATH(NAME)                                                                         \
  struct NAME {                                                                                      \
    template <typename V>                                                                            \
    static V f(V x) {                                                                                \
      if constexpr (std::is_same_v<V, float>) return vmath::NAME(x);                                 \
      else return std::NAME(x);                                                                      \
    }                                                                                                \
    static void bulk(float* y, const float* x, uint64_t n) { vmath::NAME##_n(y, x, n); }             \
  };
VX_UNARY_VMATH(exp)
VX_UNARY_VMATH(log)
VX_UNARY_VMATH(tanh)
#undef VX_UNARY_VMATH
VX_UNARY_FN(sqrt, std::sqrt(x))
VX_UNARY_FN(rsqrt, V(1) / std::sqrt(x))
VX_UNARY_FN(abs, std::fabs(x))
VX_UNARY_FN(neg, -x)
VX_UNARY_FN(relu, x > V(0) ? x : V(0))  // NaN: 0 (the tpu's vec.relu, the CUDA layer)
#undef VX_UNARY_FN
}  // namespace fn

template <typename T>
using compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename F, typename = void>
struct has_bulk : std::false_type {};
template <typename F>
struct has_bulk<F, std::void_t<decltype(&F::bulk)>> : std::true_type {};

template <typename F, typename T>
inline void unary_into(const Buf<T>& y, const Buf<T>& x, const char*) {
  if constexpr (std::is_same_v<T, float> && has_bulk<F>::value)
    F::bulk(y.data, x.data, x.n);
  else if constexpr (std::is_same_v<T, float>)
    wide::un<F>(y.data, x.data, x.n);
  else
    for (uint64_t i = 0; i < x.n; ++i) y.data[i] = static_cast<T>(F::f(static_cast<compute_t<T>>(x.data[i])));
}

template <typename F, typename T>
inline Buf<T> unary(Arena& arena, const Buf<T>& x, const char* at) {
  Buf<T> r = allocate<T>(arena, x.n, at);
  unary_into<F>(r, x, at);
  return r;
}

template <typename T>
inline void fill(const Buf<T>& y, float v, const char*) {
  const T t = static_cast<T>(v);
  for (uint64_t i = 0; i < y.n; ++i) y.data[i] = t;
}

template <typename T>
inline void copy_into(const Buf<T>& y, const Buf<T>& x, const char*) {
  for (uint64_t i = 0; i < x.n; ++i) y.data[i] = x.data[i];
}

/* `a op b` where a side is the [R, C] result's shape (mode 0), its column
 * [R, 1] (mode 1: element r of every row's columns) or its row [1, C]
 * (mode 2): NumPy broadcasting limited to those two shapes. */
template <typename T, typename F>
inline Buf<T> broadcast(Arena& arena, F f, const Buf<T>& a, int ma, const Buf<T>& b, int mb, uint64_t rows,
                        uint64_t cols, const char* at) {
  Buf<T> r = allocate<T>(arena, rows * cols, at);
  if constexpr (std::is_same_v<T, float>) {  // row by row, at the CPU's vector width (wide.h)
    for (uint64_t i = 0; i < rows; ++i) {
      float* out = r.data + i * cols;
      // Along row i: mode 0 reads the row, mode 2 the row operand, mode 1 one element.
      const float* pa = ma == 0 ? a.data + i * cols : ma == 2 ? a.data : nullptr;
      const float* pb = mb == 0 ? b.data + i * cols : mb == 2 ? b.data : nullptr;
      if (pa && pb)
        wide::vv<F>(out, pa, pb, cols);
      else if (pa)
        wide::vs<F>(out, pa, b.data[i], cols);
      else if (pb)
        wide::sv<F>(out, a.data[i], pb, cols);
      else
        for (uint64_t c = 0; c < cols; ++c) out[c] = f(a.data[i], b.data[i]);
    }
    return r;
  }
  auto index = [cols](int m, uint64_t i) { return m == 0 ? i : m == 1 ? i / cols : i % cols; };
  for (uint64_t i = 0; i < rows * cols; ++i)
    r.data[i] = static_cast<T>(f(static_cast<compute_t<T>>(a.data[index(ma, i)]),
                                 static_cast<compute_t<T>>(b.data[index(mb, i)])));
  return r;
}

/* d rounded to f32 toward zero, its last bit set where bits were lost
 * (rounding to odd): rounding that to nearest even at 13 or fewer
 * significant bits (bf16, f16) rounds d once, not twice (Boldo and
 * Melquiond, "Emulation of FMA and correctly rounded sums: proved
 * algorithms using rounding to odd"). */
inline float f32RoundedToOdd(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits |= 1u;
  std::memcpy(&f, &bits, sizeof bits);
  return f;
}

/* x converted to U, rounded once to nearest even: by the 16-bit types'
 * constructors from f32, from f64 through f32RoundedToOdd. */
template <typename U, typename T>
inline Buf<U> cast(Arena& arena, const Buf<T>& x, const char* at) {
  Buf<U> r = allocate<U>(arena, x.n, at);
  constexpr bool narrowFromF64 = std::is_same_v<T, double> && (std::is_same_v<U, bf16> || std::is_same_v<U, f16>);
  for (uint64_t i = 0; i < x.n; ++i) {
    if constexpr (narrowFromF64)
      r.data[i] = static_cast<U>(f32RoundedToOdd(x.data[i]));
    else
      r.data[i] = static_cast<U>(static_cast<compute_t<U>>(static_cast<compute_t<T>>(x.data[i])));
  }
  return r;
}

/* dbg(x) (vx/debug.h): a tensor's elements widened to f64. */
template <typename T>
inline void dbg_tensor(const char* label, const char* type, const Buf<T>& x, const char*) {
  vx::dbg::print_tensor(label, type, x.n,
                        [&](uint64_t i) { return static_cast<double>(static_cast<compute_t<T>>(x.data[i])); });
}
inline void dbg_int(const char* label, long long v) { vx::dbg::print_int(label, v); }
inline void dbg_uint(const char* label, unsigned long long v) { vx::dbg::print_uint(label, v); }
inline void dbg_bool(const char* label, bool v) { vx::dbg::print_bool(label, v); }
inline void dbg_float(const char* label, double v) { vx::dbg::print_float(label, v); }

/* The transpose of a rows x cols tile: r[c][r] = x[r][c]. */
template <typename T>
inline Buf<T> transpose(Arena& arena, const Buf<T>& x, uint64_t rows, uint64_t cols, const char* at) {
  Buf<T> r = allocate<T>(arena, x.n, at);
  for (uint64_t i = 0; i < rows; ++i)
    for (uint64_t j = 0; j < cols; ++j) r.data[j * rows + i] = x.data[i * cols + j];
  return r;
}

/* The max of each row (NaN if any element is), as a column. */
template <typename T>
inline Buf<T> row_max(Arena& arena, const Buf<T>& x, uint64_t rows, uint64_t cols, const char* at) {
  Buf<T> r = allocate<T>(arena, rows, at);
  for (uint64_t i = 0; i < rows; ++i) {
    const T* row = x.data + i * cols;
    r.data[i] = static_cast<T>(reduce::row<compute_t<T>>(
        cols, [row](uint64_t c) { return static_cast<compute_t<T>>(row[c]); }, reduce::Max{}));
  }
  return r;
}

/* Each row's sum in f32 (f64 for f64), in the order of vx/reduce.h. */
template <typename T>
inline Buf<T> row_sum(Arena& arena, const Buf<T>& x, uint64_t rows, uint64_t cols, const char* at) {
  Buf<T> r = allocate<T>(arena, rows, at);
  for (uint64_t i = 0; i < rows; ++i) {
    const T* row = x.data + i * cols;
    r.data[i] = static_cast<T>(reduce::row<compute_t<T>>(
        cols, [row](uint64_t c) { return static_cast<compute_t<T>>(row[c]); }, reduce::Sum{}));
  }
  return r;
}

}  // namespace vx::rt

#endif /* VX_ELEMENTWISE_H */
