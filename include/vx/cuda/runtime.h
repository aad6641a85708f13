/* The intrinsic layer of the b200 and h100 targets (docs/b200.md). The `.cu`
 * that `vxc build --target b200|h100` emits calls only what this header
 * declares, in namespace vx::cu, so that the same generated source builds
 * two ways:
 *
 *  - with nvcc (`__CUDACC__`): a `__global__` kernel per entry, run by one
 *    thread block of kThreads threads (a kernel with a grid: one block per
 *    SM, vx/cuda/grid.h). Every thread runs the function's scalar code
 *    (control flow is uniform); each intrinsic decides which threads act:
 *    one elected thread issues copies (bulk and tensor-map copies that
 *    complete on an mbarrier with expected transaction bytes, stores in
 *    bulk groups: vx/cuda/copies.h), all threads share elementwise and
 *    matrix work.
 *  - with the host C++ compiler (`vxc run --interpret`): the interpreter
 *    (vx/cuda/interpret.h) runs the blocks on the CPU. Copies complete out of
 *    order under a seeded schedule; mbarrier phases and transaction bytes
 *    are tracked; an access of memory a copy is still landing in or reading,
 *    a wait on a phase never armed, a byte-count mismatch and a copy or
 *    token left when the kernel returns stop the run naming the Vx line.
 *
 * A token is an (mbarrier, phase parity) pair. Shared memory (`Memory::VMEM`)
 * is an arena managed by bookkeeping that every thread keeps identically
 * (all threads run the same allocation sequence), with 1 KiB granules as
 * the checker's footprint (E6007) counts them; it also knows which granules
 * a tensor-map copy left in the tensor cores' swizzle (linear()).
 * Header-only C++17. */
#ifndef VX_CUDA_RUNTIME_H
#define VX_CUDA_RUNTIME_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "vx/data.h"
#include "vx/hd.h"
#include "vx/scalar.h"

/* Which tensor cores the interpreter models: 100 (b200, tcgen05) or 90 (h100,
 * wgmma). The driver defines it; nvcc builds pick by architecture. */
#ifndef VX_CUDA_SM
#define VX_CUDA_SM 100
#endif

/* Loops nvcc unrolls (fixed trip counts over registers), and loops it must
 * not (the arena's 64-entry tables stay in local memory rather than take
 * every register). */
#if defined(__CUDACC__)
#define VX_UNROLL _Pragma("unroll")
#define VX_NO_UNROLL _Pragma("unroll 1")
#else
#define VX_UNROLL
#define VX_NO_UNROLL
#endif

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define VX_DEV __device__
#define VX_GLOBAL __global__
#else
#define VX_DEV
#define VX_GLOBAL
#endif

namespace vx::cu {

using vx::rt::bf16;
using vx::rt::trap;

inline constexpr unsigned kThreads = 128;     // one warpgroup per block
inline constexpr uint32_t kGranule = 1024;    // shared-memory allocation unit (the table's alignment)
/* The tensor cores' tile (vx/cuda/mma.h): 128 x 64 results, operands staged
 * in shared memory by chunks of 32 along K (128-byte K-major rows). */
inline constexpr uint32_t kTileM = 128;
inline constexpr uint32_t kTileN = 64;
inline constexpr uint32_t kStageA = kTileM * 128;  // 16 KiB
inline constexpr uint32_t kStageB = kTileN * 128;  // 8 KiB
inline constexpr uint32_t kStageBytes = kStageA + kStageB;
inline constexpr uint32_t kTmemColumns = kTileN;   // b200: the tile's f32 accumulator in tensor memory
/* The arena: 227 KiB of shared memory per block, less 1 KiB for the
 * mbarriers, the staging area and 1 KiB to align it to 1024 bytes. */
inline constexpr uint32_t kSmemBytes = 232448 - 1024 - kStageBytes - 1024;
/* The dynamic shared memory a kernel is launched with: room to align to 1024,
 * the staging area, the arena. */
inline constexpr size_t kDynamicSmemBytes = 1024 + size_t{kStageBytes} + kSmemBytes;
/* mbarriers, so copies in flight at once: as many as fit, with the tensor
 * cores' barrier and the tensor-memory slot, in the 1 KiB kept for them
 * (static shared memory: (kBarriers + 1) x 8 + 16 bytes). */
inline constexpr int kBarriers = 120;
/* Shared-memory buffers live at once: every buffer takes at least one 1 KiB
 * granule, so E6007's count of the arena's bytes bounds them by its
 * granules (201); the table has room for all. */
inline constexpr int kMaxBuffers = 208;
/* The matrix unit's weights and accumulator, each: a generated unit sizes
 * them for its shapes (VX_MXU_FLOATS, at least 65,536 cells). */
#ifndef VX_MXU_FLOATS
#define VX_MXU_FLOATS 65536u
#endif
inline constexpr size_t kMxuFloats = VX_MXU_FLOATS;
inline constexpr uint32_t kGranules = kSmemBytes / kGranule;
static_assert(kMaxBuffers >= static_cast<int>(kGranules), "a buffer id for every granule of the arena");
static_assert((kBarriers + 1) * 8 + 16 <= 1024, "the mbarriers fit the 1 KiB kept for them");

}  // namespace vx::cu

