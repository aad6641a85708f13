// The tensor-core path of the b200 and h100 targets (include/vx/cuda/mma.h,
// layout.h) under the interpreter: built twice, with VX_CUDA_SM=100
// (tcgen05 into tensor memory) and VX_CUDA_SM=90 (wgmma into registers).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "vx/cuda/runtime.h"

namespace {

using namespace vx::cu;

TEST_CASE("the 128-byte swizzle permutes the 16-byte chunks within each row of an atom") {
  std::set<uint32_t> seen;
  for (uint32_t r = 0; r < kTileM; ++r)
    for (uint32_t k = 0; k < 32; ++k) {
      uint32_t off = tc::stagedOffset(r, k);
      CHECK((off / tc::kRowBytes) == r);  // the row stays in its 128 bytes
      CHECK((off % 16) == (k * 4) % 16);  // bytes within a chunk keep their place
      seen.insert(off);
    }
  CHECK(seen.size() == kTileM * 32);
  CHECK(tc::stagedOffset(0, 4) == 16);   // row 0: no swizzle
  CHECK(tc::stagedOffset(1, 0) == 128 + 16);  // row 1: chunk 0 <-> chunk 1
  CHECK(tc::stagedOffset(7, 31) == 7 * 128 + 0 * 16 + 12);  // row 7: chunk 7 <-> chunk 0
  CHECK(tc::stagedOffset(8, 4) == 1024 + 16);  // the next atom starts over
}

TEST_CASE("descriptors carry the fields the PTX ISA defines") {
  // start 0x4000 >> 4, LBO 1 (16 bytes), SBO 1024 >> 4, version 1, SWIZZLE_128B = 2
  CHECK(tc::ummaDesc(0x4000) == 0x4000404000010400ull);
  // wgmma: the same fields, no version, SWIZZLE_128B = 1 in bits 62-63
  CHECK(tc::gmmaDesc(0x4000) == 0x4000004000010400ull);
  // kind::tf32: D f32, A and B tf32, K-major, N=64 >> 3, M=128 >> 4
  CHECK(tc::ummaInstrDesc(128, 64) == ((1u << 4) | (2u << 7) | (2u << 10) | (8u << 17) | (8u << 24)));
  CHECK((tc::ummaInstrDesc(128, 256) >> 17) == ((128u >> 4) << 7 | (256u >> 3)));
}

TEST_CASE("each wgmma accumulator cell belongs to one register of one thread") {
  std::set<uint32_t> cells;
  for (uint32_t t = 0; t < 128; ++t)
    for (uint32_t j = 0; j < 32; ++j) {
      REQUIRE(tc::fragRow(t, j) < 64);
      REQUIRE(tc::fragCol(t, j) < 64);
      cells.insert(tc::fragRow(t, j) * 64 + tc::fragCol(t, j));
    }
  CHECK(cells.size() == 64 * 64);
  CHECK(tc::fragRow(37, 2) == 16 + 1 + 8);  // warp 1, lane 5: rows 17 and 25
  CHECK(tc::fragCol(37, 5) == 8 + 2 + 1);
}

TEST_CASE("tf32 keeps 10 mantissa bits and drops the rest toward zero") {
  CHECK(tc::tf32(1.0f + std::ldexp(1.0f, -10)) == 1.0f + std::ldexp(1.0f, -10));
  CHECK(tc::tf32(1.0f + std::ldexp(1.0f, -11)) == 1.0f);
  CHECK(tc::tf32(-(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -12))) == -1.0f);
  CHECK(tc::tf32(0.1f) < 0.1f);
  CHECK(std::isnan(tc::tf32(std::nanf(""))));
  CHECK(std::isinf(tc::tf32(INFINITY)));
}

/* acc += a @ b through the layer, in a fresh launch of the interpreter. */
template <typename TA, typename TB>
std::vector<float> run(const std::vector<TA>& a, const std::vector<TB>& b, std::vector<float> acc, uint64_t R, uint64_t N,
                       uint64_t K) {
  interp::state().begin();
  TensorCore t;
  t.stage = interp::state().block().smem;
  gemm(t, acc.data(), a.data(), b.data(), R, N, K, "TensorCoresTest");
  releaseTensorCore(t, "TensorCoresTest");
  interp::state().finish("TensorCoresTest");
  return acc;
}

