// Every kind of runtime fault: detected, classified, and explained with the
// instruction (index and text), the DMA involved and the Vx source line.
#include "SimTestUtil.h"

using namespace simtest;
using vx::sim::FaultKind;
using vx::sim::Options;
using vx::sim::Result;
using vx::sim::Status;

namespace {

const std::string kDecls =
    ".vxdma 1\n.source \"race.vx\"\n.hbm in f32 [4, 1024] input\n.hbm out f32 [1024] output\n"
    ".vmem x f32 [2, 1024]\n.vmem y f32 [1024]\n.smem s i64 [4]\n";

Result faultOf(const std::string& body, Options opt = {}) {
  opt.programName = "race.vxdma";
  Result r = runText(kDecls + body, opt);
  REQUIRE(r.status == Status::Fault);
  REQUIRE(r.fault.has_value());
  CHECK(r.exitCode() == 3);
  return r;
}

}  // namespace

TEST_CASE("reading VMEM that an in-flight DMA is writing is a fault naming both") {
  Result r = faultOf(".loc 3:5\n  dma.start in, x, 4096, sem0\n.loc 4:9\n  vec.relu y, x, [1, 1024]\n"
                     "  dma.wait sem0\n  halt\n");
  CHECK(r.fault->kind == FaultKind::ReadDuringDmaWrite);
  CHECK(r.fault->instr == 1);
  CHECK(r.fault->dma == 0);
  const std::string& m = r.fault->message;
  CHECK(contains(m, "reads vmem `x` bytes [0, 4096) while DMA #0 is still writing them"));
  CHECK(contains(m, "instruction 1: vec.relu y, x, [1, 1024]"));
  CHECK(contains(m, "race.vxdma:11, from Vx source race.vx:4:9"));
  CHECK(contains(m, "DMA #0 (hbm `in` bytes [0, 4096) -> vmem `x` bytes [0, 4096), signals sem0) was started by "
                    "instruction 0: dma.start in, x, 4096, sem0"));
  CHECK(contains(m, "race.vx:3:5"));
}

TEST_CASE("reading bytes the DMA does not touch is fine") {
  Result r = runText(kDecls + "  dma.start in, x, 4096, sem0\n  vec.relu y, x[4096], [1, 1024]\n"
                              "  dma.wait sem0\n  halt\n");
  CHECK(r.status == Status::Ok);
}

TEST_CASE("writing a DMA's source before it is waited for is a fault") {
  Result r = faultOf("  dma.start y, out, 4096, sem2\n  vec.zero y[4000], [1, 8]\n  dma.wait sem2\n  halt\n");
  CHECK(r.fault->kind == FaultKind::WriteDuringDma);
  CHECK(contains(r.fault->message, "writes vmem `y` bytes [4000, 4032) while DMA #0 is still reading them"));
}

TEST_CASE("two DMAs writing the same bytes is a fault") {
  Result r = faultOf("  dma.start in, x, 4096, sem0\n  dma.start in[4096], x[4092], 8, sem1\n  halt\n");
  CHECK(r.fault->kind == FaultKind::WriteDuringDma);
  CHECK(r.fault->instr == 1);
  CHECK(contains(r.fault->message, "is still writing them"));
}

TEST_CASE("a DMA reading what another DMA is still writing is a fault") {
  Result r = faultOf("  dma.start in, y, 4096, sem0\n  dma.start y, out, 4096, sem1\n  halt\n");
  CHECK(r.fault->kind == FaultKind::ReadDuringDmaWrite);
}

TEST_CASE("the matrix unit and scalar loads are checked like the vector unit") {
  CHECK(faultOf("  dma.start in, x, 4096, sem0\n  mxu.matmul x, [8, 128]\n  halt\n").fault->kind ==
        FaultKind::ReadDuringDmaWrite);
  CHECK(faultOf("  dma.start in, x, 4096, sem0\n  mxu.pop x, [8, 128]\n  halt\n").fault->kind ==
        FaultKind::WriteDuringDma);
  CHECK(faultOf("  dma.start in, s, 8, sem0\n  ld.smem r1, s\n  halt\n").fault->kind ==
        FaultKind::ReadDuringDmaWrite);
}

