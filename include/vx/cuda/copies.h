/* Copies of the b200 and h100 targets (docs/b200.md, "Lowering" and
 * "Blocks and tensor maps"): between global memory and shared memory,
 * asynchronous, completing on mbarriers (loads) or in bulk groups (stores).
 * Included by vx/cuda/runtime.h after the arena, the views and the tokens.
 *
 * How a copy moves, first that applies:
 *  1. a block whose parameter has a tensor map for its box (vx/cuda/tma.h):
 *     one `cp.async.bulk.tensor.2d` by one thread; an f32 box of 32 columns
 *     (128-byte rows) into whole 1024-byte granules lands in the tensor
 *     cores' 128-byte swizzle, so `mma` reads it in place (vx/cuda/mma.h);
 *  2. rows of 16-byte multiples at 16-byte addresses: one `cp.async.bulk`
 *     per row (one for a contiguous view), all on the copy's mbarrier;
 *  3. anything else: all threads copy, and the token is already complete.
 * Every copy is preceded by the proxy fences and a block barrier, so no
 * thread still reads what it overwrites and what the threads wrote is
 * visible to the async proxy. */
#ifndef VX_CUDA_COPIES_H
#define VX_CUDA_COPIES_H

#include <type_traits>

namespace vx::cu {

namespace detail {

/* Whether bulk copies can move these rows: 16-byte sizes and addresses,
 * and fewer bytes than an mbarrier's transaction count holds. */
VX_HD inline bool bulkable(const void* dst, const void* src, const CopyShape& s) {
  const uint64_t bytes = s.bytes();
  return bytes > 0 && bytes < (1u << 20) && s.rowBytes % 16 == 0 && reinterpret_cast<uintptr_t>(dst) % 16 == 0 &&
         reinterpret_cast<uintptr_t>(src) % 16 == 0 && (s.rows == 1 || (s.srcStride % 16 == 0 && s.dstStride % 16 == 0));
}
VX_HD inline CopyShape contiguous(uint64_t bytes) { return CopyShape{1, bytes, bytes, bytes}; }

/* A copy by all threads (sizes bulk copies cannot move). */
VX_HD inline void copyAll(void* dst, const void* src, const CopyShape& s, const char* at) {
  sync();
  touchRows(src, s, true, false, at);
  touchRows(dst, s, false, true, at);
  auto* d = static_cast<unsigned char*>(dst);
  const auto* x = static_cast<const unsigned char*>(src);
  for (uint64_t i = lane(); i < s.bytes(); i += lanes()) {
    const uint64_t r = i / s.rowBytes, b = i % s.rowBytes;
    d[r * s.dstStride + b] = x[r * s.srcStride + b];
  }
  sync();
}

#if defined(__CUDA_ARCH__)
/* Generic-proxy accesses, then async-proxy ones (bulk copies), of shared
 * memory and of global memory: an element written by the threads to global
 * memory and then copied in, or overwritten by a bulk store. */
__device__ inline void fenceAsync() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("fence.proxy.async.global;" ::: "memory");
}
#endif

/* Starts a global (or shared) -> shared copy of `s`'s rows completing on
 * barrier `bar`. */
VX_HD inline void startLoad(Arena& arena, int bar, void* dst, const void* src, const CopyShape& s, const char* at) {
#if defined(__CUDA_ARCH__)
  (void)at;
  fenceAsync();
  __syncthreads();  // every thread is done with what the copy overwrites
  if (threadIdx.x == 0) {
    const uint32_t mbar = smemAddr(arena.barrier(bar));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mbar),
                 "r"(static_cast<uint32_t>(s.bytes()))
                 : "memory");
    const bool shared = __isShared(src);  // a copy within shared memory (between ring slots)
    for (uint64_t r = 0; r < s.rows; ++r) {
      const uint32_t d = smemAddr(static_cast<unsigned char*>(dst) + r * s.dstStride);
      const auto* x = static_cast<const unsigned char*>(src) + r * s.srcStride;
      if (shared)
        asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         d),
                     "r"(smemAddr(x)), "r"(static_cast<uint32_t>(s.rowBytes)), "r"(mbar)
                     : "memory");
      else
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(d),
                     "l"(x), "r"(static_cast<uint32_t>(s.rowBytes)), "r"(mbar)
                     : "memory");
    }
  }
#elif defined(__CUDACC__)
  (void)arena, (void)bar, (void)dst, (void)src, (void)s, (void)at;
#else
  (void)arena;
  interp::state().load(bar, interp::Copy{static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst), s,
                                         s.rows, s.rowBytes, false, bar, at});
#endif
}

/* Starts the tensor-map copy of the box at column x, row y into `dst`
 * (`bytes`: the box's), completing on barrier `bar`. */
VX_HD inline void startTensorLoad(Arena& arena, int bar, void* dst, const tma::Map* map, int32_t x, int32_t y,
                                  uint64_t bytes, const char* at) {
#if defined(__CUDA_ARCH__)
  (void)at;
  fenceAsync();
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t mbar = smemAddr(arena.barrier(bar));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mbar), "r"(static_cast<uint32_t>(bytes))
                 : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            smemAddr(dst)),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(mbar)
        : "memory");
  }
#elif defined(__CUDACC__)
  (void)arena, (void)bar, (void)dst, (void)map, (void)x, (void)y, (void)bytes, (void)at;
#else
  (void)arena, (void)bytes;
  interp::state().tensorLoad(bar, dst, map, x, y, at);
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

/* Starts a shared -> global store in this thread's bulk group: through the
 * tensor map `map` into the box at column x, row y, or (no map) `s`'s rows
 * by bulk copies. One issuing block for both, so the store stays in line
 * before its wait. */
