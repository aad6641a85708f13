/* The tensor cores of the b200 and h100 targets (docs/b200.md, "Matrix
 * work"). Included by vx/cuda/runtime.h.
 *
 * `mma` and `matmul_acc` compute acc[R x N] += A[R x K] @ B[K x N] (row-major,
 * f32 accumulator) in tiles of 128 x 64 results. For each tile, K goes by
 * chunks of 32: all threads write the chunk's operands into the staging area
 * of shared memory as f32 (bf16 and f16 widen exactly), K-major with the
 * 128-byte swizzle (8-row atoms of 1024 bytes), zero-padding the edges.
 * An A that a tensor-map copy landed in that very layout (f32, K = 32, whole
 * 128-row tiles: vx/cuda/copies.h) is read in place instead, and B then has
 * two staging buffers (A's half of the area is free): the threads stage the
 * next tile's B while the tensor cores multiply this one. Then
 *
 *  - b200 (sm_100a): one thread issues four `tcgen05.mma.cta_group::1
 *    .kind::tf32` (M=128, N=64, K=8) into 64 columns of tensor memory and
 *    `tcgen05.commit`s them to an mbarrier that every thread waits on; after
 *    the last chunk each thread reads its row back with `tcgen05.ld` and
 *    adds it to acc;
 *  - h100 (sm_90a): the warpgroup issues eight `wgmma.mma_async
 *    .m64n64k8.f32.tf32.tf32` (two halves of 64 rows) into registers, waits
 *    the group, and adds each thread's fragment to acc;
 *  - the interpreter (host C++): the same staging code runs, and the same
 *    descriptors are handed to interp::State, which decodes them as the PTX
 *    ISA defines them, reads the swizzled operands from the staging area,
 *    truncates them to tf32 as the tensor cores do, and keeps tensor memory
 *    (columns allocated and freed, a leak at kernel end is an error).
 *
 * f32 operands are multiplied as tf32: 10 explicit mantissa bits, the low 13
 * bits of each operand ignored (truncated), products accumulated in f32.
 * Other operand types (f64, integers) run as SIMT f32 code, as the cpu
 * target computes them. */
#ifndef VX_CUDA_MMA_H
#define VX_CUDA_MMA_H

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "vx/cuda/layout.h"

#if defined(__CUDACC__)
#define VX_FORCE_INLINE __forceinline__
#else
#define VX_FORCE_INLINE inline
#endif

