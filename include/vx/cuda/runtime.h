/* The intrinsic layer of the b200 and h100 targets (docs/b200.md). The `.cu`
 * that `vxc build --target b200|h100` emits calls only what this header
 * declares, in namespace vx::cu, so that the same generated source builds
 * two ways:
 *
 *  - with nvcc (`__CUDACC__`): a `__global__` kernel per entry, run by one
 *    thread block of kThreads threads. Every thread runs the function's
 *    scalar code (control flow is uniform); each intrinsic decides which
 *    threads act: one elected thread issues copies (TMA bulk copies that
 *    complete on an mbarrier with expected transaction bytes, bulk stores in
 *    bulk groups), all threads share elementwise and matrix work.
 *  - with the host C++ compiler (`vxc run --interpret`): the interpreter
 *    (vx/cuda/interpret.h) runs the block on the CPU. Copies complete out of
 *    order under a seeded schedule; mbarrier phases and transaction bytes
 *    are tracked; an access of memory a copy is still landing in or reading,
 *    a wait on a phase never armed, a byte-count mismatch and a copy or
 *    token left when the kernel returns stop the run naming the Vx line.
 *
 * A token is an (mbarrier, phase parity) pair. Shared memory (`Memory::VMEM`)
 * is an arena managed by bookkeeping that every thread keeps identically
 * (all threads run the same allocation sequence), with 1 KiB granules as
 * the checker's footprint (E6007) counts them. Header-only C++17. */
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
inline constexpr int kBarriers = 64;          // mbarriers, so copies in flight at once
inline constexpr int kMaxBuffers = 64;        // shared-memory buffers live at once
inline constexpr size_t kMxuFloats = 65536;   // matrix-unit weights and accumulator, each

}  // namespace vx::cu

#if !defined(__CUDACC__)
#include "vx/cuda/interpret.h"
#endif

#include "vx/cuda/block.h"

namespace vx::cu {

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
        return i;
      }
    trap("shared memory: more than 64 buffers live at once", at);
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
    trap("more than 64 copies in flight at once", at);
  }
  /* The phase was waited: the next use of the barrier completes the other parity. */
  VX_HD void releaseBarrier(int b) {
    busy_[b] = false;
    ++uses_[b];
  }
  VX_HD uint64_t* barrier(int b) const { return bars_ + b; }

 private:
  unsigned char* base_ = nullptr;
  uint32_t capacity_ = 0;
  uint64_t* bars_ = nullptr;
  uint32_t off_[kMaxBuffers] = {};
  uint32_t size_[kMaxBuffers] = {};
  int32_t refs_[kMaxBuffers] = {};
  bool busy_[kBarriers] = {};
  uint32_t uses_[kBarriers] = {};
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

/* A tensor in global memory (HBM): `n` elements at `data`. */
template <typename T>
struct Hbm {
  T* data = nullptr;
  uint64_t n = 0;
  VX_HD Hbm slot(uint64_t i, uint64_t count, const char* at) const {
    check_index(i, count, at);
    uint64_t sub = n / count;
    return Hbm{data + i * sub, sub};
  }
  VX_HD T load(uint64_t i, const char* at) const {
    check_index(i, n, at);
    touch(data + i, sizeof(T), false, at);
    return data[i];
  }
  VX_HD void store(uint64_t i, T v, const char* at) const {
    check_index(i, n, at);
    touch(data + i, sizeof(T), true, at);
    detail_store_one(data + i, v);
  }
};

/* A Vec of tensors in global memory, back to back. */
template <typename T>
struct Vec {
  T* data = nullptr;
  uint64_t len = 0;
  uint64_t elems = 0;  // per tensor
  VX_HD Hbm<T> get(uint64_t i, const char* at) const {
    check_index(i, len, at);
    return Hbm<T>{data + i * elems, elems};
  }
};

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
    touch(data + i, sizeof(T), false, at);
    return data[i];
  }
  VX_HD void store(uint64_t i, T v, const char* at) const {
    check_index(i, n, at);
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

/* ---- copies ---- */

namespace detail {

/* Whether a bulk copy can move these bytes (16-byte sizes and addresses). */
VX_HD inline bool bulkable(const void* a, const void* b, uint64_t bytes) {
  return bytes > 0 && bytes % 16 == 0 && bytes < (1u << 20) && reinterpret_cast<uintptr_t>(a) % 16 == 0 &&
         reinterpret_cast<uintptr_t>(b) % 16 == 0;
}

/* A copy by all threads (a fallback for sizes bulk copies cannot move). */
VX_HD inline void copyAll(void* dst, const void* src, uint64_t bytes, const char* at) {
  sync();
  touch(src, bytes, false, at);
  touch(dst, bytes, true, at);
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (uint64_t i = lane(); i < bytes; i += lanes()) d[i] = s[i];
  sync();
}

#if defined(__CUDA_ARCH__)
__device__ inline uint32_t smemAddr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
/* Generic-proxy accesses, then async-proxy ones (bulk copies), of shared
 * memory and of global memory: an element written by the threads to global
 * memory and then copied in, or overwritten by a bulk store. */
__device__ inline void fenceAsync() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("fence.proxy.async.global;" ::: "memory");
}
#endif

/* Starts a global (or shared) -> shared copy completing on barrier `bar`. */
VX_HD inline void startLoad(Arena& arena, int bar, void* dst, const void* src, uint64_t bytes, const char* at) {
#if defined(__CUDA_ARCH__)
  (void)at;
  fenceAsync();
  __syncthreads();  // every thread is done with what the copy overwrites
  if (threadIdx.x == 0) {
    uint32_t mbar = smemAddr(arena.barrier(bar));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mbar), "r"(static_cast<uint32_t>(bytes))
                 : "memory");
    if (__isShared(src))  // a copy within shared memory (between ring slots)
      asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                       smemAddr(dst)),
                   "r"(smemAddr(src)), "r"(static_cast<uint32_t>(bytes)), "r"(mbar)
                   : "memory");
    else
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                       smemAddr(dst)),
                   "l"(src), "r"(static_cast<uint32_t>(bytes)), "r"(mbar)
                   : "memory");
  }
