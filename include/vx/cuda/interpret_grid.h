/* The launch grid under the interpreter (vx/cuda/interpret.h, docs/b200.md
 * "Grids"): the CTAs of a launch take turns on the calling thread, and the
 * grid's instances are held to disjoint accesses of global memory.
 *  - Ctas: each CTA runs the kernel on a stack of its own (ucontext); they
 *    switch at synchronisation points, the next one picked by a seeded
 *    schedule, so the instances of one CTA interleave with another's as on
 *    the GPU. One thread: the interpreter's state needs no locks.
 *  - HbmAccesses: per element of every parameter, which instance wrote it
 *    and which read it. Two instances that write one element, or one that
 *    reads what another writes, stop the run naming both instances, the
 *    element and both lines: the dynamic counterpart of the checker's E6010
 *    (a program the checker accepted never stops here).
 * Host only, header-only C++17. */
#ifndef VX_CUDA_INTERPRET_GRID_H
#define VX_CUDA_INTERPRET_GRID_H

#include <sys/mman.h>
#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "vx/scalar.h"

namespace vx::cu::interp {

class Ctas {
 public:
  Ctas() = default;
  Ctas(const Ctas&) = delete;
  Ctas& operator=(const Ctas&) = delete;

  /* Runs body(k) for every CTA k < n to its end, switching between them at
   * yield(); *current names the CTA running. */
  void run(unsigned n, uint64_t seed, unsigned* current, const std::function<void(unsigned)>& body) {
    body_ = &body;
    current_ = current;
    rng_ = 0xD1B54A32D192ED03ULL ^ seed;
    fibers_.assign(n, Fiber{});
    for (Fiber& f : fibers_) {
      f.stack = mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (f.stack == MAP_FAILED) trap("the interpreter cannot map a CTA's stack", "the launch");
      getcontext(&f.ctx);
      f.ctx.uc_stack.ss_sp = f.stack;
      f.ctx.uc_stack.ss_size = kStack;
      f.ctx.uc_link = &main_;
      makecontext(&f.ctx, &Ctas::entry, 0);
    }
    active() = this;
    for (unsigned left = n; left > 0;) {
      unsigned pick = static_cast<unsigned>(next() % left);
      for (unsigned k = 0; k < n; ++k)
        if (!fibers_[k].done && pick-- == 0) {
          running_ = k;
          *current_ = k;
          swapcontext(&main_, &fibers_[k].ctx);
          if (fibers_[k].done) --left;
          break;
        }
    }
    active() = nullptr;
    for (Fiber& f : fibers_) munmap(f.stack, kStack);
    fibers_.clear();
    *current_ = 0;
  }

  /* A synchronisation point of the running CTA: maybe another runs now. */
  static void yield() {
    Ctas* c = active();
    if (!c || c->next() % 2 == 0) return;
    swapcontext(&c->fibers_[c->running_].ctx, &c->main_);
  }