namespace vx::cu {

namespace tc {

/* Operand types the tensor cores take (as tf32: 16-bit types widen exactly). */
template <typename T>
inline constexpr bool kTensorOperand =
    std::is_same_v<T, float> || std::is_same_v<T, vx::rt::bf16> || std::is_same_v<T, vx::rt::f16>;

}  // namespace tc

/* What the block keeps for its tensor cores: carried across a grid's
 * instances (tensor memory stays allocated, the commit barrier's phase
 * goes on). */
struct TensorCore {
  unsigned char* stage = nullptr;  // kStageBytes, 1024-byte aligned: A (128 rows) then B (64 rows)
  uint64_t* bar = nullptr;         // b200: the mbarrier tcgen05.commit arrives on
  uint32_t* tmemSlot = nullptr;    // b200: where tcgen05.alloc writes the columns' address
  uint32_t phase = 0;              // b200: commits waited so far (the barrier's parity)
  uint32_t tmem = 0;               // b200: the accumulator tile's tensor-memory address
  bool hasTmem = false;
};

namespace detail {

/* acc[R x N] += a[R x K] @ b[K x N] by every thread, a strided share of the
 * outputs: f32 multiply-adds in K order, as the cpu target computes. */
template <typename TA, typename TB>
VX_HD inline void simtGemm(float* acc, const TA* a, const TB* b, uint64_t R, uint64_t N, uint64_t K) {
  for (uint64_t o = lane(); o < R * N; o += lanes()) {
    uint64_t r = o / N, c = o % N;
    float s = acc[o];
    for (uint64_t k = 0; k < K; ++k) s += static_cast<float>(a[r * K + k]) * static_cast<float>(b[k * N + c]);
    acc[o] = s;
  }
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* d[64 x 64] (+)= A[64 x 8] @ B[8 x 64], both tf32, K-major, 128-byte swizzle. */
__device__ __forceinline__ void wgmma64x64x8(float (&d)[32], uint64_t da, uint64_t db) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n"
      " wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32\n"
      " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,\n"
      "  %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},\n"
      " %32, %33, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(1u));
}
#endif


/* Chunk [k0, k0 + 32) of rows [m0, m0 + 128) of A into `sa`, zero beyond
 * the edges. */
template <typename TA>
VX_HD inline void stageA(unsigned char* sa, const TA* a, uint64_t R, uint64_t K, uint64_t m0, uint64_t k0,
                         const char* at) {
  touch(sa, kStageA, true, at);  // the interpreter checks no MMA still reads it
  for (uint32_t i = lane(); i < kTileM * tc::kRowBytes / 4; i += lanes()) {
    uint32_t r = i / 32u, k = i % 32u;
    uint64_t gr = m0 + r, gk = k0 + k;
    float v = gr < R && gk < K ? static_cast<float>(a[gr * K + gk]) : 0.0f;
    std::memcpy(sa + tc::stagedOffset(r, k), &v, sizeof v);
  }
}
/* Chunk [k0, k0 + 32) of columns [n0, n0 + 64) of B into `sb`, K-major
 * (the tensor cores take tf32 operands K-major only), zero beyond the edges. */
template <typename TB>
VX_HD inline void stageB(unsigned char* sb, const TB* b, uint64_t N, uint64_t K, uint64_t n0, uint64_t k0,
                         const char* at) {
  touch(sb, kStageB, true, at);
  for (uint32_t i = lane(); i < kTileN * tc::kRowBytes / 4; i += lanes()) {
    uint32_t n = i % kTileN, k = i / kTileN;  // consecutive threads read consecutive columns of B
    uint64_t gn = n0 + n, gk = k0 + k;
    float v = gn < N && gk < K ? static_cast<float>(b[gk * N + gn]) : 0.0f;
    std::memcpy(sb + tc::stagedOffset(n, k), &v, sizeof v);
  }
}
template <typename TA, typename TB>
VX_HD inline void stageChunk(TensorCore& tc, const TA* a, const TB* b, uint64_t R, uint64_t N, uint64_t K, uint64_t m0,
                             uint64_t n0, uint64_t k0, const char* at) {
  stageA(tc.stage, a, R, K, m0, k0, at);
  stageB(tc.stage + kStageA, b, N, K, n0, k0, at);
}

#if (defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM100_ALL)) || (!defined(__CUDACC__) && VX_CUDA_SM == 100)
/* b200: the tile's accumulator columns, allocated at the block's first product. */
VX_HD inline void ensureTmem(TensorCore& tc, const char* at) {
  if (tc.hasTmem) return;
#if defined(__CUDA_ARCH__)
  (void)at;
  if (threadIdx.x < 32) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smemAddr(tc.tmemSlot)),
                 "r"(kTmemColumns)
                 : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  tc.tmem = *tc.tmemSlot;
#else
  tc.tmem = interp::state().tmemAlloc(kTmemColumns, at);
#endif
  tc.hasTmem = true;
}

/* b200: one thread issues the tile's four K = 8 steps from the operands at
 * aAddr and bAddr (K-major, swizzled) and commits them to the tensor cores'
 * mbarrier; `accumulate`: the first step adds to what the columns hold. */
VX_HD inline void issueUmma(TensorCore& tc, uint32_t aAddr, uint32_t bAddr, bool accumulate, const char* at) {
  constexpr uint32_t idesc = tc::ummaInstrDesc(kTileM, kTileN);
#if defined(__CUDA_ARCH__)
  (void)at;
  fenceAsync();  // the staged operands, to the tensor core's (async) proxy
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    for (uint32_t s = 0; s < 4; ++s) {
      uint32_t acc = accumulate || s > 0 ? 1u : 0u;
      asm volatile(
          "{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n"
          " tcgen05.mma.cta_group::1.kind::tf32 [%0], %1, %2, %3, p;\n}\n" ::"r"(tc.tmem),
          "l"(tc::ummaDesc(aAddr + s * 32u)), "l"(tc::ummaDesc(bAddr + s * 32u)), "r"(idesc), "r"(acc)
          : "memory");
    }
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smemAddr(tc.bar))
                 : "memory");
  }
#else
  for (uint32_t s = 0; s < 4; ++s)
    interp::state().umma(tc.tmem, tc::ummaDesc(aAddr + s * 32u), tc::ummaDesc(bAddr + s * 32u), idesc,
                         accumulate || s > 0, at);
  interp::state().ummaCommit(at);
#endif
}
/* b200: every thread waits the commit; the MMAs are done. */
VX_HD inline void waitUmma(TensorCore& tc, const char* at) {
#if defined(__CUDA_ARCH__)
  (void)at;
  waitParity(tc.bar, tc.phase & 1u);
#else
  interp::state().ummaWait(tc.phase & 1u, at);
#endif
  ++tc.phase;
}
/* b200: each thread reads its row of the tile back from tensor memory and
 * adds it to acc. */
