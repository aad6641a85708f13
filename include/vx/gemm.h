/* The matrix unit's kernel: C[M x N] += A[M x K] @ B[K x N], row-major, f32
 * accumulation. Cache-blocked in the usual way (Goto & van de Geijn): A is
 * packed into MR-tall row panels per MC x KC block, B into NR-wide column
 * panels per KC x NC block, and an MR x NR register-tile micro-kernel runs
 * over them: one A panel stays in L1 while the B panels of an NC block,
 * in L2, stream past it (the micro-kernel broadcasts A and loads B as
 * vectors, so A's panel is the small one). Inputs of other element types
 * (bf16, f16, f64) are converted to f32 while packing. Header-only C++17.
 *
 * Three micro-kernels: AVX-512 (8 x 32), AVX2 + FMA (6 x 16) and plain C++
 * (4 x 8). On x86 the first two are compiled whatever the compiler targets
 * (GCC's and Clang's `target` attribute) and one is chosen once per process
 * from what the CPU has, so a portable object runs at the machine's speed;
 * an object built for AVX-512 (`--target-cpu=native` on such a machine)
 * takes it without asking. `VX_CPU_ISA=generic|avx2|avx512` chooses a lower
 * one (for tests and measurements; a level the CPU lacks is not taken). */
#ifndef VX_GEMM_H
#define VX_GEMM_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#define VX_GEMM_X86 1
#include <immintrin.h>
#else
#define VX_GEMM_X86 0
#endif

namespace vx::rt::gemm {

enum class Isa : uint8_t { Generic, Avx2, Avx512 };

struct Blocking {
  int mr, nr;
};
inline constexpr Blocking blocking(Isa i) {
  switch (i) {
    case Isa::Generic: return {4, 8};
    case Isa::Avx2: return {6, 16};
    case Isa::Avx512: return {8, 32};
  }
  return {4, 8};
}
/* The cache blocks (f32): a KC-deep A panel of MR rows in L1 (8 KiB for
 * MR = 8), a KC x NC block of B in L2 (512 KiB), an MC x KC block of A
 * packed per KC step (1 MiB, read once per NC block). Measured on an Intel
 * Xeon with AVX-512 (48 KiB L1, 2 MiB L2; bench/README.md "cpu"). */
inline constexpr int KC = 256;
inline constexpr int kNC = 512;    // a multiple of every NR
inline constexpr int kMC = 1024;   // rounded down to a multiple of MR

inline const char* isaName(Isa i) {
  switch (i) {
    case Isa::Generic: return "generic";
    case Isa::Avx2: return "avx2";
    case Isa::Avx512: return "avx512";
  }
  return "generic";
}

/* What this CPU runs best, less what VX_CPU_ISA asks to leave out. */
inline Isa detectIsa() {
  Isa best = Isa::Generic;
#if defined(__AVX512F__)
  best = Isa::Avx512;
#elif VX_GEMM_X86 && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) best = Isa::Avx512;
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = Isa::Avx2;
#endif
  if (const char* want = std::getenv("VX_CPU_ISA")) {
    Isa asked = std::strcmp(want, "generic") == 0 ? Isa::Generic
                : std::strcmp(want, "avx2") == 0  ? Isa::Avx2
                                                  : Isa::Avx512;
    if (static_cast<int>(asked) < static_cast<int>(best)) best = asked;
  }
  return best;
}

/* Chosen once per process. */
inline Isa isa() {
  static const Isa chosen = detectIsa();
  return chosen;
}

struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};
using FloatBuf = std::unique_ptr<float[], AlignedFree>;

inline FloatBuf alignedFloats(size_t n) {
  size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
  return FloatBuf(static_cast<float*>(std::aligned_alloc(64, bytes ? bytes : 64)));
}

inline size_t roundUp(size_t x, size_t m) { return (x + m - 1) / m * m; }

/* B packed once for all of its K x N: for each KC block, NR-wide panels of
 * [k][NR] floats, zero-padded. The latched weights keep one of these. */
struct PackedB {
  size_t K = 0, N = 0, panels = 0, capacity = 0;
  Isa isa = Isa::Generic;  // the micro-kernel the panels are laid out for
  size_t nr = 8;
  FloatBuf data;
  const float* block(size_t pc) const { return data.get() + pc * panels * nr; }  // pc: first k of the block
};