#elif defined(__CUDACC__)
  (void)arena, (void)bar, (void)dst, (void)src, (void)bytes, (void)at;
#else
  (void)arena;
  interp::state().load(bar, dst, src, bytes, at);
#endif
}

#if defined(__CUDA_ARCH__)
/* mbarrier.try_wait.parity until the phase of `parity` completes, bounded:
 * a wait that has not completed after kWaitLimit cycles (about 10 s at the
 * GPU's clock; no correct kernel waits that long for one copy) prints the
 * barrier, the parity and the Vx line and traps, so a first run on hardware
 * that would hang says why instead. */
constexpr long long kWaitLimit = 1ll << 34;
__device__ inline void waitParity(uint64_t* bar, uint32_t parity, int index = -1,
                                  const char* at = "the tensor cores' commit") {
  uint32_t mbar = smemAddr(bar), done = 0;
  long long start = clock64();
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(mbar), "r"(parity)
        : "memory");
    if (!done && clock64() - start > kWaitLimit) {
      if (threadIdx.x == 0)
        printf("error: runtime trap: a wait on mbarrier %d for parity %u did not complete in %lld cycles (block %u) "
               "at %s\n",
               index, parity, kWaitLimit, blockIdx.x, at);
      __trap();
    }
  } while (!done);
}
#endif

VX_HD inline void waitBarrier(Arena& arena, int bar, uint32_t parity, const char* at) {
#if defined(__CUDA_ARCH__)
  waitParity(arena.barrier(bar), parity, bar, at);
#elif defined(__CUDACC__)
  (void)arena, (void)bar, (void)parity, (void)at;
#else
  (void)arena;
  interp::state().waitLoad(bar, parity, at);
  interp::state().released(bar);
#endif
}

/* Starts a shared -> global bulk store in this thread's bulk group. */
VX_HD inline void startStore(void* dst, const void* src, uint64_t bytes, const char* at) {
#if defined(__CUDA_ARCH__)
  (void)at;
  fenceAsync();
  __syncthreads();  // every thread's writes of the source are done and visible to the async proxy
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smemAddr(src)),
                 "r"(static_cast<uint32_t>(bytes))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }
#elif defined(__CUDACC__)
  (void)dst, (void)src, (void)bytes, (void)at;
#else
  interp::state().store(dst, src, bytes, at);
#endif
}

VX_HD inline void waitStores(const char* at) {
#if defined(__CUDA_ARCH__)
  (void)at;
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    asm volatile("fence.proxy.async.global;" ::: "memory");  // what the stores wrote, to generic reads
  }
  __syncthreads();
#elif defined(__CUDACC__)
  (void)at;
#else
  interp::state().waitStores(at);
#endif
}

}  // namespace detail

template <typename T, template <typename> class Src>
VX_HD inline Token<T> transfer_async(Arena& arena, const Src<T>& src, const char* at) {
  Buf<T> b = allocate<T>(arena, src.n, at);
  uint64_t bytes = src.n * sizeof(T);
  if (!detail::bulkable(b.data, src.data, bytes)) {
    detail::copyAll(b.data, src.data, bytes, at);
    return Token<T>{-1, 0, b};
  }
  Token<T> t;
  t.bar = arena.acquireBarrier(&t.parity, at);
  detail::startLoad(arena, t.bar, b.data, src.data, bytes, at);
  t.buf = b;
  return t;
}

