/* Transfers of the cpu target. `transfer_async` is a real asynchronous copy:
 * a copy-engine thread takes jobs from a queue while the caller computes;
 * `wait` really waits (spins briefly, then sleeps). A token keeps its job
 * and destination alive, so the copy can never write freed memory.
 * Header-only C++17. */
#ifndef VX_COPY_H
#define VX_COPY_H

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#if defined(__linux__)
#include <fcntl.h>
#include <unistd.h>
#endif

#include "vx/memory.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define VX_CPU_RELAX() _mm_pause()
#define VX_COPY_X86 1
#else
#define VX_CPU_RELAX() ((void)0)
#define VX_COPY_X86 0
#endif

namespace vx::rt {

/* The engine is another core, so the lines it writes sit in that core's
 * private caches, and the program's first reads of a copied tile are
 * snoops of another core's cache: on an Intel Xeon they made a tile
 * multiplied right after an engine's copy slower than one the program
 * copied itself (bench/README.md "cpu"). Where the CPU has CLDEMOTE, the
 * engine pushes the lines it wrote out to the shared last-level cache, as a
 * DMA engine's writes land there, when it is ahead of the program (the
 * demotion costs the engine time: CopyEngine::demoting); elsewhere nothing
 * is done. */
inline bool cpuHasCldemote() {
#if VX_COPY_X86
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 25)) != 0;
#else
  return false;
#endif
}

#if VX_COPY_X86
__attribute__((target("cldemote"))) inline void demoteLines(const char* p, size_t n) {
  const uintptr_t line = 64;
  uintptr_t first = reinterpret_cast<uintptr_t>(p) & ~(line - 1), end = reinterpret_cast<uintptr_t>(p) + n;
  for (uintptr_t a = first; a < end; a += line) _cldemote(reinterpret_cast<void*>(a));
}
#else
inline void demoteLines(const char*, size_t) {}
#endif

inline void demoteIfSupported(const char* p, size_t n) {
  static const bool has = cpuHasCldemote();
  if (has && n != 0) demoteLines(p, n);
}

/* A copy is cut into chunks of about kCopyChunkBytes (whole rows of a block,
 * or pieces of one run; memory.h) that whoever gets there first moves: the
 * engine, or the copy's waiter, which takes the chunks the engine has not
 * started instead of waiting for them (CopyJob). When the engine has a core
 * of its own, the copy is done before its wait; when it has to share one (a
 * busy host), the waiter finishes the copy at the speed of a blocking one,
 * and waits at most for the one chunk the engine is moving. In a copy-bound
 * loop the waiter arrives while the engine is still copying: it takes what
 * is left and the engine goes on to the next copy. 8 KiB chunks let the
 * waiter take a larger share than 16 KiB ones did (the stream: 1.14–1.19x →
 * 1.33–1.36x its baseline of then, whose blocking copies were single
 * memcpys; bench/README.md "cpu", sessions 37 and 38). */
// Chunks the engine takes at a time while it is ahead of the program
// (CopyEngine::demoting): the waiter is not there to share them, and fewer
// claims cost less. When it is behind, it takes one at a time, so that a
// waiter who joins waits at most for one small chunk.
constexpr size_t kEngineBatchAhead = 2;

// Rows of a block per chunk: as many whole rows as fit, at least one.
inline size_t chunkRows(const CopyShape& s) {
  return s.rowBytes >= kCopyChunkBytes ? 1 : kCopyChunkBytes / (s.rowBytes == 0 ? 1 : s.rowBytes);
}

inline size_t copyChunks(const CopyShape& s) {
  if (s.rows == 1) return s.rowBytes == 0 ? 1 : (s.rowBytes + kCopyChunkBytes - 1) / kCopyChunkBytes;
  return (s.rows + chunkRows(s) - 1) / chunkRows(s);
}

/* Moves chunk `c`; `demote`: then push the lines written to the shared
 * cache (demoteIfSupported; the engine does, while it is ahead). */
inline void copyChunk(void* dst, const void* src, const CopyShape& s, size_t c, bool demote) {
  char* d = static_cast<char*>(dst);
  const char* x = static_cast<const char*>(src);
  if (s.rows == 1) {
    size_t begin = c * kCopyChunkBytes, n = std::min(kCopyChunkBytes, s.rowBytes - begin);
    copyRun(d + begin, x + begin, n);
    if (demote) demoteIfSupported(d + begin, n);
    return;
  }
  size_t rowsPer = chunkRows(s);
  size_t end = std::min(s.rows, (c + 1) * rowsPer);
  for (size_t r = c * rowsPer; r < end; ++r) {
    copyRow(d + r * s.dstStride, x + r * s.srcStride, s.rowBytes);
    if (demote) demoteIfSupported(d + r * s.dstStride, s.rowBytes);
  }
}