/* The last panel of a packing when it is partial: W floats per k, the
 * first n of them at(k, i), the rest zero. */
template <size_t W, typename At>
inline void packPartialPanel(size_t kc, size_t n, float* panel, At at) {
  for (size_t k = 0; k < kc; ++k) {
    float* dst = panel + k * W;
    size_t i = 0;
    for (; i < n; ++i) dst[i] = at(k, i);
    for (; i < W; ++i) dst[i] = 0.0f;
  }
}

/* B's kc x nc block (row-major, `ldb` apart) as ceil(nc / NR) panels of
 * [k][NR] floats, zero-padded, one after the other. NR is a constant of
 * each instance, so that a whole row of a panel is a few vector moves. */
template <size_t NR, typename T>
inline void packBPanels(const T* B, size_t ldb, size_t kc, size_t nc, float* out) {
  size_t j0 = 0;
  for (; j0 + NR <= nc; j0 += NR) {
    float* panel = out + j0 * kc;
    for (size_t k = 0; k < kc; ++k) {
      const T* row = B + k * ldb + j0;
      float* dst = panel + k * NR;
      for (size_t j = 0; j < NR; ++j) dst[j] = static_cast<float>(row[j]);
    }
  }
  if (j0 < nc)
    packPartialPanel<NR>(kc, nc - j0, out + j0 * kc,
                         [&](size_t k, size_t j) { return static_cast<float>(B[k * ldb + j0 + j]); });
}

/* Calls f with the ISA as a compile-time constant (std::integral_constant),
 * so that the packing routines get its panel sizes as template arguments. */
template <typename F>
inline void withIsa(Isa level, F&& f) {
  switch (level) {
    case Isa::Generic: return f(std::integral_constant<Isa, Isa::Generic>{});
    case Isa::Avx2: return f(std::integral_constant<Isa, Isa::Avx2>{});
    case Isa::Avx512: return f(std::integral_constant<Isa, Isa::Avx512>{});
  }
}

template <typename T>
inline void packBBlock(const T* B, size_t ldb, size_t kc, size_t nc, Isa level, float* out) {
  withIsa(level, [&](auto isaConst) {
    packBPanels<static_cast<size_t>(blocking(decltype(isaConst)::value).nr)>(B, ldb, kc, nc, out);
  });
}

/* Packs B into `p`, reusing its storage when it is large enough, for the
 * process's micro-kernel (or `level`: tests run each one). */
template <typename T>
inline void packBInto(PackedB& p, const T* B, size_t ldb, size_t K, size_t N, Isa level = isa()) {
  const size_t NR = static_cast<size_t>(blocking(level).nr);
  size_t panels = (N + NR - 1) / NR;
  size_t need = K * panels * NR;
  if (!p.data || p.capacity < need) {
    p.data = alignedFloats(need);
    p.capacity = need;
  }
  p.K = K;
  p.N = N;
  p.panels = panels;
  p.isa = level;
  p.nr = NR;
  for (size_t pc = 0; pc < K; pc += KC) {
    size_t kc = std::min<size_t>(KC, K - pc);
    packBBlock(B + pc * ldb, ldb, kc, N, level, p.data.get() + pc * p.panels * NR);
  }
}

template <typename T>
inline PackedB packB(const T* B, size_t ldb, size_t K, size_t N, Isa level = isa()) {
  PackedB p;
  packBInto(p, B, ldb, K, N, level);
  return p;
}

/* A's mc x kc block as ceil(mc / MR) panels of [k][MR] floats, zero-padded. */
template <size_t MR, typename T>
inline void packAPanels(const T* A, size_t lda, size_t mc, size_t kc, float* out) {
  size_t ip = 0;
  for (; ip + MR <= mc; ip += MR) {
    float* panel = out + ip * kc;
    const T* rows = A + ip * lda;
    for (size_t k = 0; k < kc; ++k)
      for (size_t i = 0; i < MR; ++i) panel[k * MR + i] = static_cast<float>(rows[i * lda + k]);
  }
  if (ip < mc)
    packPartialPanel<MR>(kc, mc - ip, out + ip * kc,
                         [&](size_t k, size_t i) { return static_cast<float>(A[(ip + i) * lda + k]); });
}

