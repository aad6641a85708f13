/* The host side of the CUDA intrinsic layer: the interpreter that
 * `vxc run --target b200|h100 --interpret` builds the generated `.cu` with
 * (docs/b200.md). Included by vx/cuda/runtime.h when the compiler is not
 * nvcc. It runs each thread block on the calling thread: the kernel's
 * scalar code is uniform across threads, so it runs once per block, and
 * each intrinsic does the whole block's work. A grid launch runs several
 * blocks (CTAs) that take turns (vx/cuda/interpret_grid.h); each has its
 * own shared memory, mbarriers, copies in flight and tensor memory.
 *
 * What it models, and checks, of the machine:
 *  - copies in flight: a bulk copy's bytes land at a later synchronisation
 *    point chosen by a seeded schedule (VX_SCHEDULE_SEED, default 1), in any
 *    order among the copies in flight; a wait lands what it waits for. Seed
 *    0 is the latest schedule: copies land only when waited. A tensor-map
 *    copy (vx/cuda/tma.h) lands its box's rows, zeros outside the tensor,
 *    and the 128-byte swizzle when its map has one;
 *  - mbarriers: each has a phase, is armed with expected transaction bytes
 *    and completes its phase when exactly those bytes have landed;
 *  - every access the program makes, against the copies in flight and the
 *    shared memory the tensor cores' MMAs in flight read;
 *  - the tensor cores (vx/cuda/mma.h): tensor memory (128 lanes x 512
 *    columns, allocated and freed), tcgen05.mma and wgmma decoded from their
 *    descriptors, operands read from the swizzled layout and truncated to
 *    tf32, commits, their mbarrier parity and the columns they write;
 *  - a grid's instances: no element of global memory one writes may be
 *    written or read by another.
 * Misuse stops the run with status 101 and the Vx source line, as a trap:
 * a read of memory a copy is still landing in, a write of memory a copy in
 * flight reads or writes (or an MMA in flight reads), a wait on a phase
 * never armed, a transaction-count mismatch, a copy or token still pending
 * when the kernel or a grid's instance ends, tensor memory still allocated
 * when the kernel returns, two instances of a grid on one element, a
 * descriptor or tensor map the layer does not encode (a bug of the layer,
 * reported the same way).
 * Header-only C++17. */
#ifndef VX_CUDA_INTERPRET_H
#define VX_CUDA_INTERPRET_H

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vx/cuda/interpret_grid.h"
#include "vx/cuda/layout.h"
#include "vx/cuda/tma.h"
#include "vx/scalar.h"

namespace vx::cu::interp {

struct Block {
  unsigned char* smem = nullptr;  // the block's shared memory
};

/* A copy in flight: `shape.rows` rows of `shape.rowBytes`. The global side
 * of a tensor-map copy may hold only `rowsIn` rows of `bytesIn` bytes of
 * its box (the rest lies outside the tensor: a load lands zeros there, a
 * store does not write it); `swizzle`: the shared side is in the 128-byte
 * swizzled layout. */
struct Copy {
  const unsigned char* src;
  unsigned char* dst;
  CopyShape shape;
  uint64_t rowsIn, bytesIn;
  bool swizzle;
  int bar;  // -1: a bulk store
  const char* at;
};

class State {
 public:
  State() {
    const char* s = std::getenv("VX_SCHEDULE_SEED");
    seed_ = s ? std::strtoull(s, nullptr, 0) : 1;
    rng_ = 0x9E3779B97F4A7C15ULL ^ seed_;
    late_ = seed_ == 0;
  }
  ~State() {
    for (auto& c : ctas_) std::free(c->block.smem);
  }