#if !defined(__CUDACC__)
#include "vx/cuda/interpret.h"
#endif

#include "vx/cuda/block.h"
#include "vx/cuda/layout.h"
#include "vx/cuda/tma.h"

namespace vx::cu {

namespace detail {
/* A shared-memory address as the instructions take it; under the
 * interpreter, the offset in the block's window (1024-aligned as the
 * device's dynamic shared memory is made to be). */
#if defined(__CUDA_ARCH__)
__device__ inline uint32_t smemAddr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
#elif !defined(__CUDACC__)
inline uint32_t smemAddr(const void* p) {
  return static_cast<uint32_t>(static_cast<const unsigned char*>(p) - interp::state().block().smem);
}
#else
inline uint32_t smemAddr(const void*) { return 0; }  // nvcc's host pass: never runs
#endif
}  // namespace detail

/* ---- shared memory: buffers and mbarriers of the block ---- */

class Arena {
 public:
  VX_HD void init(unsigned char* base, uint32_t capacity, uint64_t* barriers) {
    base_ = base;
    capacity_ = capacity;
    bars_ = barriers;
    VX_NO_UNROLL
    for (int i = 0; i < kMaxBuffers; ++i) refs_[i] = 0;
    VX_NO_UNROLL
    for (int i = 0; i < kBarriers; ++i) busy_[i] = false, uses_[i] = 0;
    VX_NO_UNROLL
    for (uint32_t i = 0; i < kSwzWords; ++i) swz_[i] = 0;
    swizzled_ = 0;
  }
  /* First fit in 1 KiB granules; returns a buffer id holding one reference. */
  VX_HD int allocate(uint64_t bytes, unsigned char** data, const char* at) {
    uint64_t need = (bytes + kGranule - 1) / kGranule * kGranule;
    if (need == 0) need = kGranule;
    if (need > capacity_) trap("shared memory: one buffer is larger than the block's 201 KiB", at);
    uint64_t cand = 0;
    for (bool moved = true; moved;) {
      moved = false;
      VX_NO_UNROLL
      for (int i = 0; i < kMaxBuffers; ++i)
        if (refs_[i] > 0 && cand < off_[i] + size_[i] && off_[i] < cand + need) {
          cand = off_[i] + size_[i];
          moved = true;
        }
      if (cand + need > capacity_)
        trap("shared memory: no contiguous space for this buffer (the live buffers fit but are fragmented)", at);
    }
    VX_NO_UNROLL
    for (int i = 0; i < kMaxBuffers; ++i)
      if (refs_[i] == 0) {
        off_[i] = static_cast<uint32_t>(cand);
        size_[i] = static_cast<uint32_t>(need);
        refs_[i] = 1;
        *data = base_ + cand;
        setSwizzled(*data, need, false);  // a fresh buffer is row-major
        return i;
      }
    trap("shared memory: more buffers live at once than the arena has ids for", at);  // not reached: kMaxBuffers >= kGranules
  }
  VX_HD void retain(int id) { ++refs_[id]; }
  VX_HD void release(int id) { --refs_[id]; }

