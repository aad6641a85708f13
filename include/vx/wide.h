/* The f32 loops of the elementwise operators (elementwise.h) at the widest
 * vectors the CPU has. A portable object (`vxc build` with no
 * `--target-cpu`) is compiled for the x86-64 baseline, whose loops run
 * 4-float SSE2 vectors; each loop here is compiled three times (plain,
 * AVX2, AVX-512: GCC's and Clang's `target` attribute, the compiler
 * vectorising the same body at each width) and one is chosen once per
 * process from the Isa the matrix unit runs (gemm.h, `VX_CPU_ISA`).
 * The operations are IEEE ones applied element by element (no reduction,
 * no contraction: the attributes add no FMA), so every width gives the same
 * bits; the runtime's tests check that at each width the CPU has.
 *
 * Four shapes of loop, by what each side of a binary operator is along
 * the run: both vectors (`vv`), a vector and a scalar (`vs`, `sv`: a
 * broadcast column), and the unary functions (`un`), `scale`.
 * Header-only C++17. */
#ifndef VX_WIDE_H
#define VX_WIDE_H

#include <cstdint>

#include "vx/gemm.h"

namespace vx::rt::wide {

// Op: a functor `float operator()(float, float)` (elementwise.h's fn2);
// F: a unary functor with `static float f(float)` (elementwise.h's fn).
#define VX_WIDE_LOOPS(SUFFIX, TARGET)                                                            \
  template <typename Op>                                                                         \
  TARGET void vv##SUFFIX(float* r, const float* a, const float* b, uint64_t n) {                 \
    for (uint64_t i = 0; i < n; ++i) r[i] = Op{}(a[i], b[i]);                                    \
  }                                                                                              \
  template <typename Op>                                                                         \
  TARGET void vs##SUFFIX(float* r, const float* a, float b, uint64_t n) {                        \
    for (uint64_t i = 0; i < n; ++i) r[i] = Op{}(a[i], b);                                       \
  }                                                                                              \
  template <typename Op>                                                                         \
  TARGET void sv##SUFFIX(float* r, float a, const float* b, uint64_t n) {                        \
    for (uint64_t i = 0; i < n; ++i) r[i] = Op{}(a, b[i]);                                       \
  }                                                                                              \
  template <typename F>                                                                          \
  TARGET void un##SUFFIX(float* y, const float* x, uint64_t n) {                                 \
    for (uint64_t i = 0; i < n; ++i) y[i] = F::f(x[i]);                                          \
  }                                                                                              \
  inline TARGET void scale##SUFFIX(float* y, const float* x, float s, uint64_t n) {             \
    for (uint64_t i = 0; i < n; ++i) y[i] = x[i] * s;                                            \
  }

VX_WIDE_LOOPS(Generic, )
#if VX_GEMM_X86
VX_WIDE_LOOPS(Avx2, __attribute__((target("avx2"))))
VX_WIDE_LOOPS(Avx512, __attribute__((target("avx512f"))))
#endif
#undef VX_WIDE_LOOPS

/* One of three routines by Isa (off x86 the wide ones are never chosen). */
template <typename R>
inline R pick(gemm::Isa i, R generic, [[maybe_unused]] R avx2, [[maybe_unused]] R avx512) {
  switch (i) {
    case gemm::Isa::Generic: return generic;
#if VX_GEMM_X86
    case gemm::Isa::Avx2: return avx2;
    case gemm::Isa::Avx512: return avx512;
#else
    case gemm::Isa::Avx2:
    case gemm::Isa::Avx512: return generic;
#endif
  }
  return generic;
}
#if VX_GEMM_X86
#define VX_WIDE_PICK(LEVEL, NAME, ...) pick(LEVEL, NAME##Generic __VA_ARGS__, NAME##Avx2 __VA_ARGS__, NAME##Avx512 __VA_ARGS__)
#else
#define VX_WIDE_PICK(LEVEL, NAME, ...) pick(LEVEL, NAME##Generic __VA_ARGS__, NAME##Generic __VA_ARGS__, NAME##Generic __VA_ARGS__)
#endif

/* The routines at Isa `level` (the runtime's tests compare the levels). */
template <typename Op>
inline auto vvFor(gemm::Isa level) { return VX_WIDE_PICK(level, vv, <Op>); }
template <typename Op>
inline auto vsFor(gemm::Isa level) { return VX_WIDE_PICK(level, vs, <Op>); }
template <typename Op>
inline auto svFor(gemm::Isa level) { return VX_WIDE_PICK(level, sv, <Op>); }
template <typename F>
inline auto unFor(gemm::Isa level) { return VX_WIDE_PICK(level, un, <F>); }
inline auto scaleFor(gemm::Isa level) { return VX_WIDE_PICK(level, scale, ); }
#undef VX_WIDE_PICK

/* The process's routines (gemm::isa()), chosen on first use. */
template <typename Op>
inline void vv(float* r, const float* a, const float* b, uint64_t n) {
  static const auto f = vvFor<Op>(gemm::isa());
  f(r, a, b, n);
}
template <typename Op>
inline void vs(float* r, const float* a, float b, uint64_t n) {
  static const auto f = vsFor<Op>(gemm::isa());
  f(r, a, b, n);
}
template <typename Op>
inline void sv(float* r, float a, const float* b, uint64_t n) {
  static const auto f = svFor<Op>(gemm::isa());
  f(r, a, b, n);
}
template <typename F>
inline void un(float* y, const float* x, uint64_t n) {
  static const auto f = unFor<F>(gemm::isa());
  f(y, x, n);
}
inline void scale(float* y, const float* x, float s, uint64_t n) {
  static const auto f = scaleFor(gemm::isa());
  f(y, x, s, n);
}

}  // namespace vx::rt::wide

#endif /* VX_WIDE_H */
