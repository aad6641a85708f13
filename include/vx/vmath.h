/* The transcendental functions of on-chip compute in f32 (docs/compute.md):
 * e^x, ln x and tanh x as branch-free polynomials (Cephes' coefficients)
 * that a C++ compiler vectorises, so that `exp(&x)` over a tile is a
 * vector loop on the cpu target rather than a libm call per element. The
 * cpu runtime, the CUDA interpreter and vxsim all compute with these, so
 * cpu, tpu and both interpreters agree bit for bit; a GPU uses its own expf,
 * logf and tanhf. Each is within 2 ulp of the exact result over the whole
 * f32 range (measured: tests/unit/runtime/VmathTest.cpp and
 * bench/vmath.sh), with IEEE special values (NaN, +-inf, +-0, denormals).
 * Built without floating-point contraction (-ffp-contract=off: the
 * toolchain passes it, and vxsim is built with it) so that a machine with
 * FMA computes the same bits as one without. Header-only C++17. */
#ifndef VX_VMATH_H
#define VX_VMATH_H

#include <cstdint>
#include <cstring>

namespace vx::vmath {

inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
/* 2^n for -126 <= n <= 127. */
inline float pow2(int32_t n) { return from_bits(static_cast<uint32_t>(n + 127) << 23); }

/* e^x: x = n ln 2 + r with |r| <= ln 2 / 2, e^r by a degree-7 polynomial,
 * then 2^n applied in two halves (so that denormal results round once). */
inline float exp(float x) {
  const float xc = x > -104.0f ? (x < 89.0f ? x : 89.0f) : -104.0f;  // NaN: -104, fixed below
  const float magic = 12582912.0f;                                    // 1.5 x 2^23: rounds to an integer
  const float nf = (xc * 1.44269504088896341f + magic) - magic;
  const float r = (xc - nf * 0.693359375f) - nf * -2.12194440e-4f;  // 0.693359375: n * it is exact
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = (p * (r * r) + r) + 1.0f;
  const int32_t n = static_cast<int32_t>(nf);  // -150 ... 129
  const int32_t n1 = n / 2, n2 = n - n1;
  const float e = (y * pow2(n1)) * pow2(n2);
  return x != x ? x : e;
}

/* ln x: x = m 2^e with sqrt(1/2) <= m < sqrt(2), ln(m) by a degree-9
 * polynomial in m - 1. */
inline float log(float x) {
  const bool tiny = x < 1.17549435e-38f;  // a denormal (or 0, negative): scaled by 2^23 first
  const float xs = x * (tiny ? 8388608.0f : 1.0f);
  const uint32_t u = bits(xs);
  const int32_t e0 = static_cast<int32_t>((u >> 23) & 0xff) - (tiny ? 149 : 126);
  const float m0 = from_bits((u & 0x007fffffu) | 0x3f000000u);  // [0.5, 1)
  const bool low = m0 < 0.707106781186547524f;
  const float fe = static_cast<float>(e0) - (low ? 1.0f : 0.0f);
  const float m = (low ? m0 + m0 : m0) - 1.0f;
  const float z = m * m;
  float p = 7.0376836292e-2f;
  p = p * m - 1.1514610310e-1f;
  p = p * m + 1.1676998740e-1f;
  p = p * m - 1.2420140846e-1f;
  p = p * m + 1.4249322787e-1f;
  p = p * m - 1.6668057665e-1f;
  p = p * m + 2.0000714765e-1f;
  p = p * m - 2.4999993993e-1f;
  p = p * m + 3.3333331174e-1f;
  float y = (p * m) * z;
  y = y + fe * -2.12194440e-4f;
  y = y - 0.5f * z;
  float l = (m + y) + fe * 0.693359375f;
  const float inf = from_bits(0x7f800000u);
  l = x == inf ? inf : l;
  l = x == 0.0f ? -inf : l;
  l = x < 0.0f ? from_bits(0x7fc00000u) : l;
  return x != x ? x : l;
}

/* tanh x: x + x^3 P(x^2) below 0.625, else 1 - 2 / (e^2|x| + 1) with x's sign. */
inline float tanh(float x) {
  const float a = x < 0.0f ? -x : x;
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397721982e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = (p * z) * x + x;
  const float s = vmath::exp(2.0f * (a < 44.0f ? a : 44.0f));
  const float big = 1.0f - 2.0f / (s + 1.0f);
  return a >= 0.625f ? (x < 0.0f ? -big : big) : x == 0.0f ? x : small;  // NaN: `small`, NaN; -0: -0
}

/* The loops the cpu runtime runs over a buffer of f32: vectorised for the
 * machine's widest vectors where the compiler can dispatch at run time
 * (GCC on x86-64: an AVX2 clone next to the portable SSE2 one, chosen once
 * when the program loads), so a portable object is fast on any x86. The
 * clones compute the same bits: contraction is off, and every operation is
 * an IEEE one. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && \
    !defined(__AVX2__)
#define VX_VMATH_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VX_VMATH_CLONES
#endif
VX_VMATH_CLONES static inline void exp_n(float* y, const float* x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) y[i] = vmath::exp(x[i]);
}
VX_VMATH_CLONES static inline void log_n(float* y, const float* x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) y[i] = vmath::log(x[i]);
}
VX_VMATH_CLONES static inline void tanh_n(float* y, const float* x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) y[i] = vmath::tanh(x[i]);
}
#undef VX_VMATH_CLONES

}  // namespace vx::vmath

#endif /* VX_VMATH_H */