VX_HD inline void readTile(TensorCore& tc, float* acc, uint64_t R, uint64_t N, uint64_t m0, uint64_t n0,
                           const char* at) {
#if defined(__CUDA_ARCH__)
  (void)at;
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
#endif
  for (uint32_t t = lane(); t < kTileM; t += lanes()) {
    const uint64_t row = m0 + t;
    for (uint32_t c = 0; c < kTileN; c += 16) {
      float v[16];
#if defined(__CUDA_ARCH__)
      uint32_t r[16];
      const uint32_t taddr = tc.tmem + ((32u * (t / 32u)) << 16) + c;
      asm volatile(
          "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "
          "%14, %15}, [%16];"
          : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
            "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15])
          : "r"(taddr));
      asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
      VX_UNROLL
      for (int j = 0; j < 16; ++j) v[j] = __uint_as_float(r[j]);
#else
      for (uint32_t j = 0; j < 16; ++j) v[j] = interp::state().tmemRead(tc.tmem, t, c + j, at);
#endif
      if (row >= R) continue;
      VX_UNROLL
      for (uint32_t j = 0; j < 16; ++j)
        if (n0 + c + j < N) acc[row * N + n0 + c + j] += v[j];
    }
  }
#if defined(__CUDA_ARCH__)
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
#endif
  sync();  // every row is read before the next tile's MMAs overwrite the columns
}
#endif

#if (defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)) || (!defined(__CUDACC__) && VX_CUDA_SM == 90)
/* h100: the warpgroup issues the tile's four K = 8 steps for both 64-row
 * halves (the accumulators start at zero and always add) and commits them. */
