// Type inference and shapes through the whole front end (parse + check).
#include <doctest/doctest.h>

#include "check/Check.h"
#include "driver/Pipeline.h"
#include "parse/Parse.h"

using namespace vx;

namespace {
struct Checked {
  base::SourceMap sources;
  diag::Sink sink;
  std::unique_ptr<hir::Program> prog;
  std::vector<std::string> codes() const {
    std::vector<std::string> c;
    for (const auto& d : sink.diagnostics()) c.emplace_back(d.code());
    return c;
  }
  // The type of the last local named `name` (the prelude's come first).
  std::string localType(const std::string& name) const {
    for (auto it = prog->locals.rbegin(); it != prog->locals.rend(); ++it)
      if (it->name == name) return prog->types.print(it->type);
    return "<none>";
  }
};

std::unique_ptr<Checked> checkText(const std::string& text, const std::string& target = "cpu") {
  auto c = std::make_unique<Checked>();
  base::FileId id = c->sources.add("t.vx", text);
  ast::Interner names;
  ast::Module m = parse::parseFile(c->sources, id, names, c->sink);
  std::optional<vx::target::TargetKind> t = vx::target::targetByName(target);
  REQUIRE(t.has_value());
  c->prog = check::checkTypes(c->sources, driver::prelude(), m, names, c->sink, *t);
  return c;
}
}  // namespace

TEST_CASE("an integer literal takes the type of its use") {
  auto c = checkText("fn f(v: &Vec<i32>) -> usize { let start = 0; let n = v.len() - start; n }");
  CHECK(c->codes().empty());
  CHECK(c->localType("start") == "usize");
}

TEST_CASE("an unconstrained literal defaults to i32") {
  auto c = checkText("fn f() -> i32 { let a = 7; a }");
  CHECK(c->localType("a") == "i32");
}

TEST_CASE("a for variable has the type of its range") {
  auto c = checkText("fn f(v: &Vec<i32>) -> i32 { let mut s = 0; for i in 0..v.len() { s = s + v[i]; } s }");
  CHECK(c->codes().empty());
  CHECK(c->localType("i") == "usize");
}

TEST_CASE("builtins instantiate their generics per call") {
  auto c = checkText(R"(
fn f(tiles: &Vec<Tensor<f32, [128, 128]>>, w: &Tensor<bf16, [64, 64]>) on Topology::TensorCore {
  let a = transfer_async(tiles[0], Memory::VMEM);
  let b = transfer(w, Memory::HBM);
  let slots = zeros::<f32, [2, 128, 128]>(Memory::VMEM);
  matmul_acc(wait(a));
  matmul_acc(transfer(&b, Memory::VMEM));
  let s = slots;
})");
  CHECK(c->localType("a") == "Token<Tensor<f32, [128, 128]>, Memory::VMEM>");
  CHECK(c->localType("b") == "Pinned<Tensor<bf16, [64, 64]>, Memory::HBM>");
  CHECK(c->localType("slots") == "Pinned<Tensor<f32, [2, 128, 128]>, Memory::VMEM>");
}

TEST_CASE("indexing a ring of slots gives one slot") {
  auto c = checkText(R"(
fn f() on Topology::TensorCore {
  let mut slots = zeros::<f32, [3, 128, 64]>(Memory::VMEM);
  let one = &mut slots[2];
})");
  CHECK(c->localType("one") == "&mut Pinned<Tensor<f32, [128, 64]>, Memory::VMEM>");
}

TEST_CASE("transfer_async_into yields a void token that waits to void") {
  auto c = checkText(R"(
fn f(tiles: &Vec<Tensor<f32, [128, 128]>>) on Topology::TensorCore {
  let mut slot = zeros::<f32, [128, 128]>(Memory::VMEM);
  let t = transfer_async_into(tiles[0], &mut slot);
  let done = wait(t);
})");
  CHECK(c->localType("t") == "Token<void, Memory::VMEM>");
  CHECK(c->localType("done") == "void");
}

TEST_CASE("matmul inner dimensions are checked (E0201)") {
  auto c = checkText(R"(
fn f(acc: &mut Pinned<Tensor<f32, [16, 32]>, Memory::VMEM>,
     a: &Pinned<Tensor<f32, [16, 8]>, Memory::VMEM>,
     b: &Pinned<Tensor<f32, [9, 32]>, Memory::VMEM>) on Topology::TensorCore {
  mma(acc, a, b);
})");
  CHECK(c->codes() == std::vector<std::string>{"E0201"});
}

TEST_CASE("shape dimensions may name integer constants") {
  auto c = checkText(R"(
const TILE: usize = 64;
fn f(x: &Tensor<f32, [TILE, TILE]>) -> usize on Topology::TensorCore {
  let v = transfer(x, Memory::VMEM);
  matmul_acc(v);
  TILE
})");
  CHECK(c->codes().empty());
}

TEST_CASE("the target decides which memories exist") {
  const char* src = "fn f() on Topology::TensorCore { let _a = zeros::<f32, [128, 128]>(Memory::TMEM); }";
  CHECK(checkText(src, "cpu")->codes() == std::vector<std::string>{"E0206"});
  CHECK(checkText(src, "b200")->codes().empty());
}

TEST_CASE("copying an on-chip buffer gives its contents in the new space") {
  auto c = checkText(R"(
fn f(x: &Tensor<f32, [128, 128]>) on Topology::TensorCore {
  let v = transfer(x, Memory::VMEM);
  let h = transfer(&v, Memory::HBM);
  matmul_acc(v);
})");
  CHECK(c->localType("h") == "Pinned<Tensor<f32, [128, 128]>, Memory::HBM>");
}