  /* A free mbarrier for one copy, and the parity of the phase it will complete. */
  VX_HD int acquireBarrier(uint32_t* parity, const char* at) {
    VX_NO_UNROLL
    for (int i = 0; i < kBarriers; ++i)
      if (!busy_[i]) {
        busy_[i] = true;
        *parity = uses_[i] & 1u;
        return i;
      }
    trap("more than 120 copies in flight at once (the mbarriers of the block)", at);
  }
  /* The phase was waited: the next use of the barrier completes the other parity. */
  VX_HD void releaseBarrier(int b) {
    busy_[b] = false;
    ++uses_[b];
  }
  VX_HD uint64_t* barrier(int b) const { return bars_ + b; }

  /* ---- each granule's layout: row-major, or the tensor cores' 128-byte
   * swizzle that a tensor-map copy landed (vx/cuda/copies.h) ---- */
  VX_HD unsigned char* base() const { return base_; }
  /* Whether [p, p + bytes) is whole granules of the arena. */
  VX_HD bool holds(const void* p, uint64_t bytes) const {
    const auto* c = static_cast<const unsigned char*>(p);
    return base_ && c >= base_ && c + bytes <= base_ + capacity_ && (c - base_) % kGranule == 0 && bytes % kGranule == 0;
  }
  /* The granules [*g0, *g1) that [p, p + bytes) touches (none outside the arena). */
  VX_HD void granules(const void* p, uint64_t bytes, uint32_t* g0, uint32_t* g1) const {
    const auto* c = static_cast<const unsigned char*>(p);
    *g0 = *g1 = 0;
    if (!base_ || c < base_ || c >= base_ + capacity_ || bytes == 0) return;
    const uint64_t off = static_cast<uint64_t>(c - base_);
    *g0 = static_cast<uint32_t>(off / kGranule);
    const uint64_t end = (off + bytes + kGranule - 1) / kGranule;
    *g1 = static_cast<uint32_t>(end < kGranules ? end : kGranules);
  }
  VX_HD bool swizzled(uint32_t g) const { return (swz_[g / 32] >> (g % 32)) & 1u; }
  VX_HD bool anySwizzled(const void* p, uint64_t bytes) const {
    if (swizzled_ == 0) return false;  // the common case: no tensor-map copy landed swizzled
    uint32_t g0, g1;
    granules(p, bytes, &g0, &g1);
    VX_NO_UNROLL
    for (uint32_t g = g0; g < g1; ++g)
      if (swizzled(g)) return true;
    return false;
  }
  VX_HD bool allSwizzled(const void* p, uint64_t bytes) const {
    uint32_t g0, g1;
    granules(p, bytes, &g0, &g1);
    if (g0 == g1) return false;
    VX_NO_UNROLL
    for (uint32_t g = g0; g < g1; ++g)
      if (!swizzled(g)) return false;
    return true;
  }
  /* Marks the granules [p, p + bytes) touches. */
  VX_HD void setSwizzled(const void* p, uint64_t bytes, bool on) {
    uint32_t g0, g1;
    granules(p, bytes, &g0, &g1);
    VX_NO_UNROLL
    for (uint32_t g = g0; g < g1; ++g) {
      if (swizzled(g) == on) continue;
      swz_[g / 32] ^= 1u << (g % 32);
      swizzled_ = on ? swizzled_ + 1 : swizzled_ - 1;
    }
  }

