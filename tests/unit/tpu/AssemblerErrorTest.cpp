// Malformed .vxdma text gets line:column errors, never a crash.
#include <doctest/doctest.h>

#include <string>

#include "tpu/Asm.h"
#include "vx/data.h"

using namespace vx::tpu;

namespace {

const char* kHeader =
    ".vxdma 1\n"
    ".hbm in f32 [128, 128] input\n"
    ".vmem x f32 [128, 128]\n";

// The first error of assembling `text`, as `line:col: message`.
std::string firstError(const std::string& text) {
  AsmResult r = assemble(text);
  REQUIRE_FALSE(r.ok());
  const AsmError& e = r.errors.front();
  return std::to_string(e.line) + ":" + std::to_string(e.col) + ": " + e.message;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a program without the version line is rejected at 1:1") {
  std::string e = firstError("  halt\n");
  CHECK(contains(e, "1:3: a .vxdma program starts with `.vxdma 1`"));
  CHECK(contains(firstError(""), "1:1: a .vxdma program starts with"));
}

TEST_CASE("the header directives come once: a second .kernel or .source is an error, not a silent override") {
  CHECK(firstError(".vxdma 1\n.kernel a\n.kernel b\n  halt\n") == "3:1: `.kernel` appears twice");
  CHECK(firstError(".vxdma 1\n.source \"a.vx\"\n.source \"b.vx\"\n  halt\n") == "3:1: `.source` appears twice");
}

TEST_CASE("a float immediate outside f32's range says so") {
  for (const char* v : {"1e-46", "3.5e38", "-1e39"}) {
    INFO(v);
    std::string e = firstError(std::string(kHeader) + "  vec.fill x, " + v + ", [1, 1]\n  halt\n");
    CHECK(contains(e, "is outside f32's range"));
  }
}

TEST_CASE("an unsupported format version names both versions") {
  std::string e = firstError(".vxdma 2\n  halt\n");
  CHECK(contains(e, "1:8: unsupported .vxdma version 2 (this assembler reads version 1)"));
}

TEST_CASE("an unknown opcode is reported with its line, column and a suggestion") {
  std::string e = firstError(std::string(kHeader) + "  li r1, 0\n  dma.strat in, x, 64, sem0\n  halt\n");
  CHECK(contains(e, "5:3: unknown opcode `dma.strat`; did you mean `dma.start`?"));
}

TEST_CASE("a wrong operand count says how many operands the opcode takes") {
  std::string e = firstError(std::string(kHeader) + "  add r1, r2\n  halt\n");
  CHECK(contains(e, "4:3: `add` takes 3 operands (r, r, x), found 2"));
}

TEST_CASE("an operand of the wrong kind is described and pointed at") {
  std::string e = firstError(std::string(kHeader) + "  add r1, 5, r2\n  halt\n");
  CHECK(contains(e, "4:11: operand 2 of `add`: expected a register like `r3`, found `5`"));
  e = firstError(std::string(kHeader) + "  li r32, 5\n  halt\n");
  CHECK(contains(e, "4:6: operand 1 of `li`: expected a register"));
}

TEST_CASE("undefined buffers and labels are errors at their use") {
  CHECK(contains(firstError(std::string(kHeader) + "  dma.start in, y, 64, sem0\n  halt\n"),
                 "4:17: undefined buffer `y`"));
  CHECK(contains(firstError(std::string(kHeader) + "  jmp nowhere\n  halt\n"), "4:7: undefined label `nowhere`"));
}

TEST_CASE("a label defined twice names the first definition's line") {
  std::string e = firstError(std::string(kHeader) + "a:\n  nop\na:\n  halt\n");
  CHECK(contains(e, "6:1: label `a` is defined twice (first on line 4)"));
}

TEST_CASE("a label after the last instruction is rejected") {
  std::string e = firstError(std::string(kHeader) + "  halt\nend:\n");
  CHECK(contains(e, "5:1: label `end` is not followed by an instruction"));
}

TEST_CASE("integers that do not fit 64 bits are errors, i64::MIN is not") {
  CHECK(contains(firstError(std::string(kHeader) + "  li r1, 9223372036854775808\n  halt\n"),
                 "4:10: operand 2 of `li`: `9223372036854775808` does not fit in a 64-bit integer"));
  AsmResult r = assemble(std::string(kHeader) + "  li r1, -9223372036854775808\n  li r2, 0x7fffffffffffffff\n  halt\n");
  REQUIRE(r.ok());
  CHECK(r.program.code[0].operands[1].imm == INT64_MIN);
  CHECK(r.program.code[1].operands[1].imm == INT64_MAX);
}

TEST_CASE("matrix and vector operands must be VMEM tiles") {
  std::string e = firstError(std::string(kHeader) + "  mxu.matmul in, [128, 128]\n  halt\n");
  CHECK(contains(e, "4:14: operand 1 of `mxu.matmul` must be a VMEM tile of f32 or bf16; `in` is a hbm buffer"));
}

TEST_CASE("tile dimensions must be positive") {
  std::string e = firstError(std::string(kHeader) + "  vec.zero x, [0, 128]\n  halt\n");
  CHECK(contains(e, "4:16: tile rows must be in 1..."));
}

TEST_CASE("a program must end with halt or jmp") {
  AsmResult r = assemble(std::string(kHeader) + "  nop\n  li r1, 2\n");
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors[0].line == 5);
  CHECK(contains(r.errors[0].message, "the last instruction must be `halt` or `jmp`"));
}