TEST_CASE("waiting on a semaphore no in-flight DMA signals is a deadlock") {
  Result r = faultOf("  dma.start in, x, 4096, sem1\n.loc 7:1\n  dma.wait sem2\n  halt\n");
  CHECK(r.fault->kind == FaultKind::Deadlock);
  CHECK(contains(r.fault->message, "waits on sem2, but no DMA in flight signals it"));
  CHECK(contains(r.fault->message, "in flight: #0 (sem1)"));
  CHECK(contains(r.fault->message, "race.vx:7:1"));
  r = faultOf("  dma.start in, x, 4096, sem1\n  dma.wait sem1\n  dma.wait sem1\n  halt\n");
  CHECK(r.fault->kind == FaultKind::Deadlock);
  CHECK(r.fault->instr == 2);
}

TEST_CASE("a wait on a semaphore several DMAs signal makes none usable until the waits count them all") {
  // A slow copy and a fast one on sem0, one wait: which one completed is a
  // matter of timing, so the fast one's bytes are not usable, whatever the
  // timing (this program ran clean with the default timing once).
  const std::string oneWait = "  dma.start in, x, 4096, sem0\n  dma.start y, x[4096], 64, sem0\n  dma.wait sem0\n"
                              "  dma.start x[4096], out, 64, sem1\n  dma.wait sem1\n  dma.wait sem0\n  halt\n";
  Result r = faultOf(oneWait);
  CHECK(r.fault->kind == FaultKind::ReadDuringDmaWrite);
  CHECK(r.fault->instr == 3);
  Options slow;
  slow.config.onchipBytesPerCycle = 0.001;
  CHECK(faultOf(oneWait, slow).fault->kind == FaultKind::ReadDuringDmaWrite);
  // Two waits count both: the bytes of each are usable.
  r = runText(kDecls + "  dma.start in, x, 4096, sem0\n  dma.start y, x[4096], 64, sem0\n  dma.wait sem0\n"
                       "  dma.wait sem0\n  dma.start x[4096], out, 64, sem1\n  vec.relu y, x, [1, 1024]\n"
                       "  dma.wait sem1\n  halt\n");
  CHECK(r.status == Status::Ok);
  // A third wait has nothing left to count.
  r = faultOf("  dma.start in, x, 4096, sem0\n  dma.start in[4096], y, 64, sem0\n  dma.wait sem0\n  dma.wait sem0\n"
              "  dma.wait sem0\n  halt\n");
  CHECK(r.fault->kind == FaultKind::Deadlock);
  CHECK(r.fault->instr == 4);
}

TEST_CASE("halting with a DMA not waited for is a fault") {
  Result r = faultOf("  dma.start in, x, 4096, sem3\n  halt\n");
  CHECK(r.fault->kind == FaultKind::HaltWithDmaInFlight);
  CHECK(r.fault->dma == 0);
  CHECK(contains(r.fault->message, "reaches halt with 1 DMA(s) not waited for; the first is DMA #0 (wait on sem3)"));
}

TEST_CASE("out-of-bounds addresses fault: past the end, negative, bad size") {
  Options opt;
  Result r = faultOf("  li r1, 4\n  mul r2, r1, 4096\n  dma.start in[r2], x, 4096, sem0\n  dma.wait sem0\n  halt\n");
  CHECK(r.fault->kind == FaultKind::OutOfBounds);
  CHECK(contains(r.fault->message, "operand 1 addresses 4096 bytes at offset 16384 of hbm buffer `in`, which has "
                                   "16384 bytes"));
  CHECK(faultOf("  li r1, -8\n  ld.smem r2, s[r1]\n  halt\n").fault->kind == FaultKind::OutOfBounds);
  CHECK(faultOf("  vec.zero y, [2, 1024]\n  halt\n").fault->kind == FaultKind::OutOfBounds);
  CHECK(contains(faultOf("  li r1, 0\n  dma.start in, x, r1, sem0\n  halt\n").fault->message,
                 "DMA size must be positive"));
  CHECK(contains(faultOf("  li r1, 32\n  dma.start in, x, 4, sem[r1]\n  halt\n").fault->message,
                 "semaphore number 32 is outside sem0..sem31"));
  // A register and a displacement whose sum leaves the i64 range do not
  // wrap back into the buffer (this address was `in[16]`).
  r = faultOf("  li r1, -9223372036854775793\n  dma.start in[r1 - 9223372036854775807], x, 4, sem0\n"
              "  dma.wait sem0\n  halt\n");
  CHECK(r.fault->kind == FaultKind::OutOfBounds);
  CHECK(contains(r.fault->message, "at offset below -2^63 of hbm buffer `in`"));
}

