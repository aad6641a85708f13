// Semantic types: interned in a TypeTable and named by 32-bit TypeIds, so
// equal types have equal IDs. Shapes, dimensions and memory spaces are types
// too (they appear as generic arguments: `Pinned<T, Memory::VMEM>`,
// `zeros::<f32, [2, 128, 128]>`), which lets one unifier handle generics,
// shapes (E0201) and memory spaces (E0202).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/StableVector.h"

#include "target/Target.h"

namespace vx::hir {

struct TypeId {
  uint32_t index = UINT32_MAX;
  bool valid() const { return index != UINT32_MAX; }
  friend bool operator==(TypeId a, TypeId b) { return a.index == b.index; }
  friend bool operator!=(TypeId a, TypeId b) { return a.index != b.index; }
};

enum class TyKind : uint8_t {
#define HIR_TYPE(K) K,
#include "hir/TypeKinds.def"
#undef HIR_TYPE
};

enum class IntKind : uint8_t { I32, I64, U32, U64, Usize };
enum class FloatKind : uint8_t { F16, Bf16, F32, F64 };
// Memory spaces are rows of src/target/MemSpaces.def.
using target::MemSpace;
enum class Topology : uint8_t { Host, TensorCore };

const char* intKindName(IntKind k);
bool intKindSigned(IntKind k);
const char* floatKindName(FloatKind k);
// A float type's range for literals and `--const` values: `limit` is the
// least magnitude that rounds (to nearest) to infinity, `largest` the
// largest finite value.
struct FloatRange {
  double limit, largest;
};
FloatRange floatRange(FloatKind k);
const char* memSpaceName(MemSpace m);  // "VMEM"
const char* topologyName(Topology t);  // "TensorCore"
// Bytes of one element, for footprints and lowering.
uint32_t floatBytes(FloatKind k);

struct TyData {
  TyKind kind = TyKind::Error;
  uint8_t sub = 0;      // IntKind, FloatKind, MemSpace, Topology; Ref: 1 = mut
  // Set by the table: no inference variable anywhere inside (bound or
  // not), so zonk leaves the type as it is.
  bool closed = false;
  TypeId a, b;          // Tensor(elem, shape) Vec(elem) Ref(inner) Pinned/Token(inner, mem)
  uint32_t listBegin = 0, listCount = 0;  // Tuple elements, Shape dims
  uint64_t value = 0;   // Dim value; Var/IntVar/FloatVar: variable index; Extent: its index
};

class TypeTable {
 public:
  TypeTable();

  const TyData& get(TypeId t) const { return types_[t.index]; }
  TyKind kind(TypeId t) const { return types_[t.index].kind; }
  TypeId elem(TypeId t, uint32_t i) const { return TypeId{list_[get(t).listBegin + i]}; }
  uint32_t count(TypeId t) const { return get(t).listCount; }

  // Common types, created once.
  TypeId error() const { return error_; }
  TypeId voidTy() const { return void_; }
  TypeId boolTy() const { return bool_; }
  TypeId intTy(IntKind k);
  TypeId floatTy(FloatKind k);
  TypeId usize() { return intTy(IntKind::Usize); }

  TypeId tensor(TypeId elem, TypeId shape);
  TypeId vec(TypeId elem);
  TypeId ref(TypeId inner, bool mut);
  // `Pinned<void, M>` is `void`: waiting a `Token<void, M>` yields nothing.
  TypeId pinned(TypeId inner, TypeId mem);
  TypeId token(TypeId inner, TypeId mem);
  TypeId tuple(const std::vector<TypeId>& elems);
  TypeId shape(const std::vector<TypeId>& dims);
  TypeId dim(uint64_t value);
  // A new run-time extent named `name` (`Tensor<f32, [m, k]>`): a dimension
  // bound when its function is called; each call makes a distinct one.
  TypeId extent(const std::string& name);
  const std::string& extentName(TypeId t) const { return extentNames_[get(t).value]; }
  // Does `t` mention a run-time extent (a shape that is not static)?
  bool hasExtent(TypeId t) const;
  TypeId mem(MemSpace m);
  TypeId topo(Topology t);

  // Inference variables. `Var` unifies with anything; `IntVar` and
  // `FloatVar` (unsuffixed literals) only with integer / float types.
  TypeId freshVar();
  TypeId freshIntVar();
  TypeId freshFloatVar();
  // Follows variable bindings; the representative of t.
  TypeId resolve(TypeId t) const;
  // Resolves all variables inside t (deeply); unbound IntVar -> i32,
  // FloatVar -> f64 when `defaults` is set.
  TypeId zonk(TypeId t, bool defaults);
  void bind(TypeId var, TypeId to);
  bool isVar(TypeId t) const;

  // The type the way users write it: `&mut Pinned<Tensor<f32, [128, 128]>, Memory::VMEM>`.
  std::string print(TypeId t) const;
  // The same, naming the given variables (generic parameters) instead of `_`.
  std::string print(TypeId t, const std::vector<std::pair<TypeId, std::string>>& names) const;

  // Structural helpers.
  bool isError(TypeId t) const { return kind(resolve(t)) == TyKind::Error; }
  bool containsError(TypeId t) const { return containsKind(t, TyKind::Error); }
  // An unbound type variable (not an integer or float literal's) inside t:
  // a generic inference left open.
  bool containsOpenVar(TypeId t) const { return containsKind(t, TyKind::Var); }
  // A type of kind k inside t (t itself included), through bound variables.
  bool containsKind(TypeId t, TyKind k) const;
  bool isInteger(TypeId t) const;
  bool isFloat(TypeId t) const;
  bool isNumeric(TypeId t) const { return isInteger(t) || isFloat(t); }
  // Copy types: scalars, void, shared references, memory/topology constants.
  bool isCopy(TypeId t) const;
  bool isLinear(TypeId t) const { return kind(resolve(t)) == TyKind::Token; }
  // Number of elements of a tensor type with a known shape (0 if unknown).
  uint64_t elementCount(TypeId tensor) const;

 private:
  TypeId intern(const TyData& d, const std::vector<TypeId>& list = {});
  // References from get() stay valid while interning appends.
  base::StableVector<TyData> types_;
  std::vector<uint32_t> list_;
  // Structural types by a hash of their fields (variables are never here):
  // an open-addressing table of (hash, id + 1); id 0 marks an empty slot.
  struct Slot {
    uint32_t hash = 0;
    uint32_t id = 0;
  };
  void indexInsert(uint32_t h, uint32_t id);
  std::vector<Slot> slots_;
  size_t indexed_ = 0;
  std::vector<TypeId> bindings_;  // per variable index
  std::vector<std::string> extentNames_;  // per extent index
  TypeId error_, void_, bool_;
};

}  // namespace vx::hir