 private:
  static constexpr uint32_t kSwzWords = (kGranules + 31) / 32;
  unsigned char* base_ = nullptr;
  uint32_t capacity_ = 0;
  uint64_t* bars_ = nullptr;
  uint32_t off_[kMaxBuffers] = {};
  uint32_t size_[kMaxBuffers] = {};
  int32_t refs_[kMaxBuffers] = {};
  bool busy_[kBarriers] = {};
  uint32_t uses_[kBarriers] = {};
  uint32_t swz_[kSwzWords] = {};
  uint32_t swizzled_ = 0;  // granules swizzled
};

/* A counted reference to a shared-memory buffer (none when arena is null). */
class Keep {
 public:
  Keep() = default;
  VX_HD Keep(Arena* a, int id) : arena_(a), id_(id) {}  // adopts one reference
  VX_HD Keep(const Keep& o) : arena_(o.arena_), id_(o.id_) {
    if (arena_) arena_->retain(id_);
  }
  VX_HD Keep(Keep&& o) noexcept : arena_(o.arena_), id_(o.id_) { o.arena_ = nullptr; }
  VX_HD Keep& operator=(const Keep& o) {
    if (o.arena_) o.arena_->retain(o.id_);
    if (arena_) arena_->release(id_);
    arena_ = o.arena_;
    id_ = o.id_;
    return *this;
  }
  VX_HD Keep& operator=(Keep&& o) noexcept {
    if (this != &o) {
      if (arena_) arena_->release(id_);
      arena_ = o.arena_;
      id_ = o.id_;
      o.arena_ = nullptr;
    }
    return *this;
  }
  VX_HD ~Keep() {
    if (arena_) arena_->release(id_);
  }
  VX_HD Arena* arena() const { return arena_; }

 private:
  Arena* arena_ = nullptr;
  int id_ = -1;
};

/* One element written by the block. Every thread computes the same value
 * (`v[i] += x` reads v[i] first), so one thread writes it, between two
 * barriers: every thread has read the old value before it changes, and
 * every thread sees the new one after. Scalar code is uniform over the
 * block, so every thread reaches both barriers. */
template <typename T>
VX_HD inline void detail_store_one(T* p, T v) {
#if defined(__CUDA_ARCH__)
  __syncthreads();
  if (threadIdx.x == 0) *p = v;
  __syncthreads();
#else
  *p = v;
#endif
}

namespace detail {
/* Granules [g0, g1) of the arena from the 128-byte swizzle back to
 * row-major, in place, by all threads: each moves 16-byte chunks, all of a
 * round's chunks read before any is written (a round is whole granules:
 * the swizzle permutes chunks within one). */
VX_HD inline void unswizzle(Arena& arena, uint32_t g0, uint32_t g1, const char* at) {
  unsigned char* base = arena.base() + uint64_t{g0} * kGranule;
  const uint32_t chunks = (g1 - g0) * (kGranule / 16);
  sync();
  touch(base, chunks * 16ull, false, at);
  touch(base, chunks * 16ull, true, at);
#if defined(__CUDA_ARCH__)
  VX_NO_UNROLL
  for (uint32_t c0 = 0; c0 < chunks; c0 += blockDim.x) {
    const uint32_t c = c0 + threadIdx.x;
    uint4 v = {};
    if (c < chunks) v = *reinterpret_cast<const uint4*>(base + c * 16u);
    __syncthreads();
    if (c < chunks) *reinterpret_cast<uint4*>(base + tc::swizzle128(c * 16u)) = v;
    __syncthreads();
  }
#else
  unsigned char atom[kGranule];
  for (uint32_t g = 0; g < g1 - g0; ++g) {
    unsigned char* a = base + uint64_t{g} * kGranule;
    std::memcpy(atom, a, kGranule);
    for (uint32_t o = 0; o < kGranule; o += 16) std::memcpy(a + tc::swizzle128(o), atom + o, 16);
  }
#endif
  sync();
}
}  // namespace detail

/* Makes [p, p + bytes) of the arena row-major, as the threads read and
 * write Vx tensors: the granules a tensor-map copy landed swizzled are
 * unswizzled in place, once (the matrix path reads them in place instead). */
VX_HD inline void linear(Arena* arena, const void* p, uint64_t bytes, const char* at) {
  if (!arena || !arena->anySwizzled(p, bytes)) return;
  uint32_t g0, g1;
  arena->granules(p, bytes, &g0, &g1);
  VX_NO_UNROLL
  for (uint32_t g = g0; g < g1;) {
    if (!arena->swizzled(g)) {
      ++g;
      continue;
    }
    uint32_t h = g;
    while (h < g1 && arena->swizzled(h)) ++h;
    detail::unswizzle(*arena, g, h, at);
    arena->setSwizzled(arena->base() + uint64_t{g} * kGranule, uint64_t{h - g} * kGranule, false);
    g = h;
  }
}

}  // namespace vx::cu

