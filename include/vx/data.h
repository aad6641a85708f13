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

inline uint64_t vx_splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

inline void vx_fill(uint64_t seed, uint32_t bufferIndex, float* data, size_t n) {
  uint64_t state = seed + 0x632BE59BD9B4E019ULL * (static_cast<uint64_t>(bufferIndex) + 1);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t x = vx_splitmix64(&state);
    data[i] = static_cast<float>(static_cast<int>((x >> 32) % 33) - 16) / 8.0f;
  }
}

inline uint64_t vx_checksum(const float* data, size_t n) {
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
inline float vx_f32_from_bf16(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline uint16_t vx_bf16_from_f32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

#endif /* VX_DATA_H */