template <typename T, template <typename> class Src>
VX_HD inline VoidToken transfer_async_into(const Src<T>& src, const Buf<T>& dst, const char* at) {
  uint64_t bytes = src.n * sizeof(T);
  VoidToken t;
  t.keep = dst.keep;
  t.at = at;
  if (!detail::bulkable(dst.data, src.data, bytes)) {
    detail::copyAll(dst.data, src.data, bytes, at);
    return t;
  }
  Arena& arena = *dst.keep.arena();
  t.bar = arena.acquireBarrier(&t.parity, at);
  detail::startLoad(arena, t.bar, dst.data, src.data, bytes, at);
  return t;
}

template <typename T>
VX_HD inline VoidToken store_async(const Buf<T>& src, const Hbm<T>& dst, const char* at) {
  uint64_t bytes = src.n * sizeof(T);
  VoidToken t;
  t.keep = src.keep;  // the source stays allocated until the store is waited
  t.at = at;
  if (!detail::bulkable(dst.data, src.data, bytes)) {
    detail::copyAll(dst.data, src.data, bytes, at);
    return t;
  }
  t.store = true;
  detail::startStore(dst.data, src.data, bytes, at);
  return t;
}

template <typename T>
VX_HD inline Buf<T> wait(const Token<T>& t, const char* at) {
  if (t.bar >= 0) {
    Arena& arena = *t.buf.keep.arena();
    detail::waitBarrier(arena, t.bar, t.parity, at);
    arena.releaseBarrier(t.bar);
  }
  return t.buf;
}
VX_HD inline void wait(const VoidToken& t, const char* at) {
  if (t.store) {
    detail::waitStores(at);
  } else if (t.bar >= 0) {
    Arena& arena = *t.keep.arena();
    detail::waitBarrier(arena, t.bar, t.parity, at);
    arena.releaseBarrier(t.bar);
  }
}

template <typename T>
VX_HD inline Token<T> ready(const Buf<T>& b) {
  return Token<T>{-1, 0, b};
}
VX_HD inline VoidToken ready() { return VoidToken{}; }

template <typename T, template <typename> class Src>
VX_HD inline Buf<T> transfer(Arena& arena, const Src<T>& src, const char* at) {
  return wait(transfer_async(arena, src, at), at);
}
template <typename T, template <typename> class Src>
VX_HD inline void transfer_into(const Src<T>& src, const Buf<T>& dst, const char* at) {
  wait(transfer_async_into(src, dst, at), at);
}
template <typename T>
VX_HD inline void store(const Buf<T>& src, const Hbm<T>& dst, const char* at) {
  wait(store_async(src, dst, at), at);
}

/* ---- elementwise: every thread takes a strided share ---- */

template <typename T, typename F>
VX_HD inline Buf<T> map(Arena& arena, const Buf<T>& a, const Buf<T>* b, const char* at, F f) {
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
struct ReluF {
  template <typename T>
  VX_HD T operator()(T x, T) const { return static_cast<float>(x) > 0.0f ? x : T(0.0f); }
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
VX_HD inline Buf<T> relu(Arena& arena, const Buf<T>& x, const char* at) { return map(arena, x, static_cast<const Buf<T>*>(nullptr), at, ReluF{}); }
template <typename T>
VX_HD inline Buf<T> scale(Arena& arena, const Buf<T>& x, float s, const char* at) {
  return map(arena, x, static_cast<const Buf<T>*>(nullptr), at, ScaleF{s});
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

/* acc[R x N] += a[R x K] @ b[K x N] */
template <typename T>
VX_HD inline void mma(TensorCore& tc, const Buf<float>& acc, const Buf<T>& a, const Buf<T>& b, uint64_t R, uint64_t N,
                      uint64_t K, const char* at) {
  sync();
  touch(a.data, R * K * sizeof(T), false, at);
  touch(b.data, K * N * sizeof(T), false, at);
  touch(acc.data, R * N * sizeof(float), true, at);
  gemm(tc, acc.data, a.data, b.data, R, N, K, at);
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
};

class MatrixUnit {
 public:
  VX_HD MatrixUnit(Scratch s, TensorCore* tc) : s_(s), tc_(tc) {}
  template <typename T>
  VX_HD void load_weights(const Buf<T>& w, uint64_t K, uint64_t N, const char* at) {
    sync();
    touch(w.data, K * N * sizeof(T), false, at);
    if (K * N > kMxuFloats) trap("load_weights: the weights exceed the matrix unit's 65,536 cells", at);
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
    touch(dst.data, R * N * sizeof(float), true, at);
    for (uint64_t i = lane(); i < R * N; i += lanes()) dst.data[i] = accShaped_ ? s_.acc[i] : 0.0f;
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
    if (R * N > kMxuFloats) trap("matmul_acc: the accumulator exceeds the matrix unit's 65,536 cells", at);
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
 * tcgen05.alloc writes its address to. */
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

#include "vx/cuda/launch.h"

#endif /* VX_CUDA_RUNTIME_H */
