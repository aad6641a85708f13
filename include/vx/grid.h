/* The launch grid of the cpu target (`parallel (i, j) in [e0, e1]`, grid.md
 * §3): every instance runs on a pool of one worker per core, in no order;
 * each has its own invocation (a VMEM arena per worker, a fresh matrix
 * unit per instance), as each TensorCore or CTA has its own on-chip memory.
 * The calling thread is one of the workers. Instances are handed out one at
 * a time from an atomic counter, so a slow instance does not hold up the
 * others. Header-only C++17. */
#ifndef VX_GRID_H
#define VX_GRID_H

#include <algorithm>
#if defined(__linux__)
#include <sched.h>
#endif
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "vx/copy.h"
#include "vx/memory.h"
#include "vx/scalar.h"

namespace vx::rt {

struct Invocation;

/* The cores this process may run on: its affinity mask where the system has
 * one (`taskset -c 0` means one core), else every core. */
inline unsigned usableCores() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

/* The copy engines of a pool of `workers` on `cores` usable cores: one per
 * worker, bounded by the cores the workers leave free. None when every
 * core is a worker: an engine's thread would only take turns with them, so
 * each worker makes its copies where they start (copiesInline, copy.h). */
inline unsigned gridEngines(unsigned workers, unsigned cores) {
  return workers < cores ? std::min(workers, cores - workers) : 0;
}

/* The pool: started on the first grid, `VX_WORKERS` threads if set, else
 * one per usable core (the caller counted among them), with its copy
 * engines (gridEngines): the first is the process's, the others its own;
 * worker w queues its copies on engine w mod their count. */
class WorkerPool {
 public:
  static WorkerPool& instance() {
    static WorkerPool pool([] {
      unsigned n = usableCores();
      if (const char* w = std::getenv("VX_WORKERS"); w && *w) n = static_cast<unsigned>(std::strtoul(w, nullptr, 10));
      return n;
    }(), usableCores());
    return pool;
  }

  /* `workers` threads (at least one: the caller) on `cores` usable cores;
   * the runtime's tests make their own. */
  WorkerPool(unsigned workers, unsigned cores) : engines_(gridEngines(std::max(workers, 1u), cores)) {
    for (unsigned e = 1; e < engines_; ++e) own_.push_back(std::make_unique<CopyEngine>());
    for (unsigned w = 1; w < std::max(workers, 1u); ++w) threads_.emplace_back([this, w] { loop(w); });
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(threads_.size()) + 1; }
  unsigned engines() const { return engines_; }

  /* Runs `work(w)` on every worker w (0 is the caller) and returns when all
   * are done, each worker with its engine, or making its copies itself
   * where the pool has none. One grid at a time. */
  void run(const std::function<void(unsigned)>& work) {
    std::lock_guard<std::mutex> one(grid_);
    const bool inlineCopies = engines_ == 0;
    std::function<void(unsigned)> withEngine = [&](unsigned w) {
      const bool wasInline = copiesInline;
      CopyEngine* wasEngine = threadEngine;
      copiesInline = inlineCopies;
      if (!inlineCopies) threadEngine = &engineOf(w);
      work(w);
      copiesInline = wasInline;
      threadEngine = wasEngine;
    };
    {
      std::lock_guard<std::mutex> lock(m_);
      work_ = &withEngine;
      pending_ = static_cast<unsigned>(threads_.size());
      ++generation_;
    }
    start_.notify_all();
    withEngine(0);
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return pending_ == 0; });
    work_ = nullptr;
  }

  /* The engine worker `w` queues its copies on (the pool has one). */
  CopyEngine& engineOf(unsigned w) {
    unsigned e = w % engines_;
    return e == 0 ? CopyEngine::instance() : *own_[e - 1];
  }

  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    start_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

 private:
  void loop(unsigned w) {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(unsigned)>* work;
      {
        std::unique_lock<std::mutex> lock(m_);
        start_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        work = work_;
      }
      (*work)(w);
      std::lock_guard<std::mutex> lock(m_);
      if (--pending_ == 0) done_.notify_all();
    }
  }

  unsigned engines_;
  std::vector<std::unique_ptr<CopyEngine>> own_;  // engines 1 .. engines_ - 1
  std::mutex grid_, m_;
  std::condition_variable start_, done_;
  const std::function<void(unsigned)>* work_ = nullptr;
  unsigned pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

/* Runs `body(inv, idx)` for every index tuple below `extents` (`n` of them),
 * `idx` the instance's indices. Instances on the caller's thread use the
 * caller's arena; the other workers each have one of their own. */
template <typename Inv, typename F>
inline void parallel_for(Inv& caller, const uint64_t* extents, unsigned n, F&& body, const char* at) {
  uint64_t total = 1;
  for (unsigned d = 0; d < n; ++d)
    if (extents[d] == 0) return;
  for (unsigned d = 0; d < n; ++d)
    if (__builtin_mul_overflow(total, extents[d], &total)) trap("a grid of more than 2^64 instances", at);
  std::atomic<uint64_t> next{0};
  auto instances = [&](Arena& arena) {
    std::vector<uint64_t> idx(n);
    for (uint64_t k; (k = next.fetch_add(1)) < total;) {
      for (unsigned d = n; d-- > 0;) {
        idx[d] = k % extents[d];
        k /= extents[d];
      }
      Inv inv(arena);  // the instance's own matrix unit
      body(inv, idx.data());
    }
  };
  if (total == 1) {
    instances(caller.arena);
    return;
  }
  WorkerPool::instance().run([&](unsigned w) {
    if (w == 0) {
      instances(caller.arena);
    } else {
      thread_local Arena arena;  // one per worker, for every grid it runs
      instances(arena);
    }
  });
}

}  // namespace vx::rt

#endif /* VX_GRID_H */