#include "vx/cuda/hbm.h"

namespace vx::cu {

/* A buffer in shared memory (or a view of one: a ring slot). */
template <typename T>
struct Buf {
  Keep keep;
  T* data = nullptr;
  uint64_t n = 0;
  VX_HD Buf slot(uint64_t i, uint64_t count, const char* at) const {
    check_index(i, count, at);
    uint64_t sub = n / count;
    return Buf{keep, data + i * sub, sub};
  }
  VX_HD T load(uint64_t i, const char* at) const {
    check_index(i, n, at);
    linear(keep.arena(), data + i, sizeof(T), at);
    touch(data + i, sizeof(T), false, at);
    return data[i];
  }
  VX_HD void store(uint64_t i, T v, const char* at) const {
    check_index(i, n, at);
    linear(keep.arena(), data + i, sizeof(T), at);
    touch(data + i, sizeof(T), true, at);
    detail_store_one(data + i, v);
  }
};

template <typename T>
VX_HD inline Buf<T> allocate(Arena& arena, uint64_t n, const char* at) {
  unsigned char* p = nullptr;
  int id = arena.allocate(n * sizeof(T), &p, at);
  return Buf<T>{Keep(&arena, id), reinterpret_cast<T*>(p), n};
}

/* The buffer's shared memory, row-major, before the threads read or write
 * it as the Vx tensor it is. */
template <typename T>
VX_HD inline void linear(const Buf<T>& b, const char* at) {
  linear(b.keep.arena(), b.data, b.n * sizeof(T), at);
}

namespace detail {
/* A copy is about to write [p, p + bytes) of the arena: granules it covers
 * whole take its layout (`swizzled`); one it covers in part is made
 * row-major first, as the rest of it is read that way. */
VX_HD inline void overwrite(Arena& arena, const void* p, uint64_t bytes, bool swizzled, const char* at) {
  uint32_t g0, g1;
  arena.granules(p, bytes, &g0, &g1);
  if (g0 == g1) return;
  const auto* c = static_cast<const unsigned char*>(p);
  const unsigned char* first = arena.base() + uint64_t{g0} * kGranule;
  const unsigned char* last = arena.base() + uint64_t{g1 - 1} * kGranule;
  uint32_t w0 = g0, w1 = g1;  // the granules covered whole
  if (c != first) {
    linear(&arena, first, 1, at);
    w0 = g0 + 1;
  }
  if (c + bytes < last + kGranule) {
    linear(&arena, last, 1, at);
    w1 = g1 - 1;
  }
  if (w0 < w1) arena.setSwizzled(arena.base() + uint64_t{w0} * kGranule, uint64_t{w1 - w0} * kGranule, swizzled);
}
}  // namespace detail

/* ---- tokens: an (mbarrier, parity) pair; bar < 0 is a completed token ---- */

template <typename T>
struct Token {
  int bar = -1;
  uint32_t parity = 0;
  Buf<T> buf;
};
struct VoidToken {
  int bar = -1;          // a load into a caller's buffer completes on this mbarrier
  uint32_t parity = 0;
  bool store = false;    // a bulk store: waited with the bulk group
  Keep keep;             // the shared memory the copy reads or writes
  const char* at = "";
};

}  // namespace vx::cu

#include "vx/cuda/copies.h"