  /* A new launch of `ctas` blocks: fresh shared memory (filled with a
   * pattern, as uninitialised memory is), idle barriers, nothing in flight. */
  void begin(unsigned ctas = 1) {
    while (ctas_.size() < ctas) ctas_.push_back(std::make_unique<Cta>());
    used_ = ctas;
    cur_ = 0;
    for (unsigned k = 0; k < ctas; ++k) {
      Cta& c = *ctas_[k];
      if (!c.block.smem) c.block.smem = static_cast<unsigned char*>(std::aligned_alloc(1024, kWindow));
      std::memset(c.block.smem, 0xA5, kWindow);
      for (Barrier& b : c.bars) b = Barrier{};
      c.pending.clear();
      c.tmemUsed.assign(kTmemCols, false);
      c.tmem.assign(size_t{kTmemLanes} * kTmemCols, 0.0f);
      c.commits = 0;
      c.reads.clear();
      c.tmemPending.assign(kTmemCols, 0);
      c.wgPending = 0;
      for (auto& h : c.wg) h.assign(64 * 64, 0.0f);
      c.instance = -1;
    }
  }
  /* The window: the staging area of the tensor cores, then the arena. */
  static constexpr size_t kWindow = size_t{kStageBytes} + kSmemBytes;

  /* ---- the grid (vx/cuda/interpret_grid.h) ---- */
  unsigned cta() const { return cur_; }
  unsigned ctaCount() const { return used_; }
  /* Runs body(k) for each of the launch's CTAs, taking turns. */
  void runCtas(const std::function<void(unsigned)>& body) { ctasRun_.run(used_, seed_, &cur_, body); }
  HbmAccesses& hbm() { return hbm_; }
  void gridBegin(const uint64_t* ext, unsigned n) { hbm_.grid(ext, n); }
  void instanceBegin(uint64_t flat) { K().instance = static_cast<int64_t>(flat); }
  /* An instance ends: it leaves no copy in flight and no token unwaited. */
  void instanceEnd(const char* at) {
    Cta& c = K();
    c.instance = -1;
    if (!c.pending.empty())
      fail("an instance of the grid ends with a copy in flight (its token was never waited)", c.pending[0], at);
    checkBarriersIdle("an instance of the grid ends", at);
  }

  /* ---- tensor memory (b200) ---- */
  static constexpr uint32_t kTmemLanes = 128, kTmemCols = 512;

  /* tcgen05.alloc: a power of two of at least 32 columns, aligned to itself. */
  uint32_t tmemAlloc(uint32_t cols, const char* at) {
    Cta& k = K();
    if (cols < 32 || cols > kTmemCols || (cols & (cols - 1)) != 0)
      trap("tcgen05.alloc: not a power of two of 32..512 columns", at);
    for (uint32_t c = 0; c < kTmemCols; c += cols) {
      bool free = true;
      for (uint32_t i = c; i < c + cols; ++i) free = free && !k.tmemUsed[i];
      if (!free) continue;
      for (uint32_t i = c; i < c + cols; ++i) k.tmemUsed[i] = true;
      return c;  // lane 0, column c
    }
    trap("tcgen05.alloc: no free tensor-memory columns (the kernel would wait forever)", at);
  }
  void tmemFree(uint32_t addr, uint32_t cols, const char* at) {
    Cta& k = K();
    for (uint32_t i = addr & 0xffffu; i < (addr & 0xffffu) + cols; ++i) {
      if (i >= kTmemCols || !k.tmemUsed[i]) trap("tcgen05.dealloc of columns not allocated", at);
      k.tmemUsed[i] = false;
    }
  }
  float tmemRead(uint32_t addr, uint32_t lane, uint32_t col, const char* at) {
    Cta& k = K();
    uint32_t l = (addr >> 16) + lane, c = (addr & 0xffffu) + col;
    if (l >= kTmemLanes || c >= kTmemCols || !k.tmemUsed[c]) trap("tcgen05.ld of tensor memory not allocated", at);
    if (k.tmemPending[c]) trap("tcgen05.ld before the MMAs' commit was waited", at);
    return k.tmem[size_t{l} * kTmemCols + c];
  }