inline uint64_t copyClockNs() {
  auto t = std::chrono::steady_clock::now().time_since_epoch();
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t).count());
}

/* Reads the source of chunk `c` into this core's cache (prefetches to
 * the second level, which never fault: the copy may finish, and its source
 * be freed, while the engine reads it), without moving it. On x86 the
 * instruction is written out: GCC dropped `__builtin_prefetch` from the
 * engine's loop here. */
inline void warmLines(const char* p, size_t n) {
  for (size_t i = 0; i < n; i += 64) {
#if defined(__x86_64__) || defined(__i386__)
    asm volatile("prefetcht1 %0" : : "m"(*(p + i)));
#else
    __builtin_prefetch(p + i, 0, 2);
#endif
  }
}
inline void warmChunk(const void* src, const CopyShape& s, size_t c) {
  const char* x = static_cast<const char*>(src);
  if (s.rows == 1) {
    size_t begin = c * kCopyChunkBytes;
    warmLines(x + begin, std::min(kCopyChunkBytes, s.rowBytes - begin));
    return;
  }
  size_t rowsPer = chunkRows(s);
  size_t end = std::min(s.rows, (c + 1) * rowsPer);
  for (size_t r = c * rowsPer; r < end; ++r) warmLines(x + r * s.srcStride, s.rowBytes);
}

class CopyEngine;

struct CopyJob {
  CopyEngine* engine = nullptr;  // the engine it was queued on (start_copy)
  const void* src;
  void* dst;
  CopyShape shape;  // one run, or the rows of a block (memory.h)
  std::shared_ptr<Block> keep;  // the storage the copy writes (or reads), alive until it is done
  size_t chunks = 1;  // below 2^32 (start_copy)
  /* The chunks nobody has taken: from `front` up to `chunks - fromBack`,
   * in one word (fromBack << 32 | front). The engine takes them from the
   * front, in order, a chunk or two at a time; a waiter takes all that is
   * left in one claim and moves it in order, while the engine goes on to
   * the next job. Each core then reads and writes one run in order, which
   * the hardware prefetchers follow, and the program reads more of a tile
   * from its own cache. Measured (bench/README.md "cpu", session 38):
   * sharing each 64 KiB tile chunk by chunk from one counter, two threads
   * copied 16 GB/s; the waiter taking back halves, 20 GB/s; in the stream
   * the waiter taking all that is left beat taking the back half (25.1
   * against 27.3 ms), 2/3 (25.9) and 3/4 (25.5). */
  std::atomic<uint64_t> claims{0};
  std::atomic<size_t> chunksDone{0};
  std::atomic<bool> done{false};
  uint64_t seq = 0;  // its place among the engine's jobs (CopyEngine::submit)

  bool allTaken() const { return taken(claims.load(std::memory_order_relaxed)); }

  /* The engine's way: moves chunks from the front, `batch` at a time,
   * until none is left to take; true when this call moved the last one to
   * finish, and so completed the job. `demote`: push the lines written to
   * the shared cache (the engine, when it is ahead). */
  bool work(bool demote, size_t batch = 1) {
    bool completed = false;
    for (uint64_t v = claims.load(std::memory_order_relaxed); !taken(v);) {
      size_t front = v & 0xffffffffu, n = std::min(batch, back(v) - front);
      if (!claims.compare_exchange_weak(v, v + n, std::memory_order_relaxed)) continue;
      completed |= moveChunks(front, front + n, demote);
      v = claims.load(std::memory_order_relaxed);
    }
    return completed;
  }

  /* The engine's other way, when the program waits for its copies (a
   * copy-bound loop; CopyEngine::warming): reads the source into the
   * engine's cache, chunk by chunk, and takes nothing; the waiter then
   * moves the whole copy from there. Stops when the copy is done. Out of
   * line: inlined into the engine's loop, it made the engine's moving 1%
   * slower (the projection, bench/README.md "cpu", session 39). */
  [[gnu::noinline]] void warm() const {
    for (size_t c = 0; c < chunks && !done.load(std::memory_order_relaxed); ++c) warmChunk(src, shape, c);
  }

