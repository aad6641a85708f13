#include <doctest/doctest.h>

#include "parse/Parse.h"

using namespace vx;

namespace {
const char* kCanonical = R"(
fn stream(tiles : &Vec<Tensor<f32, [128, 128]>>) -> void on Topology::TensorCore {
  let mut inflight = transfer_async(tiles[0], Memory::VMEM);
  for i in 1..tiles.len() {
    let next = transfer_async(tiles[i], Memory::VMEM);   // issue before consuming
    let cur  = wait(inflight);                           // token consumed here
    matmul_acc(cur);
    inflight = next;
  }
  matmul_acc(wait(inflight));
}
)";
}

TEST_CASE("the canonical program parses on the fast path, and with ANTLR's SLL prediction alone") {
  base::SourceMap sources;
  base::FileId id = sources.add("s.vx", kCanonical);
  {
    ast::Interner names;
    diag::Sink sink;
    parse::ParseStats stats;
    (void)parse::parseFile(sources, id, names, sink, {}, &stats);
    CHECK(sink.diagnostics().empty());
    CHECK(stats.antlrChunks == 0);
  }
  ast::Interner names;
  diag::Sink sink;
  parse::ParseStats stats;
  parse::ParseOptions antlrOnly;
  antlrOnly.fastParser = false;
  ast::Module m = parse::parseFile(sources, id, names, sink, antlrOnly, &stats);
  CHECK(sink.diagnostics().empty());
  CHECK(stats.antlrChunks == stats.chunks);
  CHECK(stats.llFallbacks == 0);
  REQUIRE(m.items.size() == 1);
  const ast::Item& f = m.items[0];
  CHECK(names.str(f.name) == "stream");
  CHECK(f.params.size() == 1);
  CHECK(f.topology.valid());
  REQUIRE(f.body.valid());
  CHECK(m.block(f.body).stmts.count == 3);  // let, for, expression statement
}

TEST_CASE("operators get Rust precedence and left associativity") {
  base::SourceMap sources;
  base::FileId id = sources.add("p.vx", "fn f(a: i32) -> bool { a - 1 - 2 * 3 < 4 && !true || false }");
  ast::Interner names;
  diag::Sink sink;
  ast::Module m = parse::parseFile(sources, id, names, sink);
  REQUIRE(sink.diagnostics().empty());
  std::string printed = ast::printModule(m, names);
  CHECK(printed.find("(tail (|| (&& (< (- (- (path a) (int 1)) (* (int 2) (int 3))) (int 4)) (! (bool true))) (bool false)))") !=
        std::string::npos);
}

TEST_CASE("spans are byte offsets into the file") {
  base::SourceMap sources;
  base::FileId id = sources.add("p.vx", "fn f() {}\nfn gg() {}\n");
  ast::Interner names;
  diag::Sink sink;
  ast::Module m = parse::parseFile(sources, id, names, sink);
  REQUIRE(m.items.size() == 2);
  CHECK(m.items[1].nameRange.begin == 13);
  CHECK(m.items[1].nameRange.end == 15);
}

TEST_CASE("literals keep their values and suffixes") {
  base::SourceMap sources;
  base::FileId id = sources.add("p.vx", "fn f() { let a = 0x1F_u32; let b = 1_000usize; let c = 2.5e1f32; }");
  ast::Interner names;
  diag::Sink sink;
  ast::Module m = parse::parseFile(sources, id, names, sink);
  REQUIRE(sink.diagnostics().empty());
  REQUIRE(m.ints.size() == 2);
  CHECK(m.ints[0] == 31);
  CHECK(m.ints[1] == 1000);
  CHECK(m.floats[0] == doctest::Approx(25.0));
}
