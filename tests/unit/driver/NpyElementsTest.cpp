#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <limits>

#include "driver/Npy.h"

using vx::driver::encodeElements;

namespace {
uint16_t half(const std::string& bytes) {
  uint16_t h;
  std::memcpy(&h, bytes.data(), 2);
  return h;
}
float single(const std::string& bytes) {
  float f;
  std::memcpy(&f, bytes.data(), 4);
  return f;
}
}  // namespace

TEST_CASE("f64 values round once to the nearest bf16 and f16, not through the nearest f32") {
  // 1 + 2^-8 + 2^-40: above bf16's halfway point between 1 and 1 + 2^-7.
  // Rounded to f32 first, it lands on the halfway point and ties to even (1.0).
  CHECK(half(encodeElements({1.0 + 0x1p-8 + 0x1p-40}, "bf16")) == 0x3f81);  // 1.0078125
  CHECK(half(encodeElements({1.0 + 0x1p-8}, "bf16")) == 0x3f80);            // a tie: to even
  CHECK(half(encodeElements({1.0 + 0x1p-8 - 0x1p-40}, "bf16")) == 0x3f80);
  CHECK(half(encodeElements({-(1.0 + 0x1p-8 + 0x1p-40)}, "bf16")) == 0xbf81);
  // f16: 1 + 2^-11 + 2^-40 rounds up to 1 + 2^-10.
  CHECK(half(encodeElements({1.0 + 0x1p-11 + 0x1p-40}, "f16")) == 0x3c01);
  CHECK(half(encodeElements({1.0 + 0x1p-11}, "f16")) == 0x3c00);
  // Subnormal f16: just above half the smallest is the smallest.
  CHECK(half(encodeElements({0x1p-25 + 0x1p-60}, "f16")) == 0x0001);
  CHECK(half(encodeElements({0x1p-25}, "f16")) == 0x0000);
  // Exact values stay exact; NaN stays NaN.
  CHECK(half(encodeElements({1.5}, "bf16")) == 0x3fc0);
  CHECK((half(encodeElements({std::numeric_limits<double>::quiet_NaN()}, "bf16")) & 0x7fff) > 0x7f80);
}

TEST_CASE("f64 values past FLT_MAX by less than half an ulp round to FLT_MAX") {
  const float max = std::numeric_limits<float>::max();
  CHECK(single(encodeElements({3.4028235e38}, "f32")) == max);
  CHECK(single(encodeElements({-3.4028235e38}, "f32")) == -max);
  CHECK(single(encodeElements({0x1.fffffefp127}, "f32")) == max);
  CHECK(single(encodeElements({0x1.ffffffp127}, "f32")) == std::numeric_limits<float>::infinity());  // a tie: to even
  CHECK(single(encodeElements({1e39}, "f32")) == std::numeric_limits<float>::infinity());
  // bf16 has no FLT_MAX: it rounds up to infinity.
  CHECK(half(encodeElements({3.4028235e38}, "bf16")) == 0x7f80);
}
