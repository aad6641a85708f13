#include <doctest/doctest.h>

#include "hir/Types.h"

using namespace vx::hir;

TEST_CASE("equal types are interned to one id") {
  TypeTable t;
  TypeId s1 = t.shape({t.dim(128), t.dim(128)});
  TypeId s2 = t.shape({t.dim(128), t.dim(128)});
  CHECK(s1 == s2);
  CHECK(t.tensor(t.floatTy(FloatKind::F32), s1) == t.tensor(t.floatTy(FloatKind::F32), s2));
  CHECK(t.shape({t.dim(128)}) != s1);
}

TEST_CASE("types print the way users write them") {
  TypeTable t;
  TypeId tensor = t.tensor(t.floatTy(FloatKind::F32), t.shape({t.dim(2), t.dim(128), t.dim(128)}));
  CHECK(t.print(t.ref(t.pinned(tensor, t.mem(MemSpace::VMEM)), true)) ==
        "&mut Pinned<Tensor<f32, [2, 128, 128]>, Memory::VMEM>");
  CHECK(t.print(t.token(t.voidTy(), t.mem(MemSpace::HBM))) == "Token<void, Memory::HBM>");
  CHECK(t.print(t.tuple({t.intTy(IntKind::I32), t.boolTy()})) == "(i32, bool)");
}

TEST_CASE("waiting a void token yields void: Pinned<void, M> is void") {
  TypeTable t;
  CHECK(t.pinned(t.voidTy(), t.mem(MemSpace::VMEM)) == t.voidTy());
}

TEST_CASE("unbound literal variables default to i32 and f64") {
  TypeTable t;
  TypeId i = t.freshIntVar();
  TypeId f = t.freshFloatVar();
  CHECK(t.print(i) == "{integer}");
  CHECK(t.zonk(i, true) == t.intTy(IntKind::I32));
  CHECK(t.zonk(f, true) == t.floatTy(FloatKind::F64));
  t.bind(i, t.usize());
  CHECK(t.zonk(i, true) == t.usize());
}

TEST_CASE("copy and linear types") {
  TypeTable t;
  TypeId tensor = t.tensor(t.floatTy(FloatKind::F32), t.shape({t.dim(4)}));
  CHECK(t.isCopy(t.intTy(IntKind::I32)));
  CHECK(t.isCopy(t.ref(tensor, false)));
  CHECK_FALSE(t.isCopy(t.ref(tensor, true)));
  CHECK_FALSE(t.isCopy(tensor));
  CHECK(t.isLinear(t.token(tensor, t.mem(MemSpace::VMEM))));
  CHECK(t.elementCount(tensor) == 4);
}
