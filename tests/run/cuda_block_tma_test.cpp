// Block copies of the b200/h100 layer (include/vx/cuda/copies.h, tma.h)
// under the interpreter, against a host reference: a block lands where the
// reference says (in the tensor cores' 128-byte swizzle when its rows are
// 32 f32, row-major otherwise), a swizzled block reads back row-major and
// stores through its tensor map unchanged (the round trip), a box past the
// tensor's edge lands zeros and stores only what lies inside, blocks
// without a map move row by row, and `mma` reads a swizzled A in place with
// the same result as from a row-major A. Built once per modelled machine
// (VX_CUDA_SM 100 and 90).
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "vx/cuda/runtime.h"

using namespace vx::cu;

namespace {

constexpr uint64_t kRows = 200, kCols = 96;  // the tensor the blocks are cut from
constexpr const char* kAt = "cuda_block_tma_test";

float value(uint64_t r, uint64_t c) { return static_cast<float>((r * 131 + c * 7) % 961) / 8.0f - 60.0f; }

std::vector<float> tensor() {
  std::vector<float> t(kRows * kCols);
  for (uint64_t r = 0; r < kRows; ++r)
    for (uint64_t c = 0; c < kCols; ++c) t[r * kCols + c] = value(r, c);
  return t;
}

// What the kernel saw of the block as it landed.
struct Seen {
  std::vector<float> raw;
  uint32_t swizzled = 0;
};

// Copies block (r, c) of R x C of `a` on chip, records its bytes and
// layout, and stores it to the same block of `out`.
VX_GLOBAL void copyBlock(Scratch s, Hbm<float> a, Hbm<float> out, float* raw, uint32_t* swizzled, uint64_t r,
                         uint64_t c, uint64_t R, uint64_t C) {
  Invocation inv(s);
  {
    Buf<float> buf = zeros<float>(inv.arena, R * C, kAt);
    VoidToken t = transfer_async_into(block(a, r, c, R, C, kRows, kCols, false, kAt), buf, kAt);
    wait(t, kAt);
    t = {};
    *swizzled = inv.arena.allSwizzled(buf.data, R * C * sizeof(float)) ? 1u : 0u;
    std::memcpy(raw, buf.data, R * C * sizeof(float));
    store(buf, block(out, r, c, R, C, kRows, kCols, false, kAt), kAt);
  }
  inv.finish(kAt);
}

struct Run {
  Seen seen;
  std::vector<float> out;
};

// One launch of copyBlock; `boxes`: the shapes the launcher encodes maps for.
Run copy(uint64_t r, uint64_t c, uint64_t R, uint64_t C, std::initializer_list<tma::Box> boxes) {
  HostInvocation host;
  Run run;
  std::vector<float> a = tensor();
  run.out.assign(kRows * kCols, -1.0f);
  run.seen.raw.assign(R * C, 0.0f);
  Launch l(host, "copy");
  float* da = l.input(a.data(), a.size());
  float* dout = l.input(run.out.data(), run.out.size());
  const tma::Maps* ma = l.maps(da, kRows, kCols, boxes);
  const tma::Maps* mo = l.maps(dout, kRows, kCols, boxes);
  l.run(copyBlock, Hbm<float>{da, kRows * kCols, 0, 0, ma}, Hbm<float>{dout, kRows * kCols, 0, 0, mo},
        run.seen.raw.data(), &run.seen.swizzled, r, c, R, C);
  l.output(run.out.data(), dout, run.out.size());
  return run;
}

// The stored block holds the tensor's values inside the tensor; the rest of
// `out` is untouched.
void checkStored(const Run& run, uint64_t r, uint64_t c, uint64_t R, uint64_t C) {
  for (uint64_t i = 0; i < kRows; ++i)
    for (uint64_t j = 0; j < kCols; ++j) {
      const bool in = i >= r && i < r + R && j >= c && j < c + C;
      CAPTURE(i);
      CAPTURE(j);
      REQUIRE(run.out[i * kCols + j] == (in ? value(i, j) : -1.0f));
    }
}

TEST_CASE("the driver's rules for a tensor map are the interpreter's") {
  CHECK(tma::encodable(0x1000, 4, 200, 96, 128, 32, tma::Swizzle::B128));
  CHECK_FALSE(tma::encodable(0x1004, 4, 200, 96, 128, 32, tma::Swizzle::None));  // base not 16-byte aligned
  CHECK_FALSE(tma::encodable(0x1000, 4, 200, 90, 8, 8, tma::Swizzle::None));     // rows 360 bytes apart
  CHECK_FALSE(tma::encodable(0x1000, 4, 200, 96, 257, 8, tma::Swizzle::None));   // a box over 256 rows
  CHECK_FALSE(tma::encodable(0x1000, 4, 200, 96, 8, 3, tma::Swizzle::None));     // box rows of 12 bytes
  CHECK_FALSE(tma::encodable(0x1000, 4, 200, 96, 8, 64, tma::Swizzle::B128));    // 256-byte rows, 128-byte swizzle
  CHECK(tma::encodable(0x1000, 4, 200, 96, 8, 64, tma::Swizzle::None));
  tma::Maps m{};
  m.base = reinterpret_cast<const void*>(0x1000);
  m.rows = 200;
  m.cols = 96;
  m.elemBytes = 4;
  int32_t x = -1, y = -1;
  REQUIRE(tma::coords(&m, reinterpret_cast<const void*>(0x1000 + (41 * 96 + 33) * 4), &x, &y));
  CHECK(x == 33);
  CHECK(y == 41);
}

TEST_CASE("a block of 32 f32 columns lands in the tensor cores' swizzle and round-trips") {
  const uint64_t r = 40, c = 32, R = 128, C = 32;
  Run run = copy(r, c, R, C, {{128, 32}});
  CHECK(run.seen.swizzled == 1);
  for (uint64_t i = 0; i < R; ++i)
    for (uint64_t j = 0; j < C; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      // Element (i, j) at the swizzled byte offset of its row-major place.
      REQUIRE(run.seen.raw[tc::swizzle128(static_cast<uint32_t>(i * 128 + j * 4)) / 4] == value(r + i, c + j));
    }
  checkStored(run, r, c, R, C);  // read back row-major, stored through the map
}

TEST_CASE("a block of wider rows lands row-major through its map") {
  const uint64_t r = 8, c = 16, R = 32, C = 64;
  Run run = copy(r, c, R, C, {{32, 64}});
  CHECK(run.seen.swizzled == 0);
  for (uint64_t i = 0; i < R; ++i)
    for (uint64_t j = 0; j < C; ++j) REQUIRE(run.seen.raw[i * C + j] == value(r + i, c + j));
  checkStored(run, r, c, R, C);
}

TEST_CASE("a box past the tensor's edge lands zeros there and stores only inside") {
  const uint64_t r = 192, c = 64, R = 16, C = 32;  // rows 200..207 lie outside
  Run run = copy(r, c, R, C, {{16, 32}});
  CHECK(run.seen.swizzled == 1);
  for (uint64_t i = 0; i < R; ++i)
    for (uint64_t j = 0; j < C; ++j) {
      const float want = r + i < kRows ? value(r + i, c + j) : 0.0f;
      REQUIRE(run.seen.raw[tc::swizzle128(static_cast<uint32_t>(i * 128 + j * 4)) / 4] == want);
    }
  checkStored(run, r, c, kRows - r, C);
}

TEST_CASE("blocks without a map move row by row, or by all threads") {
  {
    const uint64_t r = 3, c = 12, R = 24, C = 40;  // no map for this box: one bulk copy per row
    Run run = copy(r, c, R, C, {{128, 32}});
    CHECK(run.seen.swizzled == 0);
    for (uint64_t i = 0; i < R; ++i)
      for (uint64_t j = 0; j < C; ++j) REQUIRE(run.seen.raw[i * C + j] == value(r + i, c + j));
    checkStored(run, r, c, R, C);
  }
  {
    const uint64_t r = 5, c = 7, R = 9, C = 3;  // rows of 12 bytes: no bulk copy moves them
    Run run = copy(r, c, R, C, {{9, 3}});
    for (uint64_t i = 0; i < R; ++i)
      for (uint64_t j = 0; j < C; ++j) REQUIRE(run.seen.raw[i * C + j] == value(r + i, c + j));
    checkStored(run, r, c, R, C);
  }
}

// acc1 = A @ B with A read in place (swizzled); acc2 the same after A is
// made row-major (staged); both into `out` side by side.
VX_GLOBAL void productBothWays(Scratch s, Hbm<float> a, Hbm<float> b, float* out, uint32_t* inPlace, uint64_t R,
                               uint64_t N) {
  Invocation inv(s);
  {
    Buf<float> x = zeros<float>(inv.arena, R * 32, kAt);
    Buf<float> y = zeros<float>(inv.arena, 32 * N, kAt);
    wait(transfer_async_into(block(a, 0, 32, R, 32, kRows, kCols, false, kAt), x, kAt), kAt);
    wait(transfer_async_into(block(b, 0, 0, 32, N, 32, N, false, kAt), y, kAt), kAt);
    *inPlace = inv.arena.allSwizzled(x.data, R * 32 * sizeof(float)) ? 1u : 0u;
    Buf<float> acc1 = zeros<float>(inv.arena, R * N, kAt);
    mma(inv.tc, acc1, x, y, R, N, 32, kAt);
    linear(x, kAt);
    Buf<float> acc2 = zeros<float>(inv.arena, R * N, kAt);
    mma(inv.tc, acc2, x, y, R, N, 32, kAt);
    vx::cu::sync();
    std::memcpy(out, acc1.data, R * N * sizeof(float));
    std::memcpy(out + R * N, acc2.data, R * N * sizeof(float));
  }
  inv.finish(kAt);
}

TEST_CASE("mma reads a swizzled A in place, as it reads a row-major one") {
  const uint64_t R = 128, N = 80;  // two column tiles, the second partial: B's buffers alternate
  std::vector<float> a = tensor(), b(32 * N);
  for (uint64_t k = 0; k < 32; ++k)
    for (uint64_t n = 0; n < N; ++n) b[k * N + n] = static_cast<float>(static_cast<int>((k * 5 + n * 3) % 17) - 8) / 4.0f;
  std::vector<float> out(2 * R * N, 0.0f);
  uint32_t inPlace = 0;
  HostInvocation host;
  {
    Launch l(host, "product");
    float* da = l.input(a.data(), a.size());
    float* db = l.input(b.data(), b.size());
    const tma::Maps* ma = l.maps(da, kRows, kCols, {{static_cast<uint32_t>(R), 32}});
    const tma::Maps* mb = l.maps(db, 32, N, {{32, static_cast<uint32_t>(N)}});
    l.run(productBothWays, Hbm<float>{da, kRows * kCols, 0, 0, ma}, Hbm<float>{db, 32 * N, 0, 0, mb}, out.data(),
          &inPlace, R, N);
  }
  CHECK(inPlace == 1);
  for (uint64_t i = 0; i < R; ++i)
    for (uint64_t n = 0; n < N; ++n) {
      float want = 0.0f;  // exact: multiples of 1/32 well inside f32 and tf32
      for (uint64_t k = 0; k < 32; ++k) want += value(i, 32 + k) * b[k * N + n];
      CAPTURE(i);
      CAPTURE(n);
      REQUIRE(out[i * N + n] == want);
      REQUIRE(out[R * N + i * N + n] == want);
    }
}

}  // namespace
