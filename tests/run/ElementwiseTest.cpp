// The elementwise operators of the cpu runtime (include/vx/elementwise.h,
// wide.h, vmath.h) and the matrix unit's ACC += x: the same bits at every
// vector width the CPU has, broadcasts, f32 compute for narrow types, and
// exp, log and tanh against the exact functions. Built with the runtime's
// tests (tests/run/CMakeLists.txt), with the host's vectors and without.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "vx/runtime.h"

#include "TestSupport.h"

namespace {

/* n floats of vx_fill with the values an elementwise loop must not treat
 * differently at any width sprinkled in: signed zeros, infinities, a NaN,
 * a denormal, the largest float. */
std::vector<float> withSpecials(uint32_t index, size_t n) {
  std::vector<float> v = filled(index, n);
  const float special[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                           std::numeric_limits<float>::max()};
  for (size_t i = index % 5; i < n; i += 5) v[i] = special[(i / 5 + index) % 7];
  return v;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  // (An empty vector's data() may be null, which memcmp must not get.)
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

const size_t kWideLengths[] = {0, 1, 15, 16, 17, 33, 1027};

template <typename Op>
void checkBinaryAtEveryWidth(const char* name) {
  CAPTURE(name);
  for (size_t n : kWideLengths) {
    CAPTURE(n);
    std::vector<float> a = withSpecials(30, n + 1), b = withSpecials(31, n + 1);
    const float* pa = a.data() + 1;  // unaligned
    std::vector<float> vv(n), vs(n), sv(n);
    for (size_t i = 0; i < n; ++i) {  // the functor, one element at a time
      vv[i] = Op{}(pa[i], b[i]);
      vs[i] = Op{}(pa[i], b[n]);
      sv[i] = Op{}(a[0], b[i]);
    }
    atEveryWidth([&](vx::rt::gemm::Isa level) {
      std::vector<float> r(n, 7.0f);
      vx::rt::wide::vvFor<Op>(level)(r.data(), pa, b.data(), n);
      CHECK(sameBits(r, vv));
      vx::rt::wide::vsFor<Op>(level)(r.data(), pa, b[n], n);
      CHECK(sameBits(r, vs));
      vx::rt::wide::svFor<Op>(level)(r.data(), a[0], b.data(), n);
      CHECK(sameBits(r, sv));
    });
  }
}

template <typename F>
void checkUnaryAtEveryWidth(const char* name) {
  CAPTURE(name);
  for (size_t n : kWideLengths) {
    CAPTURE(n);
    std::vector<float> x = withSpecials(32, n + 1), want(n);
    for (size_t i = 0; i < n; ++i) want[i] = F::f(x[i + 1]);
    atEveryWidth([&](vx::rt::gemm::Isa level) {
      std::vector<float> y(n, 7.0f);
      vx::rt::wide::unFor<F>(level)(y.data(), x.data() + 1, n);
      CHECK(sameBits(y, want));
      std::vector<float> inPlace(x.begin() + 1, x.end());  // y = f(y), as the `_into` forms may
      vx::rt::wide::unFor<F>(level)(inPlace.data(), inPlace.data(), n);
      CHECK(sameBits(inPlace, want));
    });
  }
}

}  // namespace

TEST_CASE("ACC += x gives the same sums at every vector width the CPU has") {
  using vx::rt::gemm::Isa;
  for (size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{1027}}) {
    std::vector<float> x = filled(17, n + 1), acc0 = filled(18, n + 1);
    std::vector<float> want = acc0;
    vx::rt::gemm::addFloatsFor(Isa::Generic)(want.data(), x.data() + 1, n);  // unaligned source
    CAPTURE(n);
    atEveryWidth([&](Isa level) {
      std::vector<float> acc = acc0;
      vx::rt::gemm::addFloatsFor(level)(acc.data(), x.data() + 1, n);
      CHECK(sameBits(acc, want));
      for (size_t i = 0; i < n; ++i) REQUIRE(want[i] == acc0[i] + x[i + 1]);
    });
  }
}

