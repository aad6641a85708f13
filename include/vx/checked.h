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

#include <cstdio>
#include <memory>
#include <vector>

#include "vx/copy.h"
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

inline void started(const std::shared_ptr<CopyJob>& job, const char* at) {
  const char* src = static_cast<const char*>(job->src);
  char* dst = static_cast<char*>(job->dst);
  // The bytes from the first row to the last (a block's rows are strided).
  const CopyShape& s = job->shape;
  size_t srcBytes = (s.rows - 1) * s.srcStride + s.rowBytes, dstBytes = (s.rows - 1) * s.dstStride + s.rowBytes;
  access(src, srcBytes, false, at);
  access(dst, dstBytes, true, at);
  pending().push_back(Pending{job.get(), src, srcBytes, dst, dstBytes, at});
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
  if (!job) return;  // an already complete token (--sync-baseline)
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

template <typename T, template <typename> class Src>
inline Token<T> transfer_async(Arena& arena, const Src<T>& src, const char* at) {
  Token<T> t = rt::transfer_async(arena, src, at);
  started(t.job, at);
  return t;
}

template <typename T, template <typename> class Src>
inline VoidToken transfer_async_into(const Src<T>& src, const Buf<T>& dst, const char* at) {
  // Checked before it starts: the engine may copy at once.
  access(src.data, spanBytes(src), false, at);
  access(dst.data, spanBytes(dst), true, at);
  VoidToken t = rt::transfer_async_into(src, dst);
  pending().push_back(Pending{t.job.get(), reinterpret_cast<const char*>(src.data), spanBytes(src),
                              reinterpret_cast<const char*>(dst.data), spanBytes(dst), at});
  return t;
}

template <typename T>
inline VoidToken store_async(const Buf<T>& src, const Hbm<T>& dst, const char* at) {
  access(src.data, spanBytes(src), false, at);
  access(dst.data, spanBytes(dst), true, at);
  VoidToken t = rt::store_async(src, dst);
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
