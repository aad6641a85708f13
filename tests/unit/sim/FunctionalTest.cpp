// vxsim computes the right values: checksums equal C++ references built
// from the same vx_fill data.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "SimTestUtil.h"

using namespace simtest;
using vx::sim::Options;
using vx::sim::Result;
using vx::sim::Status;

namespace {
std::string readFile(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("the double-buffered stream of 8 tiles equals the C++ reference") {
  Options opt;
  opt.seed = 7;
  Result r = runText(readFile(VX_SOURCE_DIR "/tests/tpu/stream_double_buffered.vxdma"), opt);
  REQUIRE(r.status == Status::Ok);
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.outputs[0].name == "out");
  CHECK(r.outputs[0].checksum == streamReference(7, 8, 128));
}

TEST_CASE("the blocking stream gives the same checksum as the double-buffered one") {
  for (uint64_t seed : {0ull, 1ull, 12345ull}) {
    Options opt;
    opt.seed = seed;
    Result a = runText(readFile(VX_SOURCE_DIR "/tests/tpu/stream_blocking.vxdma"), opt);
    Result b = runText(readFile(VX_SOURCE_DIR "/tests/tpu/stream_double_buffered.vxdma"), opt);
    REQUIRE(a.status == Status::Ok);
    REQUIRE(b.status == Status::Ok);
    CHECK(a.outputs[0].checksum == b.outputs[0].checksum);
    CHECK(a.outputs[0].checksum == streamReference(seed, 8, 128));
  }
}

TEST_CASE("--arg binds a parameter: the loop runs n times, including n = 1") {
  for (int n : {1, 2, 3, 11}) {
    for (int depth : {1, 2, 3}) {
      Options opt;
      opt.seed = 3;
      opt.args = {{"n", n}};
      Result r = runText(streamProgram(64, depth), opt);
      INFO("n=" << n << " depth=" << depth);
      REQUIRE(r.status == Status::Ok);
      CHECK(r.outputs[0].checksum == streamReference(3, n, 64));
    }
  }
}

TEST_CASE("the matrix unit multiplies by the identity until weights are latched") {
  Options opt;
  opt.keepOutputs = true;
  opt.seed = 5;
  Result r = runText(
      ".vxdma 1\n.hbm x f32 [8, 128] input\n.hbm y f32 [8, 128] output\n.vmem v f32 [8, 128]\n"
      "  dma.start x, v, 4096, sem0\n  dma.wait sem0\n  mxu.matmul v, [8, 128]\n  mxu.matmul v, [8, 128]\n"
      "  mxu.pop v, [8, 128]\n  dma.start v, y, 4096, sem0\n  dma.wait sem0\n  halt\n",
      opt);
  REQUIRE(r.status == Status::Ok);
  std::vector<float> x(8 * 128);
  vx_fill(5, 0, x.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) CHECK(r.outputs[0].values[i] == 2 * x[i]);
}

TEST_CASE("small latched weights: [4, 2] @ [2, 3]") {
  Options opt;
  opt.keepOutputs = true;
  Result r = runText(
      ".vxdma 1\n.hbm a f32 [4, 2] input\n.hbm w f32 [2, 3] input\n.hbm c f32 [4, 3] output\n"
      ".vmem va f32 [4, 2]\n.vmem vw f32 [2, 3]\n.vmem vc f32 [4, 3]\n"
      "  dma.start a, va, 32, sem0\n  dma.start w, vw, 24, sem1\n  dma.wait sem0\n  dma.wait sem1\n"
      "  mxu.latch vw, [2, 3]\n  mxu.matmul va, [4, 2]\n  mxu.pop vc, [4, 3]\n"
      "  dma.start vc, c, 48, sem0\n  dma.wait sem0\n  halt\n",
      opt);
  REQUIRE(r.status == Status::Ok);
  std::vector<float> a(8), w(6);
  vx_fill(0, 0, a.data(), 8);
  vx_fill(0, 1, w.data(), 6);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) CHECK(r.outputs[0].values[i * 3 + j] == a[i * 2] * w[j] + a[i * 2 + 1] * w[3 + j]);
}

