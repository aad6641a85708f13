// e^x, ln x and tanh x over a buffer of 16384 f32: libm per element against
// include/vx/vmath.h's loops (what the cpu runtime runs), best of 300 runs
// each, in one process; built by bench/vmath.sh portably (the loops pick
// their AVX2 clone at run time) and with -march=native.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "vx/vmath.h"

namespace {

template <typename F>
double best(F f) {
  double b = 1e9;
  for (int r = 0; r < 300; ++r) {
    auto t = std::chrono::steady_clock::now();
    f();
    b = std::min(b, std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  }
  return b;
}

__attribute__((noinline)) void libmExp(float* y, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}
__attribute__((noinline)) void libmLog(float* y, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = std::log(x[i]);
}
__attribute__((noinline)) void libmTanh(float* y, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
}

}  // namespace

int main() {
  std::vector<float> x(16384), y(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 997) / 100.0f + 0.01f;  // (0, 10]
  struct Row {
    const char* name;
    void (*libm)(float*, const float*, size_t);
    void (*vm)(float*, const float*, uint64_t);
  } rows[] = {{"exp", libmExp, vx::vmath::exp_n}, {"log", libmLog, vx::vmath::log_n}, {"tanh", libmTanh, vx::vmath::tanh_n}};
  for (const Row& r : rows) {
    double a = best([&] { r.libm(y.data(), x.data(), x.size()); });
    double b = best([&] { r.vm(y.data(), x.data(), x.size()); });
    std::printf("  %-4s libm %6.1f us, vx::vmath %6.1f us: %.1fx\n", r.name, a * 1e6, b * 1e6, a / b);
  }
}