TEST_CASE("a tile address that is not a multiple of the element size faults") {
  CHECK(faultOf("  vec.zero x[2], [1, 8]\n  halt\n").fault->kind == FaultKind::Misaligned);
}

TEST_CASE("a DMA whose source and destination overlap faults") {
  CHECK(faultOf("  dma.start x, x[8], 64, sem0\n  dma.wait sem0\n  halt\n").fault->kind ==
        FaultKind::DmaOverlapsItself);
}

TEST_CASE("arithmetic faults: division by zero, i64::MIN / -1, bad shifts") {
  CHECK(contains(faultOf("  li r1, 0\n  div r2, r2, r1\n  halt\n").fault->message, "division by zero"));
  CHECK(contains(faultOf("  li r1, 0\n  rem r2, r2, r1\n  halt\n").fault->message, "remainder by zero"));
  CHECK(faultOf("  li r1, -9223372036854775808\n  div r2, r1, -1\n  halt\n").fault->kind == FaultKind::Arithmetic);
  CHECK(contains(faultOf("  shl r1, r1, 64\n  halt\n").fault->message, "shift by 64"));
}

TEST_CASE("matrix shapes the unit cannot take fault") {
  CHECK(faultOf("  mxu.matmul x, [8, 64]\n  halt\n").fault->kind == FaultKind::MatrixShape);
  CHECK(faultOf("  mxu.latch x, [2, 1024]\n  halt\n").fault->kind == FaultKind::MatrixShape);
  CHECK(faultOf("  mxu.latch x, [8, 16]\n  mxu.pop y, [8, 32]\n  halt\n").fault->kind == FaultKind::MatrixShape);
}

TEST_CASE("an endless loop stops at max_instructions instead of hanging") {
  Options opt;
  opt.config.maxInstructions = 100000;
  Result r = faultOf("top:\n  jmp top\n", opt);
  CHECK(r.fault->kind == FaultKind::InstructionLimit);
  CHECK(r.instructions == 100000);
}

TEST_CASE("race checks that would take too long stop at max_check_steps instead of hanging") {
  // Two strided DMAs of 1024 one-byte rows interleaved in flight: each row
  // of the second is compared with the first's. Fine by default; a budget
  // below that work is a fault that says which limit and how to raise it.
  const std::string text = "  dma.strided in, x, 1024, 1, 4, 2, sem0\n  dma.strided in[4096], x[1], 1024, 1, 4, 2, sem1\n"
                           "  dma.wait sem0\n  dma.wait sem1\n  halt\n";
  CHECK(runText(kDecls + text).status == Status::Ok);
  Options opt;
  opt.config.maxCheckSteps = 500;
  Result r = faultOf(text, opt);
  CHECK(r.fault->kind == FaultKind::CheckLimit);
  CHECK(r.fault->instr == 1);
  CHECK(contains(r.fault->message, "runtime fault (check-limit): the race checks reached max_check_steps = 500"));
  CHECK(contains(r.fault->message, "--set max_check_steps=N"));
}

TEST_CASE("more DMAs in flight than dma_max_inflight faults") {
  Options opt;
  opt.config.dmaMaxInflight = 4;
  Result r = faultOf("  li r1, 0\nl:\n  mul r2, r1, 4\n  dma.start in[r2], x[r2], 4, sem0\n  add r1, r1, 1\n"
                     "  blt r1, 10, l\n  halt\n",
                     opt);
  CHECK(r.fault->kind == FaultKind::TooManyDmas);
}

TEST_CASE("the double-buffered stream never faults; swapping wait and matmul does") {
  Options opt;
  opt.args = {{"n", 5}};
  CHECK(runText(streamProgram(128, 2), opt).status == Status::Ok);
  std::string broken = streamProgram(128, 2);
  // Read the slot before waiting for it: the checker's E6004 shape.
  const std::string wait = "  dma.wait sem[r7]\n";
  size_t at = broken.find(wait, broken.find("nostart:"));
  REQUIRE(at != std::string::npos);
  broken.erase(at, wait.size());
  broken.insert(broken.find("  add r2, r2, 1\n  blt r2, r1, loop"), wait);
  Result r = runText(broken, opt);
  REQUIRE(r.status == Status::Fault);
  CHECK(r.fault->kind == FaultKind::ReadDuringDmaWrite);
  CHECK(contains(r.fault->message, "from Vx source stream_out.vx:4:84"));
}