  /* tcgen05.mma.cta_group::1.kind::tf32 [d], adesc, bdesc, idesc, accumulate:
   * computed when issued; its operands stay read, and its columns written,
   * until a commit after it is waited. */
  void umma(uint32_t d, uint64_t adesc, uint64_t bdesc, uint32_t idesc, bool accumulate, const char* at) {
    Cta& k = K();
    const uint32_t m = ((idesc >> 24) & 31u) << 4, n = ((idesc >> 17) & 63u) << 3;
    if ((idesc & 0xfu) != 0 || ((idesc >> 4) & 3u) != 1 || ((idesc >> 7) & 7u) != 2 || ((idesc >> 10) & 7u) != 2 ||
        ((idesc >> 13) & 0xfu) != 0 || m != 128 || n < 16 || n > 256 || n % 16 != 0)
      trap("tcgen05.mma: an instruction descriptor the layer does not encode (kind::tf32, M=128, K-major, f32 D)", at);
    const Operand a = ummaOperand(adesc, m, at), b = ummaOperand(bdesc, n, at);
    const uint32_t l0 = d >> 16, c0 = d & 0xffffu;
    if (l0 != 0 || c0 + n > kTmemCols) trap("tcgen05.mma: D outside tensor memory", at);
    for (uint32_t c = c0; c < c0 + n; ++c)
      if (!k.tmemUsed[c]) trap("tcgen05.mma into tensor memory not allocated", at);
    for (uint32_t r = 0; r < m; ++r)
      for (uint32_t j = 0; j < n; ++j) {
        const float s = dot(a, r, b, j);
        float& cell = k.tmem[size_t{r} * kTmemCols + c0 + j];
        cell = accumulate ? cell + s : s;
      }
    reading(a, m, at);
    reading(b, n, at);
    for (uint32_t c = c0; c < c0 + n; ++c) k.tmemPending[c] = 1;
  }
  /* tcgen05.commit to the tensor cores' mbarrier: it completes its phase
   * when every MMA issued so far is done. */
  void ummaCommit(const char*) { ++K().commitsIssued; }
  /* Every thread's wait of `parity` on that mbarrier. */
  void ummaWait(uint32_t parity, const char* at) {
    Cta& k = K();
    if (k.commitsIssued == k.commits) trap("wait on the tensor cores' mbarrier with no commit to complete its phase", at);
    if ((k.commits & 1u) != parity) trap("wait on the tensor cores' mbarrier with the wrong phase parity", at);
    ++k.commits;
    k.reads.clear();
    k.tmemPending.assign(kTmemCols, 0);
  }

  /* ---- wgmma (h100): the two 64-row halves of the tile, in the warpgroup's registers ---- */
  void wgmma(int half, uint64_t adesc, uint64_t bdesc, bool accumulate, const char* at) {
    Cta& k = K();
    const Operand a = gmmaOperand(adesc, 64, at), b = gmmaOperand(bdesc, 64, at);
    std::vector<float>& d = k.wg[half];
    for (uint32_t r = 0; r < 64; ++r)
      for (uint32_t j = 0; j < 64; ++j) {
        const float s = dot(a, r, b, j);
        d[r * 64 + j] = accumulate ? d[r * 64 + j] + s : s;
      }
    reading(a, 64, at);
    reading(b, 64, at);
    ++k.wgPending;
  }
  /* wgmma.wait_group 0: the warpgroup's MMAs are done. */
  void wgmmaWait(const char*) {
    K().wgPending = 0;
    K().reads.clear();
  }
  /* Register j of thread t of the warpgroup. */
  float wgmmaRead(int half, uint32_t t, uint32_t j, const char* at) {
    if (K().wgPending) trap("wgmma accumulator read before wgmma.wait_group", at);
    return K().wg[half][tc::fragRow(t, j) * 64 + tc::fragCol(t, j)];
  }
  Block& block() { return K().block; }

  /* A synchronisation point: some copies in flight land (none under the
   * latest schedule, seed 0: a copy lands when it is waited, which exposes
   * every access before its wait); in a grid, another CTA may run now. */
  void progress() {
    if (!late_) {
      std::vector<Copy>& pending = K().pending;
      for (size_t i = 0; i < pending.size();) {
        if (next() % 2 == 0) {
          land(i);
        } else {
          ++i;
        }
      }
    }
    Ctas::yield();
  }