template <typename T>
inline void packA(const T* A, size_t lda, size_t mc, size_t kc, Isa level, float* out) {
  withIsa(level, [&](auto isaConst) {
    packAPanels<static_cast<size_t>(blocking(decltype(isaConst)::value).mr)>(A, lda, mc, kc, out);
  });
}

/* C[mr x nr] += Ap (MR x kc, k-major) @ Bp (kc x NR), one per Isa. */
inline void addTile(const float* tile, int NR, float* C, size_t ldc, size_t mr, size_t nr) {
  for (size_t i = 0; i < mr; ++i)
    for (size_t j = 0; j < nr; ++j) C[i * ldc + j] += tile[i * static_cast<size_t>(NR) + j];
}

#if VX_GEMM_X86
__attribute__((target("avx512f"))) inline void microAvx512(size_t kc, const float* Ap, const float* Bp, float* C,
                                                           size_t ldc, size_t mr, size_t nr) {
  constexpr int MR = 8, NR = 32;
  // C's tile is read after the loop: ask for its rows now, so that they
  // arrive from wherever they are (the last K block left them in L3 or
  // memory) while the loop runs. A prefetch never faults.
  for (size_t i = 0; i < mr; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc + 16), _MM_HINT_T0);
  }
  __m512 c0[MR], c1[MR];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) c0[i] = c1[i] = _mm512_setzero_ps();
  for (size_t k = 0; k < kc; ++k) {
    __m512 b0 = _mm512_load_ps(Bp + k * NR), b1 = _mm512_load_ps(Bp + k * NR + 16);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      __m512 a = _mm512_set1_ps(Ap[k * MR + i]);
      c0[i] = _mm512_fmadd_ps(a, b0, c0[i]);
      c1[i] = _mm512_fmadd_ps(a, b1, c1[i]);
    }
  }
  if (mr == static_cast<size_t>(MR) && nr == static_cast<size_t>(NR)) {
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      float* row = C + i * ldc;
      _mm512_storeu_ps(row, _mm512_add_ps(_mm512_loadu_ps(row), c0[i]));
      _mm512_storeu_ps(row + 16, _mm512_add_ps(_mm512_loadu_ps(row + 16), c1[i]));
    }
    return;
  }
  alignas(64) float tile[MR * NR];
  for (int i = 0; i < MR; ++i) {
    _mm512_store_ps(tile + i * NR, c0[i]);
    _mm512_store_ps(tile + i * NR + 16, c1[i]);
  }
  addTile(tile, NR, C, ldc, mr, nr);
}

/* The same 8 x 32 tile with neither operand packed: A's rows and B's rows
 * read where they are (f32, row-major, `lda`/`ldb` apart). For the tiles an
 * `mma` sees (a few hundred rows and columns, in L2), packing costs more
 * than it saves: B's 32-column panel stays in L1 across a column of tiles,
 * and A's 8 rows are read in order. */
__attribute__((target("avx512f"))) inline void microAvx512Direct(size_t kc, const float* A, size_t lda,
                                                                 const float* B, size_t ldb, float* C, size_t ldc) {
  constexpr int MR = 8;
  __m512 c0[MR], c1[MR];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) c0[i] = c1[i] = _mm512_setzero_ps();
  for (size_t k = 0; k < kc; ++k) {
    __m512 b0 = _mm512_loadu_ps(B + k * ldb), b1 = _mm512_loadu_ps(B + k * ldb + 16);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      __m512 a = _mm512_set1_ps(A[i * lda + k]);
      c0[i] = _mm512_fmadd_ps(a, b0, c0[i]);
      c1[i] = _mm512_fmadd_ps(a, b1, c1[i]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
    float* row = C + i * ldc;
    _mm512_storeu_ps(row, _mm512_add_ps(_mm512_loadu_ps(row), c0[i]));
    _mm512_storeu_ps(row + 16, _mm512_add_ps(_mm512_loadu_ps(row + 16), c1[i]));
  }
}

/* The AVX2 tile with neither operand packed, as microAvx512Direct: MR rows
 * (6, or the 1 to 5 left over) by 16 columns, for the tiles an `mma` sees. */