  /* The waiter's way: takes every chunk nobody has taken, in one claim,
   * and moves them in order; true when it completed the job. */
  bool help() {
    for (uint64_t v = claims.load(std::memory_order_relaxed); !taken(v);) {
      size_t front = v & 0xffffffffu, end = back(v);
      uint64_t claimed = (static_cast<uint64_t>(chunks - front) << 32) | front;
      if (claims.compare_exchange_weak(v, claimed, std::memory_order_relaxed)) return moveChunks(front, end, false);
    }
    return false;
  }

 private:
  size_t back(uint64_t v) const { return chunks - static_cast<size_t>(v >> 32); }
  bool taken(uint64_t v) const { return (v & 0xffffffffu) >= back(v); }

  // Moves chunks [c, end), taken; true when they were the last to finish.
  bool moveChunks(size_t c, size_t end, bool demote) {
    for (size_t i = c; i < end; ++i) copyChunk(dst, src, shape, i, demote);
    if (chunksDone.fetch_add(end - c, std::memory_order_acq_rel) + (end - c) != chunks) return false;
    // Release the storage before `done`: once the waiter sees `done`, its
    // invocation may end and destroy the arena the block belongs to.
    keep.reset();
    done.store(true);  // seq_cst: a sleeping waiter is counted (CopyEngine)
    return true;
  }
};

/* The engine has two ways with a copy: it moves it (CopyJob::work), or it
 * only reads its source into its own cache and leaves the copy to the
 * waiter (CopyJob::warm), which then computes on a tile in its own cache.
 * Moving is the better way when the program computes between a copy's
 * start and its wait (a GEMM, a projection): the copy is done when the
 * wait comes. In a copy-bound loop it depends on how the program reads
 * the tile: another core's cache is slow to read with narrow loads
 * (`ACC += tile` with 16-byte vectors: 4.3 against 1.7 µs for 64 KiB from
 * its own), so a stream adding through portable elementwise loops runs
 * 1.19x faster warming, and the matrix unit's AVX-512 add 1.05x faster
 * moving (bench/README.md "cpu", session 39). No count of late waits tells
 * them apart (the waits that find their copy unfinished find about one
 * chunk left in all of them), so the waiters measure: the time of each
 * epoch of kEpoch waits, averaged per mode, and every so often an epoch in
 * the other mode, which is kept if it was faster by more than 1/kMargin.
 * An exploration that loses multiplies the wait before the next one by
 * kBackOff (from kExploreMin up to kExploreMax epochs); one that wins sets
 * it back. The first epoch after a switch is not measured (copies started
 * in the other mode are still being waited for), nor is one that took more
 * than twice its mode's mean (the program did something else: its
 * invocation ended, the host took the core). A program that waits less
 * than kEpoch times keeps the engine moving its copies. */
class CopyModeChooser {
 public:
  static constexpr uint32_t kEpoch = 64, kExploreMin = 4, kBackOff = 8, kExploreMax = 256;
  static constexpr uint64_t kMargin = 50;

  /* The engine napped during this epoch (CopyEngine::nap): the host gives
   * it no core, and the epoch ends in the moving mode, unmeasured, with
   * the other mode tried again kExploreMin epochs later. A warming engine
   * takes every job, as if it were productive, and would keep its thread
   * runnable on a host that has no core for it (the stream with the other
   * core busy: 0.98x against 1.02x moving); a quiet host makes a nap now
   * and then too (one or two in a run of the elementwise stream). */
  void napped() { napped_ = true; }

  /* An epoch ended at `nowNs`, in mode `warm`; returns the mode for the
   * next one. */
  bool epochEnded(uint64_t nowNs, bool warm) {
    uint64_t took = nowNs - startNs_;
    startNs_ = nowNs;
    if (napped_) {  // the engine had no core: not a measure of either way
      napped_ = false;
      exploring_ = false;
      settling_ = true;
      left_ = kExploreMin;  // moving was not measured the better: try again soon
      return false;
    }
    if (settling_) {  // the first, or just after a switch
      settling_ = false;
      return warm;
    }
    uint64_t& mean = ns_[warm];
    bool apart = mean != 0 && took > 2 * mean;
    if (!apart) mean = mean == 0 ? took : (3 * mean + took) / 4;
    if (exploring_) {  // this mode ran one epoch: keep it if it was faster
      exploring_ = false;
      bool won = !apart && took * kMargin < ns_[!warm] * (kMargin - 1);
      every_ = won ? kExploreMin : std::min(every_ * kBackOff, kExploreMax);
      left_ = every_;
      if (won) return warm;
      settling_ = true;
      return !warm;
    }
    if (--left_ > 0) return warm;
    exploring_ = true;
    settling_ = true;
    return !warm;
  }

