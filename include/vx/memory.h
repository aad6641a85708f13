/* Memory of the cpu target: HBM tensors are the caller's host arrays (views,
 * never owned); `Memory::VMEM` is a per-invocation scratch arena of 128 MiB
 * (like the tpu target), from which every on-chip buffer is allocated and to
 * which it returns when its last reference goes. Header-only C++17. */
#ifndef VX_MEMORY_H
#define VX_MEMORY_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#if defined(__unix__)
#include <unistd.h>
#endif

#include "vx/scalar.h"

namespace vx::rt {

inline constexpr size_t kVmemBytes = size_t{128} << 20;
inline constexpr size_t kAlign = 64;  // one cache line, and an AVX-512 vector

/* Where a block goes in the arena. `Packed`: first fit, the lowest gap
 * that holds it, so a loop that allocates a tile per iteration reuses the
 * same few blocks, hot in the core's own cache. `Rotating`: the destination
 * of a copy the engine makes (transfer_async): the first gap at or after
 * where the last rotating block ended, wrapping around within a window of
 * twice the core's private cache (rotationWindow). The engine writes a
 * block the program read a moment ago otherwise, and each of its stores
 * then has to take the line out of the other core's cache: two threads
 * handing 64 KiB tiles through four blocks copied at 8 GB/s, through a
 * 2 MiB rotation at 17; the canonical stream ran 14.0 against 18.3 ms
 * (bench/README.md "cpu", session 50). */
enum class Placement { Packed, Rotating };

/* Twice the private (second-level) cache of a core, where the C library
 * says what it is, else 2 MiB; between 1 and 16 MiB. VX_ROTATE_KIB sets it
 * (0: no rotation, every block packed). */
inline size_t rotationWindow() {
  static const size_t window = [] {
    if (const char* v = std::getenv("VX_ROTATE_KIB")) return static_cast<size_t>(std::strtoull(v, nullptr, 10)) << 10;
    long l2 = 0;
#if defined(_SC_LEVEL2_CACHE_SIZE)
    l2 = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    size_t w = l2 > 0 ? 2 * static_cast<size_t>(l2) : size_t{2} << 20;
    return std::clamp(w, size_t{1} << 20, size_t{16} << 20);
  }();
  return window;
}

/* First-fit allocator (or rotating: Placement) over one reservation,
 * holding at most `capacity` bytes at once: the count the checker's E6007
 * bounds (docs/cpu.md). The
 * reservation is made on first use with malloc, which maps pages lazily, so
 * an invocation only touches what it uses. When the live buffers fit but no
 * gap of the reservation is large enough (first fit fragments: a buffer
 * freed between two live ones leaves a hole), the buffer is allocated on its
 * own instead, so a program within the capacity never traps. A mutex,
 * because the copy engine may drop the last reference to a buffer. */
class Arena {
 public:
  /* `window`: of the rotating placement (rotationWindow; the runtime's
   * tests give their own). */
  explicit Arena(size_t capacity = kVmemBytes, size_t window = rotationWindow())
      : capacity_(capacity), window_(std::min(window, capacity)) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() { std::free(base_); }