template <int MR>
__attribute__((target("avx2,fma"))) inline void microAvx2Direct(size_t kc, const float* A, size_t lda, const float* B,
                                                                size_t ldb, float* C, size_t ldc) {
  __m256 c0[MR], c1[MR];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) c0[i] = c1[i] = _mm256_setzero_ps();
  for (size_t k = 0; k < kc; ++k) {
    __m256 b0 = _mm256_loadu_ps(B + k * ldb), b1 = _mm256_loadu_ps(B + k * ldb + 8);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      __m256 a = _mm256_broadcast_ss(A + i * lda + k);
      c0[i] = _mm256_fmadd_ps(a, b0, c0[i]);
      c1[i] = _mm256_fmadd_ps(a, b1, c1[i]);
    }
  }
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    float* row = C + i * ldc;
    _mm256_storeu_ps(row, _mm256_add_ps(_mm256_loadu_ps(row), c0[i]));
    _mm256_storeu_ps(row + 8, _mm256_add_ps(_mm256_loadu_ps(row + 8), c1[i]));
  }
}

__attribute__((target("avx2,fma"))) inline void microAvx2(size_t kc, const float* Ap, const float* Bp, float* C,
                                                          size_t ldc, size_t mr, size_t nr) {
  constexpr int MR = 6, NR = 16;
  for (size_t i = 0; i < mr; ++i) _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc), _MM_HINT_T0);
  // Twelve named accumulators, not arrays: with arrays GCC kept a copy of
  // every accumulator in memory and stored it at each step of the loop
  // (16 ymm registers: 12 + 2 + 1 leave no slack), which halved the rate in
  // the packing loops (51 against 104 GFLOP/s at 2048^3 on an Intel Xeon
  // run with VX_CPU_ISA=avx2; bench/README.md "cpu", session 37).
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00,
         c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  for (size_t k = 0; k < kc; ++k) {
    const float* a = Ap + k * MR;
    __m256 b0 = _mm256_load_ps(Bp + k * NR), b1 = _mm256_load_ps(Bp + k * NR + 8), x;
    x = _mm256_broadcast_ss(a + 0); c00 = _mm256_fmadd_ps(x, b0, c00); c01 = _mm256_fmadd_ps(x, b1, c01);
    x = _mm256_broadcast_ss(a + 1); c10 = _mm256_fmadd_ps(x, b0, c10); c11 = _mm256_fmadd_ps(x, b1, c11);
    x = _mm256_broadcast_ss(a + 2); c20 = _mm256_fmadd_ps(x, b0, c20); c21 = _mm256_fmadd_ps(x, b1, c21);
    x = _mm256_broadcast_ss(a + 3); c30 = _mm256_fmadd_ps(x, b0, c30); c31 = _mm256_fmadd_ps(x, b1, c31);
    x = _mm256_broadcast_ss(a + 4); c40 = _mm256_fmadd_ps(x, b0, c40); c41 = _mm256_fmadd_ps(x, b1, c41);
    x = _mm256_broadcast_ss(a + 5); c50 = _mm256_fmadd_ps(x, b0, c50); c51 = _mm256_fmadd_ps(x, b1, c51);
  }
  const __m256 c0[MR] = {c00, c10, c20, c30, c40, c50}, c1[MR] = {c01, c11, c21, c31, c41, c51};
  if (mr == static_cast<size_t>(MR) && nr == static_cast<size_t>(NR)) {
    for (int i = 0; i < MR; ++i) {
      float* row = C + i * ldc;
      _mm256_storeu_ps(row, _mm256_add_ps(_mm256_loadu_ps(row), c0[i]));
      _mm256_storeu_ps(row + 8, _mm256_add_ps(_mm256_loadu_ps(row + 8), c1[i]));
    }
    return;
  }
  alignas(64) float tile[MR * NR];
  for (int i = 0; i < MR; ++i) {
    _mm256_store_ps(tile + i * NR, c0[i]);
    _mm256_store_ps(tile + i * NR + 8, c1[i]);
  }
  addTile(tile, NR, C, ldc, mr, nr);
}
#endif

inline void microGeneric(size_t kc, const float* Ap, const float* Bp, float* C, size_t ldc, size_t mr, size_t nr) {
  constexpr int MR = 4, NR = 8;
  alignas(64) float tile[MR * NR] = {};
  for (size_t k = 0; k < kc; ++k)
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j) tile[i * NR + j] += Ap[k * MR + i] * Bp[k * NR + j];
  addTile(tile, NR, C, ldc, mr, nr);
}

