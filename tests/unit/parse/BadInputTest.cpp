// Malformed input gets coded diagnostics and never an exception, a crash or
// unbounded recursion.
#include <doctest/doctest.h>

#include <string>

#include "parse/Parse.h"

using namespace vx;

namespace {
struct Result {
  ast::Module module;
  diag::Sink sink;
  parse::ParseStats stats;
  std::vector<std::string> codes() const {
    std::vector<std::string> c;
    for (const auto& d : sink.diagnostics()) c.emplace_back(d.code());
    return c;
  }
};

Result parseText(std::string text) {
  base::SourceMap sources;
  base::FileId id = sources.add("t.vx", std::move(text));
  ast::Interner names;
  Result r;
  r.module = parse::parseFile(sources, id, names, r.sink, {}, &r.stats);
  return r;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}
}  // namespace

TEST_CASE("an empty file parses to an empty module") {
  Result r = parseText("");
  CHECK(r.sink.diagnostics().empty());
  CHECK(r.module.items.empty());
}

TEST_CASE("invalid UTF-8 is E0002 at the byte, and parsing goes on") {
  Result r = parseText("fn f() {}\n\xC0\xAF fn g() {}\n");
  REQUIRE(r.codes() == std::vector<std::string>{"E0002"});
  CHECK(r.sink.diagnostics()[0].primarySpan().begin == 10);
  CHECK(r.module.items.size() == 2);
}

TEST_CASE("truncated and overlong UTF-8 sequences are invalid") {
  CHECK(parseText("// \xE2\x82").codes() == std::vector<std::string>{"E0002"});
  CHECK(parseText("// \xF8\x88\x80\x80").codes() == std::vector<std::string>{"E0002"});
  CHECK(parseText("// \xED\xA0\x80").codes() == std::vector<std::string>{"E0002"});  // surrogate
  CHECK(parseText("// \xE2\x82\xAC fine").codes().empty());
}

TEST_CASE("a NUL byte is an unknown character") {
  CHECK(parseText(std::string("fn f() {\0}", 10)).codes() == std::vector<std::string>{"E0002"});
}

TEST_CASE("a 1 MB line parses") {
  std::string body = "fn f(a: i32) -> i32 {\n  let x = a" + repeat(" + a", 1 << 18) + ";\n  x\n}\n";
  CHECK(body.size() > 1'000'000);
  Result r = parseText(body);
  // Far more than the expression-depth limit: one coded error, no crash.
  CHECK(r.codes() == std::vector<std::string>{"E0003"});
}

TEST_CASE("a 1 MB line of short statements parses cleanly") {
  std::string body = "fn f(a: i32) {" + repeat(" let x = a;", 100000) + " }\n";
  CHECK(body.size() > 1'000'000);
  Result r = parseText(body);
  CHECK(r.codes().empty());
  CHECK(r.module.stmts.size() == 100000);
}

TEST_CASE("10,000 nested parentheses are E0003, not a stack overflow") {
  Result r = parseText("fn f() -> i32 { " + repeat("(", 10000) + "1" + repeat(")", 10000) + " }");
  CHECK(r.codes() == std::vector<std::string>{"E0003"});
}

TEST_CASE("10,000 nested blocks are E0003") {
  Result r = parseText("fn f() " + repeat("{", 10000) + repeat("}", 10000));
  CHECK(r.codes() == std::vector<std::string>{"E0003"});
}

TEST_CASE("10,000 prefix operators are E0003") {
  CHECK(parseText("fn f(a: i32) -> i32 { " + repeat("- ", 10000) + "a }").codes() ==
        std::vector<std::string>{"E0003"});
  CHECK(parseText("fn f(a: i32) { let b = " + repeat("&mut ", 10000) + "a; }").codes() ==
        std::vector<std::string>{"E0003"});
}

