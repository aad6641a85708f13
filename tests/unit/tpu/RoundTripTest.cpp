// print() then assemble() gives back the same Program.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tpu/Asm.h"

using namespace vx::tpu;

namespace {

std::string readFile(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void checkRoundTrip(const Program& p) {
  REQUIRE(validate(p).empty());
  const std::string text = print(p);
  AsmResult r = assemble(text);
  INFO(text);
  REQUIRE(r.ok());
  CHECK(r.program == p);
  CHECK(print(r.program) == text);
}

// A program that uses every opcode once, with every operand form.
Program everyOpcode() {
  Program p;
  p.kernel = "every_op";
  p.sourceFile = "dir with \"quotes\"\\k.vx";
  p.params = {{"n", 4}, {"m", std::nullopt}};
  p.buffers = {
      {"h", Space::Hbm, DType::F32, {{0, 0}, {128, -1}}, Role::InOut},
      {"o", Space::Hbm, DType::Bf16, {{8, -1}}, Role::Scratch},
      {"t", Space::Vmem, DType::F32, {{4, -1}, {128, -1}, {128, -1}}, Role::Local},
      {"b", Space::Vmem, DType::Bf16, {{16, -1}, {128, -1}}, Role::Local},
      {"v", Space::Smem, DType::I64, {{16, -1}}, Role::Local},
  };
  p.labels = {{"top", 0}, {"also_top", 0}, {"mid", 3}};
  p.dbgs = {{"dir/k.vx:3: x \"quoted\" \\", ""}, {"k.vx:9: &acc", "bf16[16, 128]"}};
  for (unsigned i = 0; i < kNumOps; ++i) {
    Op op = static_cast<Op>(i);
    Instr in;
    in.op = op;
    in.numOperands = static_cast<uint8_t>(operandCount(op));
    in.loc = {i % 3 == 0 ? 0u : i + 1, i % 5};
    if (!in.loc.known()) in.loc.col = 0;
    int mem = 0;
    for (unsigned k = 0; k < in.numOperands; ++k) {
      Operand& o = in.operands[k];
      switch (operandKind(op, k)) {
        case OperandKind::Reg: o = Operand::makeReg(static_cast<uint8_t>((i + k) % kNumRegs)); break;
        case OperandKind::RegOrImm: o = (i % 2) ? Operand::makeXReg(31) : Operand::makeXImm(-(int64_t(i) << 40)); break;
        case OperandKind::Imm: o = Operand::makeImm(INT64_MIN + i); break;
        case OperandKind::Float: o = Operand::makeFloat(i % 2 ? -0.0f : 0.1f); break;
        case OperandKind::Mem: o = Operand::makeMem(OperandKind::Mem, mem++ % 2 ? 2 : 0, (i % 2) ? 5 : kNoReg, -64); break;
        case OperandKind::Tile: o = Operand::makeMem(OperandKind::Tile, (i + k) % 2 ? 2 : 3, kNoReg, 4096 * k); break;
        case OperandKind::Word: o = Operand::makeMem(OperandKind::Word, 4, 7, 8); break;
        case OperandKind::Sem: o = (i % 2) ? Operand::makeSem(31) : Operand::makeSemReg(4); break;
        case OperandKind::Label: o = Operand::makeLabel(static_cast<int32_t>(i % 3)); break;
        case OperandKind::Param: o = Operand::makeParam(1); break;
        case OperandKind::Dims: o = Operand::makeDims(8, 128); break;
      }
    }
    // `dbg.*` number a `.dbg` text.
    if (op == Op::DbgInt || op == Op::DbgUint || op == Op::DbgBool || op == Op::DbgFloat || op == Op::DbgTile)
      in.operands[0] = Operand::makeImm(i % 2);
    p.code.push_back(in);
  }
  p.code.push_back(makeInstr(Op::Halt, {}));
  return p;
}

}  // namespace

TEST_CASE("a program using every opcode and operand form round-trips") { checkRoundTrip(everyOpcode()); }

TEST_CASE("every sample program in tests/tpu round-trips") {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(VX_SOURCE_DIR "/tests/tpu")) {
    if (entry.path().extension() != ".vxdma") continue;
    INFO(entry.path().string());
    AsmResult r = assemble(readFile(entry.path()));
    REQUIRE(r.ok());
    checkRoundTrip(r.program);
    ++n;
  }
  CHECK(n >= 2);
}

TEST_CASE("floats print as the shortest text that reads back exactly") {
  for (float f : {0.1f, -0.0f, 1e-30f, 3.4028235e38f, 1.0f / 3.0f, 2.5f}) {
    Program p;
    p.buffers = {{"x", Space::Vmem, DType::F32, {{8, -1}}, Role::Local}};
    p.code = {makeInstr(Op::VecScale, {Operand::makeMem(OperandKind::Tile, 0, kNoReg, 0),
                                       Operand::makeMem(OperandKind::Tile, 0, kNoReg, 0), Operand::makeFloat(f),
                                       Operand::makeDims(1, 8)}),
              makeInstr(Op::Halt, {})};
    checkRoundTrip(p);
  }
}

TEST_CASE("printed text is canonical: labels on their own lines, .loc only on change") {
  AsmResult r = assemble(".vxdma 1\n.loc 3:4\nx: li r1, 1\n.loc 3:4\n  li r2,2\n.loc 0:0\n  jmp x\n");
  REQUIRE(r.ok());
  CHECK(print(r.program) == ".vxdma 1\n\nx:\n.loc 3:4\n  li r1, 1\n  li r2, 2\n.loc 0:0\n  jmp x\n");
}

TEST_CASE("memory operands accept spacing variants and print one way") {
  AsmResult r = assemble(
      ".vxdma 1\n.vmem x f32 [64]\n  dma.start x[r1+8], x[ r2 - 8 ], 8, sem[ r3 ]\n  dma.start x[16], x, 8, sem0\n  halt\n");
  REQUIRE(r.ok());
  CHECK(printInstr(r.program, r.program.code[0]) == "dma.start x[r1 + 8], x[r2 - 8], 8, sem[r3]");
  CHECK(printInstr(r.program, r.program.code[1]) == "dma.start x[16], x, 8, sem0");
}

TEST_CASE("validate rejects in-memory programs the assembler could never produce") {
  Program p = everyOpcode();
  p.code[1].operands[0] = Operand::makeReg(40);  // li r40, ...
  REQUIRE(p.code[1].op == Op::Li);
  CHECK_FALSE(validate(p).empty());
  p = everyOpcode();
  p.code.back() = makeInstr(Op::Nop, {});
  CHECK_FALSE(validate(p).empty());
  p = everyOpcode();
  p.labels[0].target = 9999;
  CHECK_FALSE(validate(p).empty());
  p = everyOpcode();
  p.buffers[0].role = Role::Local;
  CHECK_FALSE(validate(p).empty());
  p = everyOpcode();
  for (Instr& in : p.code)
    if (in.op == Op::DbgTile) in.operands[0] = Operand::makeImm(2);  // two `.dbg` texts: 0 and 1
  CHECK_FALSE(validate(p).empty());
  p = everyOpcode();
  p.dbgs[0].text += "\n";
  CHECK_FALSE(validate(p).empty());
  CHECK_FALSE(validate(Program{}).empty());
}