/* a[0..n) += b[0..n): the matrix unit's ACC += x, at the vector width of
 * the Isa chosen (a portable build's loop runs SSE2: the stream's ACC +=
 * tile took 1.7 against 1.45 us per 64 KiB tile with AVX-512;
 * bench/README.md "cpu", session 39). Elementwise, so every width gives the
 * same sums. Out of line, through restrict parameters: see MatrixUnit::addInto. */
inline void addFloatsGeneric(float* __restrict a, const float* __restrict b, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] += b[i];
}
#if VX_GEMM_X86
__attribute__((target("avx2"))) inline void addFloatsAvx2(float* __restrict a, const float* __restrict b, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(a + i, _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
  for (; i < n; ++i) a[i] += b[i];
}
__attribute__((target("avx512f"))) inline void addFloatsAvx512(float* __restrict a, const float* __restrict b,
                                                               size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(a + i, _mm512_add_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i)));
  for (; i < n; ++i) a[i] += b[i];
}
#endif

using Micro = void (*)(size_t, const float*, const float*, float*, size_t, size_t, size_t);
using AddFloats = void (*)(float*, const float*, size_t);
/* The routines compiled for each Isa. */
struct IsaRoutines {
  Micro micro;
  AddFloats add;
};
inline IsaRoutines routinesFor(Isa i) {
  switch (i) {
    case Isa::Generic: return {microGeneric, addFloatsGeneric};
#if VX_GEMM_X86
    case Isa::Avx2: return {microAvx2, addFloatsAvx2};
    case Isa::Avx512: return {microAvx512, addFloatsAvx512};
#else
    case Isa::Avx2:
    case Isa::Avx512: return {microGeneric, addFloatsGeneric};  // never chosen off x86
#endif
  }
  return {microGeneric, addFloatsGeneric};
}
inline Micro microFor(Isa i) { return routinesFor(i).micro; }
inline AddFloats addFloatsFor(Isa i) { return routinesFor(i).add; }

[[gnu::noinline]] inline void addFloats(float* a, const float* b, size_t n) {
  static const AddFloats add = addFloatsFor(isa());
  add(a, b, n);
}

/* The thread's packing buffers, allocated on first use at their largest. */
inline float* aPackBuffer() {
  thread_local FloatBuf buf;
  if (!buf) buf = alignedFloats(static_cast<size_t>(kMC) * KC);
  return buf.get();
}
inline float* bPackBuffer() {
  thread_local FloatBuf buf;
  if (!buf) buf = alignedFloats(static_cast<size_t>(KC) * kNC);
  return buf.get();
}

/* The blocked loops: for each MC rows of A and KC step of K, A's block is
 * packed, then for each NC columns `bBlock(pc, kc, jc, nc)` gives B's
 * KC x NC block as panels (packed there and then, or packed beforehand),
 * and each A panel in turn meets every B panel of the block. */
template <typename TA, typename BBlock>
inline void blockedLoops(size_t M, size_t N, size_t K, const TA* A, size_t lda, float* C, size_t ldc, Isa level,
                         BBlock bBlock) {
  float* apack = aPackBuffer();
  const Micro micro = microFor(level);
  const size_t MR = static_cast<size_t>(blocking(level).mr), NR = static_cast<size_t>(blocking(level).nr),
               MC = kMC / MR * MR;
  for (size_t ic = 0; ic < M; ic += MC) {
    size_t mc = std::min<size_t>(MC, M - ic);
    for (size_t pc = 0; pc < K; pc += KC) {
      size_t kc = std::min<size_t>(KC, K - pc);
      packA(A + ic * lda + pc, lda, mc, kc, level, apack);
      for (size_t jc = 0; jc < N; jc += kNC) {
        size_t nc = std::min<size_t>(kNC, N - jc);
        const float* bpanels = bBlock(pc, kc, jc, nc);
        float* c = C + ic * ldc + jc;
        for (size_t ip = 0; ip < mc; ip += MR)
          for (size_t jp = 0; jp < nc; jp += NR)
            micro(kc, apack + ip * kc, bpanels + jp * kc, c + ip * ldc + jp, ldc, std::min(MR, mc - ip),
                  std::min(NR, nc - jp));
      }
    }
  }
}