TEST_CASE("declarations are checked: roles, element types, parameters, reserved names") {
  CHECK(contains(firstError(".vxdma 1\n.hbm a f32 [4] sideways\n  halt\n"), "2:16: expected the buffer's role"));
  CHECK(contains(firstError(".vxdma 1\n.vmem a f16 [4]\n  halt\n"), "2:9: expected an element type"));
  CHECK(contains(firstError(".vxdma 1\n.hbm a f32 [n, 4] input\n  halt\n"), "2:13: `n` is not a declared parameter"));
  CHECK(contains(firstError(".vxdma 1\n.vmem r3 f32 [4]\n  halt\n"), "2:7: `r3` is a register or semaphore name"));
  CHECK(contains(firstError(".vxdma 1\n.vmem a i64 [4]\n  halt\n"), "2:1: i64 buffers live in SMEM"));
  CHECK(contains(firstError(".vxdma 1\n.vmem a f32 [4]\n.smem a i64 [4]\n  halt\n"), "3:7: `a` is declared twice"));
}

TEST_CASE("every bad line of a file is reported, each with its own line") {
  AsmResult r = assemble(std::string(kHeader) + "  bogus\n  li r1\n  nop\n  add r1, r1, zz\n  halt\n");
  REQUIRE(r.errors.size() == 3);
  CHECK(r.errors[0].line == 4);
  CHECK(r.errors[1].line == 5);
  CHECK(r.errors[2].line == 7);
}

TEST_CASE("formatError writes file:line:col: error: message") {
  AsmError e{12, 7, "boom"};
  CHECK(formatError("p.vxdma", e) == "p.vxdma:12:7: error: boom");
  CHECK(formatError("p.vxdma", AsmError{0, 0, "boom"}) == "p.vxdma: error: boom");
}

TEST_CASE("comments and blank lines are ignored, `;` inside a string is not a comment") {
  AsmResult r = assemble("; leading comment\n\n.vxdma 1 ; version\n.source \"a;b.vx\"\n  halt ; the end\n");
  REQUIRE(r.ok());
  CHECK(r.program.sourceFile == "a;b.vx");
  CHECK(contains(firstError(".vxdma 1\n.source \"abc\n  halt\n"), "2:13: unterminated string"));
}

TEST_CASE("the error list is bounded") {
  std::string text = ".vxdma 1\n";
  for (int i = 0; i < 500; ++i) text += "  nonsense\n";
  AsmResult r = assemble(text);
  CHECK(r.errors.size() == kMaxAsmErrors);
  CHECK(contains(r.errors.back().message, "too many errors"));
}

TEST_CASE("random bytes and mutated programs never crash the assembler") {
  const std::string base = std::string(kHeader) +
                           ".param n = 4\n.smem v i64 [8]\nl:\n  ld.param r1, n\n  mul r2, r1, 0x40\n"
                           "  dma.start in[r2 + 64], x[r2 - 8], 64, sem[r3]\n  st.smem v[8], -5\n"
                           "  vec.scale x, x, -0.5e-3, [8, 128]\n  blt r1, 3, l\n  halt\n";
  uint64_t state = 42;
  for (int iter = 0; iter < 4000; ++iter) {
    std::string s = base;
    const int edits = 1 + static_cast<int>(vx_splitmix64(&state) % 8);
    for (int k = 0; k < edits; ++k) {
      uint64_t x = vx_splitmix64(&state);
      size_t pos = static_cast<size_t>(x % (s.size() + 1));
      char c = static_cast<char>((x >> 32) & 0xff);
      switch ((x >> 40) % 3) {
        case 0: s.insert(pos, 1, c); break;
        case 1: if (pos < s.size()) s.erase(pos, 1); break;
        case 2: if (pos < s.size()) s[pos] = c; break;
      }
    }
    AsmResult r = assemble(s);
    if (r.ok()) CHECK(validate(r.program).empty());
    for (const AsmError& e : r.errors) CHECK_FALSE(e.message.empty());
  }
}
