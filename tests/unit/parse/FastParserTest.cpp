// The hand-written parser (src/parse/FastParser.cpp) must give the AST that
// the ANTLR parser and AstBuilder give -- every node, name, literal and byte
// range -- and the same diagnostics, on every test program, on mutations of
// them and on random expressions. Where it is unsure it gives a chunk back to
// ANTLR; these tests also require that it takes every valid test program.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "diag/Render.h"
#include "parse/Parse.h"

namespace fs = std::filesystem;
using namespace vx;
using namespace vx::ast;

namespace {

struct Result {
  std::string ast, diagnostics;
  parse::ParseStats stats;
};

Result parseWith(const std::string& text, bool fast) {
  base::SourceMap sources;
  base::FileId id = sources.add("t.vx", text);
  Interner names;
  diag::Sink sink;
  parse::ParseOptions o;
  o.fastParser = fast;
  Result r;
  Module m = parse::parseFile(sources, id, names, sink, o, &r.stats);
  r.ast = dumpModule(m, names);
  for (const diag::Diagnostic& d : sink.diagnostics()) r.diagnostics += diag::renderJson(d, sources) + "\n";
  return r;
}

// Parses `text` both ways; returns how many chunks the fast path took.
uint32_t same(const std::string& text) {
  Result fast = parseWith(text, true), ref = parseWith(text, false);
  INFO("source:\n" << text);
  CHECK(fast.diagnostics == ref.diagnostics);
  CHECK(fast.ast == ref.ast);
  return fast.stats.chunks - fast.stats.antlrChunks;
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> programs() {
  std::vector<fs::path> out;
  for (const char* dir : {"tests", "examples", "stdlib"})
    for (auto& e : fs::recursive_directory_iterator(fs::path(VX_SOURCE_DIR) / dir))
      if (e.is_regular_file() && e.path().extension() == ".vx") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

struct Rng {
  uint32_t state;
  uint32_t next(uint32_t n) {
    state = state * 1664525u + 1013904223u;
    return (state >> 8) % n;
  }
};

}  // namespace

TEST_CASE("the fast parser agrees with ANTLR on every test program and takes the valid ones") {
  int files = 0;
  for (const fs::path& p : programs()) {
    std::string text = readFile(p);
    INFO("file " << p.string());
    Result fast = parseWith(text, true), ref = parseWith(text, false);
    CHECK(fast.diagnostics == ref.diagnostics);
    CHECK(fast.ast == ref.ast);
    // A program ANTLR parses without a diagnostic is the fast path's whole
    // job; the only construct it gives back is `as T<` (see FastParser.h).
    if (ref.diagnostics.empty() && text.find(" as ") == std::string::npos)
      CHECK(fast.stats.antlrChunks == 0);
    ++files;
  }
  CHECK(files > 80);
}

TEST_CASE("the fast parser agrees with ANTLR on mutated programs") {
  // Each mutant deletes, duplicates, swaps or replaces one token-sized piece
  // of a test program: mostly syntax errors, some valid programs of new shapes.
  static const char* pieces[] = {";", ",", "(", ")", "{", "}", "[", "]", "<", ">", "::", ":", ".", "..",
                                 "=", "==", "&", "&&", "&mut ", "-", "*", "!", "as u32", "as T<u32>",
                                 "x", "0", "1.5", "0x_", "99999999999999999999", "let", "if", "else",
                                 "fn", "extern", "return", "mut", "< b <", "t.0", "f::<f32>"};
  Rng rng{12345};
  int mutants = 0;
  uint32_t taken = 0;
  for (const fs::path& p : programs()) {
    std::string text = readFile(p);
    if (text.empty() || text.size() > 4000) continue;
    for (int k = 0; k < 12; ++k) {
      std::string t = text;
      size_t at = rng.next(static_cast<uint32_t>(t.size()));
      size_t len = 1 + rng.next(6);
      switch (rng.next(4)) {
        case 0: t.erase(at, len); break;
        case 1: t.insert(at, t.substr(at, len)); break;
        case 2:
          if (at + 2 * len < t.size()) {
            std::string a = t.substr(at, len), b = t.substr(at + len, len);
            t.replace(at, 2 * len, b + a);
          }
          break;
        default: t.insert(at, std::string(" ") + pieces[rng.next(sizeof pieces / sizeof *pieces)] + " "); break;
      }
      taken += same(t);
      ++mutants;
    }
  }
  CHECK(mutants > 1000);
  CHECK(taken > 500);
}

namespace {

// A random expression over every expression form of the grammar.
std::string randomExpr(Rng& rng, int depth) {
  static const char* atoms[] = {"a", "b", "v[i]", "1", "2u32", "0x1F", "1.5", "true", "x.0", "f(a)",
                                "m::n", "g::<f32>(b)", "()", "t.len()"};
  static const char* binops[] = {"+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||"};
  static const char* prefixes[] = {"-", "!", "*", "&", "&mut ", "&&", "&& mut "};
  if (depth <= 0) return atoms[rng.next(sizeof atoms / sizeof *atoms)];
  switch (rng.next(9)) {
    case 0:
    case 1:
    case 2:
      return randomExpr(rng, depth - 1) + " " + binops[rng.next(sizeof binops / sizeof *binops)] + " " +
             randomExpr(rng, depth - 1);
    case 3: return prefixes[rng.next(sizeof prefixes / sizeof *prefixes)] + randomExpr(rng, depth - 1);
    case 4: return "(" + randomExpr(rng, depth - 1) + ")";
    case 5: return "(" + randomExpr(rng, depth - 1) + ", " + randomExpr(rng, depth - 1) + ")";
    case 6: return randomExpr(rng, depth - 1) + (rng.next(2) ? " as u32" : " as &f32");
    case 7: return randomExpr(rng, depth - 1) + ".m(" + randomExpr(rng, depth - 1) + ")";
    default: return randomExpr(rng, depth - 1) + "[" + randomExpr(rng, depth - 1) + "]";
  }
}

}  // namespace

TEST_CASE("the fast parser agrees with ANTLR on random expressions") {
  Rng rng{99};
  uint32_t taken = 0;
  for (int n = 0; n < 1500; ++n) {
    std::string e = randomExpr(rng, 1 + static_cast<int>(rng.next(5)));
    std::string program = n % 2 ? "fn f() { let x = " + e + "; }\n" : "fn f() -> u32 { " + e + " }\n";
    taken += same(program);
  }
  CHECK(taken > 1000);  // chained comparisons go to ANTLR, most of the rest not
}

TEST_CASE("the fast parser gives back what only ANTLR decides or reports") {
  // Each of these parses on the ANTLR path (no fast chunk) and both paths
  // agree on the result.
  for (const char* s : {"fn f() -> bool { a as u32 < b }",        // `as T<`: comparison or generics
                        "fn f() -> bool { a < b < c }",            // chained comparison (E0001)
                        "extern fn f() {}",                        // extern with a body
                        "fn f();",                                 // fn without a body
                        "fn f() { let x = 99999999999999999999; }",  // integer out of range
                        "fn f() { let x = 1e999; }",               // float out of range
                        "fn f() { let x = ; }"}) {                 // a syntax error
    INFO(s);
    Result fast = parseWith(s, true), ref = parseWith(s, false);
    CHECK(fast.stats.antlrChunks == 1);
    CHECK(fast.ast == ref.ast);
    CHECK(fast.diagnostics == ref.diagnostics);
  }
}

TEST_CASE("expressions deeper than the limit are reported the same way on both paths") {
  std::string chain = "fn f() -> u32 { a";
  for (int i = 0; i < 3000; ++i) chain += " + a";
  chain += " }\n";
  Result fast = parseWith(chain, true), ref = parseWith(chain, false);
  CHECK(fast.diagnostics.find("E0003") != std::string::npos);
  CHECK(fast.diagnostics == ref.diagnostics);
  CHECK(fast.ast == ref.ast);
}

TEST_CASE("shape dimensions with arithmetic parse the same on both paths, with precedence") {
  // Each parses on the fast path and agrees with ANTLR node for node.
  for (const char* s : {"fn f(a: &Tensor<f32, [2 * BM, BK]>) {}",
                        "fn f(a: &Tensor<f32, [1 + 2 * 3, (1 + 2) * 3, 8 - 2 - 1, A % B / C]>) {}",
                        "fn f(a: &Tensor<f32, [((BM)), BM * (BK + 1) - 2,]>) {}",
                        "fn f() { let x: Tensor<f32, [N / 2 + N % 2]> = g(); }"}) {
    INFO(s);
    Result fast = parseWith(s, true), ref = parseWith(s, false);
    CHECK(fast.stats.antlrChunks == 0);
    CHECK(fast.ast == ref.ast);
    CHECK(fast.diagnostics == ref.diagnostics);
    CHECK(ref.diagnostics.empty());
  }
  // `*` binds tighter than `+`; `-` is left-associative.
  Result r = parseWith("fn f(a: &Tensor<f32, [1 + 2 * 3, 8 - 2 - 1]>) {}", false);
  INFO(r.ast);
  CHECK(r.ast.find("(type DimBinary 0 0 @22-31 (type IntArg 0 1 @22-23 )+ (type DimBinary 0 0 @26-31") !=
        std::string::npos);
  CHECK(r.ast.find("(type DimBinary 0 0 @33-42 (type DimBinary 0 0 @33-38 (type IntArg 0 8 @33-34 )- ") !=
        std::string::npos);
  // Not arithmetic: a syntax error on both paths.
  for (const char* s : {"fn f(a: &Tensor<f32, [2 * ]>) {}", "fn f(a: &Tensor<f32, [a < b]>) {}",
                        "fn f(a: &Tensor<f32, [-2]>) {}", "fn f(a: &Tensor<f32, [(2]>) {}"}) {
    INFO(s);
    Result fast = parseWith(s, true), ref = parseWith(s, false);
    CHECK(!ref.diagnostics.empty());
    CHECK(fast.ast == ref.ast);
    CHECK(fast.diagnostics == ref.diagnostics);
  }
}

TEST_CASE("shape dimensions deeper than the limit are reported the same way on both paths") {
  std::string chain = "fn f(a: &Tensor<f32, [";
  for (int i = 0; i < 3000; ++i) chain += "(";
  chain += "1";
  for (int i = 0; i < 3000; ++i) chain += ")";
  chain += "]>) {}\n";
  Result fast = parseWith(chain, true), ref = parseWith(chain, false);
  CHECK(ref.diagnostics.find("E0003") != std::string::npos);
  CHECK(fast.diagnostics == ref.diagnostics);
  CHECK(fast.ast == ref.ast);
}