/* C += A @ B with B already packed (the latched weights). */
template <typename TA>
inline void gemmPacked(size_t M, const TA* A, size_t lda, const PackedB& B, float* C, size_t ldc) {
  blockedLoops(M, B.N, B.K, A, lda, C, ldc, B.isa,
               [&](size_t pc, size_t kc, size_t jc, size_t) { return B.block(pc) + jc * kc; });
}

/* C += A @ B, both packed as they are reached: B's KC x NC blocks one at a
 * time into a buffer that stays in L2. */
template <typename TA, typename TB>
inline void gemmPacking(size_t M, size_t N, size_t K, const TA* A, size_t lda, const TB* B, size_t ldb, float* C,
                        size_t ldc, Isa level = isa()) {
  float* bpack = bPackBuffer();
  blockedLoops(M, N, K, A, lda, C, ldc, level, [&](size_t pc, size_t kc, size_t jc, size_t nc) {
    packBBlock(B + pc * ldb + jc, ldb, kc, nc, level, bpack);
    return static_cast<const float*>(bpack);
  });
}

/* The unpacked path's shapes: f32 operands, whole 8 x 32 tiles, and small
 * enough that both operands sit in L2 (an on-chip tile, not a whole matrix). */
inline constexpr size_t kDirectMax = 512;
inline constexpr size_t kDirectBlock = 128;  // larger products go by blocks of this side (gemm)
inline bool directFits(size_t M, size_t N, size_t K) {
  return M % 8 == 0 && N % 32 == 0 && M <= kDirectMax && N <= kDirectMax && K <= kDirectMax;
}
// AVX2: any number of rows (6 at a time, then the rest), 16 columns at a time.
inline bool directFitsAvx2(size_t M, size_t N, size_t K) {
  return N % 16 == 0 && M <= kDirectMax && N <= kDirectMax && K <= kDirectMax;
}

/* The direct kernels read one panel of B (K rows of 32 or 16 columns) for
 * every MR rows of A. A tile's rows are a power-of-two stride apart (128
 * floats: 512 bytes), so the panel's rows fall in a few sets of L1, more
 * of them than its ways, and the panel was read from L2 again for every MR
 * rows. Where at least kPanelReuse micro-kernels read it, the panel is
 * first copied into a contiguous [K][W] buffer of the thread's (K x W
 * floats, 64 KiB at most): 128^3 went from 185 to 211 GFLOP/s on AVX-512
 * and from 106 to 110 on AVX2 (Intel Xeon, bench/README.md "cpu",
 * session 46). */
inline constexpr size_t kPanelReuse = 4;
inline float* directPanelBuffer() {
  thread_local FloatBuf buf;
  if (!buf) buf = alignedFloats(kDirectMax * 32);
  return buf.get();
}
/* B's columns [j, j + W) of K rows `ldb` apart: copied (when M is tall
 * enough to pay for it) or where they are; the stride to read it with in
 * `ld`. K <= kDirectMax. */
template <size_t W>
inline const float* directPanel(size_t M, size_t MR, size_t K, const float* B, size_t ldb, size_t j, size_t& ld) {
  if (M < kPanelReuse * MR || ldb == W) {
    ld = ldb;
    return B + j;
  }
  float* panel = directPanelBuffer();
  for (size_t k = 0; k < K; ++k) std::memcpy(panel + k * W, B + k * ldb + j, W * sizeof(float));
  ld = W;
  return panel;
}

#if VX_GEMM_X86
__attribute__((target("avx512f"))) inline void directAvx512(size_t M, size_t N, size_t K, const float* A, size_t lda,
                                                            const float* B, size_t ldb, float* C, size_t ldc) {
  for (size_t j = 0; j < N; j += 32) {
    size_t ld = 0;
    const float* panel = directPanel<32>(M, 8, K, B, ldb, j, ld);
    for (size_t i = 0; i < M; i += 8) microAvx512Direct(K, A + i * lda, lda, panel, ld, C + i * ldc + j, ldc);
  }
}

