// Straightforward reference implementations of examples/*.vx: the same
// vx_fill inputs, naive loops, the checksum lines `vxc run` prints. The
// differential test (differential.sh) compares the three.
//   vx_reference NAME [--seed N] [--arg name=value]...
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "vx/data.h"

namespace {

constexpr size_t T = 128, TT = T * T;  // every example works on 128x128 tiles

std::vector<float> fill(uint64_t seed, uint32_t index, size_t n) {
  std::vector<float> v(n);
  vx_fill(seed, index, v.data(), n);
  return v;
}

// c[T x n] += a[T x T] @ b[T x n], the textbook loop.
void matmulAcc(float* c, const float* a, const float* b, size_t n = T) {
  for (size_t i = 0; i < T; ++i)
    for (size_t j = 0; j < n; ++j) {
      float s = 0;
      for (size_t k = 0; k < T; ++k) s += a[i * T + k] * b[k * n + j];
      c[i * n + j] += s;
    }
}

void print(const char* name, const std::vector<float>& v) {
  std::printf("checksum %s = 0x%016" PRIx64 "\n", name, vx_checksum(v.data(), v.size()));
}

// out = sum_i tiles[i] @ w, w of T x cols: stream_out, ring2, ring3, project.
void streamedMatmul(uint64_t seed, size_t n, size_t cols) {
  std::vector<float> tiles = fill(seed, 0, n * TT), w = fill(seed, 1, T * cols), out(T * cols, 0.0f);
  for (size_t i = 0; i < n; ++i) matmulAcc(out.data(), &tiles[i * TT], w.data(), cols);
  print("out", out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: vx_reference NAME [--seed N] [--arg name=value]...\n");
    return 2;
  }
  std::string name = argv[1];
  uint64_t seed = 0;
  std::map<std::string, uint64_t> args;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--seed") {
      seed = std::strtoull(value.c_str(), nullptr, 10);
    } else if (flag == "--arg" && value.find('=') != std::string::npos) {
      args[value.substr(0, value.find('='))] = std::strtoull(value.substr(value.find('=') + 1).c_str(), nullptr, 10);
    } else {
      std::fprintf(stderr, "bad argument `%s`\n", flag.c_str());
      return 2;
    }
  }
  auto arg = [&](const char* k, uint64_t dflt) { return args.count(k) ? args[k] : dflt; };

  if (name == "stream") {  // ACC += tiles[i] @ identity
    size_t n = arg("tiles", 8);
    std::vector<float> tiles = fill(seed, 0, n * TT), acc(TT, 0.0f);
    for (size_t i = 0; i < n; ++i)
      for (size_t e = 0; e < TT; ++e) acc[e] += tiles[i * TT + e];
    print("acc", acc);
  } else if (name == "stream_out" || name == "ring2" || name == "ring3") {
    streamedMatmul(seed, arg("tiles", 8), T);
  } else if (name == "project") {
    streamedMatmul(seed, arg("tiles", 8), 16);
  } else if (name == "gemm") {
    size_t la = arg("a", 8), lb = arg("b", 8), lc = arg("c", 8), kt = arg("kt", 0);
    std::vector<float> a = fill(seed, 0, la * TT), b = fill(seed, 1, lb * TT), c = fill(seed, 2, lc * TT);
    size_t mt = la / kt, nt = lb / kt;
    for (size_t i = 0; i < mt; ++i)
      for (size_t j = 0; j < nt; ++j) {
        std::vector<float> acc(TT, 0.0f);
        for (size_t k = 0; k < kt; ++k) matmulAcc(acc.data(), &a[(i * kt + k) * TT], &b[(k * nt + j) * TT]);
        std::copy(acc.begin(), acc.end(), c.begin() + static_cast<long>((i * nt + j) * TT));
      }
    print("c", c);
  } else if (name == "epilogue") {  // relu(0.25 * sum_i x[i] @ w + bias)
    size_t n = arg("x", 8);
    std::vector<float> x = fill(seed, 0, n * TT), w = fill(seed, 1, TT), bias = fill(seed, 2, TT), acc(TT, 0.0f);
    for (size_t i = 0; i < n; ++i) matmulAcc(acc.data(), &x[i * TT], w.data());
    for (size_t e = 0; e < TT; ++e) {
      float y = acc[e] * 0.25f + bias[e];
      acc[e] = y > 0.0f ? y : 0.0f;
    }
    print("out", acc);
  } else if (name == "early_exit") {  // sum of tiles[i] @ w over i < limit, i % 3 != 2
    size_t n = arg("tiles", 8), limit = arg("limit", 0);
    std::vector<float> tiles = fill(seed, 0, n * TT), w = fill(seed, 1, TT), out = fill(seed, 2, TT);
    if (limit > 0) {  // limit 0 returns early: `out` keeps what it was filled with
      std::fill(out.begin(), out.end(), 0.0f);
      for (size_t i = 0; i < n && i < limit; ++i)
        if (i % 3 != 2) matmulAcc(out.data(), &tiles[i * TT], w.data());
    }
    print("out", out);
  } else {
    std::fprintf(stderr, "no reference for `%s`\n", name.c_str());
    return 2;
  }
  return 0;
}
