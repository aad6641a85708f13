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
 *    order among the copies in flight; a wait lands what it waits for. Seed
 *    0 is the latest schedule: copies land only when waited;
 *  - mbarriers: each has a phase, is armed with expected transaction bytes
 *    and completes its phase when exactly those bytes have landed;
 *  - every access the program makes, against the copies in flight;
 *  - the tensor cores (vx/cuda/mma.h): tensor memory (128 lanes x 512
 *    columns, allocated and freed), tcgen05.mma and wgmma decoded from their
 *    descriptors, operands read from the swizzled staging area and
 *    truncated to tf32, commits and their mbarrier parity.
 * Misuse stops the run with status 101 and the Vx source line, as a trap:
 * a read of memory a copy is still landing in, a write of memory a copy in
 * flight reads or writes, a wait on a phase never armed, a transaction-count
 * mismatch, a copy or token still pending when the kernel returns, tensor
 * memory still allocated when it returns, a descriptor the layer does not
 * encode (a bug of the layer, reported the same way).
 * Header-only C++17. */
#ifndef VX_CUDA_INTERPRET_H
#define VX_CUDA_INTERPRET_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vx/cuda/layout.h"
#include "vx/scalar.h"

namespace vx::cu::interp {

struct Block {
  unsigned char* smem = nullptr;  // the block's shared memory
};

class State {
 public:
  State() {
    const char* s = std::getenv("VX_SCHEDULE_SEED");
    const unsigned long long seed = s ? std::strtoull(s, nullptr, 0) : 1;
    rng_ = 0x9E3779B97F4A7C15ULL ^ seed;
    late_ = seed == 0;
  }
  ~State() { std::free(block_.smem); }

  /* A new launch: fresh shared memory (filled with a pattern, as
   * uninitialised memory is), idle barriers, nothing in flight. */
  void begin() {
    if (!block_.smem) block_.smem = static_cast<unsigned char*>(std::aligned_alloc(1024, kWindow));
    std::memset(block_.smem, 0xA5, kWindow);
    for (Barrier& b : bars_) b = Barrier{};
    pending_.clear();
    tmemUsed_.assign(kTmemCols, false);
    tmem_.assign(size_t{kTmemLanes} * kTmemCols, 0.0f);
    commits_ = 0;
    for (auto& h : wg_) h.assign(64 * 64, 0.0f);
  }
  /* The window: the staging area of the tensor cores, then the arena. */
  static constexpr size_t kWindow = size_t{kStageBytes} + kSmemBytes;

  /* ---- tensor memory (b200) ---- */
  static constexpr uint32_t kTmemLanes = 128, kTmemCols = 512;

  /* tcgen05.alloc: a power of two of at least 32 columns, aligned to itself. */
  uint32_t tmemAlloc(uint32_t cols, const char* at) {
    if (cols < 32 || cols > kTmemCols || (cols & (cols - 1)) != 0)
      trap("tcgen05.alloc: not a power of two of 32..512 columns", at);
    for (uint32_t c = 0; c < kTmemCols; c += cols) {
      bool free = true;
      for (uint32_t i = c; i < c + cols; ++i) free = free && !tmemUsed_[i];
      if (!free) continue;
      for (uint32_t i = c; i < c + cols; ++i) tmemUsed_[i] = true;
      return c;  // lane 0, column c
    }
    trap("tcgen05.alloc: no free tensor-memory columns (the kernel would wait forever)", at);
  }
  void tmemFree(uint32_t addr, uint32_t cols, const char* at) {
    for (uint32_t i = addr & 0xffffu; i < (addr & 0xffffu) + cols; ++i) {
      if (i >= kTmemCols || !tmemUsed_[i]) trap("tcgen05.dealloc of columns not allocated", at);
      tmemUsed_[i] = false;
    }
  }
  float tmemRead(uint32_t addr, uint32_t lane, uint32_t col, const char* at) {
    uint32_t l = (addr >> 16) + lane, c = (addr & 0xffffu) + col;
    if (l >= kTmemLanes || c >= kTmemCols || !tmemUsed_[c]) trap("tcgen05.ld of tensor memory not allocated", at);
    if (commitsPending_) trap("tcgen05.ld before the MMAs' commit was waited", at);
    return tmem_[size_t{l} * kTmemCols + c];
  }

  /* tcgen05.mma.cta_group::1.kind::tf32 [d], adesc, bdesc, idesc, accumulate */
  void umma(uint32_t d, uint64_t adesc, uint64_t bdesc, uint32_t idesc, bool accumulate, const char* at) {
    const uint32_t m = ((idesc >> 24) & 31u) << 4, n = ((idesc >> 17) & 63u) << 3;
    if ((idesc & 0xfu) != 0 || ((idesc >> 4) & 3u) != 1 || ((idesc >> 7) & 7u) != 2 || ((idesc >> 10) & 7u) != 2 ||
        ((idesc >> 13) & 0xfu) != 0 || m != 128 || n < 16 || n > 256 || n % 16 != 0)
      trap("tcgen05.mma: an instruction descriptor the layer does not encode (kind::tf32, M=128, K-major, f32 D)", at);
    const Operand a = ummaOperand(adesc, m, at), b = ummaOperand(bdesc, n, at);
    const uint32_t l0 = d >> 16, c0 = d & 0xffffu;
    if (l0 != 0 || c0 + n > kTmemCols) trap("tcgen05.mma: D outside tensor memory", at);
    for (uint32_t c = c0; c < c0 + n; ++c)
      if (!tmemUsed_[c]) trap("tcgen05.mma into tensor memory not allocated", at);
    for (uint32_t r = 0; r < m; ++r)
      for (uint32_t j = 0; j < n; ++j) {
        const float s = dot(a, r, b, j);
        float& cell = tmem_[size_t{r} * kTmemCols + c0 + j];
        cell = accumulate ? cell + s : s;
      }
    ++commitsPending_;
  }
  /* tcgen05.commit to the tensor cores' mbarrier, then every thread's wait of
   * `parity`: the MMAs issued so far are done. */
  void ummaCommit(uint32_t parity, const char* at) {
    if ((commits_ & 1u) != parity) trap("wait on the tensor cores' mbarrier with the wrong phase parity", at);
    ++commits_;
    commitsPending_ = 0;
  }