inline void directAvx2(size_t M, size_t N, size_t K, const float* A, size_t lda, const float* B, size_t ldb, float* C,
                       size_t ldc) {
  for (size_t j = 0; j < N; j += 16) {
    size_t ldp = 0;
    const float* panel = directPanel<16>(M, 6, K, B, ldb, j, ldp);
    size_t i = 0;
    for (; i + 6 <= M; i += 6) microAvx2Direct<6>(K, A + i * lda, lda, panel, ldp, C + i * ldc + j, ldc);
    const float* a = A + i * lda;
    float* c = C + i * ldc + j;
    switch (M - i) {
      case 0: break;
      case 1: microAvx2Direct<1>(K, a, lda, panel, ldp, c, ldc); break;
      case 2: microAvx2Direct<2>(K, a, lda, panel, ldp, c, ldc); break;
      case 3: microAvx2Direct<3>(K, a, lda, panel, ldp, c, ldc); break;
      case 4: microAvx2Direct<4>(K, a, lda, panel, ldp, c, ldc); break;
      case 5: microAvx2Direct<5>(K, a, lda, panel, ldp, c, ldc); break;
    }
  }
}
#endif

#if VX_GEMM_X86
/* C += A B on AVX2 by blocks of kDirectBlock: B copied once into contiguous
 * blocks, the blocks of A of one block row as that row is reached, each
 * block of C into a contiguous accumulator for all of K (directAvx2). */
inline void gemmBlocked(size_t M, size_t N, size_t K, const float* A, size_t lda, const float* B, size_t ldb, float* C,
                        size_t ldc) {
  constexpr size_t S = kDirectBlock;
  size_t kb = (K + S - 1) / S, nb = (N + S - 1) / S;
  thread_local std::vector<float> bPacked, aPacked, acc;
  bPacked.resize(kb * nb * S * S);
  aPacked.resize(kb * S * S);
  acc.resize(S * S);
  auto block = [](size_t at, size_t total) { return std::min(kDirectBlock, total - at); };
  for (size_t k = 0; k < K; k += S)
    for (size_t j = 0; j < N; j += S) {
      float* dst = &bPacked[((k / S) * nb + j / S) * S * S];
      for (size_t r = 0; r < block(k, K); ++r)
        std::memcpy(dst + r * block(j, N), B + (k + r) * ldb + j, block(j, N) * sizeof(float));
    }
  for (size_t i = 0; i < M; i += S) {
    size_t m = block(i, M);
    for (size_t k = 0; k < K; k += S)
      for (size_t r = 0; r < m; ++r)
        std::memcpy(&aPacked[(k / S) * S * S + r * block(k, K)], A + (i + r) * lda + k, block(k, K) * sizeof(float));
    for (size_t j = 0; j < N; j += S) {
      size_t n = block(j, N);
      for (size_t r = 0; r < m; ++r) std::memcpy(&acc[r * n], C + (i + r) * ldc + j, n * sizeof(float));
      for (size_t k = 0; k < K; k += S)
        directAvx2(m, n, block(k, K), &aPacked[(k / S) * S * S], block(k, K),
                   &bPacked[((k / S) * nb + j / S) * S * S], n, acc.data(), n);
      for (size_t r = 0; r < m; ++r) std::memcpy(C + (i + r) * ldc + j, &acc[r * n], n * sizeof(float));
    }
  }
}
#endif

template <typename TA, typename TB>
inline void gemm(size_t M, size_t N, size_t K, const TA* A, size_t lda, const TB* B, size_t ldb, float* C, size_t ldc) {
#if VX_GEMM_X86
  if constexpr (std::is_same_v<TA, float> && std::is_same_v<TB, float>) {
    if (isa() == Isa::Avx512 && directFits(M, N, K)) {
      directAvx512(M, N, K, A, lda, B, ldb, C, ldc);
      return;
    }
    if (isa() == Isa::Avx2 && directFitsAvx2(M, N, K)) {
      directAvx2(M, N, K, A, lda, B, ldb, C, ldc);
      return;
    }
    // Larger products on AVX2: blocks of kDirectBlock rows, columns and
    // steps of K, each copied once into contiguous storage (the rows of a
    // block of a large matrix are a power-of-two stride apart and would
    // share a few cache sets), and multiplied as an `mma` of that size is
    // (measured on an AMD AVX2 host, bench/README.md). On AVX-512 the
    // packing kernel below is the faster one.
    if (isa() == Isa::Avx2 && N % 16 == 0) {
      gemmBlocked(M, N, K, A, lda, B, ldb, C, ldc);
      return;
    }
  }
#endif
  gemmPacking(M, N, K, A, lda, B, ldb, C, ldc);
}

}  // namespace vx::rt::gemm

#endif /* VX_GEMM_H */