 private:
  static constexpr size_t kStack = size_t{64} << 20;  // reserved, touched only as deep as the kernel goes
  struct Fiber {
    ucontext_t ctx{};
    void* stack = nullptr;
    bool done = false;
  };
  static Ctas*& active() {
    static Ctas* a = nullptr;
    return a;
  }
  static void entry() {
    Ctas* c = active();
    (*c->body_)(c->running_);
    c->fibers_[c->running_].done = true;  // returning resumes the scheduler (uc_link)
  }
  uint64_t next() {  // splitmix64
    uint64_t z = (rng_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  const std::function<void(unsigned)>* body_ = nullptr;
  unsigned* current_ = nullptr;
  unsigned running_ = 0;
  uint64_t rng_ = 0;
  ucontext_t main_{};
  std::vector<Fiber> fibers_;
};

class HbmAccesses {
 public:
  /* A new launch: no parameters, no grid. */
  void clear() {
    regions_.clear();
    extents_.clear();
  }
  /* A parameter's global memory: `bytes` at `p` of `elemBytes` elements,
   * rows of `cols` (0: one row), named `name` in reports. */
  void add(const void* p, uint64_t bytes, uint32_t elemBytes, uint64_t cols, const char* name) {
    if (bytes == 0 || elemBytes == 0) return;
    regions_.push_back(Region{static_cast<const unsigned char*>(p), bytes, elemBytes, cols, name,
                              std::vector<Cell>(bytes / elemBytes)});
  }
  /* The grid's extents, for the instances' names. */
  void grid(const uint64_t* ext, unsigned n) { extents_.assign(ext, ext + n); }

  /* An access by instance `who` of the grid (< 0: outside it, not held). */
  void access(const void* p, uint64_t bytes, bool write, int64_t who, const char* at) {
    if (who < 0 || bytes == 0) return;
    const auto* c = static_cast<const unsigned char*>(p);
    for (Region& r : regions_) {
      if (c + bytes <= r.base || c >= r.base + r.bytes) continue;
      const uint64_t lo = c < r.base ? 0 : static_cast<uint64_t>(c - r.base) / r.elemBytes;
      const uint64_t hi = std::min<uint64_t>((static_cast<uint64_t>(c + bytes - r.base) + r.elemBytes - 1) / r.elemBytes,
                                             r.cells.size());
      for (uint64_t e = lo; e < hi; ++e) record(r, e, write, who, at);
    }
  }

 private:
  struct Cell {
    int64_t writer = -1, reader = -1, reader2 = -1;  // reader2: a second reader, when there are several
    const char* wat = nullptr;
    const char* rat = nullptr;
    const char* rat2 = nullptr;
  };
  struct Region {
    const unsigned char* base;
    uint64_t bytes;
    uint32_t elemBytes;
    uint64_t cols;
    std::string name;
    std::vector<Cell> cells;
  };

  void record(Region& r, uint64_t e, bool write, int64_t who, const char* at) {
    Cell& c = r.cells[e];
    if (write) {
      if (c.writer >= 0 && c.writer != who) report(r, e, "writes", who, "writes", c.writer, c.wat, at);
      if (c.reader >= 0 && c.reader != who) report(r, e, "writes", who, "reads", c.reader, c.rat, at);
      if (c.reader2 >= 0 && c.reader2 != who) report(r, e, "writes", who, "reads", c.reader2, c.rat2, at);
      c.writer = who;
      c.wat = at;
    } else {
      if (c.writer >= 0 && c.writer != who) report(r, e, "reads", who, "writes", c.writer, c.wat, at);
      if (c.reader < 0) {
        c.reader = who;
        c.rat = at;
      } else if (c.reader != who && c.reader2 < 0) {
        c.reader2 = who;
        c.rat2 = at;
      }
    }
  }

  /* `(i, j)` for a flat instance number of the grid (the last index fastest). */
  std::string instance(int64_t flat) const {
    std::vector<uint64_t> idx(extents_.size());
    uint64_t k = static_cast<uint64_t>(flat);
    for (size_t d = extents_.size(); d-- > 0;) {
      idx[d] = extents_[d] ? k % extents_[d] : 0;
      k = extents_[d] ? k / extents_[d] : 0;
    }
    std::string s = idx.size() == 1 ? "" : "(";
    for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
    return s + (idx.size() == 1 ? "" : ")");
  }

  [[noreturn]] void report(const Region& r, uint64_t e, const char* does, int64_t who, const char* did, int64_t other,
                           const char* otherAt, const char* at) const {
    std::string elem = r.cols ? "[" + std::to_string(e / r.cols) + ", " + std::to_string(e % r.cols) + "]"
                              : "[" + std::to_string(e) + "]";
    std::string what = "instance " + instance(who) + " of the grid " + does + " element " + elem + " of `" + r.name +
                       "`, which instance " + instance(other) + " " + did + " (at " + (otherAt ? otherAt : "?") +
                       "): the instances of a grid run in no order, so no element one writes may be written or read "
                       "by another (E6010)";
    trap(what.c_str(), at);
  }

  std::vector<Region> regions_;
  std::vector<uint64_t> extents_;
};

}  // namespace vx::cu::interp

#endif /* VX_CUDA_INTERPRET_GRID_H */
