/* On-chip compute of the b200 and h100 targets (../shared/spec/compute.md,
 * docs/compute.md): the functors of src/target/Unary.def's rows, fills,
 * copies, broadcasting operators, casts, transposes and row reductions.
 * Included by vx/cuda/runtime.h after the elementwise operations it builds
 * on (map, the operator functors, the arena, the block's barriers). Every
 * operand is read row-major (linear(): a tensor-map copy may have landed it
 * in the tensor cores' swizzle). */
#ifndef VX_CUDA_COMPUTE_H
#define VX_CUDA_COMPUTE_H

#include "vx/debug.h"
#include "vx/reduce.h"
#include "vx/vmath.h"

namespace vx::cu {

/* ---- on-chip compute (compute.md): the functors of src/target/Unary.def's
 * rows, fills, copies and row reductions, each thread a strided share (rows,
 * for the reductions) ---- */
/* e^x, ln x, tanh x in f32: the GPU's own on the device; under the
 * interpreter vx/vmath.h's, which the cpu runtime and vxsim compute too, so
 * that the interpreter agrees with them bit for bit. */
#if defined(__CUDA_ARCH__)
#define VX_F32_FN(NAME, DEVICE) \
  VX_HD inline float NAME##_f32(float x) { return DEVICE(x); }
#else
#define VX_F32_FN(NAME, DEVICE) \
  VX_HD inline float NAME##_f32(float x) { return vmath::NAME(x); }
#endif
VX_F32_FN(exp, expf)
VX_F32_FN(log, logf)
VX_F32_FN(tanh, tanhf)
#undef VX_F32_FN
namespace fn {
#define VX_UNARY_FN(NAME, F32, F64)                 \
  struct NAME {                                     \
    VX_HD static float f(float x) { return F32; }   \
    VX_HD static double f(double x) { return F64; } \
  };
VX_UNARY_FN(exp, exp_f32(x), ::exp(x))
VX_UNARY_FN(log, log_f32(x), ::log(x))
VX_UNARY_FN(sqrt, sqrtf(x), ::sqrt(x))
VX_UNARY_FN(rsqrt, 1.0f / sqrtf(x), 1.0 / ::sqrt(x))
VX_UNARY_FN(tanh, tanh_f32(x), ::tanh(x))
VX_UNARY_FN(abs, fabsf(x), ::fabs(x))
VX_UNARY_FN(neg, -x, -x)
VX_UNARY_FN(relu, x > 0.0f ? x : 0.0f, x > 0.0 ? x : 0.0)  // NaN: 0, as on cpu and tpu
#undef VX_UNARY_FN
}  // namespace fn
template <typename F>
struct UnaryF {
  template <typename T>
  VX_HD T operator()(T x, T) const { return static_cast<T>(F::f(static_cast<float>(x))); }
  VX_HD double operator()(double x, double) const { return F::f(x); }
};

template <typename F, typename T>
VX_HD inline Buf<T> unary(Arena& arena, const Buf<T>& x, const char* at) {
  return map(arena, x, static_cast<const Buf<T>*>(nullptr), at, UnaryF<F>{});
}
template <typename F, typename T>
VX_HD inline void unary_into(const Buf<T>& y, const Buf<T>& x, const char* at) {
  linear(x, at);
  linear(y, at);
  sync();
  touch(x.data, x.n * sizeof(T), false, at);
  touch(y.data, y.n * sizeof(T), true, at);
  for (uint64_t i = lane(); i < x.n; i += lanes()) y.data[i] = UnaryF<F>{}(x.data[i], x.data[i]);
  sync();
}
template <typename T>
VX_HD inline void fill(const Buf<T>& y, float v, const char* at) {
  linear(y, at);
  sync();
  touch(y.data, y.n * sizeof(T), true, at);
  for (uint64_t i = lane(); i < y.n; i += lanes()) y.data[i] = static_cast<T>(v);
  sync();
}
template <typename T>
VX_HD inline void copy_into(const Buf<T>& y, const Buf<T>& x, const char* at) {
  linear(x, at);
  linear(y, at);
  sync();
  touch(x.data, x.n * sizeof(T), false, at);
  touch(y.data, y.n * sizeof(T), true, at);
  for (uint64_t i = lane(); i < x.n; i += lanes()) y.data[i] = x.data[i];
  sync();
}
/* `a op b` with a side the result's shape (mode 0), its column [R, 1]
 * (mode 1) or its row [1, C] (mode 2). */
struct DivF {
  template <typename T>
  VX_HD T operator()(T x, T y) const { return static_cast<T>(static_cast<float>(x) / static_cast<float>(y)); }
  VX_HD double operator()(double x, double y) const { return x / y; }
};
struct MaxF {  // NaN where either is
  template <typename T>
  VX_HD T operator()(T x, T y) const {
    float a = static_cast<float>(x), b = static_cast<float>(y);
    return (a > b || a != a) ? x : y;
  }
  VX_HD double operator()(double x, double y) const { return (x > y || x != x) ? x : y; }
};
struct MinF {
  template <typename T>
  VX_HD T operator()(T x, T y) const {
    float a = static_cast<float>(x), b = static_cast<float>(y);
    return (a < b || a != a) ? x : y;
  }
  VX_HD double operator()(double x, double y) const { return (x < y || x != x) ? x : y; }
};
namespace fn2 {
using add = AddF;
using sub = SubF;
using mul = MulF;
using div = DivF;
using max = MaxF;
using min = MinF;
}  // namespace fn2
template <typename T, typename F>
VX_HD inline Buf<T> broadcast(Arena& arena, F f, const Buf<T>& a, int ma, const Buf<T>& b, int mb, uint64_t rows,
                              uint64_t cols, const char* at) {
  linear(a, at);
  linear(b, at);
  sync();
  touch(a.data, a.n * sizeof(T), false, at);
  touch(b.data, b.n * sizeof(T), false, at);
  Buf<T> r = allocate<T>(arena, rows * cols, at);
  for (uint64_t i = lane(); i < rows * cols; i += lanes()) {
    uint64_t ia = ma == 0 ? i : ma == 1 ? i / cols : i % cols;
    uint64_t ib = mb == 0 ? i : mb == 1 ? i / cols : i % cols;
    r.data[i] = f(a.data[ia], b.data[ib]);
  }
  sync();
  return r;
}

/* The transpose of a rows x cols tile, each thread a strided share. */
template <typename T>
VX_HD inline Buf<T> transpose(Arena& arena, const Buf<T>& x, uint64_t rows, uint64_t cols, const char* at) {
  linear(x, at);
  sync();
  touch(x.data, x.n * sizeof(T), false, at);
  Buf<T> r = allocate<T>(arena, x.n, at);
  for (uint64_t i = lane(); i < rows * cols; i += lanes()) r.data[(i % cols) * rows + i / cols] = x.data[i];
  sync();
  return r;
}

template <typename T>
struct Wide;
/* x converted to U, each thread a strided share; rounded to nearest even. */
template <typename U, typename T>
VX_HD inline Buf<U> cast(Arena& arena, const Buf<T>& x, const char* at) {
  linear(x, at);
  sync();
  touch(x.data, x.n * sizeof(T), false, at);
  Buf<U> r = allocate<U>(arena, x.n, at);
  for (uint64_t i = lane(); i < x.n; i += lanes())
    r.data[i] = static_cast<U>(static_cast<typename Wide<U>::type>(static_cast<typename Wide<T>::type>(x.data[i])));
  sync();
  return r;
}

template <typename T>
struct Wide {
  using type = float;
};
template <>
struct Wide<double> {
  using type = double;
};
/* Row reductions (vx/reduce.h): one warp per row, lane l folding columns
 * l, l + 32, ... and five `__shfl_xor_sync` butterfly steps, so a row of C
 * columns takes C / 32 + 5 steps instead of C; the interpreter computes the
 * same order lane by lane (reduce::row), so every target agrees bit for bit. */
template <typename Op, typename T>
VX_HD inline Buf<T> row_reduce(Arena& arena, const Buf<T>& x, uint64_t rows, uint64_t cols, const char* at) {
  using W = typename Wide<T>::type;
  linear(x, at);
  sync();
  touch(x.data, x.n * sizeof(T), false, at);
  Buf<T> r = allocate<T>(arena, rows, at);
#if defined(__CUDA_ARCH__)
  const unsigned l = lane() % reduce::kLanes, warps = lanes() / reduce::kLanes;
  for (uint64_t i = lane() / reduce::kLanes; i < rows; i += warps) {  // uniform across a warp
    const T* row = x.data + i * cols;
    W p = Op::template identity<W>();
    for (uint64_t c = l; c < cols; c += reduce::kLanes) p = Op{}(p, static_cast<W>(row[c]));
    for (unsigned s = reduce::kLanes / 2; s > 0; s /= 2) p = Op{}(p, __shfl_xor_sync(0xffffffffu, p, s));
    if (l == 0) r.data[i] = static_cast<T>(p);
  }
#else
  for (uint64_t i = 0; i < rows; ++i) {
    const T* row = x.data + i * cols;
    r.data[i] = static_cast<T>(reduce::row<W>(cols, [row](uint64_t c) { return static_cast<W>(row[c]); }, Op{}));
  }
#endif
  sync();
  return r;
}
template <typename T>
VX_HD inline Buf<T> row_max(Arena& arena, const Buf<T>& x, uint64_t rows, uint64_t cols, const char* at) {
  return row_reduce<reduce::Max>(arena, x, rows, cols, at);
}
template <typename T>
VX_HD inline Buf<T> row_sum(Arena& arena, const Buf<T>& x, uint64_t rows, uint64_t cols, const char* at) {
  return row_reduce<reduce::Sum>(arena, x, rows, cols, at);
}

/* ---- dbg(x) (vx/debug.h): one thread of the block prints, after every
 * thread's earlier writes; a tensor is read as any operand ---- */
template <typename T>
VX_HD inline double dbg_widen(T x) { return static_cast<double>(static_cast<float>(x)); }
VX_HD inline double dbg_widen(double x) { return x; }
template <typename T>
VX_HD inline void dbg_tensor(const char* label, const char* type, const Buf<T>& x, const char* at) {
  linear(x, at);
  sync();
  touch(x.data, x.n * sizeof(T), false, at);
  if (lane() == 0) dbg::print_tensor(label, type, x.n, [&](uint64_t i) { return dbg_widen(x.data[i]); });
  sync();
}
VX_HD inline void dbg_int(const char* label, long long v) {
  sync();
  if (lane() == 0) dbg::print_int(label, v);
  sync();
}
VX_HD inline void dbg_uint(const char* label, unsigned long long v) {
  sync();
  if (lane() == 0) dbg::print_uint(label, v);
  sync();
}
VX_HD inline void dbg_bool(const char* label, bool v) {
  sync();
  if (lane() == 0) dbg::print_bool(label, v);
  sync();
}
VX_HD inline void dbg_float(const char* label, double v) {
  sync();
  if (lane() == 0) dbg::print_float(label, v);
  sync();
}

}  // namespace vx::cu

#endif /* VX_CUDA_COMPUTE_H */
