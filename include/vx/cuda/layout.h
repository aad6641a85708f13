/* The shared-memory layouts and descriptors of the tensor cores of the b200
 * and h100 targets (vx/cuda/mma.h), as the PTX ISA defines them: encoded by
 * the kernels, decoded by the interpreter (vx/cuda/interpret.h). Host and
 * device, header-only C++17. */
#ifndef VX_CUDA_LAYOUT_H
#define VX_CUDA_LAYOUT_H

#include <cstdint>
#include <cstring>

#include "vx/hd.h"

namespace vx::cu {

/* The rows a copy between a (maybe strided) global view and a contiguous
 * buffer moves: `rows` runs of `rowBytes`, `srcStride` / `dstStride` bytes
 * apart (vx/cuda/hbm.h builds them; the interpreter lands them). */
struct CopyShape {
  uint64_t rows = 1, rowBytes = 0, srcStride = 0, dstStride = 0;
  VX_HD uint64_t bytes() const { return rows * rowBytes; }
};

namespace tc {

inline constexpr uint32_t kRowBytes = 128;  // one K-major row of a chunk: 32 tf32
inline constexpr uint32_t kAtomBytes = 1024;  // 8 rows: the swizzle atom, the stride between 8-row groups

/* The 128-byte swizzle (Swizzle<3,4,3> on byte addresses): the 16-byte chunk
 * (address bits 4-6) is XORed with the row within the 1024-byte atom (bits
 * 7-9). Offsets are from a 1024-byte-aligned base. */
VX_HD constexpr uint32_t swizzle128(uint32_t off) { return off ^ (((off >> 7) & 7u) << 4); }
/* Where element (row, k) of a staged K-major operand lies. */
VX_HD constexpr uint32_t stagedOffset(uint32_t row, uint32_t k) { return swizzle128(row * kRowBytes + k * 4u); }

/* tcgen05 shared-memory descriptor: start address >> 4 (bits 0-13), leading
 * byte offset >> 4 (16-29; unused by swizzled K-major layouts, 1 by
 * convention), stride byte offset >> 4 (32-45), version 1 (46-47), base
 * offset 0 (49-51), layout SWIZZLE_128B = 2 (61-63). */
VX_HD constexpr uint64_t ummaDesc(uint32_t smemAddr) {
  return uint64_t{(smemAddr >> 4) & 0x3FFFu} | (uint64_t{1} << 16) | (uint64_t{kAtomBytes >> 4} << 32) |
         (uint64_t{1} << 46) | (uint64_t{2} << 61);
}
/* tcgen05 instruction descriptor for kind::tf32: D f32 (bits 4-5 = 1), A and
 * B tf32 (7-9, 10-12 = 2), both K-major (15, 16 = 0), N >> 3 (17-22),
 * M >> 4 (24-28). */
VX_HD constexpr uint32_t ummaInstrDesc(uint32_t m, uint32_t n) {
  return (1u << 4) | (2u << 7) | (2u << 10) | ((n >> 3) << 17) | ((m >> 4) << 24);
}
/* wgmma shared-memory descriptor: the same address fields, no version,
 * layout SWIZZLE_128B = 1 (bits 62-63). */
VX_HD constexpr uint64_t gmmaDesc(uint32_t smemAddr) {
  return uint64_t{(smemAddr >> 4) & 0x3FFFu} | (uint64_t{1} << 16) | (uint64_t{kAtomBytes >> 4} << 32) |
         (uint64_t{1} << 62);
}
static_assert(ummaInstrDesc(128, 64) == 0x08100910u, "M=128 N=64 tf32 K-major, f32 accumulator");

/* The wgmma m64nNk8 f32 accumulator: register j of thread t of the warpgroup
 * holds this row and column of the 64 x N result. */
VX_HD constexpr uint32_t fragRow(uint32_t t, uint32_t j) {
  return 16u * (t / 32u) + (t % 32u) / 4u + 8u * ((j / 2u) % 2u);
}
VX_HD constexpr uint32_t fragCol(uint32_t t, uint32_t j) { return 8u * (j / 4u) + 2u * (t % 4u) + (j % 2u); }

/* The value a tensor core multiplies when it reads an f32 operand as tf32:
 * the low 13 mantissa bits are ignored. */
VX_HD inline float tf32(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) return x;  // NaN stays NaN
  u &= 0xffffe000u;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

}  // namespace tc

}  // namespace vx::cu

#endif /* VX_CUDA_LAYOUT_H */