namespace vx::cu {

/* ---- elementwise: every thread takes a strided share ---- */

template <typename T, typename F>
VX_HD inline Buf<T> map(Arena& arena, const Buf<T>& a, const Buf<T>* b, const char* at, F f) {
  linear(a, at);
  if (b) linear(*b, at);
  sync();
  touch(a.data, a.n * sizeof(T), false, at);
  if (b) touch(b->data, b->n * sizeof(T), false, at);
  Buf<T> r = allocate<T>(arena, a.n, at);
  for (uint64_t i = lane(); i < a.n; i += lanes()) r.data[i] = f(a.data[i], b ? b->data[i] : T(0));
  sync();
  return r;
}
struct AddF {
  template <typename T>
  VX_HD T operator()(T x, T y) const { return static_cast<T>(static_cast<float>(x) + static_cast<float>(y)); }
  VX_HD double operator()(double x, double y) const { return x + y; }
};
struct SubF {
  template <typename T>
  VX_HD T operator()(T x, T y) const { return static_cast<T>(static_cast<float>(x) - static_cast<float>(y)); }
  VX_HD double operator()(double x, double y) const { return x - y; }
};
struct MulF {
  template <typename T>
  VX_HD T operator()(T x, T y) const { return static_cast<T>(static_cast<float>(x) * static_cast<float>(y)); }
  VX_HD double operator()(double x, double y) const { return x * y; }
};
struct ScaleF {
  float s;
  template <typename T>
  VX_HD T operator()(T x, T) const { return static_cast<T>(static_cast<float>(x) * s); }
};

template <typename T>
VX_HD inline Buf<T> add(Arena& arena, const Buf<T>& a, const Buf<T>& b, const char* at) { return map(arena, a, &b, at, AddF{}); }
template <typename T>
VX_HD inline Buf<T> sub(Arena& arena, const Buf<T>& a, const Buf<T>& b, const char* at) { return map(arena, a, &b, at, SubF{}); }
template <typename T>
VX_HD inline Buf<T> mul(Arena& arena, const Buf<T>& a, const Buf<T>& b, const char* at) { return map(arena, a, &b, at, MulF{}); }
template <typename T>
VX_HD inline Buf<T> scale(Arena& arena, const Buf<T>& x, float s, const char* at) {
  return map(arena, x, static_cast<const Buf<T>*>(nullptr), at, ScaleF{s});
}
template <typename T>
VX_HD inline void scale_into(const Buf<T>& y, const Buf<T>& x, float s, const char* at) {
  linear(x, at);
  linear(y, at);
  sync();
  touch(x.data, x.n * sizeof(T), false, at);
  touch(y.data, y.n * sizeof(T), true, at);
  for (uint64_t i = lane(); i < x.n; i += lanes()) y.data[i] = ScaleF{s}(x.data[i], x.data[i]);
  sync();
}

}  // namespace vx::cu

#include "vx/cuda/compute.h"

namespace vx::cu {

template <typename T>
VX_HD inline Buf<T> zeros(Arena& arena, uint64_t n, const char* at) {
  sync();
  Buf<T> b = allocate<T>(arena, n, at);
  for (uint64_t i = lane(); i < n; i += lanes()) b.data[i] = T(0.0f);
  sync();
  return b;
}

/* ---- the matrix unit ----
 * `mma` multiplies shared-memory operands into a shared-memory accumulator;
 * the latched-weights unit keeps W and ACC in a global-memory scratch of the
 * launch. Both run on the tensor cores (vx/cuda/mma.h). */
}  // namespace vx::cu

#include "vx/cuda/mma.h"