TEST_CASE("vector instructions: add, sub, mul, max, relu, scale, copy, zero") {
  Options opt;
  opt.keepOutputs = true;
  opt.seed = 9;
  Result r = runText(
      ".vxdma 1\n.hbm a f32 [8, 128] input\n.hbm b f32 [8, 128] input\n.hbm o f32 [8, 8, 128] output\n"
      ".vmem va f32 [8, 128]\n.vmem vb f32 [8, 128]\n.vmem vo f32 [8, 8, 128]\n"
      "  dma.start a, va, 4096, sem0\n  dma.start b, vb, 4096, sem1\n  dma.wait sem0\n  dma.wait sem1\n"
      "  vec.add vo, va, vb, [8, 128]\n  vec.sub vo[4096], va, vb, [8, 128]\n  vec.mul vo[8192], va, vb, [8, 128]\n"
      "  vec.max vo[12288], va, vb, [8, 128]\n  vec.relu vo[16384], va, [8, 128]\n"
      "  vec.scale vo[20480], va, -0.5, [8, 128]\n  vec.copy vo[24576], vb, [8, 128]\n"
      "  vec.copy vo[28672], va, [8, 128]\n  vec.zero vo[28672], [4, 128]\n"
      "  dma.start vo, o, 32768, sem0\n  dma.wait sem0\n  halt\n",
      opt);
  REQUIRE(r.status == Status::Ok);
  std::vector<float> a(1024), b(1024);
  vx_fill(9, 0, a.data(), 1024);
  vx_fill(9, 1, b.data(), 1024);
  const std::vector<float>& o = r.outputs[0].values;
  for (size_t i = 0; i < 1024; ++i) {
    CHECK(o[i] == a[i] + b[i]);
    CHECK(o[1024 + i] == a[i] - b[i]);
    CHECK(o[2048 + i] == a[i] * b[i]);
    CHECK(o[3072 + i] == std::max(a[i], b[i]));
    CHECK(o[4096 + i] == std::max(a[i], 0.0f));
    CHECK(o[5120 + i] == a[i] * -0.5f);
    CHECK(o[6144 + i] == b[i]);
    CHECK(o[7168 + i] == (i < 512 ? 0.0f : a[i]));
  }
}

TEST_CASE("bf16 buffers are filled, multiplied and checksummed as widened f32") {
  Options opt;
  opt.seed = 11;
  Result r = runText(
      ".vxdma 1\n.hbm x bf16 [16, 128] input\n.hbm y f32 [16, 128] output\n.vmem v bf16 [16, 128]\n"
      ".vmem acc f32 [16, 128]\n  dma.start x, v, 4096, sem0\n  dma.wait sem0\n  mxu.matmul v, [16, 128]\n"
      "  mxu.pop acc, [16, 128]\n  dma.start acc, y, 8192, sem0\n  dma.wait sem0\n  halt\n",
      opt);
  REQUIRE(r.status == Status::Ok);
  std::vector<float> x(16 * 128);
  vx_fill(11, 0, x.data(), x.size());
  CHECK(r.outputs[0].checksum == vx_checksum(x.data(), x.size()));
}

TEST_CASE("scalar arithmetic follows Rust: truncating division, remainder takes the dividend's sign") {
  Result r = runText(
      ".vxdma 1\n.smem s i64 [4]\n  li r1, -7\n  div r2, r1, 2\n  rem r3, r1, 2\n  rem r4, r1, -2\n"
      "  li r5, 9223372036854775807\n  add r6, r5, 1\n  mul r7, r5, 2\n  shl r8, r1, 3\n  shr r9, r1, 1\n"
      "  st.smem s[8], r6\n  ld.smem r10, s[8]\n  slt r11, r1, 0\n  sge r12, r1, 0\n  min r13, r1, 3\n"
      "  max r14, r1, 3\n  xor r15, r1, -1\n  halt\n");
  REQUIRE(r.status == Status::Ok);
  CHECK(r.registers[2] == -3);
  CHECK(r.registers[3] == -1);
  CHECK(r.registers[4] == -1);
  CHECK(r.registers[6] == INT64_MIN);
  CHECK(r.registers[7] == -2);
  CHECK(r.registers[8] == -56);
  CHECK(r.registers[9] == -4);
  CHECK(r.registers[10] == INT64_MIN);
  CHECK(r.registers[11] == 1);
  CHECK(r.registers[12] == 0);
  CHECK(r.registers[13] == -7);
  CHECK(r.registers[14] == 3);
  CHECK(r.registers[15] == 6);
}

TEST_CASE("loops are loops: a counted loop runs its body n times") {
  Options opt;
  opt.args = {{"n", 100000}};
  Result r = runText(
      ".vxdma 1\n.param n\n  ld.param r1, n\n  li r2, 0\n  li r3, 0\nloop:\n  add r3, r3, r2\n  add r2, r2, 1\n"
      "  blt r2, r1, loop\n  halt\n",
      opt);
  REQUIRE(r.status == Status::Ok);
  CHECK(r.registers[3] == 4999950000);
  CHECK(r.instructions == 3 + 3 * 100000 + 1);
}