  /* ---- wgmma (h100): the two 64-row halves of the tile, in the warpgroup's registers ---- */
  void wgmma(int half, uint64_t adesc, uint64_t bdesc, bool accumulate, const char* at) {
    const Operand a = gmmaOperand(adesc, 64, at), b = gmmaOperand(bdesc, 64, at);
    std::vector<float>& d = wg_[half];
    for (uint32_t r = 0; r < 64; ++r)
      for (uint32_t j = 0; j < 64; ++j) {
        const float s = dot(a, r, b, j);
        d[r * 64 + j] = accumulate ? d[r * 64 + j] + s : s;
      }
    ++wgPending_;
  }
  void wgmmaWait(const char*) { wgPending_ = 0; }
  /* Register j of thread t of the warpgroup. */
  float wgmmaRead(int half, uint32_t t, uint32_t j, const char* at) {
    if (wgPending_) trap("wgmma accumulator read before wgmma.wait_group", at);
    return wg_[half][tc::fragRow(t, j) * 64 + tc::fragCol(t, j)];
  }
  Block& block() { return block_; }

  /* A synchronisation point: some copies in flight land (none under the
   * latest schedule, seed 0: a copy lands when it is waited, which exposes
   * every access before its wait). */
  void progress() {
    if (late_) return;
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
    for (uint32_t c = 0; c < kTmemCols; ++c)
      if (tmemUsed_[c]) trap("the kernel returns with tensor memory allocated (a tensor-memory leak)", at);
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

  /* A K-major operand of a tensor-core instruction, 128-byte swizzle: row r
   * of 128-byte rows in 8-row atoms SBO bytes apart, element k of the
   * instruction's 32 bytes, at the swizzled shared-memory address. */
  struct Operand {
    uint32_t start, sbo;
    float at(const unsigned char* smem, uint32_t r, uint32_t k) const {
      uint32_t logical = start + (r / 8u) * sbo + (r % 8u) * tc::kRowBytes + k * 4u;
      float v;
      std::memcpy(&v, smem + tc::swizzle128(logical), sizeof v);
      return v;
    }
  };
  /* One instruction's K = 8: row r of A times row j of B (B is K-major),
   * the operands as tf32, the products summed in f32. */
  float dot(const Operand& a, uint32_t r, const Operand& b, uint32_t j) const {
    float s = 0.0f;
    for (uint32_t k = 0; k < 8; ++k) s += tc::tf32(a.at(block_.smem, r, k)) * tc::tf32(b.at(block_.smem, j, k));
    return s;
  }
  Operand ummaOperand(uint64_t desc, uint32_t rows, const char* at) const {
    if (((desc >> 46) & 3u) != 1 || ((desc >> 49) & 7u) != 0 || ((desc >> 61) & 7u) != 2)
      trap("tcgen05.mma: a shared-memory descriptor the layer does not encode (version 1, SWIZZLE_128B)", at);
    return operand(desc, rows, at);
  }
  Operand gmmaOperand(uint64_t desc, uint32_t rows, const char* at) const {
    if (((desc >> 49) & 7u) != 0 || ((desc >> 62) & 3u) != 1)
      trap("wgmma: a shared-memory descriptor the layer does not encode (SWIZZLE_128B)", at);
    return operand(desc, rows, at);
  }
  Operand operand(uint64_t desc, uint32_t rows, const char* at) const {
    Operand o{static_cast<uint32_t>(desc & 0x3fffu) << 4, static_cast<uint32_t>((desc >> 32) & 0x3fffu) << 4};
    // The swizzle pattern repeats every 1024 bytes from an aligned atom: the
    // start may step along K inside a row, never across the row bits.
    if (((o.start >> 7) & 7u) != 0 || o.sbo != tc::kAtomBytes || (o.start & ~127u) + rows / 8u * o.sbo > kStageBytes)
      trap("tensor-core operand outside the staging area or not atom-aligned", at);
    return o;
  }

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

  std::vector<bool> tmemUsed_ = std::vector<bool>(kTmemCols, false);
  std::vector<float> tmem_;
  uint32_t commits_ = 0, commitsPending_ = 0, wgPending_ = 0;
  std::vector<float> wg_[2];
  Block block_;
  Barrier bars_[kBarriers];
  std::vector<Copy> pending_;
  uint64_t rng_;
  bool late_ = false;
};

inline State& state() {
  static State s;
  return s;
}

}  // namespace vx::cu::interp

#endif /* VX_CUDA_INTERPRET_H */