  void* allocate(size_t bytes, const char* at, Placement placement = Placement::Packed) {
    bytes = rounded(bytes);
    std::lock_guard<std::mutex> lock(m_);
    if (bytes > capacity_ - used_) trap("VMEM arena exhausted (128 MiB per invocation)", at);
    if (!base_) {
      base_ = static_cast<char*>(std::aligned_alloc(kAlign, capacity_));
      if (!base_) trap("cannot reserve the VMEM arena", at);
      free_[0] = capacity_;
    }
    used_ += bytes;
    if (used_ > peak_) peak_ = used_;
    switch (placement) {
      case Placement::Packed:
        break;
      case Placement::Rotating:
        if (void* p = rotating(bytes)) return p;
        break;  // no gap in the window from the rover on: first fit
    }
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < bytes) continue;
      size_t off = it->first, size = it->second;
      free_.erase(it);
      if (size > bytes) free_[off + bytes] = size - bytes;
      return base_ + off;
    }
    void* own = std::aligned_alloc(kAlign, bytes);
    if (!own) trap("cannot allocate a VMEM buffer outside the fragmented arena", at);
    return own;
  }

  void release(void* p, size_t bytes) {
    bytes = rounded(bytes);
    std::lock_guard<std::mutex> lock(m_);
    used_ -= bytes;
    char* c = static_cast<char*>(p);
    if (c < base_ || c >= base_ + capacity_) {
      std::free(p);
      return;
    }
    size_t off = static_cast<size_t>(c - base_);
    auto next = free_.lower_bound(off);
    // Coalesce with the neighbours so that the arena fragments less.
    if (next != free_.end() && off + bytes == next->first) {
      bytes += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == off) {
        prev->second += bytes;
        return;
      }
    }
    free_[off] = bytes;
  }

  size_t peak() const { return peak_; }

 private:
  /* The first gap of the window at or after the rover that holds `bytes`
   * (wrapping to the window's start when the block would end past it), cut
   * out; null when there is none. */
  void* rotating(size_t bytes) {
    if (bytes > window_) return nullptr;
    if (rover_ + bytes > window_) rover_ = 0;
    auto it = free_.upper_bound(rover_);
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second > rover_) it = prev;  // the gap the rover is in
    }
    for (; it != free_.end() && it->first < window_; ++it) {
      size_t gap = it->first, end = it->first + it->second, start = std::max(gap, rover_);
      if (end - start < bytes || start + bytes > window_) continue;
      free_.erase(it);
      if (start > gap) free_[gap] = start - gap;
      if (end > start + bytes) free_[start + bytes] = end - start - bytes;
      rover_ = start + bytes;
      return base_ + start;
    }
    return nullptr;
  }

  static size_t rounded(size_t bytes) {
    bytes = (bytes + kAlign - 1) / kAlign * kAlign;
    return bytes == 0 ? kAlign : bytes;
  }
  size_t capacity_, window_;
  size_t rover_ = 0;  // where the last rotating block ended
  char* base_ = nullptr;
  std::map<size_t, size_t> free_;  // offset -> size, coalesced
  size_t used_ = 0, peak_ = 0;
  std::mutex m_;
};

/* One allocation; returns to its arena with the last reference. */
struct Block {
  Arena* arena;
  void* ptr;
  size_t bytes;
  Block(Arena& a, size_t n, const char* at, Placement placement = Placement::Packed)
      : arena(&a), ptr(a.allocate(n, at, placement)), bytes(n) {}
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  ~Block() { arena->release(ptr, bytes); }
};

inline void check_index(uint64_t i, uint64_t n, const char* at) {
  if (i >= n) {
    char what[96];
    std::snprintf(what, sizeof what, "index out of bounds: the len is %llu but the index is %llu",
                  static_cast<unsigned long long>(n), static_cast<unsigned long long>(i));
    trap(what, at);
  }
}

/* A tensor in HBM: `n` elements at `data`, owned by the caller. A block of a
 * larger row-major tensor (`vx.block`, grid.md §2) is strided: `n / cols`
 * rows of `cols` elements, `stride` elements apart (0: contiguous). */
template <typename T>
struct Hbm {
  T* data = nullptr;
  uint64_t n = 0;
  uint64_t cols = 0, stride = 0;
  bool strided() const { return stride != 0 && stride != cols; }
  uint64_t rows() const { return strided() ? n / cols : 1; }
  uint64_t rowElems() const { return strided() ? cols : n; }
  uint64_t rowStride() const { return strided() ? stride : n; }
  /* The elements from the first to the last one it holds. */
  uint64_t span() const { return strided() && n ? (rows() - 1) * stride + cols : n; }
  /* Sub-tensor `i` of `count` along the leading dimension. */
  Hbm slot(uint64_t i, uint64_t count, const char* at) const {
    check_index(i, count, at);
    uint64_t sub = n / count;
    if (!strided()) return Hbm{data + i * sub, sub};
    uint64_t rowsPer = sub / cols;
    return Hbm{data + i * rowsPer * stride, sub, cols, rowsPer > 1 ? stride : 0};
  }
  T load(uint64_t i, const char* at) const {
    check_index(i, n, at);
    return data[i];
  }
  void store(uint64_t i, T v, const char* at) const {
    check_index(i, n, at);
    data[i] = v;
  }
};

/* `block::<[R, C]>(src, r, c)`: rows r..r+R, columns c..c+C of `src`, a
 * `rows` x `cols` tensor (or a view of one). `checked`: the checker did not
 * prove it in bounds, so it is checked here. */
template <typename T>
inline Hbm<T> block(const Hbm<T>& src, uint64_t r, uint64_t c, uint64_t R, uint64_t C, uint64_t rows, uint64_t cols,
                    bool checked, const char* at) {
  if (checked && (r > rows || R > rows - r || c > cols || C > cols - c)) {
    char what[192];
    std::snprintf(what, sizeof what,
                  "block out of bounds: rows %llu..%llu and columns %llu..%llu of a %llu x %llu tensor",
                  (unsigned long long)r, (unsigned long long)(r + R), (unsigned long long)c,
                  (unsigned long long)(c + C), (unsigned long long)rows, (unsigned long long)cols);
    trap(what, at);
  }
  uint64_t stride = src.strided() ? src.stride : cols;
  return Hbm<T>{src.data + r * stride + c, R * C, C, R > 1 ? stride : 0};
}

