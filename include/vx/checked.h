/* Run-time token checks of the cpu target, for the functions the checker
 * could not prove and the user allowed (`#[allow(unproved)]`): they are
 * checked at compile time or at run time, never neither (docs/cpu.md).
 * Every copy of the program is registered while its token is pending; a
 * wait of a copy not pending (waited twice), a read of memory a pending copy
 * writes, a write of memory a pending copy reads or writes, and a copy still
 * pending when the kernel returns trap with the Vx source line.
 * Header-only C++17, included when a unit has such functions. */
#ifndef VX_CHECKED_H
#define VX_CHECKED_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vx/copy.h"
#include "vx/grid.h"
#include "vx/scalar.h"

namespace vx::rt::checked {

struct Pending {
  const CopyJob* job;
  const char* src;
  size_t srcBytes;
  const char* dst;
  size_t dstBytes;
  const char* at;
};

/* One kernel invocation runs on one thread: the registry is per thread. */
inline std::vector<Pending>& pending() {
  static thread_local std::vector<Pending> p;
  return p;
}

inline bool overlaps(const char* a, size_t na, const char* b, size_t nb) { return a < b + nb && b < a + na; }

[[noreturn]] inline void fail(const char* what, const Pending& p, const char* at) {
  char msg[512];
  std::snprintf(msg, sizeof msg, "%s (the copy started at %s is still pending)", what, p.at);
  trap(msg, at);
}

/* An access of [p, p + bytes) by the program itself. */
inline void access(const void* p, size_t bytes, bool write, const char* at) {
  const char* c = static_cast<const char*>(p);
  for (const Pending& q : pending()) {
    if (overlaps(c, bytes, q.dst, q.dstBytes))
      fail(write ? "write of memory a copy in flight is writing" : "read before wait: a copy is still writing this memory", q,
           at);
    if (write && overlaps(c, bytes, q.src, q.srcBytes)) fail("write of memory a copy in flight is reading", q, at);
  }
}

/* A copy made at once (on a grid's worker, or while the engine naps:
 * copy.h, start_copy) has no job; the checks need one to know the token
 * by, so it gets a job that is already done. */
inline std::shared_ptr<CopyJob> known(std::shared_ptr<CopyJob> job) {
  if (job) return job;
  auto done = std::make_shared<CopyJob>();
  done->done.store(true, std::memory_order_release);
  return done;
}

/* A copy of `shape` from `src` to `dst` starts. */
inline void started(const std::shared_ptr<CopyJob>& job, const void* src, const void* dst, const CopyShape& s,
                    const char* at) {
  // The bytes from the first row to the last (a block's rows are strided).
  size_t srcBytes = (s.rows - 1) * s.srcStride + s.rowBytes, dstBytes = (s.rows - 1) * s.dstStride + s.rowBytes;
  access(src, srcBytes, false, at);
  access(dst, dstBytes, true, at);
  pending().push_back(Pending{job.get(), static_cast<const char*>(src), srcBytes, static_cast<const char*>(dst), dstBytes, at});
}

template <typename T>
inline size_t spanBytes(const Hbm<T>& x) {
  return x.span() * sizeof(T);
}
template <typename T>
inline size_t spanBytes(const Buf<T>& x) {
  return x.n * sizeof(T);
}

inline void waited(const std::shared_ptr<CopyJob>& job, const char* at) {
  if (!job) return;  // a token made complete (`ready`, --sync-baseline)
  std::vector<Pending>& p = pending();
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i].job == job.get()) {
      p.erase(p.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  trap("a token waited twice: its copy was already waited", at);
}

/* The kernel returns: nothing may be pending. */
inline void leave(const char* at) {
  std::vector<Pending>& p = pending();
  if (p.empty()) return;
  Pending first = p.front();
  p.clear();
  fail("a token dropped without wait", first, at);
}

/* A grid whose instances the checker could not prove apart (E6010 left
 * undecided, allowed): every access of HBM made while one of its instances
 * runs is logged with the instance, and one that overlaps an access of
 * another instance, one of the two a write, traps naming both instances and
 * lines — the run-time counterpart of E6010, as vxsim's and the b200
 * interpreter's race detection are. An access is a region of bytes: `rows`
 * runs of `rowBytes`, `stride` bytes apart (a block of a row-major tensor),
 * compared exactly, run by run. Inputs only read never conflict. */
struct Region {
  const char* p = nullptr;
  uint64_t rows = 1, rowBytes = 0, stride = 0;
  const char* end() const { return p + (rows - 1) * stride + rowBytes; }
};

/* Whether [x, y) meets a run of `r`. */
inline bool meets(const char* x, const char* y, const Region& r) {
  if (r.rowBytes == 0 || x >= y) return false;
  if (r.rows == 1 || r.stride == 0) return x < r.p + r.rowBytes && r.p < y;
  // Run k covers [p + k*stride, p + k*stride + rowBytes): it meets [x, y)
  // when k*stride is in (x - p - rowBytes, y - p).
  const __int128 lo = static_cast<__int128>(x - r.p) - static_cast<__int128>(r.rowBytes) + 1;
  const __int128 hi = static_cast<__int128>(y - r.p) - 1;
  if (hi < 0) return false;
  const __int128 s = r.stride;
  __int128 kmin = lo <= 0 ? 0 : (lo + s - 1) / s;
  __int128 kmax = hi / s;
  if (kmax > static_cast<__int128>(r.rows) - 1) kmax = static_cast<__int128>(r.rows) - 1;
  return kmin <= kmax;
}

inline bool overlaps(const Region& a, const Region& b) {
  if (a.rowBytes == 0 || b.rowBytes == 0 || a.end() <= b.p || b.end() <= a.p) return false;
  const Region& few = a.rows <= b.rows ? a : b;
  const Region& other = a.rows <= b.rows ? b : a;
  for (uint64_t k = 0; k < few.rows; ++k) {
    const char* x = few.p + k * few.stride;
    if (meets(x, x + few.rowBytes, other)) return true;
  }
  return false;
}

struct GridTouch {
  uint64_t instance;
  Region region;
  bool write;
  const char* at;
};

struct GridLog {
  std::mutex m;
  std::vector<GridTouch> writes, reads;
  std::vector<uint64_t> extents;
};

/* The grid and instance the calling thread runs now (none outside one). */
struct GridNow {
  GridLog* log = nullptr;
  uint64_t instance = 0;
};
inline GridNow& gridNow() {
  static thread_local GridNow now;
  return now;
}

inline std::string instanceText(const GridLog& log, uint64_t k) {
  std::string out = "(";
  std::vector<uint64_t> idx(log.extents.size());
  for (size_t d = log.extents.size(); d-- > 0;) {
    idx[d] = k % log.extents[d];
    k /= log.extents[d];
  }
  for (size_t d = 0; d < idx.size(); ++d) out += (d ? ", " : "") + std::to_string(idx[d]);
  return out + ")";
}

inline void touch(const Region& r, bool write, const char* at) {
  GridNow& now = gridNow();
  if (now.log == nullptr || r.rowBytes == 0) return;
  GridLog& log = *now.log;
  std::lock_guard<std::mutex> lock(log.m);
  auto against = [&](const std::vector<GridTouch>& others) {
    for (const GridTouch& o : others)
      if (o.instance != now.instance && overlaps(r, o.region)) {
        bool here = std::strcmp(o.at, at) == 0;
        std::string msg = "instance " + instanceText(log, now.instance) + " of the grid " +
                          (write ? "writes" : "reads") + " memory that instance " + instanceText(log, o.instance) +
                          " " + (o.write ? "writes" : "reads") + (here ? "" : std::string(" at ") + o.at) +
                          ": the grid's instances race (the run-time check of an unproved E6010)";
        trap(msg.c_str(), at);
      }
  };
  against(log.writes);
  if (write) against(log.reads);
  (write ? log.writes : log.reads).push_back(GridTouch{now.instance, r, write, at});
}

template <typename T>
inline Region regionOf(const Hbm<T>& x) {
  return Region{reinterpret_cast<const char*>(x.data), x.rows(), x.rowElems() * sizeof(T), x.rowStride() * sizeof(T)};
}

/* An HBM view read or written by an op or a copy; an on-chip buffer is the
 * instance's own. */
template <typename T>
inline void gridTouch(const Hbm<T>& x, bool write, const char* at) {
  if (x.n != 0) touch(regionOf(x), write, at);
}
template <typename T>
inline void gridTouch(const Buf<T>&, bool, const char*) {}

/* One element of an HBM view (`x[i]`, `x[i] = v`). */
template <typename T>
inline void gridTouchElem(const Hbm<T>& x, uint64_t i, bool write, const char* at) {
  if (i < x.n) touch(Region{reinterpret_cast<const char*>(x.data + i), 1, sizeof(T), sizeof(T)}, write, at);
}
template <typename T>
inline void gridTouchElem(const Buf<T>&, uint64_t, bool, const char*) {}

/* The grid of a function with run-time checks: each instance's accesses
 * are logged (above) while it runs. */
template <typename Inv, typename F>
inline void parallel_for(Inv& caller, const uint64_t* extents, unsigned n, F&& body, const char* at) {
  GridLog log;
  log.extents.assign(extents, extents + n);
  rt::parallel_for(
      caller, extents, n,
      [&](Inv& inv, const uint64_t* idx) {
        uint64_t k = 0;
        for (unsigned d = 0; d < n; ++d) k = k * extents[d] + idx[d];
        GridNow& now = gridNow();
        GridNow was = now;
        now = GridNow{&log, k};
        body(inv, idx);
        now = was;
      },
      at);
}

template <typename T, template <typename> class Src>
inline Token<T> transfer_async(Arena& arena, const Src<T>& src, const char* at) {
  gridTouch(src, false, at);
  Token<T> t = rt::transfer_async(arena, src, at);
  t.job = known(std::move(t.job));
  started(t.job, src.data, t.buf.data, readShape(src), at);
  return t;
}

template <typename T, template <typename> class Src>
inline VoidToken transfer_async_into(const Src<T>& src, const Buf<T>& dst, const char* at) {
  gridTouch(src, false, at);
  // Checked before it starts: the engine may copy at once.
  access(src.data, spanBytes(src), false, at);
  access(dst.data, spanBytes(dst), true, at);
  VoidToken t = rt::transfer_async_into(src, dst);
  t.job = known(std::move(t.job));
  pending().push_back(Pending{t.job.get(), reinterpret_cast<const char*>(src.data), spanBytes(src),
                              reinterpret_cast<const char*>(dst.data), spanBytes(dst), at});
  return t;
}

template <typename T>
inline VoidToken store_async(const Buf<T>& src, const Hbm<T>& dst, const char* at) {
  gridTouch(dst, true, at);
  access(src.data, spanBytes(src), false, at);
  access(dst.data, spanBytes(dst), true, at);
  VoidToken t = rt::store_async(src, dst);
  t.job = known(std::move(t.job));
  pending().push_back(Pending{t.job.get(), reinterpret_cast<const char*>(src.data), spanBytes(src),
                              reinterpret_cast<const char*>(dst.data), spanBytes(dst), at});
  return t;
}

template <typename T>
inline Buf<T> wait(const Token<T>& t, const char* at) {
  waited(t.job, at);
  return rt::wait(t);
}

inline void wait(const VoidToken& t, const char* at) {
  waited(t.job, at);
  rt::wait(t);
}

}  // namespace vx::rt::checked

#endif