 private:
  uint64_t startNs_ = 0;
  uint64_t ns_[2] = {0, 0};  // the mean epoch in each mode (0: none yet)
  uint32_t every_ = kExploreMin, left_ = kExploreMin;
  bool exploring_ = false, settling_ = true, napped_ = false;
};

/* Whether the host has more runnable threads than online cores at this
 * moment: the first number of the fourth field of /proc/loadavg (the
 * threads running or waiting for a core, the reader among them), read
 * through a descriptor kept open (about a microsecond), against the online
 * cores. Host-wide, as both counts are, so a container restricted to a
 * few cores of a full host reads full, and one alone on a big host reads
 * not full. The engine asks it only where a copy already shows that the
 * engine was not scheduled (CopyEngine, naps): it confirms a busy host at
 * once, where waiting for the evidence to build up cost the stream 2–4%
 * (bench/README.md "cpu", session 49). Elsewhere than Linux, or where the
 * file cannot be read: never full. */
class HostLoad {
 public:
  // `path`: another file of the same form (the runtime's tests).
  explicit HostLoad(const char* path = "/proc/loadavg") {
#if defined(__linux__)
    fd_ = ::open(path, O_RDONLY | O_CLOEXEC);
    cores_ = ::sysconf(_SC_NPROCESSORS_ONLN);
#endif
  }
  ~HostLoad() {
#if defined(__linux__)
    if (fd_ >= 0) ::close(fd_);
#endif
  }
  HostLoad(const HostLoad&) = delete;
  HostLoad& operator=(const HostLoad&) = delete;

  bool full() const {
#if defined(__linux__)
    if (fd_ < 0 || cores_ <= 0) return false;
    char text[256];
    ssize_t n = ::pread(fd_, text, sizeof text - 1, 0);
    if (n <= 0) return false;
    text[n] = 0;
    return runnable(text) > cores_;
#else
    return false;
#endif
  }

  long cores() const { return cores_; }

  /* The runnable count of a /proc/loadavg line ("0.5 0.3 0.1 3/412 977"),
   * or 0 where the line has no such field. */
  static long runnable(const char* line) {
    const char* p = line;
    for (int field = 0; field < 3; ++field) {
      while (*p != 0 && *p != ' ') ++p;
      while (*p == ' ') ++p;
    }
    long count = 0;
    bool digits = false;
    for (; *p >= '0' && *p <= '9'; ++p, digits = true) count = count * 10 + (*p - '0');
    return digits && *p == '/' ? count : 0;
  }

 private:
  int fd_ = -1;
  long cores_ = 0;
};

/* Set on the workers of a grid that has every core (grid.h): no core is left
 * for the engine, whose thread would only take turns with them, so a copy
 * is made where it starts, by the worker. That is the same program: between
 * a copy's start and its wait the checker lets nothing touch its source or
 * destination (E6004, E6005), so when the bytes move in that window cannot
 * be observed. */
inline thread_local bool copiesInline = false;

/* Set on a grid's worker that has an engine of its own (grid.h); null: the
 * process's engine. */
inline thread_local CopyEngine* threadEngine = nullptr;

/* One engine per process, started on first use: the machine's DMA engine.
 * Both sides spin briefly before they sleep, because in a pipelined loop the
 * next job (or the copy being waited for) is usually microseconds away, and a
 * futex round trip per 64 KiB tile would cost as much as the copy.
 * A waiter moves the chunks of its copy the engine has not started (CopyJob):
 * when the engine has no core of its own (a busy host), that keeps an async
 * program as fast as its blocking baseline instead of slower. */
class CopyEngine {
 public:
  /* The process's engine: the one every thread uses unless a grid's pool
   * gave it one of its own (engineHere, grid.h). */
  static CopyEngine& instance() {
    static CopyEngine engine;
    return engine;
  }