  void access(const void* p, uint64_t bytes, bool write, const char* at) {
    const auto* c = static_cast<const unsigned char*>(p);
    Cta& k = K();
    for (const Copy& q : k.pending) {
      if (hitsDst(c, bytes, q))
        fail(write ? "write of memory a copy in flight is writing" : "read of memory a copy is still landing in", q, at);
      if (write && hitsSrc(c, bytes, q)) fail("write of memory a copy in flight is reading", q, at);
    }
    if (write)
      for (const Read& r : k.reads)
        if (c < r.end && r.begin < c + bytes) {
          char msg[256];
          std::snprintf(msg, sizeof msg, "write of shared memory the tensor cores are still reading (the MMA issued at %s)",
                        r.at);
          trap(msg, at);
        }
    hbm_.access(p, bytes, write, k.instance, at);
  }

  /* mbarrier.arrive.expect_tx + cp.async.bulk (one or several rows) */
  void load(int bar, const Copy& q) {
    Barrier& b = K().bars[static_cast<size_t>(bar)];
    if (b.armed) trap("mbarrier armed again before its phase completed", q.at);
    accessRows(q.src, q.rowsIn, q.bytesIn, q.shape.srcStride, false, q.at);
    accessRows(q.dst, q.shape.rows, q.shape.rowBytes, q.shape.dstStride, true, q.at);
    b.armed = true;
    b.expected = q.shape.bytes();
    b.landed = 0;
    b.at = q.at;
    K().pending.push_back(q);
  }
  void load(int bar, void* dst, const void* src, uint64_t bytes, const char* at) {
    load(bar, Copy{static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst),
                   CopyShape{1, bytes, bytes, bytes}, 1, bytes, false, bar, at});
  }
  /* cp.async.bulk.tensor.2d.shared::cluster.global: the box at column x,
   * row y of the map's tensor into `dst`. */
  void tensorLoad(int bar, void* dst, const tma::Map* map, int32_t x, int32_t y, const char* at) {
    const tma::Desc& d = desc(map, at);
    Copy q = box(d, x, y, at);
    q.src = reinterpret_cast<const unsigned char*>(d.base) + static_cast<uint64_t>(y) * d.rowBytes +
            static_cast<uint64_t>(x) * d.elemBytes;
    q.dst = static_cast<unsigned char*>(dst);
    q.shape.srcStride = d.rowBytes;
    q.shape.dstStride = q.shape.rowBytes;
    q.bar = bar;
    sharedBox(q, at);
    load(bar, q);
  }

  /* mbarrier.try_wait.parity until the phase of `parity` completes. */
  void waitLoad(int bar, uint32_t parity, const char* at) {
    Cta& k = K();
    Barrier& b = k.bars[static_cast<size_t>(bar)];
    if (completed(b, parity)) return;
    if (!b.armed) trap("wait on an mbarrier phase that no copy was armed to complete", at);
    for (size_t i = 0; i < k.pending.size();) {
      if (k.pending[i].bar == bar) land(i);
      else ++i;
    }
    if (!completed(b, parity)) {
      char what[160];
      std::snprintf(what, sizeof what, "transaction-count mismatch: the mbarrier expects %llu bytes, %llu landed",
                    static_cast<unsigned long long>(b.expected), static_cast<unsigned long long>(b.landed));
      trap(what, at);
    }
  }