TEST_CASE("the elementwise loops give the same bits at every vector width the CPU has") {
  namespace fn2 = vx::rt::fn2;
  namespace fn = vx::rt::fn;
  checkBinaryAtEveryWidth<fn2::add>("add");
  checkBinaryAtEveryWidth<fn2::sub>("sub");
  checkBinaryAtEveryWidth<fn2::mul>("mul");
  checkBinaryAtEveryWidth<fn2::div>("div");
  checkBinaryAtEveryWidth<fn2::max>("max");
  checkBinaryAtEveryWidth<fn2::min>("min");
  checkUnaryAtEveryWidth<fn::sqrt>("sqrt");
  checkUnaryAtEveryWidth<fn::rsqrt>("rsqrt");
  checkUnaryAtEveryWidth<fn::abs>("abs");
  checkUnaryAtEveryWidth<fn::neg>("neg");
  checkUnaryAtEveryWidth<fn::relu>("relu");
  for (size_t n : kWideLengths) {
    CAPTURE(n);
    std::vector<float> x = withSpecials(33, n), want(n);
    for (size_t i = 0; i < n; ++i) want[i] = x[i] * -0.375f;
    atEveryWidth([&](vx::rt::gemm::Isa level) {
      std::vector<float> y(n, 7.0f);
      vx::rt::wide::scaleFor(level)(y.data(), x.data(), -0.375f, n);
      CHECK(sameBits(y, want));
    });
  }
}

TEST_CASE("broadcasts give each element its row's or column's operand, for every pair of sides") {
  // Sides: 0 the [R, C] result's shape, 1 a column [R, 1], 2 a row [1, C]
  // (elementwise.h, broadcast); f32 goes row by row through wide.h, other
  // element types element by element. Both against the definition.
  const uint64_t rows = 5, cols = 19;
  auto length = [&](int side) { return side == 0 ? rows * cols : side == 1 ? rows : cols; };
  auto at = [&](int side, uint64_t r, uint64_t c) { return side == 0 ? r * cols + c : side == 1 ? r : c; };
  vx::rt::Arena arena;
  for (int ma = 0; ma < 3; ++ma)
    for (int mb = 0; mb < 3; ++mb) {
      CAPTURE(ma);
      CAPTURE(mb);
      std::vector<float> av = withSpecials(34, length(ma)), bv = withSpecials(35, length(mb));
      vx::rt::Buf<float> a = vx::rt::zeros<float>(arena, length(ma), "t");
      vx::rt::Buf<float> b = vx::rt::zeros<float>(arena, length(mb), "t");
      vx::rt::Buf<double> ad = vx::rt::zeros<double>(arena, length(ma), "t");
      vx::rt::Buf<double> bd = vx::rt::zeros<double>(arena, length(mb), "t");
      for (uint64_t i = 0; i < a.n; ++i) ad.data[i] = a.data[i] = av[i];
      for (uint64_t i = 0; i < b.n; ++i) bd.data[i] = b.data[i] = bv[i];
      vx::rt::Buf<float> r = vx::rt::broadcast(arena, vx::rt::fn2::sub{}, a, ma, b, mb, rows, cols, "t");
      vx::rt::Buf<double> rd = vx::rt::broadcast(arena, vx::rt::fn2::max{}, ad, ma, bd, mb, rows, cols, "t");
      for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t c = 0; c < cols; ++c) {
          float want = av[at(ma, i, c)] - bv[at(mb, i, c)];
          double wantd = vx::rt::fn2::max{}(static_cast<double>(av[at(ma, i, c)]), static_cast<double>(bv[at(mb, i, c)]));
          float got = r.data[i * cols + c];
          double gotd = rd.data[i * cols + c];
          REQUIRE(std::memcmp(&got, &want, sizeof got) == 0);
          REQUIRE(std::memcmp(&gotd, &wantd, sizeof gotd) == 0);
        }
    }
}

TEST_CASE("elementwise ops make new buffers and compute in f32") {
  vx::rt::Arena arena;
  vx::rt::Buf<vx::rt::bf16> a = vx::rt::zeros<vx::rt::bf16>(arena, 4, "t");
  vx::rt::Buf<vx::rt::bf16> b = vx::rt::zeros<vx::rt::bf16>(arena, 4, "t");
  for (int i = 0; i < 4; ++i) {
    a.data[i] = static_cast<float>(i) - 2.0f;
    b.data[i] = 0.5f;
  }
  vx::rt::Buf<vx::rt::bf16> r =
      vx::rt::unary<vx::rt::fn::relu>(arena, vx::rt::scale(arena, vx::rt::add(arena, a, b, "t"), 2.0f, "t"), "t");
  CHECK(static_cast<float>(r.data[0]) == 0.0f);  // relu(2 * -1.5)
  CHECK(static_cast<float>(r.data[3]) == 3.0f);  // 2 * 1.5
  CHECK(static_cast<float>(a.data[3]) == 1.0f);  // operands unchanged
}

