/* The host side of the CUDA intrinsic layer: the interpreter that
 * `vxc run --target b200|h100 --interpret` builds the generated `.cu` with
 * (docs/b200.md). Included by vx/cuda/runtime.h when the compiler is not
 * nvcc. It runs the thread block on the calling thread: the kernel's scalar
 * code is uniform across threads, so it runs once, and each intrinsic does
 * the whole block's work.
 *
 * What it models, and checks, of the machine:
 *  - copies in flight: a bulk copy's bytes land at a later synchronisation
 *    point chosen by a seeded schedule (VX_SCHEDULE_SEED, default 1), in any
 *    order among the copies in flight; a wait lands what it waits for;
 *  - mbarriers: each has a phase, is armed with expected transaction bytes
 *    and completes its phase when exactly those bytes have landed;
 *  - every access the program makes, against the copies in flight.
 * Misuse stops the run with status 101 and the Vx source line, as a trap:
 * a read of memory a copy is still landing in, a write of memory a copy in
 * flight reads or writes, a wait on a phase never armed, a transaction-count
 * mismatch, a copy or token still pending when the kernel returns.
 * Header-only C++17. */
#ifndef VX_CUDA_INTERPRET_H
#define VX_CUDA_INTERPRET_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vx/scalar.h"

namespace vx::cu::interp {

struct Block {
  unsigned char* smem = nullptr;  // the block's shared memory
};

class State {
 public:
  State() {
    const char* s = std::getenv("VX_SCHEDULE_SEED");
    rng_ = 0x9E3779B97F4A7C15ULL ^ (s ? std::strtoull(s, nullptr, 0) : 1);
  }
  ~State() { std::free(block_.smem); }

  /* A new launch: fresh shared memory (filled with a pattern, as
   * uninitialised memory is), idle barriers, nothing in flight. */
  void begin() {
    if (!block_.smem) block_.smem = static_cast<unsigned char*>(std::aligned_alloc(1024, kSmemBytes));
    std::memset(block_.smem, 0xA5, kSmemBytes);
    for (Barrier& b : bars_) b = Barrier{};
    pending_.clear();
  }
  Block& block() { return block_; }

  /* A synchronisation point: some copies in flight land. */
  void progress() {
    for (size_t i = 0; i < pending_.size();) {
      if (next() % 2 == 0) {
        land(i);
      } else {
        ++i;
      }
    }
  }

  void access(const void* p, uint64_t bytes, bool write, const char* at) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (const Copy& q : pending_) {
      if (overlaps(c, bytes, q.dst, q.bytes))
        fail(write ? "write of memory a copy in flight is writing" : "read of memory a copy is still landing in", q, at);
      if (write && overlaps(c, bytes, q.src, q.bytes)) fail("write of memory a copy in flight is reading", q, at);
    }
  }

  /* mbarrier.arrive.expect_tx + cp.async.bulk */
  void load(int bar, void* dst, const void* src, uint64_t bytes, const char* at) {
    Barrier& b = bars_[static_cast<size_t>(bar)];
    if (b.armed) trap("mbarrier armed again before its phase completed", at);
    access(src, bytes, false, at);
    access(dst, bytes, true, at);
    b.armed = true;
    b.expected = bytes;
    b.landed = 0;
    b.at = at;
    pending_.push_back(Copy{static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst), bytes, bar, at});
  }

  /* mbarrier.try_wait.parity until the phase of `parity` completes. */
  void waitLoad(int bar, uint32_t parity, const char* at) {
    Barrier& b = bars_[static_cast<size_t>(bar)];
    if (completed(b, parity)) return;
    if (!b.armed) trap("wait on an mbarrier phase that no copy was armed to complete", at);
    for (size_t i = 0; i < pending_.size();) {
      if (pending_[i].bar == bar) land(i);
      else ++i;
    }
    if (!completed(b, parity)) {
      char what[160];
      std::snprintf(what, sizeof what, "transaction-count mismatch: the mbarrier expects %llu bytes, %llu landed",
                    static_cast<unsigned long long>(b.expected), static_cast<unsigned long long>(b.landed));
      trap(what, at);
    }
  }

  /* cp.async.bulk (shared -> global) + commit_group */
  void store(void* dst, const void* src, uint64_t bytes, const char* at) {
    access(src, bytes, false, at);
    access(dst, bytes, true, at);
    pending_.push_back(Copy{static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst), bytes, -1, at});
  }

  /* cp.async.bulk.wait_group 0: every store of the block has landed. */
  void waitStores(const char*) {
    for (size_t i = 0; i < pending_.size();) {
      if (pending_[i].bar < 0) land(i);
      else ++i;
    }
  }

  /* The kernel returns. */
  void finish(const char* at) {
    if (!pending_.empty()) fail("the kernel returns with a copy in flight (its token was never waited)", pending_[0], at);
    for (const Barrier& b : bars_)
      if (b.armed || b.waitedPhases != b.phase) {
        char what[256];
        std::snprintf(what, sizeof what, "the kernel returns with a token never waited (the copy started at %s)", b.at);
        trap(what, at);
      }
  }

  /* The parity of the phase a wait completed: the layer releases the barrier. */
  void released(int bar) { ++bars_[static_cast<size_t>(bar)].waitedPhases; }

 private:
  struct Copy {
    const unsigned char* src;
    unsigned char* dst;
    uint64_t bytes;
    int bar;  // -1: a bulk store
    const char* at;
  };
  struct Barrier {
    uint32_t phase = 0;  // phases completed
    uint32_t waitedPhases = 0;
    bool armed = false;
    uint64_t expected = 0, landed = 0;
    const char* at = "";
  };

  static bool overlaps(const unsigned char* a, uint64_t na, const unsigned char* b, uint64_t nb) {
    return a < b + nb && b < a + na;
  }
  /* PTX: try_wait.parity(p) succeeds once the current phase's parity is not p. */
  static bool completed(const Barrier& b, uint32_t parity) { return (b.phase & 1u) != parity; }

  [[noreturn]] static void fail(const char* what, const Copy& q, const char* at) {
    char msg[512];
    std::snprintf(msg, sizeof msg, "%s (the copy started at %s)", what, q.at);
    trap(msg, at);
  }

  void land(size_t i) {
    Copy q = pending_[i];
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    std::memmove(q.dst, q.src, q.bytes);
    if (q.bar < 0) return;
    Barrier& b = bars_[static_cast<size_t>(q.bar)];
    b.landed += q.bytes;
    if (b.landed > b.expected) trap("transaction-count mismatch: more bytes landed than the mbarrier expects", q.at);
    if (b.landed == b.expected) {
      b.armed = false;
      ++b.phase;
    }
  }

  uint64_t next() {  // splitmix64
    uint64_t z = (rng_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  Block block_;
  Barrier bars_[kBarriers];
  std::vector<Copy> pending_;
  uint64_t rng_;
};

inline State& state() {
  static State s;
  return s;
}

}  // namespace vx::cu::interp

#endif /* VX_CUDA_INTERPRET_H */