  CopyEngine() : thread_([this] { run(); }) {}
  ~CopyEngine() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    work_.notify_one();
    thread_.join();
  }
  CopyEngine(const CopyEngine&) = delete;
  CopyEngine& operator=(const CopyEngine&) = delete;

  void submit(const std::shared_ptr<CopyJob>& job) {
    bool wake;
    {
      std::unique_lock<std::mutex> lock = lockQueue();
      job->seq = ++submitted_;
      queue_.push_back(job);
      queued_.fetch_add(1);
      wake = engineSleeping_;
    }
    if (wake) work_.notify_one();
  }

  /* Whether the engine naps now (stale_, below): copies are then made
   * where they start. */
  bool napping() const { return napping_.load(std::memory_order_relaxed); }

  /* Whether the engine may nap (it may unless VX_COPY_NAP=0 is set); the
   * runtime's tests switch it off where they check the engine's own work. */
  void allowNaps(bool allow) { napsAllowed_.store(allow, std::memory_order_relaxed); }

  /* Whether the engine demotes what it writes now (late_, below). */
  bool demoting() const { return late_.load(std::memory_order_relaxed) < kDemoteBelow; }

  /* Where the destination of a copy starting now goes (Placement,
   * memory.h): rotating when an engine will make it; packed where it is
   * made where it starts (the process's engine napping, a grid's worker
   * without an engine: start_copy), as a blocking copy's is. Rotating in
   * every program the engine serves: the
   * copy-bound stream ran 1.3x faster, the projection and the GEMM the
   * same within 0.5% (bench/README.md "cpu", session 50); rotating only
   * while the waits found their copies unfinished fed back on itself (the
   * rotation made the copies of the elementwise stream on time, which then
   * turned it off). */
  Placement placement() const { return !copiesInline && !napping() ? Placement::Rotating : Placement::Packed; }

  /* Whether the engine warms the sources of copies instead of moving
   * them now (CopyModeChooser, above). */
  bool warming() const { return warm_.load(std::memory_order_relaxed); }

  /* Whether the mode is chosen by measurement (it is unless
   * VX_COPY_MODE=move or VX_COPY_MODE=warm fixes it); when it is not,
   * `warm` is the mode. The runtime's tests fix it where they check one
   * mode's work. */
  void chooseMode(bool choose, bool warm = false) {
    choosing_.store(choose, std::memory_order_relaxed);
    if (!choose) warm_.store(warm, std::memory_order_relaxed);
  }

  void wait(CopyJob& job) {
    if (choosing_.load(std::memory_order_relaxed)) tick();
    bool warm = warming();
    if (job.done.load(std::memory_order_acquire)) {
      if (!warm) onTime();
      return;
    }
    if (!warm) late();
    if (job.help()) return;  // the waiter moved the last chunk
    for (int i = 0; i < kSpins; ++i) {
      if (job.done.load(std::memory_order_acquire)) return;
      pause(i);
    }
    std::unique_lock<std::mutex> lock(m_);
    waitersSleeping_.fetch_add(1);  // seq_cst: pairs with run()'s done store / load
    finished_.wait(lock, [&] { return job.done.load(); });
    waitersSleeping_.fetch_sub(1);
  }

 private:
  // Spin a few microseconds with `pause`, then yield the core (the engine may
  // be waiting for it when the host is oversubscribed), then sleep.
  static constexpr int kSpins = 256;

  /* Whether the engine demotes what it writes (demoteIfSupported): while
   * most waits find their copies done. Demoting costs the engine about as
   * much as the copy; when the program computes while the engine copies
   * (a GEMM, a projection) it saves the program more than that, and when
   * the program mostly waits for the engine (a copy-bound stream, a busy
   * host) the engine's time is worth more than where the lines are. `late_`
   * counts up kLateCost for a wait that finds its copy unfinished and down
   * one for one that finds it done, between 0 and kLateMax, while the
   * engine moves copies (a warming engine finishes none): it stays low
   * while fewer than a third of the waits are late (bench/README.md "cpu":
   * 6% late in the projection, 18% in the GEMM, 78% in the stream). The
   * waiting threads write it with plain loads and stores (two waiters at
   * once may lose an update, which only blurs the estimate); the engine
   * reads it. */
  static constexpr int kLateCost = 2, kLateMax = 64, kDemoteBelow = kLateMax / 2;
  void onTime() {
    if (int l = late_.load(std::memory_order_relaxed); l > 0) late_.store(l - 1, std::memory_order_relaxed);
  }
  void late() {
    late_.store(std::min(late_.load(std::memory_order_relaxed) + kLateCost, kLateMax), std::memory_order_relaxed);
  }
  std::atomic<int> late_{kLateMax};

  /* The mode, and its chooser (CopyModeChooser), fed by the waiters: one
   * of them at a time (the one that ends an epoch) calls it, under
   * modeLock_, and the others go on without waiting. */
  std::atomic<bool> warm_{modeByEnvironment() == 2};
  std::atomic<bool> choosing_{modeByEnvironment() == 0};
  std::atomic<uint32_t> epochWaits_{0};
  std::atomic_flag modeLock_ = ATOMIC_FLAG_INIT;
  CopyModeChooser chooser_;
  static int modeByEnvironment() {  // 0: chosen; 1: move; 2: warm
    const char* v = std::getenv("VX_COPY_MODE");
    if (v == nullptr) return 0;
    return std::strcmp(v, "move") == 0 ? 1 : std::strcmp(v, "warm") == 0 ? 2 : 0;
  }
  std::atomic<uint32_t> naps_{0};  // so far (nap)
  uint32_t napsSeen_ = 0;           // by the chooser, under modeLock_
  void tick() {
    if (epochWaits_.fetch_add(1, std::memory_order_relaxed) + 1 < CopyModeChooser::kEpoch) return;
    if (modeLock_.test_and_set(std::memory_order_acquire)) return;
    epochWaits_.store(0, std::memory_order_relaxed);
    if (uint32_t naps = naps_.load(std::memory_order_relaxed); naps != napsSeen_) {
      napsSeen_ = naps;
      chooser_.napped();
    }
    warm_.store(chooser_.epochEnded(copyClockNs(), warm_.load(std::memory_order_relaxed)), std::memory_order_relaxed);
    modeLock_.clear(std::memory_order_release);
  }

  /* Whether the engine naps: it does when it does not get a core in time
   * (a busy host), found as jobs that their waiters moved whole while the
   * engine, awake, was not running: it comes back to a backlog of at least
   * kBacklog jobs, all of them done. An engine that stays runnable there,
   * or is woken for every job, gains the program nothing (its waiters move
   * 99% of the chunks) and costs it: the scheduler moves the other
   * processes' threads onto the program's core to balance the engine
   * (bench/README.md "cpu", session 38). `stale_` counts up one for such a
   * job and down kProductiveCredit for one the engine moves chunks of,
   * between 0 and kStaleMax; at kNapAt the engine naps for napLength_,
   * not woken by submit, and copies are made where they start, as the
   * blocking baseline makes them (start_copy). Then it tries again (stale_
   * back to half of kNapAt) and naps twice as long if that fails, up to
   * kNapMax; the nap length falls back to kNapMin after kKeptUp jobs
   * without a nap. Jobs that were queued while the engine slept do not
   * count: they wait for its wake-up, which can take a millisecond on a
   * virtual machine whose idle cores go back to its host, busy or not. Nor
   * does a job its waiter took whole because the engine was copying the
   * one before (a copy-bound loop): the queue is short then.
   * The host's load (HostLoad) shortens both ends: a stale job on a host
   * with more runnable threads than cores starts the nap at once (the load
   * read at most every kProbeEveryNs), and a nap that ends on such a host
   * goes on, twice as long up to kNapMax, at most kNapExtensions times in a
   * row before the engine tries again (a load that reads full while the
   * program's cores are free, a restricted container on a full host, then
   * costs one try a second or so). */
  static constexpr int kStaleMax = 64, kNapAt = 32, kProductiveCredit = 4, kNapExtensions = 16;
  static constexpr uint64_t kProbeEveryNs = 200000;
  HostLoad load_;
  uint64_t probedAt_ = 0;  // the engine's own
  static constexpr size_t kBacklog = 8, kKeptUp = 256;
  static constexpr std::chrono::milliseconds kNapMin{2}, kNapMax{64};
  int stale_ = 0;  // the engine's own, as are the three below
  std::chrono::milliseconds napLength_ = kNapMin;
  size_t sinceNap_ = 0;   // jobs taken since the last nap
  uint64_t wokeAt_ = 0;   // submitted_ when it last woke from a sleep
  size_t backlog_ = 0;    // jobs queued when it took the last one
  uint64_t submitted_ = 0;  // jobs queued so far, under m_
  std::atomic<bool> napping_{false};
  std::atomic<bool> napsAllowed_{napsAllowedByEnvironment()};
  static bool napsAllowedByEnvironment() {
    const char* v = std::getenv("VX_COPY_NAP");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }

  bool probeDue() {
    uint64_t now = copyClockNs();
    if (now - probedAt_ < kProbeEveryNs) return false;
    probedAt_ = now;
    return true;
  }

  void nap() {
    naps_.fetch_add(1, std::memory_order_relaxed);
    napping_.store(true, std::memory_order_relaxed);
    {
      std::unique_lock<std::mutex> lock(m_);
      for (int extended = 0;; ++extended) {
        if (work_.wait_for(lock, napLength_, [&] { return stop_; })) break;
        if (extended == kNapExtensions || !load_.full()) break;
        napLength_ = std::min(napLength_ * 2, kNapMax);
      }
    }
    napping_.store(false, std::memory_order_relaxed);
    {
      std::unique_lock<std::mutex> lock = lockQueue();
      wokeAt_ = submitted_;  // what was queued before is no news
    }
    sinceNap_ = 0;
    napLength_ = std::min(napLength_ * 2, kNapMax);
    stale_ = kNapAt / 2;
  }

  /* Takes m_, trying a moment before it blocks: the engine and the program
   * hold it for a few instructions, and a thread that blocks on a mutex
   * sleeps in the kernel, whose wake-up can take a millisecond on a virtual
   * machine (the engine, asleep behind a submit, then reached its jobs after
   * their waiters: the GEMM lost 7%, bench/README.md "cpu", session 38). */
  static constexpr int kLockTries = 256;
  std::unique_lock<std::mutex> lockQueue() {
    std::unique_lock<std::mutex> lock(m_, std::try_to_lock);
    for (int i = 0; !lock.owns_lock() && i < kLockTries; ++i) {
      VX_CPU_RELAX();
      lock.try_lock();
    }
    if (!lock.owns_lock()) lock.lock();
    return lock;
  }

  static void pause(int i) {
    if (i < 64)
      VX_CPU_RELAX();
    else
      std::this_thread::yield();
  }

  std::shared_ptr<CopyJob> next() {
    if (stale_ >= kNapAt && napsAllowed_.load(std::memory_order_relaxed)) nap();
    for (int i = 0; i < kSpins && queued_.load(std::memory_order_acquire) == 0; ++i) pause(i);
    std::unique_lock<std::mutex> lock = lockQueue();
    if (queue_.empty()) {
      engineSleeping_ = true;
      work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      engineSleeping_ = false;
      wokeAt_ = submitted_;
      if (queue_.empty()) return nullptr;  // stopping
    }
    std::shared_ptr<CopyJob> job = std::move(queue_.front());
    backlog_ = queue_.size();
    queue_.pop_front();
    queued_.fetch_sub(1);
    return job;
  }

  void run() {
    while (std::shared_ptr<CopyJob> job = next()) {
      bool taken = job->allTaken();  // by its waiter
      if (++sinceNap_ > kKeptUp) napLength_ = kNapMin;
      if (taken) {
        if (backlog_ >= kBacklog && job->seq > wokeAt_) {
          stale_ = std::min(stale_ + 1, kStaleMax);
          if (stale_ < kNapAt && probeDue() && load_.full()) stale_ = kNapAt;
        }
        continue;
      }
      stale_ = std::max(stale_ - kProductiveCredit, 0);
      if (warming()) {
        job->warm();
        continue;
      }
      bool demote = demoting();
      if (!job->work(demote, demote ? kEngineBatchAhead : 1)) continue;
      if (waitersSleeping_.load() > 0) {
        std::unique_lock<std::mutex> lock = lockQueue();
        finished_.notify_all();
      }
    }
  }

  std::mutex m_;
  std::condition_variable work_, finished_;
  std::deque<std::shared_ptr<CopyJob>> queue_;
  std::atomic<size_t> queued_{0};
  std::atomic<int> waitersSleeping_{0};
  bool engineSleeping_ = false;  // under m_
  bool stop_ = false;
  std::thread thread_;
};