namespace vx::cu {

/* acc[R x N] += a[R x K] @ b[K x N]. An f32 A of 32 columns in whole
 * 128-row tiles that a tensor-map copy landed in the tensor cores' swizzle
 * is read in place (vx/cuda/mma.h); everything else row-major. */
template <typename T>
VX_HD inline void mma(TensorCore& tc, const Buf<float>& acc, const Buf<T>& a, const Buf<T>& b, uint64_t R, uint64_t N,
                      uint64_t K, const char* at) {
  const Arena* arena = a.keep.arena();
  const uint64_t aBytes = R * K * sizeof(T);
  const bool inPlace = std::is_same_v<T, float> && K * sizeof(T) == tc::kRowBytes && R % kTileM == 0 && arena &&
                       arena->holds(a.data, aBytes) && arena->allSwizzled(a.data, aBytes);
  if (!inPlace) linear(a, at);
  linear(b, at);
  linear(acc, at);
  sync();
  touch(a.data, aBytes, false, at);
  touch(b.data, K * N * sizeof(T), false, at);
  touch(acc.data, R * N * sizeof(float), true, at);
  gemm(tc, acc.data, a.data, b.data, R, N, K, at, inPlace);
  sync();
}

/* What the kernel leaves for its launcher: the accumulator's shape and a
 * scalar result. */
struct Header {
  uint32_t hasAcc;
  uint32_t pad;
  uint64_t rows, cols;
  unsigned char result[8];
};

struct Scratch {
  Header* header;
  float* weights;
  float* acc;
  bool perCta = false;  // a grid launch: kMxuFloats cells of each per CTA, for its instances
};

class MatrixUnit {
 public:
  VX_HD MatrixUnit(Scratch s, TensorCore* tc) : s_(s), tc_(tc) {}
  template <typename T>
  VX_HD void load_weights(const Buf<T>& w, uint64_t K, uint64_t N, const char* at) {
    linear(w, at);
    sync();
    touch(w.data, K * N * sizeof(T), false, at);
    if (K * N > kMxuFloats) trap("load_weights: the weights exceed the matrix unit's scratch (VX_MXU_FLOATS cells)", at);
    // Latching copies W: later writes of the buffer do not change it.
    for (uint64_t i = lane(); i < K * N; i += lanes()) s_.weights[i] = static_cast<float>(w.data[i]);
    wk_ = K;
    wn_ = N;
    hasWeights_ = true;
    sync();
  }
  template <typename T>
  VX_HD void matmul_acc(const Buf<T>& x, uint64_t R, uint64_t K, const char* at) {
    if (hasWeights_ && wk_ != K) trap("matmul_acc: x's columns are not the latched weights' rows", at);
    uint64_t N = hasWeights_ ? wn_ : K;
    shapeAcc(R, N, at);
    linear(x, at);
    sync();
    touch(x.data, R * K * sizeof(T), false, at);
    if (hasWeights_) {
      gemm(*tc_, s_.acc, x.data, s_.weights, R, N, K, at);
    } else {
      for (uint64_t o = lane(); o < R * N; o += lanes()) s_.acc[o] += static_cast<float>(x.data[o]);  // W = identity
    }
    sync();
  }
  VX_HD void store_acc(const Hbm<float>& dst, uint64_t R, uint64_t N, const char* at) {
    if (accShaped_ && (rows_ != R || cols_ != N)) trap("store_acc: the destination's shape is not the accumulator's", at);
    sync();
    touchRows(dst.data, toHbm(dst), false, true, at);
    for (uint64_t i = lane(); i < R * N; i += lanes()) *dst.at(i) = accShaped_ ? s_.acc[i] : 0.0f;
    accShaped_ = false;  // zeroed; the next use may reshape it
    sync();
  }
  /* Kernel end: tell the launcher what the accumulator holds. */
  VX_HD void report() const {
    if (lane() != 0) return;
    s_.header->hasAcc = accShaped_ ? 1u : 0u;
    s_.header->rows = rows_;
    s_.header->cols = cols_;
  }