TEST_CASE("10,000 nested generic types are E0003") {
  Result r = parseText("fn f(a: " + repeat("Vec<", 10000) + "i32" + repeat(">", 10000) + ") {}");
  CHECK(r.codes() == std::vector<std::string>{"E0003"});
}

TEST_CASE("200,000 `else if` arms are E0003, not a stack overflow") {
  std::string arms;
  for (int i = 0; i < 200000; ++i) arms += " else if x == " + std::to_string(i) + " { y = 1; }";
  Result r = parseText("fn f(x: i32) { let mut y = 0; if x < 0 { y = 2; }" + arms + " }");
  CHECK(r.codes() == std::vector<std::string>{"E0003"});
}

TEST_CASE("`else if` chains count the arms open at once, not the arms of a block") {
  // 1,500 separate two-arm chains in one block, and two chains of 1,000
  // arms one after the other: each chain ends at its last `}`.
  std::string separate, twoChains;
  for (int i = 0; i < 1500; ++i) separate += "if x == 1 { y = 1; } else if x == 2 { y = 2; }\n";
  for (int c = 0; c < 2; ++c) {
    twoChains += "if x < 0 { y = 0; }";
    for (int i = 0; i < 1000; ++i) twoChains += " else if x == " + std::to_string(i) + " { y = 1; }";
    twoChains += " else { y = 3; }\n";
  }
  CHECK(parseText("fn f(x: i32) { let mut y = 0; " + separate + "}").codes().empty());
  CHECK(parseText("fn f(x: i32) { let mut y = 0; " + twoChains + "}").codes().empty());
  // A chain inside an arm of another adds to it.
  std::string inner = "if x < 0 { y = 0; }";
  for (int i = 0; i < 600; ++i) inner += " else if x == " + std::to_string(i) + " { y = 1; }";
  std::string outer = "if x < 0 { y = 0; }";
  for (int i = 0; i < 600; ++i) outer += " else if x == " + std::to_string(i) + (i == 599 ? " { " + inner + " }" : " { y = 1; }");
  CHECK(parseText("fn f(x: i32) { let mut y = 0; " + outer + " }").codes() == std::vector<std::string>{"E0003"});
}

TEST_CASE("nesting below the limit is fine") {
  Result r = parseText("fn f() -> i32 { " + repeat("(", 200) + "1" + repeat(")", 200) + " }");
  CHECK(r.codes().empty());
}

TEST_CASE("long method chains cost no recursion") {
  Result r = parseText("fn f(v: &Vec<i32>) { let n = v" + repeat(".len()", 1500) + "; }");
  CHECK(r.codes().empty());
}

TEST_CASE("an unterminated comment stops lexing with one E0002") {
  Result r = parseText("fn f() {}\n/* open /* nested */\nfn g() {}\n");
  CHECK(r.codes() == std::vector<std::string>{"E0002"});
}

TEST_CASE("lexical errors are not followed by syntax errors for the same text") {
  Result r = parseText("fn f(x: i32) -> i32 { x | 2 }");
  CHECK(r.codes() == std::vector<std::string>{"E0002"});
}

TEST_CASE("random bytes never escape as exceptions") {
  uint32_t state = 12345;
  for (int n = 0; n < 200; ++n) {
    std::string text;
    for (int i = 0; i < 200; ++i) {
      state = state * 1103515245u + 12345u;
      text += static_cast<char>((state >> 16) & 0xFF);
    }
    CHECK_NOTHROW(parseText(text));
  }
}

TEST_CASE("a run of unknown characters is one diagnostic") {
  Result r = parseText("fn f() { $$$$$$ }");
  CHECK(r.codes() == std::vector<std::string>{"E0002"});
}

TEST_CASE("garbage input stops reporting after a hundred lexical errors") {
  std::string garbage;
  for (int i = 0; i < 20000; ++i) garbage += "$a";
  Result r = parseText("fn f() { " + garbage + " }");
  CHECK(r.sink.diagnostics().size() == 101);
}