/* The engine this thread queues its copies on: its grid worker's, or the
 * process's. */
inline CopyEngine& engineHere() { return threadEngine != nullptr ? *threadEngine : CopyEngine::instance(); }

/* A token that will leave a buffer (`Token<T, M>`) or nothing (`Token<void, M>`). */
template <typename T>
struct Token {
  std::shared_ptr<CopyJob> job;  // null: already complete
  Buf<T> buf;
};
struct VoidToken {
  std::shared_ptr<CopyJob> job;
};

/* The engine's side of a copy and of a wait stay out of line: inlined
 * into a kernel, their code changed how GCC allocated the kernel's
 * registers, and a change to the engine alone made the stream's blocking
 * baseline, which never calls them, 20% slower (its `ACC += tile` loop kept
 * its vectors on the stack; bench/README.md "cpu", session 38). */
[[gnu::noinline]] inline std::shared_ptr<CopyJob> start_copy(const void* src, void* dst, const CopyShape& shape,
                                                             std::shared_ptr<Block> keep) {
  // Made here on a grid's worker with no engine, and on a busy host: the
  // process's engine naps (on a grid's worker with an engine of its own
  // too: the naps say the host has no core for an engine). Reading the
  // worker's engine here instead made the busy stream 2-3% slower than its
  // blocking baseline (bench/README.md "cpu", session 50).
  if (copiesInline || CopyEngine::instance().napping() || copyChunks(shape) >> 32 != 0) {
    copyBytes(dst, src, shape);
    return nullptr;  // a complete token
  }
  auto job = std::make_shared<CopyJob>();
  job->src = src;
  job->dst = dst;
  job->shape = shape;
  job->chunks = copyChunks(shape);
  job->keep = std::move(keep);
  CopyEngine& engine = engineHere();
  job->engine = &engine;
  engine.submit(job);
  return job;
}