TEST_CASE("scale_into and relu_into write an existing buffer and allocate nothing") {
  vx::rt::Arena arena;
  vx::rt::Buf<float> x = vx::rt::zeros<float>(arena, 4, "t");
  vx::rt::Buf<float> y = vx::rt::zeros<float>(arena, 4, "t");
  for (int i = 0; i < 4; ++i) x.data[i] = static_cast<float>(i) - 1.5f;
  x.data[0] = std::numeric_limits<float>::quiet_NaN();
  size_t peak = arena.peak();
  vx::rt::scale_into(y, x, -2.0f, "t");
  CHECK(y.data[1] == 1.0f);  // -2 * -0.5
  CHECK(y.data[3] == -3.0f);
  vx::rt::unary_into<vx::rt::fn::relu>(y, x, "t");
  CHECK(y.data[0] == 0.0f);  // NaN: 0, as the tpu's vec.relu
  CHECK(y.data[1] == 0.0f);
  CHECK(y.data[3] == 1.5f);
  CHECK(arena.peak() == peak);
}

TEST_CASE("f64 buffers scale in f64") {
  vx::rt::Arena arena;
  vx::rt::Buf<double> x = vx::rt::zeros<double>(arena, 3, "t");
  x.data[0] = 1e300;
  x.data[1] = 1e-310;
  x.data[2] = 1.0000000001;
  vx::rt::Buf<double> y = vx::rt::scale(arena, x, 2.0f, "t");
  CHECK(y.data[0] == 2e300);  // not inf: f32 has no room for it
  CHECK(y.data[1] == 2e-310);  // not 0
  CHECK(y.data[2] == 2.0000000002);
  vx::rt::scale_into(y, x, 0.5f, "t");
  CHECK(y.data[0] == 5e299);
}