  /* cp.async.bulk (shared -> global, one or several rows) + commit_group */
  void store(const Copy& q) {
    accessRows(q.src, q.shape.rows, q.shape.rowBytes, q.shape.srcStride, false, q.at);
    accessRows(q.dst, q.rowsIn, q.bytesIn, q.shape.dstStride, true, q.at);
    K().pending.push_back(q);
  }
  void store(void* dst, const void* src, uint64_t bytes, const char* at) {
    store(Copy{static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst),
               CopyShape{1, bytes, bytes, bytes}, 1, bytes, false, -1, at});
  }
  /* cp.async.bulk.tensor.2d.global.shared::cta: `src` into the box at
   * column x, row y of the map's tensor. */
  void tensorStore(const void* src, const tma::Map* map, int32_t x, int32_t y, const char* at) {
    const tma::Desc& d = desc(map, at);
    Copy q = box(d, x, y, at);
    q.src = static_cast<const unsigned char*>(src);
    q.dst = reinterpret_cast<unsigned char*>(d.base) + static_cast<uint64_t>(y) * d.rowBytes +
            static_cast<uint64_t>(x) * d.elemBytes;
    q.shape.srcStride = q.shape.rowBytes;
    q.shape.dstStride = d.rowBytes;
    q.bar = -1;
    sharedBox(q, at);
    store(q);
  }

  /* cp.async.bulk.wait_group 0: every store of the block has landed. */
  void waitStores(const char*) {
    Cta& k = K();
    for (size_t i = 0; i < k.pending.size();) {
      if (k.pending[i].bar < 0) land(i);
      else ++i;
    }
  }

  /* The kernel returns. */
  void finish(const char* at) {
    Cta& k = K();
    for (uint32_t c = 0; c < kTmemCols; ++c)
      if (k.tmemUsed[c]) trap("the kernel returns with tensor memory allocated (a tensor-memory leak)", at);
    if (!k.pending.empty()) fail("the kernel returns with a copy in flight (its token was never waited)", k.pending[0], at);
    checkBarriersIdle("the kernel returns", at);
  }

  /* The parity of the phase a wait completed: the layer releases the barrier. */
  void released(int bar) { ++K().bars[static_cast<size_t>(bar)].waitedPhases; }

 private:
  struct Barrier {
    uint32_t phase = 0;  // phases completed
    uint32_t waitedPhases = 0;
    bool armed = false;
    uint64_t expected = 0, landed = 0;
    const char* at = "";
  };
  /* Shared memory an MMA in flight reads. */
  struct Read {
    const unsigned char* begin;
    const unsigned char* end;
    const char* at;
  };
  struct Cta {
    Block block;
    Barrier bars[kBarriers];
    std::vector<Copy> pending;
    std::vector<bool> tmemUsed = std::vector<bool>(kTmemCols, false);
    std::vector<float> tmem;
    std::vector<unsigned char> tmemPending = std::vector<unsigned char>(kTmemCols, 0);  // written by MMAs not waited
    uint32_t commits = 0, commitsIssued = 0, wgPending = 0;
    std::vector<Read> reads;
    std::vector<float> wg[2];
    int64_t instance = -1;  // the grid's instance this CTA runs, -1 outside the grid
  };
  Cta& K() { return *ctas_[cur_]; }

  void checkBarriersIdle(const char* when, const char* at) {
    for (const Barrier& b : K().bars)
      if (b.armed || b.waitedPhases != b.phase) {
        char what[256];
        std::snprintf(what, sizeof what, "%s with a token never waited (the copy started at %s)", when, b.at);
        trap(what, at);
      }
  }

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
  float dot(const Operand& a, uint32_t r, const Operand& b, uint32_t j) {
    const unsigned char* smem = K().block.smem;
    float s = 0.0f;
    for (uint32_t k = 0; k < 8; ++k) s += tc::tf32(a.at(smem, r, k)) * tc::tf32(b.at(smem, j, k));
    return s;
  }
  /* The operand's rows stay read until the MMA is waited. */
  void reading(const Operand& o, uint32_t rows, const char* at) {
    const unsigned char* base = K().block.smem + (o.start & ~127u);
    K().reads.push_back(Read{base, base + rows / 8u * o.sbo, at});
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
    // start may step along K inside a row, never across the row bits. The
    // operand lies in the staging area or in the arena (an A operand a
    // tensor-map copy landed swizzled).
    if (((o.start >> 7) & 7u) != 0 || o.sbo != tc::kAtomBytes || (o.start & ~127u) + rows / 8u * o.sbo > kWindow)
      trap("tensor-core operand outside shared memory or not atom-aligned", at);
    return o;
  }

  /* The copy of a map's box at (x, y): its rows and what of them lies
   * inside the tensor. */
  static Copy box(const tma::Desc& d, int32_t x, int32_t y, const char* at) {
    if (x < 0 || y < 0) trap("cp.async.bulk.tensor: negative coordinates", at);
    Copy q{};
    q.shape.rows = d.box[1];
    q.shape.rowBytes = uint64_t{d.box[0]} * d.elemBytes;
    const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    q.rowsIn = uy >= d.dims[1] ? 0 : std::min<uint64_t>(d.box[1], d.dims[1] - uy);
    q.bytesIn = ux >= d.dims[0] ? 0 : std::min<uint64_t>(d.box[0], d.dims[0] - ux) * d.elemBytes;
    if (q.rowsIn == 0 || q.bytesIn == 0) q.rowsIn = 0, q.bytesIn = 0;
    q.swizzle = d.swizzle == static_cast<uint32_t>(tma::Swizzle::B128);
    q.at = at;
    return q;
  }
  /* The shared side of a tensor copy: 128-byte aligned, and for the
   * swizzle, whole 1024-byte atoms from an aligned one (the layer asks for
   * no other). */
  void sharedBox(const Copy& q, const char* at) {
    const unsigned char* s = q.bar < 0 ? q.src : q.dst;
    const uint64_t off = static_cast<uint64_t>(s - K().block.smem);
    if (s < K().block.smem || off + q.shape.bytes() > kWindow)
      trap("cp.async.bulk.tensor: the shared-memory side is outside the block's shared memory", at);
    if (off % 128 != 0) trap("cp.async.bulk.tensor: shared memory not aligned to 128 bytes", at);
    if (q.swizzle && (off % tc::kAtomBytes != 0 || q.shape.rowBytes != tc::kRowBytes))
      trap("cp.async.bulk.tensor: a 128-byte swizzle the layer does not lay out (aligned atoms of 128-byte rows)", at);
  }
  static const tma::Desc& desc(const tma::Map* map, const char* at) {
    static thread_local tma::Desc d;
    std::memcpy(&d, map->bytes, sizeof d);
    if (d.magic != tma::kMagic) trap("cp.async.bulk.tensor: a tensor map the launcher did not encode", at);
    return d;
  }

  static bool overlaps(const unsigned char* a, uint64_t na, const unsigned char* b, uint64_t nb) {
    return a < b + nb && b < a + na;
  }
  /* Whether [p, p + n) meets `rows` runs of `len` bytes, `stride` apart from `base`. */
  static bool hitsRows(const unsigned char* p, uint64_t n, const unsigned char* base, uint64_t rows, uint64_t len,
                       uint64_t stride) {
    if (rows == 0 || len == 0) return false;
    if (rows == 1 || stride == len) return overlaps(p, n, base, (rows - 1) * stride + len);
    if (!overlaps(p, n, base, (rows - 1) * stride + len)) return false;
    for (uint64_t r = p > base ? static_cast<uint64_t>(p - base) / stride : 0; r < rows && base + r * stride < p + n; ++r)
      if (overlaps(p, n, base + r * stride, len)) return true;
    return false;
  }
  /* What a copy reads (a load's rows inside the tensor, a store's every
   * shared byte) and writes (a load's every shared byte, a store's rows
   * inside the tensor). */
  static bool hitsSrc(const unsigned char* p, uint64_t n, const Copy& q) {
    return q.bar < 0 ? hitsRows(p, n, q.src, q.shape.rows, q.shape.rowBytes, q.shape.srcStride)
                     : hitsRows(p, n, q.src, q.rowsIn, q.bytesIn, q.shape.srcStride);
  }
  static bool hitsDst(const unsigned char* p, uint64_t n, const Copy& q) {
    return q.bar < 0 ? hitsRows(p, n, q.dst, q.rowsIn, q.bytesIn, q.shape.dstStride)
                     : hitsRows(p, n, q.dst, q.shape.rows, q.shape.rowBytes, q.shape.dstStride);
  }
  /* Rows of a copy, as accesses of the program (contiguous ones at once). */
  void accessRows(const unsigned char* base, uint64_t rows, uint64_t len, uint64_t stride, bool write, const char* at) {
    if (rows == 0 || len == 0) return;
    if (rows == 1 || stride == len) {
      access(base, (rows - 1) * stride + len, write, at);
      return;
    }
    for (uint64_t r = 0; r < rows; ++r) access(base + r * stride, len, write, at);
  }
  /* PTX: try_wait.parity(p) succeeds once the current phase's parity is not p. */
  static bool completed(const Barrier& b, uint32_t parity) { return (b.phase & 1u) != parity; }

  [[noreturn]] static void fail(const char* what, const Copy& q, const char* at) {
    char msg[512];
    std::snprintf(msg, sizeof msg, "%s (the copy started at %s)", what, q.at);
    trap(msg, at);
  }

  void land(size_t i) {
    Cta& k = K();
    Copy q = k.pending[i];
    k.pending.erase(k.pending.begin() + static_cast<std::ptrdiff_t>(i));
    const CopyShape& s = q.shape;
    const uint64_t window = static_cast<uint64_t>((q.bar < 0 ? q.src : q.dst) - k.block.smem);
    std::vector<unsigned char> row(s.rowBytes);
    for (uint64_t r = 0; r < s.rows; ++r) {
      const bool in = r < q.rowsIn;
      const uint64_t take = in ? q.bytesIn : 0;
      if (q.bar < 0) {  // a store: the shared row (maybe swizzled) into the rows inside the tensor
        if (!in) continue;
        for (uint64_t b = 0; b < take; b += 16)
          std::memcpy(row.data() + b, q.src + shared(q, window, r, b), std::min<uint64_t>(16, take - b));
        std::memmove(q.dst + r * s.dstStride, row.data(), take);
        continue;
      }
      // A load: the global row, zeros past the tensor's edge, at the shared row's (maybe swizzled) place.
      std::memset(row.data(), 0, s.rowBytes);
      if (take) std::memmove(row.data(), q.src + r * s.srcStride, take);
      for (uint64_t b = 0; b < s.rowBytes; b += 16)
        std::memcpy(q.dst + shared(q, window, r, b), row.data() + b, std::min<uint64_t>(16, s.rowBytes - b));
    }
    if (q.bar < 0) return;
    Barrier& b = k.bars[static_cast<size_t>(q.bar)];
    b.landed += s.bytes();
    if (b.landed > b.expected) trap("transaction-count mismatch: more bytes landed than the mbarrier expects", q.at);
    if (b.landed == b.expected) {
      b.armed = false;
      ++b.phase;
    }
  }
  /* Where byte b of row r of a copy's shared side lies, from its start:
   * row-major, or the 128-byte swizzle of the shared address. */
  static uint64_t shared(const Copy& q, uint64_t window, uint64_t r, uint64_t b) {
    const uint64_t stride = q.bar < 0 ? q.shape.srcStride : q.shape.dstStride;
    if (!q.swizzle) return r * stride + b;
    const uint64_t logical = window + r * q.shape.rowBytes + b;
    return tc::swizzle128(static_cast<uint32_t>(logical)) - window;
  }

  uint64_t next() {  // splitmix64
    uint64_t z = (rng_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  std::vector<std::unique_ptr<Cta>> ctas_;
  unsigned used_ = 1, cur_ = 0;
  Ctas ctasRun_;
  HbmAccesses hbm_;
  uint64_t seed_ = 1, rng_;
  bool late_ = false;
};

inline State& state() {
  static State s;
  return s;
}

}  // namespace vx::cu::interp

#endif /* VX_CUDA_INTERPRET_H */
