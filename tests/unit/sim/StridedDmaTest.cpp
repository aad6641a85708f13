// dma.strided: rows of a block move between a row-major HBM tensor and a
// dense on-chip tile; the race detector sees the rows and never the gaps
// between them; short or misaligned rows cost more than one long burst.
#include <cmath>

#include "SimTestUtil.h"

using namespace simtest;
using vx::sim::Config;
using vx::sim::FaultKind;
using vx::sim::Options;
using vx::sim::Result;
using vx::sim::Status;

namespace {

// A 16 x 32 f32 matrix `a` (filled), a 16 x 32 output `c` (zeroed).
const std::string kDecls =
    ".vxdma 1\n.source \"blk.vx\"\n.hbm a f32 [16, 32] input\n.hbm c f32 [16, 32] output\n"
    ".vmem x f32 [8, 8]\n.vmem y f32 [1024]\n";

std::vector<float> filled(uint64_t seed, uint32_t k, size_t n) {
  std::vector<float> v(n);
  vx_fill(seed, k, v.data(), n);
  return v;
}

Result faultOf(const std::string& body) {
  Result r = runText(kDecls + body);
  REQUIRE(r.status == Status::Fault);
  return r;
}

// Cycles of one DMA's data, waited at once, with no latency.
uint64_t dataCycles(const std::string& dma, Config c = {}) {
  c.dmaLatency = 0;
  Options opt;
  opt.config = c;
  Result r = runText(".vxdma 1\n.hbm a f32 [1024, 1024] input\n.vmem x f32 [1024, 1024]\n  " + dma + "\n  dma.wait sem0\n  halt\n",
                     opt);
  REQUIRE(r.status == Status::Ok);
  return r.cycles - 2;  // the DMA's issue cycle, and halt's
}

}  // namespace

TEST_CASE("dma.strided copies a block of rows out of a row-major tensor and back into another") {
  // Rows 4..12, columns 8..16 of `a` into the 8 x 8 tile x, then x into the
  // same block of c: c is a's block there and 0 elsewhere.
  Options opt;
  opt.seed = 5;
  opt.keepOutputs = true;
  Result r = runText(kDecls +
                         "  dma.strided a[544], x, 8, 32, 128, 32, sem0\n  dma.wait sem0\n"
                         "  dma.strided x, c[544], 8, 32, 32, 128, sem1\n  dma.wait sem1\n  halt\n",
                     opt);
  REQUIRE(r.status == Status::Ok);
  std::vector<float> a = filled(5, 0, 16 * 32), want(16 * 32, 0.0f);
  for (int i = 4; i < 12; ++i)
    for (int j = 8; j < 16; ++j) want[i * 32 + j] = a[i * 32 + j];
  CHECK(r.outputs[0].values == want);
  CHECK(r.outputs[0].checksum == vx_checksum(want.data(), want.size()));
}

TEST_CASE("a strided DMA in flight does not own the gaps between its rows") {
  // x's rows 0, 2, 4, 6 (32 bytes each, 64 apart) are being written.
  const std::string start = "  dma.strided a, x, 4, 32, 128, 64, sem0\n";
  SUBCASE("the gaps are free") {
    Result r = runText(kDecls + start + "  vec.zero x[32], [1, 8]\n  vec.zero x[224], [1, 8]\n  dma.wait sem0\n  halt\n");
    CHECK(r.status == Status::Ok);
  }
  SUBCASE("a row is not") {
    Result r = faultOf(start + "  vec.zero x[128], [1, 8]\n  dma.wait sem0\n  halt\n");
    CHECK(r.fault->kind == FaultKind::WriteDuringDma);
    CHECK(contains(r.fault->message, "writes vmem `x` bytes [128, 160) while DMA #0 is still writing them"));
    CHECK(contains(r.fault->message, "vmem `x` 4 rows of 32 bytes, 64 apart, in bytes [0, 224)"));
  }
  SUBCASE("another strided DMA interleaving with it is free, one crossing a row is not") {
    Result ok = runText(kDecls + start + "  dma.strided a, x[32], 4, 32, 128, 64, sem1\n"
                                          "  dma.wait sem0\n  dma.wait sem1\n  halt\n");
    CHECK(ok.status == Status::Ok);
    Result bad = faultOf(start + "  dma.strided a, x[48], 3, 32, 128, 64, sem1\n  dma.wait sem0\n  dma.wait sem1\n  halt\n");
    CHECK(bad.fault->kind == FaultKind::WriteDuringDma);
  }
  SUBCASE("its source's gaps may be written, its rows not") {
    CHECK(runText(kDecls + "  dma.strided c, x, 4, 32, 128, 32, sem0\n  dma.start y, c[32], 64, sem1\n"
                           "  dma.wait sem0\n  dma.wait sem1\n  halt\n")
              .status == Status::Ok);
    Result r = faultOf("  dma.strided c, x, 4, 32, 128, 32, sem0\n  dma.start y, c[136], 8, sem1\n  halt\n");
    CHECK(r.fault->kind == FaultKind::WriteDuringDma);
    CHECK(contains(r.fault->message, "is still reading them"));
  }
}