namespace {

// The 16-bit value of `bits` as a double.
template <typename H>
double widen16(uint16_t bits) {
  H h;
  h.bits = bits;
  return static_cast<double>(static_cast<float>(h));
}

// cast::<H> of f64 values near every midpoint between two finite H values
// whose exponents are in [lo, hi): above it, below it (by less than f32
// resolves), and on it (ties to even).
template <typename H>
void castRoundsOnce(uint16_t firstBits, uint16_t lastBits) {
  vx::rt::Arena arena;
  std::vector<double> in;
  std::vector<uint16_t> want;
  for (uint32_t b = firstBits; b < lastBits; b += 7) {
    double lo = widen16<H>(static_cast<uint16_t>(b)), hi = widen16<H>(static_cast<uint16_t>(b + 1));
    double mid = (lo + hi) / 2;  // exact in f64 (and in f32)
    double eps = std::ldexp(std::fabs(mid), -40);
    in.push_back(mid + eps);
    want.push_back(static_cast<uint16_t>(b + 1));
    in.push_back(mid - eps);
    want.push_back(static_cast<uint16_t>(b));
    in.push_back(mid);
    want.push_back(static_cast<uint16_t>((b & 1) ? b + 1 : b));
  }
  vx::rt::Buf<double> x = vx::rt::zeros<double>(arena, in.size(), "t");
  for (size_t i = 0; i < in.size(); ++i) x.data[i] = in[i];
  vx::rt::Buf<H> r = vx::rt::cast<H>(arena, x, "t");
  size_t wrong = 0;
  for (size_t i = 0; i < in.size(); ++i) wrong += r.data[i].bits != want[i];
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("an f64 cast to bf16 or f16 rounds once, to nearest even") {
  castRoundsOnce<vx::rt::bf16>(0x0001, 0x7f7f);  // denormals up to the largest finite
  castRoundsOnce<vx::rt::f16>(0x0001, 0x7bff);
  vx::rt::Arena arena;
  vx::rt::Buf<double> x = vx::rt::zeros<double>(arena, 5, "t");
  x.data[0] = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);  // above the midpoint by 2^-30
  x.data[1] = 1e300;
  x.data[2] = -1e-300;
  x.data[3] = std::numeric_limits<double>::quiet_NaN();
  x.data[4] = -0.0;
  vx::rt::Buf<vx::rt::bf16> r = vx::rt::cast<vx::rt::bf16>(arena, x, "t");
  CHECK(static_cast<float>(r.data[0]) == 1.0078125f);
  CHECK(std::isinf(static_cast<float>(r.data[1])));
  CHECK(static_cast<float>(r.data[2]) == 0.0f);
  CHECK(std::signbit(static_cast<float>(r.data[2])));
  CHECK(std::isnan(static_cast<float>(r.data[3])));
  CHECK(std::signbit(static_cast<float>(r.data[4])));
}

namespace {

// |got - exact| in units of the last place of the exact result's binade.
double ulpError(float got, double exact) {
  if (std::isnan(exact)) return std::isnan(got) ? 0 : 1e9;
  if (std::isinf(static_cast<float>(exact))) return got == static_cast<float>(exact) ? 0 : 1e9;
  int e = 0;
  std::frexp(exact, &e);
  double ulp = std::max(std::ldexp(1.0, e - 24), 1.401298464324817e-45);
  return std::fabs(static_cast<double>(got) - exact) / ulp;
}

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

TEST_CASE("exp, log and tanh are within 2 ulp over the whole f32 range") {
  double worst[3] = {0, 0, 0};
  // Every 1021st bit pattern: 4.2 million floats of both signs, all binades.
  for (uint64_t b = 0; b <= 0xffffffffull; b += 1021) {
    float x = fromBits(static_cast<uint32_t>(b));
    worst[0] = std::max(worst[0], ulpError(vx::vmath::exp(x), std::exp(static_cast<double>(x))));
    worst[1] = std::max(worst[1], ulpError(vx::vmath::log(x), std::log(static_cast<double>(x))));
    worst[2] = std::max(worst[2], ulpError(vx::vmath::tanh(x), std::tanh(static_cast<double>(x))));
  }
  CHECK(worst[0] <= 2.0);
  CHECK(worst[1] <= 2.0);
  CHECK(worst[2] <= 2.0);
}

TEST_CASE("exp, log and tanh give IEEE special values") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float denormMin = std::numeric_limits<float>::denorm_min();
  CHECK(std::isnan(vx::vmath::exp(nan)));
  CHECK(vx::vmath::exp(inf) == inf);
  CHECK(vx::vmath::exp(-inf) == 0.0f);
  CHECK(vx::vmath::exp(0.0f) == 1.0f);
  CHECK(vx::vmath::exp(89.0f) == inf);                       // overflow
  CHECK(vx::vmath::exp(-100.0f) == std::exp(-100.0f));       // a denormal result, rounded once
  CHECK(std::isnan(vx::vmath::log(-1.0f)));
  CHECK(std::isnan(vx::vmath::log(nan)));
  CHECK(vx::vmath::log(0.0f) == -inf);
  CHECK(vx::vmath::log(-0.0f) == -inf);
  CHECK(vx::vmath::log(inf) == inf);
  CHECK(vx::vmath::log(1.0f) == 0.0f);
  CHECK(ulpError(vx::vmath::log(denormMin), std::log(static_cast<double>(denormMin))) <= 1.0);
  CHECK(std::isnan(vx::vmath::tanh(nan)));
  CHECK(vx::vmath::tanh(inf) == 1.0f);
  CHECK(vx::vmath::tanh(-inf) == -1.0f);
  CHECK(std::signbit(vx::vmath::tanh(-0.0f)));
  CHECK(vx::vmath::tanh(1e-30f) == 1e-30f);
}

TEST_CASE("the buffer loops compute what the scalar functions do, bit for bit") {
  std::vector<float> x(4099), y(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = fromBits(static_cast<uint32_t>(i * 1048573u));
  vx::vmath::exp_n(y.data(), x.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    float s = vx::vmath::exp(x[i]);
    CHECK((std::memcmp(&s, &y[i], 4) == 0 || (std::isnan(s) && std::isnan(y[i]))));
  }
  vx::vmath::log_n(y.data(), x.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    float s = vx::vmath::log(x[i]);
    CHECK((std::memcmp(&s, &y[i], 4) == 0 || (std::isnan(s) && std::isnan(y[i]))));
  }
  vx::vmath::tanh_n(y.data(), x.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    float s = vx::vmath::tanh(x[i]);
    CHECK((std::memcmp(&s, &y[i], 4) == 0 || (std::isnan(s) && std::isnan(y[i]))));
  }
}
