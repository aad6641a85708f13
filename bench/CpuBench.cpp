// The matrix unit's kernel (include/vx/gemm.h) against OpenBLAS sgemm on one
// shape, single-threaded both (one TensorCore invocation is one CPU worker
// thread; the other core is the copy engine's). Prints GFLOP/s of the best
// of N runs and a final `RESULT` line for bench/cpu.sh. Times are the
// thread's CPU time, so that other processes on a shared machine (which
// preempt the thread) do not decide the ratio.
//   vx_bench_cpu [M N K] [--runs N]
//   vx_bench_cpu --parallelism    how many cores two busy threads really get
//   vx_bench_cpu --blas-threads T M N K [--runs N]
//                                 OpenBLAS sgemm alone on T threads, wall time
//                                 (a shared machine may give them one)
#include <cblas.h>

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "vx/data.h"
#include "vx/gemm.h"

extern "C" void openblas_set_num_threads(int);

namespace {

double threadSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

template <typename F>
double bestSeconds(int runs, F f) {
  double best = 1e300;
  for (int r = 0; r < runs; ++r) {
    double t0 = threadSeconds();
    f();
    best = std::min(best, threadSeconds() - t0);
  }
  return best;
}

// Two threads spin for half a second of wall time; the sum of their CPU
// times over that half second is the parallelism the copy engine can count on.
int probeParallelism() {
  auto spin = [](double* cpu) {
    double c0 = threadSeconds();
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    volatile uint64_t x = 0;
    while (std::chrono::steady_clock::now() < end) x = x + 1;
    *cpu = threadSeconds() - c0;
  };
  double a = 0, b = 0;
  std::thread t(spin, &b);
  spin(&a);
  t.join();
  std::printf("RESULT cores=%.2f\n", (a + b) / 0.5);
  return 0;
}

}  // namespace

double wallSeconds() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// OpenBLAS on `threads` threads, best wall time: the reference of the grid
// benchmark (bench/cpu_grid.sh), where the vx kernel runs on as many workers.
int blasThreads(int threads, size_t m, size_t n, size_t k, int runs) {
  openblas_set_num_threads(threads);
  std::vector<float> a(m * k), b(k * n), c(m * n, 0.0f);
  vx_fill(1, 0, a.data(), a.size());
  vx_fill(1, 1, b.data(), b.size());
  double best = 1e300;
  for (int r = 0; r < runs; ++r) {
    double t0 = wallSeconds();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0f, a.data(), static_cast<int>(k), b.data(), static_cast<int>(n), 0.0f,
                c.data(), static_cast<int>(n));
    best = std::min(best, wallSeconds() - t0);
  }
  std::printf("RESULT blas_threads=%d blas_us=%.1f blas_core=%s\n", threads, best * 1e6, openblas_get_corename());
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--parallelism") == 0) return probeParallelism();
  if (argc >= 6 && std::strcmp(argv[1], "--blas-threads") == 0) {
    int runs = argc >= 8 && std::strcmp(argv[6], "--runs") == 0 ? std::atoi(argv[7]) : 5;
    return blasThreads(std::atoi(argv[2]), std::strtoull(argv[3], nullptr, 10), std::strtoull(argv[4], nullptr, 10),
                       std::strtoull(argv[5], nullptr, 10), runs);
  }
  size_t m = 2048, n = 2048, k = 2048;
  int runs = 5;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = std::atoi(argv[++i]);
    else pos.push_back(argv[i]);
  }
  if (pos.size() == 3) {
    m = std::strtoull(pos[0].c_str(), nullptr, 10);
    n = std::strtoull(pos[1].c_str(), nullptr, 10);
    k = std::strtoull(pos[2].c_str(), nullptr, 10);
  }
  openblas_set_num_threads(1);
  std::vector<float> a(m * k), b(k * n), c1(m * n, 0.0f), c2(m * n, 0.0f);
  vx_fill(1, 0, a.data(), a.size());
  vx_fill(1, 1, b.data(), b.size());
  double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);

  // The two alternate, run by run, so that a change in the machine's speed
  // (other tenants, the clock) falls on both; each keeps its best run.
  double tBlas = 1e300, tVx = 1e300;
  for (int r = 0; r < runs; ++r) {
    tBlas = std::min(tBlas, bestSeconds(1, [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                  static_cast<int>(k), 1.0f, a.data(), static_cast<int>(k), b.data(), static_cast<int>(n), 0.0f,
                  c1.data(), static_cast<int>(n));
    }));
    std::fill(c2.begin(), c2.end(), 0.0f);  // the kernel accumulates; sgemm's beta = 0 needs no zeroing
    tVx = std::min(tVx, bestSeconds(1, [&] { vx::rt::gemm::gemm(m, n, k, a.data(), k, b.data(), n, c2.data(), n); }));
  }
  // Inputs are multiples of 1/8 and K < 65536: both results are exact.
  bool same = vx_checksum(c1.data(), c1.size()) == vx_checksum(c2.data(), c2.size());
  double gBlas = flops / tBlas / 1e9, gVx = flops / tVx / 1e9;
  std::printf("shape %zux%zux%zu, best of %d, 1 thread, thread CPU time\n", m, n, k, runs);
  std::printf("  OpenBLAS sgemm     %8.1f GFLOP/s  (%.2f ms)\n", gBlas, tBlas * 1e3);
  std::printf("  vx matrix unit     %8.1f GFLOP/s  (%.2f ms)  %s\n", gVx, tVx * 1e3,
              same ? "same result" : "RESULTS DIFFER");
  std::printf("RESULT blas_gflops=%.2f vx_gflops=%.2f same=%d\n", gBlas, gVx, same ? 1 : 0);
  // Which kernel OpenBLAS chose at run time (DYNAMIC_ARCH), and its build.
  std::printf("RESULT blas_core=%s\n", openblas_get_corename());
  std::printf("RESULT blas_config=%s\n", openblas_get_config());
  return same ? 0 : 1;
}