TEST_CASE("load errors: missing or unknown parameters, capacity overflow, zero dimension") {
  const std::string prog = ".vxdma 1\n.param n\n.vmem x f32 [n, 1024, 1024]\n  halt\n";
  Result r = runText(prog);
  CHECK(r.status == Status::LoadError);
  CHECK(r.exitCode() == 2);
  CHECK(contains(r.errors.at(0), "parameter `n` has no value: pass --arg n=VALUE"));
  Options opt;
  opt.args = {{"n", 64}, {"m", 1}};
  r = runText(prog, opt);
  CHECK(contains(r.errors.at(0), "no parameter `m` (it has: n)"));
  opt.args = {{"n", 33}};
  r = runText(prog, opt);
  CHECK(contains(r.errors.at(0), "vmem buffers need 138412032 bytes"));
  opt.args = {{"n", 0}};
  r = runText(prog, opt);
  CHECK(contains(r.errors.at(0), "has a dimension 0"));
  opt.args = {{"n", 32}};
  CHECK(runText(prog, opt).status == Status::Ok);
}

TEST_CASE("the two-layer MLP sample equals its C++ reference (re-latched weights, bf16, SMEM)") {
  for (int m : {1, 4}) {
    Options opt;
    opt.seed = 21;
    opt.args = {{"m", m}};
    Result r = runText(readFile(VX_SOURCE_DIR "/tests/tpu/small_mlp.vxdma"), opt);
    REQUIRE(r.status == Status::Ok);
    // Tensor parameters in order: x 0, w1 1, w2 2, bias 3, y 4 (`blocks` is scratch).
    std::vector<float> x(static_cast<size_t>(m) * 16 * 32), w1(32 * 32), w2(32 * 16), bias(16 * 32);
    vx_fill(21, 0, x.data(), x.size());
    vx_fill(21, 1, w1.data(), w1.size());
    vx_fill(21, 2, w2.data(), w2.size());
    vx_fill(21, 3, bias.data(), bias.size());
    std::vector<float> y(static_cast<size_t>(m) * 16 * 16, 0.0f);
    for (int b = 0; b < m; ++b)
      for (int i = 0; i < 16; ++i) {
        float h[32];
        for (int j = 0; j < 32; ++j) {
          float s = 0;
          for (int k = 0; k < 32; ++k) s += x[(b * 16 + i) * 32 + k] * w1[k * 32 + j];
          h[j] = std::max(s, 0.0f) * 0.5f + bias[i * 32 + j];
        }
        for (int j = 0; j < 16; ++j)
          for (int k = 0; k < 32; ++k) y[(b * 16 + i) * 16 + j] += h[k] * w2[k * 16 + j];
      }
    INFO("m=" << m);
    CHECK(r.outputs.at(0).checksum == vx_checksum(y.data(), y.size()));
    CHECK(r.registers[5] == m);  // the SMEM counter, last loaded into r5
  }
}

TEST_CASE("inputs given by value replace vx_fill for their buffer only") {
  const char* prog =
      ".vxdma 1\n.hbm a f32 [4, 2] input\n.hbm w f32 [2, 3] input\n.hbm c f32 [4, 3] output\n"
      ".vmem va f32 [4, 2]\n.vmem vw f32 [2, 3]\n.vmem vc f32 [4, 3]\n"
      "  dma.start a, va, 32, sem0\n  dma.start w, vw, 24, sem1\n  dma.wait sem0\n  dma.wait sem1\n"
      "  mxu.latch vw, [2, 3]\n  mxu.matmul va, [4, 2]\n  mxu.pop vc, [4, 3]\n"
      "  dma.start vc, c, 48, sem0\n  dma.wait sem0\n  halt\n";
  Options opt;
  opt.keepOutputs = true;
  opt.seed = 4;
  std::vector<float> a{1, 2, 3, 4, 5, 6, 7, 8};
  opt.inputs = {{"a", a}};
  Result r = runText(prog, opt);
  REQUIRE(r.status == Status::Ok);
  std::vector<float> w(6);
  vx_fill(4, 1, w.data(), 6);  // w keeps its fill index
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) CHECK(r.outputs[0].values[i * 3 + j] == a[i * 2] * w[j] + a[i * 2 + 1] * w[3 + j]);

  SUBCASE("an input of the wrong size cannot load") {
    opt.inputs = {{"a", std::vector<float>(7)}};
    Result bad = runText(prog, opt);
    CHECK(bad.status == Status::LoadError);
    REQUIRE(!bad.errors.empty());
    CHECK(contains(bad.errors[0], "input `a` has 7 elements; the buffer holds 8"));
  }
  SUBCASE("an input naming no input buffer cannot load") {
    opt.inputs = {{"c", std::vector<float>(12)}};
    Result bad = runText(prog, opt);
    CHECK(bad.status == Status::LoadError);
    REQUIRE(!bad.errors.empty());
    CHECK(contains(bad.errors[0], "no input buffer `c`"));
  }
}