TEST_CASE("a strided DMA whose rows overlap each other or the other end is a fault") {
  CHECK(faultOf("  dma.strided a, x, 4, 32, 16, 32, sem0\n  halt\n").fault->kind == FaultKind::OutOfBounds);
  CHECK(contains(faultOf("  dma.strided a, x, 4, 32, 128, 16, sem0\n  halt\n").fault->message,
                 "must be at least its rows' 32 bytes"));
  CHECK(faultOf("  dma.strided a, x, 0, 32, 128, 32, sem0\n  halt\n").fault->kind == FaultKind::OutOfBounds);
  // The last row ends past the 2048 bytes of c.
  Result past = faultOf("  dma.strided c[1664], x, 4, 32, 128, 32, sem0\n  halt\n");
  CHECK(past.fault->kind == FaultKind::OutOfBounds);
  CHECK(contains(past.fault->message, "addresses 416 bytes at offset 1664"));
  // Interleaved rows of one buffer do not overlap; crossing ones do.
  CHECK(runText(kDecls + "  dma.strided c, c[32], 4, 32, 128, 128, sem0\n  dma.wait sem0\n  halt\n").status ==
        Status::Ok);
  CHECK(faultOf("  dma.strided c, c[16], 4, 32, 128, 128, sem0\n  halt\n").fault->kind == FaultKind::DmaOverlapsItself);
}

TEST_CASE("short rows move less efficiently than one long burst") {
  Config c;
  const double bpc = c.hbmBytesPerCycle();
  // 64 KiB contiguous: its bytes over the port's bandwidth.
  const uint64_t burst = dataCycles("dma.start a, x, 65536, sem0", c);
  CHECK(burst == static_cast<uint64_t>(std::ceil(65536 / bpc)));
  // The same bytes as rows of 512 (a 128 x 128 f32 block of a wider matrix):
  // one row request a cycle, a little slower than the port.
  const uint64_t rows512 = dataCycles("dma.strided a, x, 128, 512, 4096, 512, sem0", c);
  CHECK(rows512 == 128);
  CHECK(rows512 > burst);
  // Rows of 32 bytes: 2048 requests, 17x one burst.
  const uint64_t rows32 = dataCycles("dma.strided a, x, 2048, 32, 1024, 32, sem0", c);
  CHECK(rows32 == 2048);
  CHECK(rows32 > 15 * burst);
  // Rows that straddle a 32-byte burst move the bursts they touch: 4 bytes
  // at offset 30 are two bursts.
  Config fast = c;
  fast.dmaRowCycles = 0;
  const uint64_t aligned = dataCycles("dma.strided a, x, 1024, 64, 4096, 64, sem0", fast);
  const uint64_t straddling = dataCycles("dma.strided a[16], x, 1024, 64, 4096, 64, sem0", fast);
  CHECK(aligned == static_cast<uint64_t>(std::ceil(1024 * 64 / bpc)));
  CHECK(straddling == static_cast<uint64_t>(std::ceil(1024 * 96 / bpc)));
  // Rows that follow each other are one run.
  CHECK(dataCycles("dma.strided a, x, 128, 512, 512, 512, sem0", c) == burst);
}