VX_HD inline void startStore(void* dst, const void* src, const CopyShape& s, const tma::Map* map, int32_t x, int32_t y,
                             const char* at) {
#if defined(__CUDA_ARCH__)
  (void)at;
  fenceAsync();
  __syncthreads();  // every thread's writes of the source are done and visible to the async proxy
  if (threadIdx.x == 0) {
    if (map) {
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                       reinterpret_cast<uint64_t>(map)),
                   "r"(x), "r"(y), "r"(smemAddr(src))
                   : "memory");
    } else if (s.rows == 1) {  // a tensor, a slot
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smemAddr(src)),
                   "r"(static_cast<uint32_t>(s.rowBytes))
                   : "memory");
    } else {
      VX_NO_UNROLL
      for (uint64_t r = 0; r < s.rows; ++r)
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
                         static_cast<unsigned char*>(dst) + r * s.dstStride),
                     "r"(smemAddr(static_cast<const unsigned char*>(src) + r * s.srcStride)),
                     "r"(static_cast<uint32_t>(s.rowBytes))
                     : "memory");
    }
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }
#elif defined(__CUDACC__)
  (void)dst, (void)src, (void)s, (void)map, (void)x, (void)y, (void)at;
#else
  if (map)
    interp::state().tensorStore(src, map, x, y, at);
  else
    interp::state().store(interp::Copy{static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst), s,
                                       s.rows, s.rowBytes, false, -1, at});
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

/* The tensor map through which the block `v` (a box of rows x v.cols) moves,
 * with the swizzle asked for, and its coordinates; null if none. */
template <typename T>
VX_HD inline const tma::Map* boxMap(const Hbm<T>& v, tma::Swizzle s, int32_t* x, int32_t* y) {
  if (v.cols == 0 || !v.maps || v.n % v.cols != 0) return nullptr;
  const tma::Map* m = tma::find(v.maps, v.n / v.cols, v.cols, sizeof(T), s);
  return m && tma::coords(v.maps, v.data, x, y) ? m : nullptr;
}

/* Starts the copy of `src` into `dst`; returns its barrier and parity, or
 * -1 when it is done already (all threads copied). */
template <typename T>
VX_HD inline int load(Arena& arena, const Hbm<T>& src, const Buf<T>& dst, uint32_t* parity, const char* at) {
  const CopyShape s = fromHbm(src);
  const uint64_t bytes = s.bytes();
  const uint32_t to = smemAddr(dst.data);
  int32_t x = 0, y = 0;
  // The tensor cores' layout: 128-byte f32 rows into whole granules.
  const bool swizzle = std::is_same_v<T, float> && src.cols * sizeof(T) == tc::kRowBytes && bytes % kGranule == 0 &&
                       to % tc::kAtomBytes == 0 && arena.holds(dst.data, bytes);
  const tma::Map* map = swizzle ? boxMap(src, tma::Swizzle::B128, &x, &y) : nullptr;
  const bool swizzled = map != nullptr;
  if (!map && to % 128 == 0) map = boxMap(src, tma::Swizzle::None, &x, &y);
  overwrite(arena, dst.data, bytes, swizzled, at);
  if (!map && !bulkable(dst.data, src.data, s)) {
    copyAll(dst.data, src.data, s, at);
    return -1;
  }
  const int bar = arena.acquireBarrier(parity, at);
  if (map) startTensorLoad(arena, bar, dst.data, map, x, y, bytes, at);
  else startLoad(arena, bar, dst.data, src.data, s, at);
  return bar;
}
/* A copy between buffers of shared memory (ring slots): row-major. */
template <typename T>
VX_HD inline int load(Arena& arena, const Buf<T>& src, const Buf<T>& dst, uint32_t* parity, const char* at) {
  const CopyShape s = contiguous(src.n * sizeof(T));
  linear(src, at);
  overwrite(arena, dst.data, s.bytes(), false, at);
  if (!bulkable(dst.data, src.data, s)) {
    copyAll(dst.data, src.data, s, at);
    return -1;
  }
  const int bar = arena.acquireBarrier(parity, at);
  startLoad(arena, bar, dst.data, src.data, s, at);
  return bar;
}

}  // namespace detail

template <typename T, template <typename> class Src>
VX_HD inline Token<T> transfer_async(Arena& arena, const Src<T>& src, const char* at) {
  Token<T> t;
  t.buf = allocate<T>(arena, src.n, at);
  t.bar = detail::load(arena, src, t.buf, &t.parity, at);
  return t;
}

template <typename T, template <typename> class Src>
VX_HD inline VoidToken transfer_async_into(const Src<T>& src, const Buf<T>& dst, const char* at) {
  VoidToken t;
  t.keep = dst.keep;
  t.at = at;
  t.bar = detail::load(*dst.keep.arena(), src, dst, &t.parity, at);
  return t;
}

/* A store reads its source row-major; a block moves through its tensor map,
 * else row by row. */
template <typename T>
VX_HD inline VoidToken store_async(const Buf<T>& src, const Hbm<T>& dst, const char* at) {
  linear(src, at);
  const CopyShape s = toHbm(dst);
  VoidToken t;
  t.keep = src.keep;  // the source stays allocated until the store is waited
  t.at = at;
  int32_t x = 0, y = 0;
  const tma::Map* map = detail::smemAddr(src.data) % 128 == 0 ? detail::boxMap(dst, tma::Swizzle::None, &x, &y) : nullptr;
  if (!map && !detail::bulkable(dst.data, src.data, s)) {
    detail::copyAll(dst.data, src.data, s, at);
    return t;
  }
  t.store = true;
  detail::startStore(dst.data, src.data, s, map, x, y, at);
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

}  // namespace vx::cu

#endif /* VX_CUDA_COPIES_H */
