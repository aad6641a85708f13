// include/vx/data.h: the fill and checksum every target shares.
#include <cmath>
#include <vector>

#include <doctest/doctest.h>

#include "vx/data.h"

TEST_CASE("vx_fill gives multiples of 1/8 in [-2, 2], all 33 of them") {
  std::vector<float> v(100000);
  vx_fill(1, 0, v.data(), v.size());
  std::vector<int> seen(33, 0);
  for (float x : v) {
    REQUIRE(x >= -2.0f);
    REQUIRE(x <= 2.0f);
    const float eighths = x * 8;
    REQUIRE(eighths == std::floor(eighths));
    ++seen[static_cast<size_t>(eighths + 16)];
    const bool negativeZero = std::signbit(x) && x == 0.0f;
    REQUIRE_FALSE(negativeZero);
  }
  for (int n : seen) CHECK(n > 2500);  // about 3030 each
}

TEST_CASE("vx_fill is deterministic, and differs by seed and by buffer index") {
  std::vector<float> a(64), b(64), c(64), d(64);
  vx_fill(7, 2, a.data(), 64);
  vx_fill(7, 2, b.data(), 64);
  vx_fill(8, 2, c.data(), 64);
  vx_fill(7, 3, d.data(), 64);
  CHECK(a == b);
  CHECK(a != c);
  CHECK(a != d);
  // A prefix of a longer fill is the shorter fill.
  std::vector<float> longer(128);
  vx_fill(7, 2, longer.data(), 128);
  CHECK(std::vector<float>(longer.begin(), longer.begin() + 64) == a);
}

TEST_CASE("vx_fill's first values are pinned, so every target agrees") {
  float v[4];
  vx_fill(0, 0, v, 4);
  uint64_t state = 0x632BE59BD9B4E019ULL;
  for (float x : v) CHECK(x == static_cast<float>(static_cast<int>((vx_splitmix64(&state) >> 32) % 33) - 16) / 8.0f);
  CHECK(vx_checksum(v, 4) == vx_checksum(v, 4));
}

TEST_CASE("vx_checksum is FNV-1a 64 over little-endian bytes, with -0.0 as 0.0") {
  CHECK(vx_checksum(nullptr, 0) == 0xcbf29ce484222325ULL);
  // FNV-1a of the bytes 00 00 80 3f (1.0f).
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char byte : {0x00, 0x00, 0x80, 0x3f}) {
    h ^= byte;
    h *= 0x100000001b3ULL;
  }
  const float one = 1.0f;
  CHECK(vx_checksum(&one, 1) == h);
  const float zeros[2] = {0.0f, -0.0f};
  const float plain[2] = {0.0f, 0.0f};
  CHECK(vx_checksum(zeros, 2) == vx_checksum(plain, 2));
  const float swapped[2] = {1.0f, 2.0f}, order[2] = {2.0f, 1.0f};
  CHECK(vx_checksum(swapped, 2) != vx_checksum(order, 2));
}

TEST_CASE("every fill value survives bf16 exactly; narrowing rounds to nearest even") {
  for (int i = -16; i <= 16; ++i) {
    const float x = static_cast<float>(i) / 8.0f;
    CHECK(vx_f32_from_bf16(vx_bf16_from_f32(x)) == x);
  }
  CHECK(vx_f32_from_bf16(vx_bf16_from_f32(1.0f + 1.0f / 256)) == 1.0f);           // tie, to even
  CHECK(vx_f32_from_bf16(vx_bf16_from_f32(1.0f + 3.0f / 256)) == 1.0f + 1.0f / 64);  // tie, to even
  CHECK(std::isnan(vx_f32_from_bf16(vx_bf16_from_f32(std::nanf("")))));
}
