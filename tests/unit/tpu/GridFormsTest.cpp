// The .vxdma forms of grids and blocks: `.spmd`, core.id / core.count /
// grid.instance, dma.strided and mxu.reset read, print and read back; bad
// uses are errors at their line and column.
#include <doctest/doctest.h>

#include <string>

#include "tpu/Asm.h"

using namespace vx::tpu;

namespace {

const std::string kProgram =
    ".vxdma 1\n"
    ".kernel tiles\n"
    ".spmd\n"
    ".param m = 128\n"
    ".hbm a f32 [m, 256] input\n"
    ".vmem x f32 [32, 32]\n"
    "\n"
    "  core.id r1\n"
    "  core.count r2\n"
    "top:\n"
    "  grid.instance r1\n"
    "  mxu.reset\n"
    "  mul r3, r1, 32768\n"
    "  dma.strided a[r3 + 64], x, 32, 128, 1024, 128, sem[r4]\n"
    "  dma.wait sem[r4]\n"
    "  add r1, r1, r2\n"
    "  blt r1, 4, top\n"
    "  grid.instance -1\n"
    "  halt\n";

std::string firstError(const std::string& text) {
  AsmResult r = assemble(text);
  REQUIRE_FALSE(r.ok());
  return std::to_string(r.errors[0].line) + ":" + std::to_string(r.errors[0].col) + ": " + r.errors[0].message;
}

}  // namespace

TEST_CASE("an SPMD program with a strided DMA reads, prints and reads back unchanged") {
  AsmResult r = assemble(kProgram);
  for (const AsmError& e : r.errors) FAIL_CHECK(formatError("grid.vxdma", e));
  REQUIRE(r.ok());
  CHECK(r.program.spmd);
  const Instr& dma = r.program.code[5];
  REQUIRE(dma.op == Op::DmaStrided);
  CHECK(dma.numOperands == 7);
  CHECK(dma.operands[2].imm == 32);    // rows
  CHECK(dma.operands[3].imm == 128);   // bytes per row
  CHECK(dma.operands[4].imm == 1024);  // source stride
  CHECK(dma.operands[5].imm == 128);   // destination stride
  CHECK(print(r.program) == kProgram);
  AsmResult again = assemble(print(r.program));
  REQUIRE(again.ok());
  CHECK(again.program == r.program);
}

TEST_CASE("a program without .spmd is not SPMD, and the directive comes once") {
  AsmResult r = assemble(".vxdma 1\n  core.id r0\n  halt\n");
  REQUIRE(r.ok());
  CHECK_FALSE(r.program.spmd);
  CHECK(print(r.program).find(".spmd") == std::string::npos);
  CHECK(firstError(".vxdma 1\n.spmd\n.spmd\n  halt\n") == "3:1: `.spmd` appears twice");
  CHECK(firstError(".vxdma 1\n.spmd 2\n  halt\n").find("2:7: unexpected") == 0);
  CHECK(firstError(".vxdma 1\n.cores 2\n  halt\n").find(".spmd") != std::string::npos);  // the directive list
}

TEST_CASE("dma.strided takes seven operands, the strides registers or integers") {
  const std::string decls = ".vxdma 1\n.hbm a f32 [64, 64] input\n.vmem x f32 [64]\n";
  CHECK(assemble(decls + "  dma.strided a, x, r1, r2, r3, r4, sem0\n  halt\n").ok());
  CHECK(firstError(decls + "  dma.strided a, x, 2, 64, 256, sem0\n  halt\n").find("takes 7 operands") !=
        std::string::npos);
  CHECK(firstError(decls + "  dma.strided a, x, 2, 64, 256, 64, 0\n  halt\n").find("semaphore") != std::string::npos);
  CHECK(firstError(decls + "  core.id 3\n  halt\n").find("register") != std::string::npos);
}