/* Out of line, as start_copy: inlined into the elementwise stream, the
 * engine's state read here made the kernel 15% slower with the other core
 * busy, where the engine naps and the program makes every copy itself
 * (bench/README.md "cpu", session 50). */
[[gnu::noinline]] inline Placement enginePlacement() { return CopyEngine::instance().placement(); }

/* How a source (an HBM tensor or block, or an on-chip buffer) is read. */
template <typename T>
inline CopyShape readShape(const Hbm<T>& src) {
  return fromHbm(src);
}
template <typename T>
inline CopyShape readShape(const Buf<T>& src) {
  return contiguous<T>(src.n);
}

template <typename T, template <typename> class Src>
inline Buf<T> transfer(Arena& arena, const Src<T>& src, const char* at) {
  Buf<T> b = allocate<T>(arena, src.n, at);
  copyBytes(b.data, src.data, readShape(src));
  return b;
}

template <typename T, template <typename> class Src>
inline void transfer_into(const Src<T>& src, const Buf<T>& dst) {
  copyBytes(dst.data, src.data, readShape(src));
}

template <typename T, template <typename> class Src>
inline Token<T> transfer_async(Arena& arena, const Src<T>& src, const char* at) {
  Buf<T> b = allocate<T>(arena, src.n, at, enginePlacement());
  return Token<T>{start_copy(src.data, b.data, readShape(src), b.owner), b};
}

