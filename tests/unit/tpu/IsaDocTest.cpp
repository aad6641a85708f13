// The opcode table is well-formed and docs/tpu/isa.md shows exactly it.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "tpu/Isa.h"

using namespace vx::tpu;

TEST_CASE("every opcode has a unique mnemonic and valid operand kinds") {
  std::set<std::string> seen;
  for (unsigned i = 0; i < kNumOps; ++i) {
    const OpInfo& oi = info(static_cast<Op>(i));
    INFO(oi.mnemonic);
    CHECK(seen.insert(oi.mnemonic).second);
    CHECK(operandCount(static_cast<Op>(i)) <= kMaxOperands);
    for (const char* k = oi.kinds; *k; ++k) CHECK(operandKindFromLetter(*k).has_value());
    CHECK(opFromMnemonic(oi.mnemonic) == static_cast<Op>(i));
  }
  CHECK_FALSE(opFromMnemonic("nonsense").has_value());
}

TEST_CASE("docs/tpu/isa.md embeds the generated opcode table verbatim") {
  std::ifstream f(VX_SOURCE_DIR "/docs/tpu/isa.md");
  REQUIRE(f);
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  const std::string begin = "<!-- BEGIN OPCODES (generated: vxsim --isa) -->\n";
  const std::string end = "<!-- END OPCODES -->";
  size_t b = doc.find(begin), e = doc.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  // On failure: regenerate with `vxsim --isa` and paste between the markers.
  CHECK(doc.substr(b + begin.size(), e - b - begin.size()) == opcodeTableMarkdown());
  CHECK(doc.find("version " + std::to_string(kFormatVersion)) != std::string::npos);
  for (unsigned i = 0; i < kNumOps; ++i)
    CHECK(doc.find(std::string("`") + info(static_cast<Op>(i)).mnemonic + "`") != std::string::npos);
}