/* How a copy between a (maybe strided) HBM view and a contiguous buffer
 * moves: `rows` runs of `rowBytes`, `srcStride` / `dstStride` bytes apart. */
struct CopyShape {
  size_t rows = 1, rowBytes = 0, srcStride = 0, dstStride = 0;
  size_t bytes() const { return rows * rowBytes; }
};
template <typename T>
inline CopyShape contiguous(uint64_t n) {
  return CopyShape{1, n * sizeof(T), n * sizeof(T), n * sizeof(T)};
}
template <typename T>
inline CopyShape fromHbm(const Hbm<T>& src) {
  return CopyShape{src.rows(), src.rowElems() * sizeof(T), src.rowStride() * sizeof(T), src.rowElems() * sizeof(T)};
}
template <typename T>
inline CopyShape toHbm(const Hbm<T>& dst) {
  return CopyShape{dst.rows(), dst.rowElems() * sizeof(T), dst.rowElems() * sizeof(T), dst.rowStride() * sizeof(T)};
}
/* One row of a block: 64-byte moves the compiler keeps in vector registers.
 * (A `memcpy` of a run-time size inlined in a loop can become `rep movs`,
 * whose start-up costs as much as a short row.) */
inline void copyRow(char* d, const char* x, size_t n) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) std::memcpy(d + i, x + i, 64);
  if (i < n) std::memcpy(d + i, x + i, n - i);
}

/* Copies move runs in pieces of kCopyChunkBytes: the copy engine's chunks
 * (copy.h), and the pieces of every blocking copy, so that a program and its
 * --sync-baseline move bytes with the same code. One `memcpy` of a 64 KiB
 * tile (glibc's `memmove`) ran 2–6% slower in the examples than eight of
 * 8 KiB (which GCC inlines as `rep movsq`); bench/README.md "cpu", session
 * 38. */
constexpr size_t kCopyChunkBytes = size_t{8} << 10;

inline void copyRun(char* d, const char* x, size_t n) {
  for (size_t i = 0; i < n; i += kCopyChunkBytes) std::memcpy(d + i, x + i, std::min(kCopyChunkBytes, n - i));
}

inline void copyBytes(void* dst, const void* src, const CopyShape& s) {
  if (s.rows == 1) {
    copyRun(static_cast<char*>(dst), static_cast<const char*>(src), s.rowBytes);
    return;
  }
  char* d = static_cast<char*>(dst);
  const char* x = static_cast<const char*>(src);
  for (size_t r = 0; r < s.rows; ++r) copyRow(d + r * s.dstStride, x + r * s.srcStride, s.rowBytes);
}

/* A Vec of tensors in HBM, back to back. */
template <typename T>
struct Vec {
  T* data = nullptr;
  uint64_t len = 0;
  uint64_t elems = 0;  // per tensor
  Hbm<T> get(uint64_t i, const char* at) const {
    check_index(i, len, at);
    return Hbm<T>{data + i * elems, elems};
  }
};

/* A buffer in VMEM (or a view of one: a ring slot). */
template <typename T>
struct Buf {
  std::shared_ptr<Block> owner;
  T* data = nullptr;
  uint64_t n = 0;
  Buf slot(uint64_t i, uint64_t count, const char* at) const {
    check_index(i, count, at);
    uint64_t sub = n / count;
    return Buf{owner, data + i * sub, sub};
  }
  T load(uint64_t i, const char* at) const {
    check_index(i, n, at);
    return data[i];
  }
  void store(uint64_t i, T v, const char* at) const {
    check_index(i, n, at);
    data[i] = v;
  }
};

template <typename T>
inline Buf<T> allocate(Arena& arena, uint64_t n, const char* at, Placement placement = Placement::Packed) {
  auto block = std::make_shared<Block>(arena, n * sizeof(T), at, placement);
  return Buf<T>{block, static_cast<T*>(block->ptr), n};
}

template <typename T>
inline Buf<T> zeros(Arena& arena, uint64_t n, const char* at) {
  Buf<T> b = allocate<T>(arena, n, at);
  std::memset(static_cast<void*>(b.data), 0, n * sizeof(T));
  return b;
}

}  // namespace vx::rt

#endif /* VX_MEMORY_H */