template <typename T, template <typename> class Src>
inline VoidToken transfer_async_into(const Src<T>& src, const Buf<T>& dst) {
  return VoidToken{start_copy(src.data, dst.data, readShape(src), dst.owner)};
}

template <typename T>
inline void store(const Buf<T>& src, const Hbm<T>& dst) {
  copyBytes(dst.data, src.data, toHbm(dst));
}

template <typename T>
inline VoidToken store_async(const Buf<T>& src, const Hbm<T>& dst) {
  // The source buffer must outlive the copy: keep its storage.
  return VoidToken{start_copy(src.data, dst.data, toHbm(dst), src.owner)};
}

/* On the engine the job was queued on; a job made done where it started
 * (checked.h) has none. */
[[gnu::noinline]] inline void waitJob(CopyJob& job) {
  (job.engine != nullptr ? *job.engine : CopyEngine::instance()).wait(job);
}

template <typename T>
inline Buf<T> wait(const Token<T>& t) {
  if (t.job) waitJob(*t.job);
  return t.buf;
}
inline void wait(const VoidToken& t) {
  if (t.job) waitJob(*t.job);
}

template <typename T>
inline Token<T> ready(const Buf<T>& b) {
  return Token<T>{nullptr, b};
}
inline VoidToken ready() { return VoidToken{nullptr}; }

}  // namespace vx::rt

#endif /* VX_COPY_H */