VX_HD VX_FORCE_INLINE void issueWgmma(float (&d0)[32], float (&d1)[32], uint32_t aAddr, uint32_t bAddr, bool accumulate,
                                      const char* at) {
#if defined(__CUDA_ARCH__)
  (void)accumulate, (void)at;
  fenceAsync();  // the staged operands, to the tensor core's (async) proxy
  __syncthreads();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  VX_UNROLL
  for (uint32_t s = 0; s < 4; ++s) {
    const uint64_t db = tc::gmmaDesc(bAddr + s * 32u);
    wgmma64x64x8(d0, tc::gmmaDesc(aAddr + s * 32u), db);
    wgmma64x64x8(d1, tc::gmmaDesc(aAddr + 64u * tc::kRowBytes + s * 32u), db);
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#else
  (void)d0, (void)d1;
  for (uint32_t s = 0; s < 4; ++s) {
    const uint64_t db = tc::gmmaDesc(bAddr + s * 32u);
    interp::state().wgmma(0, tc::gmmaDesc(aAddr + s * 32u), db, accumulate || s > 0, at);
    interp::state().wgmma(1, tc::gmmaDesc(aAddr + 64u * tc::kRowBytes + s * 32u), db, accumulate || s > 0, at);
  }
#endif
}
/* h100: the group is done; every warp's MMAs read their operands. */
VX_HD VX_FORCE_INLINE void waitWgmma(const char* at) {
#if defined(__CUDA_ARCH__)
  (void)at;
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  __syncthreads();
#else
  interp::state().wgmmaWait(at);
#endif
}
/* h100: each thread adds its fragment of both 64-row halves of the tile. */
VX_HD VX_FORCE_INLINE void addFragments(float* acc, const float (&d0)[32], const float (&d1)[32], uint64_t R,
                                        uint64_t N, uint64_t m0, uint64_t n0, const char* at) {
  for (uint32_t t = lane(); t < kTileM; t += lanes()) {
    VX_UNROLL
    for (uint32_t j = 0; j < 32; ++j) {
      const uint64_t r = m0 + tc::fragRow(t, j), c = n0 + tc::fragCol(t, j);
#if defined(__CUDA_ARCH__)
      (void)at;
      const float v0 = d0[j], v1 = d1[j];
#else
      (void)d0, (void)d1;
      const float v0 = interp::state().wgmmaRead(0, t, j, at), v1 = interp::state().wgmmaRead(1, t, j, at);
#endif
      if (c >= N) continue;
      if (r < R) acc[r * N + c] += v0;
      if (r + 64 < R) acc[(r + 64) * N + c] += v1;
    }
  }
  sync();
}
#endif

/* acc[R x N] += a[R x K] @ b[K x N] on the tensor cores (see the top).
 * `aInPlace`: A lies in the tensor cores' layout already (f32 rows of 32,
 * swizzled, 1024-aligned); with K = 32 and whole 128-row tiles it is read
 * where it is, and B's staging alternates between two buffers, so that the
 * threads stage tile t + 1's B while the tensor cores multiply tile t. */
template <typename TA, typename TB>
VX_HD inline void tensorGemm(TensorCore& tc, float* acc, const TA* a, const TB* b, uint64_t R, uint64_t N, uint64_t K,
                             const char* at, bool aInPlace) {
  if (K == 0) return;
  const bool inPlace = aInPlace && std::is_same_v<TA, float> && K == 32 && R % kTileM == 0;
  unsigned char* const sb[2] = {tc.stage + kStageA, tc.stage};  // the second: A's half, free when A is in place
  const uint32_t aAddr = smemAddr(inPlace ? static_cast<const void*>(a) : static_cast<const void*>(tc.stage));
  const uint64_t tilesN = (N + kTileN - 1) / kTileN, tiles = (R + kTileM - 1) / kTileM * tilesN;
#if (defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM100_ALL)) || (!defined(__CUDACC__) && VX_CUDA_SM == 100)
  ensureTmem(tc, at);
  if (inPlace) stageB(sb[0], b, N, K, 0, 0, at);
  for (uint64_t t = 0; t < tiles; ++t) {
    const uint64_t m0 = t / tilesN * kTileM, n0 = t % tilesN * kTileN;
    if (inPlace) {
      issueUmma(tc, aAddr + static_cast<uint32_t>(m0) * tc::kRowBytes, smemAddr(sb[t % 2]), false, at);
      if (t + 1 < tiles) stageB(sb[(t + 1) % 2], b, N, K, (t + 1) % tilesN * kTileN, 0, at);  // while they run
      waitUmma(tc, at);
    } else {
      for (uint64_t k0 = 0; k0 < K; k0 += 32) {
        stageChunk(tc, a, b, R, N, K, m0, n0, k0, at);
        issueUmma(tc, aAddr, smemAddr(sb[0]), k0 > 0, at);
        waitUmma(tc, at);  // the MMAs are done: the staging area is free again
      }
    }
    readTile(tc, acc, R, N, m0, n0, at);
  }
#elif (defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)) || (!defined(__CUDACC__) && VX_CUDA_SM == 90)
  if (inPlace) stageB(sb[0], b, N, K, 0, 0, at);
  for (uint64_t t = 0; t < tiles; ++t) {
    const uint64_t m0 = t / tilesN * kTileM, n0 = t % tilesN * kTileN;
    float d0[32], d1[32];
    VX_UNROLL
    for (int j = 0; j < 32; ++j) d0[j] = d1[j] = 0.0f;
    if (inPlace) {
      issueWgmma(d0, d1, aAddr + static_cast<uint32_t>(m0) * tc::kRowBytes, smemAddr(sb[t % 2]), false, at);
      if (t + 1 < tiles) stageB(sb[(t + 1) % 2], b, N, K, (t + 1) % tilesN * kTileN, 0, at);  // while they run
      waitWgmma(at);
    } else {
      for (uint64_t k0 = 0; k0 < K; k0 += 32) {
        stageChunk(tc, a, b, R, N, K, m0, n0, k0, at);
        issueWgmma(d0, d1, aAddr, smemAddr(sb[0]), k0 > 0, at);
        waitWgmma(at);  // the staging area is free again
      }
    }
    addFragments(acc, d0, d1, R, N, m0, n0, at);
  }
#else
  (void)sb, (void)aAddr, (void)tilesN, (void)tiles, (void)inPlace;
  simtGemm(acc, a, b, R, N, K);
#endif
  (void)at;
}

}  // namespace detail

/* acc[R x N] += a[R x K] @ b[K x N]: tensor cores for f32, bf16 and f16
 * operands; SIMT f32 multiply-adds in K order otherwise. `aInPlace`: A is
 * in the tensor cores' layout (see tensorGemm). */
template <typename TA, typename TB>
VX_HD inline void gemm(TensorCore& tc, float* acc, const TA* a, const TB* b, uint64_t R, uint64_t N, uint64_t K,
                       const char* at, bool aInPlace = false) {
  if constexpr (tc::kTensorOperand<TA> && tc::kTensorOperand<TB>) {
    detail::tensorGemm(tc, acc, a, b, R, N, K, at, aInPlace);
  } else {
    (void)tc, (void)at, (void)aInPlace;
    detail::simtGemm(acc, a, b, R, N, K);
  }
}

/* Kernel end: tensor memory goes back (b200). */
VX_HD inline void releaseTensorCore(TensorCore& tc, const char* at) {
  if (!tc.hasTmem) return;
#if defined(__CUDA_ARCH__)
  (void)at;
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (threadIdx.x < 32)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(tc.tmem), "r"(kTmemColumns) : "memory");
#endif
#elif !defined(__CUDACC__)
  interp::state().tmemFree(tc.tmem, kTmemColumns, at);
#else
  (void)at;
#endif
  tc.hasTmem = false;
}

}  // namespace vx::cu

#endif /* VX_CUDA_MMA_H */