TEST_CASE("a product of any shape is the tf32 products summed in f32") {
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  struct Shape {
    uint64_t R, N, K;
  };
  for (Shape s : {Shape{1, 1, 1}, Shape{128, 64, 32}, Shape{130, 70, 37}, Shape{5, 200, 70}, Shape{257, 9, 8}}) {
    CAPTURE(s.R);
    CAPTURE(s.N);
    CAPTURE(s.K);
    std::vector<float> a(s.R * s.K), b(s.K * s.N), acc0(s.R * s.N);
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
    for (float& x : acc0) x = u(rng);
    std::vector<float> got = run(a, b, acc0, s.R, s.N, s.K);
    bool truncated = false;
    for (uint64_t r = 0; r < s.R; ++r)
      for (uint64_t n = 0; n < s.N; ++n) {
        double tf = acc0[r * s.N + n], exact = tf, mag = std::fabs(tf);
        for (uint64_t k = 0; k < s.K; ++k) {
          double x = a[r * s.K + k], y = b[k * s.N + n];
          tf += static_cast<double>(tc::tf32(a[r * s.K + k])) * tc::tf32(b[k * s.N + n]);
          exact += x * y;
          mag += std::fabs(x * y);
        }
        const double g = got[r * s.N + n];
        // f32 accumulation of K + 1 terms
        REQUIRE(std::fabs(g - tf) <= (static_cast<double>(s.K) + 2) * std::ldexp(1.0, -23) * mag);
        // tf32 operands: each product within 2^-9 of the exact one
        REQUIRE(std::fabs(g - exact) <= std::ldexp(1.0, -9) * mag + 1e-6);
        truncated = truncated || g != static_cast<float>(exact);
      }
    CHECK(truncated);
  }
}

TEST_CASE("bf16 and f16 operands multiply exactly") {
  const uint64_t R = 40, N = 24, K = 50;
  std::vector<vx::rt::bf16> a(R * K);
  std::vector<vx::rt::f16> b(K * N);
  for (uint64_t i = 0; i < a.size(); ++i) a[i] = vx::rt::bf16(static_cast<float>(static_cast<int>(i % 19) - 9) * 0.375f);
  for (uint64_t i = 0; i < b.size(); ++i) b[i] = vx::rt::f16(static_cast<float>(static_cast<int>(i % 23) - 11) * 0.125f);
  std::vector<float> got = run(a, b, std::vector<float>(R * N, 1.0f), R, N, K);
  for (uint64_t r = 0; r < R; ++r)
    for (uint64_t n = 0; n < N; ++n) {
      float want = 1.0f;
      for (uint64_t k = 0; k < K; ++k) want += static_cast<float>(a[r * K + k]) * static_cast<float>(b[k * N + n]);
      REQUIRE(got[r * N + n] == want);
    }
}

TEST_CASE("f64 operands run on the SIMT path in f32, as the cpu target computes them") {
  const uint64_t R = 3, N = 2, K = 4;
  std::vector<double> a(R * K, 0.1), b(K * N, 0.3);
  std::vector<float> got = run(a, b, std::vector<float>(R * N, 0.0f), R, N, K);
  float want = 0.0f;
  for (uint64_t k = 0; k < K; ++k) want += 0.1f * 0.3f;
  for (float g : got) CHECK(g == want);  // 0.1f * 0.3f is not tf32: no tensor core ran
}

// Two kernels of different signatures, as two entries of one program.
VX_GLOBAL void kernelOne(Scratch s, Hbm<float> out) {
  Invocation inv(s);
  out.store(0, 1.0f, "one");
  inv.finish("one");
}
VX_GLOBAL void kernelTwo(Scratch s, Hbm<float> out, uint64_t v) {
  Invocation inv(s);
  out.store(0, static_cast<float>(v), "two");
  inv.finish("two");
}

TEST_CASE("the self-tests run once per process, whichever kernels are launched") {
  // Launching runs both self-tests first: the tensor cores on tf32-exact
  // values, then bulk copies in and out around non-exact operands (a
  // failure ends the process with status 101, failing this test).
  HostInvocation host;
  std::vector<float> out(1, 0.0f);
  {
    Launch l(host, "one");
    float* d = l.input(out.data(), out.size());
    l.run(kernelOne, Hbm<float>{d, 1});
    l.output(out.data(), d, 1);
  }
  CHECK(out[0] == 1.0f);
  CHECK(selftest::runs() == 1);
  {
    Launch l(host, "two");
    float* d = l.input(out.data(), out.size());
    l.run(kernelTwo, Hbm<float>{d, 1}, uint64_t{7});
    l.output(out.data(), d, 1);
  }
  CHECK(out[0] == 7.0f);
  CHECK(selftest::runs() == 1);  // not once per kernel signature
}

}  // namespace
