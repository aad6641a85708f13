/* Data conventions shared by every Vx target: deterministic input fill and
 * output checksums. Header-only, plain C++17, no dependencies: included by
 * vxsim, by `vxc run` and by the C++ the cpu target generates, so that the
 * same seed gives the same checksums everywhere.
 *
 * Fill: buffer `bufferIndex` (the entry function's tensor parameters, counted
 * from 0 in declaration order; a Vec<Tensor> is one buffer, its tensors
 * back to back) gets, for element i, the i-th output of splitmix64 seeded
 * with seed + 0x632BE59BD9B4E019 * (bufferIndex + 1), mapped to
 * ((x >> 32) % 33 - 16) / 8: a multiple of 1/8 in [-2, 2]. Products are then
 * multiples of 1/64 of magnitude <= 4, so any sum of fewer than 65,536 of
 * them is exact in f32 and independent of summation order.
 *
 * Checksum: FNV-1a 64 over the little-endian bytes of each f32, with -0.0
 * counted as 0.0 (a zero's sign depends on summation order). bf16 data is
 * widened to f32 first. Printed as `checksum NAME = 0x%016llx`.
 */
#ifndef VX_DATA_H
#define VX_DATA_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "vx/hd.h"

VX_HD inline uint64_t vx_splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

VX_HD inline void vx_fill(uint64_t seed, uint32_t bufferIndex, float* data, size_t n) {
  uint64_t state = seed + 0x632BE59BD9B4E019ULL * (static_cast<uint64_t>(bufferIndex) + 1);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t x = vx_splitmix64(&state);
    data[i] = static_cast<float>(static_cast<int>((x >> 32) % 33) - 16) / 8.0f;
  }
}

VX_HD inline uint64_t vx_checksum(const float* data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; ++i) {
    float f = data[i];
    if (f == 0.0f) f = 0.0f;  // -0.0 == 0.0, so this normalises the sign
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    for (int b = 0; b < 4; ++b) {
      h ^= (u >> (8 * b)) & 0xffu;
      h *= 0x100000001b3ULL;
    }
  }
  return h;
}

/* bf16 <-> f32: widening is exact; narrowing rounds to nearest even and
 * keeps NaNs quiet. Every vx_fill value is exact in bf16. */
VX_HD inline float vx_f32_from_bf16(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

VX_HD inline uint16_t vx_bf16_from_f32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

/* f16 (IEEE binary16) <-> f32: widening is exact; narrowing rounds to
 * nearest even, with subnormals, infinities and quiet NaNs. Every vx_fill
 * value is exact in f16. */
VX_HD inline float vx_f32_from_f16(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint32_t u;
  float f;
  if (e == 0x1fu) {
    u = sign | 0x7f800000u | (m << 13);
  } else if (e != 0) {
    u = sign | ((e + 112u) << 23) | (m << 13);
  } else if (m == 0) {
    u = sign;
  } else {  // subnormal: m * 2^-24, exact in f32
    f = static_cast<float>(m) * 5.9604644775390625e-8f;
    std::memcpy(&u, &f, sizeof u);
    u |= sign;
  }
  std::memcpy(&f, &u, sizeof f);
  return f;
}

VX_HD inline uint16_t vx_f16_from_f32(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504: infinity
  if (ax < 0x38800000u) {                                               // below 2^-14: subnormal or zero
    if (ax <= 0x33000000u) return static_cast<uint16_t>(sign);           // at most 2^-25: rounds to zero
    const uint32_t m = (ax & 0x7fffffu) | 0x800000u, shift = 126u - (ax >> 23);
    uint32_t bits = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (bits & 1u))) ++bits;
    return static_cast<uint16_t>(sign | bits);
  }
  uint32_t bits = (ax - 0x38000000u) >> 13;
  const uint32_t rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (bits & 1u))) ++bits;
  return static_cast<uint16_t>(sign | bits);
}

#endif /* VX_DATA_H */