 private:
  VX_HD void shapeAcc(uint64_t R, uint64_t N, const char* at) {
    if (accShaped_) {
      if (rows_ != R || cols_ != N) trap("matmul_acc: the result's shape is not the accumulator's", at);
      return;
    }
    if (R * N > kMxuFloats) trap("matmul_acc: the accumulator exceeds the matrix unit's scratch (VX_MXU_FLOATS cells)", at);
    sync();
    for (uint64_t i = lane(); i < R * N; i += lanes()) s_.acc[i] = 0.0f;
    rows_ = R;
    cols_ = N;
    accShaped_ = true;
  }
  Scratch s_;
  TensorCore* tc_;
  uint64_t wk_ = 0, wn_ = 0, rows_ = 0, cols_ = 0;
  bool hasWeights_ = false, accShaped_ = false;
};

/* ---- one kernel invocation: the block's shared memory and matrix unit ---- */

#if defined(__CUDA_ARCH__)
__device__ inline unsigned char* blockSmem() {
  extern __shared__ __align__(128) unsigned char vx_dynamic_smem[];
  return vx_dynamic_smem;
}
/* The copies' mbarriers, then the tensor cores' (the last), and the slot
 * tcgen05.alloc writes its address to. One set per CTA: a grid's instances
 * on the CTA go on using them (their phases carried by the arena). */
__device__ inline uint64_t* blockBarriers() {
  __shared__ __align__(8) uint64_t vx_barriers[kBarriers + 1];
  return vx_barriers;
}
__device__ inline uint32_t* blockTmemSlot() {
  __shared__ __align__(16) uint32_t vx_tmem_slot[4];
  return vx_tmem_slot;
}
#endif

struct Invocation {
  Arena arena;
  TensorCore tc;
  MatrixUnit mxu;
  Scratch scratch;
  /* The block's dynamic shared memory: the staging area (1024-byte aligned),
   * then the arena. */
  VX_HD explicit Invocation(Scratch s) : mxu(s, &tc), scratch(s) {
#if defined(__CUDA_ARCH__)
    uint64_t* bars = blockBarriers();
    if (threadIdx.x == 0) {
      for (int i = 0; i <= kBarriers; ++i)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(detail::smemAddr(bars + i)) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    // Aligned to 1,024 in the shared address space, which the swizzle reads.
    unsigned char* base = blockSmem();
    tc.stage = base + (1024u - detail::smemAddr(base) % 1024u) % 1024u;
    tc.bar = bars + kBarriers;
    tc.tmemSlot = blockTmemSlot();
    arena.init(tc.stage + kStageBytes, kSmemBytes, bars);
#elif defined(__CUDACC__)
#else
    interp::Block& b = interp::state().block();
    tc.stage = b.smem;
    arena.init(b.smem + kStageBytes, kSmemBytes, nullptr);
#endif
  }
  /* The kernel returns: every copy must have been waited (the interpreter
   * checks it) and the launcher learns the accumulator's shape. */
  VX_HD void finish(const char* at) {
    mxu.report();
    sync();
    releaseTensorCore(tc, at);
#if !defined(__CUDACC__)
    interp::state().finish(at);
#else
    (void)at;
#endif
  }
  template <typename R>
  VX_HD void result(R r) {
    if (lane() == 0) std::memcpy(scratch.header->result, &r, sizeof r);
  }
  /* A grid's instance starts on this CTA (vx/cuda/grid.h): a fresh matrix
   * unit, in the CTA's own cells of a grid launch's scratch. The arena holds
   * none of the previous instance's buffers (each went back at its last
   * use); its mbarriers' phases, the tensor cores' commit phase and tensor
   * memory carry over. */
  VX_HD void beginInstance(uint64_t flat, uint64_t cta) {
    Scratch s = scratch;
    if (s.perCta) s.weights += cta * kMxuFloats, s.acc += cta * kMxuFloats;
    mxu = MatrixUnit(s, &tc);
#if !defined(__CUDACC__)
    interp::state().instanceBegin(flat);
#else
    (void)flat;
#endif
  }
  /* The instance ends: no copy of it is in flight (the interpreter checks). */
  VX_HD void endInstance(const char* at) {
    sync();
#if !defined(__CUDACC__)
    interp::state().instanceEnd(at);
#else
    (void)at;
#endif
  }
};

/* An entry's `&Pinned<..>` parameter: global memory copied into shared
 * memory for the call (and back out for `&mut`). */
template <typename T>
VX_HD inline Buf<T> pin(Invocation& inv, const Hbm<T>& src, const char* at) {
  return transfer(inv.arena, src, at);
}
template <typename T>
VX_HD inline void unpin(const Buf<T>& b, const Hbm<T>& dst, const char* at) {
  store(b, dst, at);
}

}  // namespace vx::cu

#include "vx/cuda/grid.h"
#include "vx/cuda/launch.h"

#endif /* VX_CUDA_RUNTIME_H */
