#include <cmath>
#include "hir/Types.h"

namespace vx::hir {

namespace {
TyData make(TyKind k, uint8_t sub = 0) {
  TyData d;
  d.kind = k;
  d.sub = sub;
  return d;
}
}  // namespace

const char* intKindName(IntKind k) {
  switch (k) {
    case IntKind::I32: return "i32";
    case IntKind::I64: return "i64";
    case IntKind::U32: return "u32";
    case IntKind::U64: return "u64";
    case IntKind::Usize: return "usize";
  }
  return "?";
}
bool intKindSigned(IntKind k) {
  switch (k) {
    case IntKind::I32:
    case IntKind::I64: return true;
    case IntKind::U32:
    case IntKind::U64:
    case IntKind::Usize: return false;
  }
  return false;
}
const char* floatKindName(FloatKind k) {
  switch (k) {
    case FloatKind::F16: return "f16";
    case FloatKind::Bf16: return "bf16";
    case FloatKind::F32: return "f32";
    case FloatKind::F64: return "f64";
  }
  return "?";
}
FloatRange floatRange(FloatKind k) {
  switch (k) {
    case FloatKind::F16: return {65520.0, 65504.0};
    case FloatKind::Bf16: return {0x1.ffp127, 0x1.fep127};
    case FloatKind::F32: return {0x1.ffffffp127, 0x1.fffffep127};
    case FloatKind::F64: return {HUGE_VAL, 0x1.fffffffffffffp1023};
  }
  return {HUGE_VAL, HUGE_VAL};
}
const char* memSpaceName(MemSpace m) { return target::info(m).name; }
const char* topologyName(Topology t) {
  switch (t) {
    case Topology::Host: return "Host";
    case Topology::TensorCore: return "TensorCore";
  }
  return "?";
}
uint32_t floatBytes(FloatKind k) {
  switch (k) {
    case FloatKind::F16:
    case FloatKind::Bf16: return 2;
    case FloatKind::F32: return 4;
    case FloatKind::F64: return 8;
  }
  return 4;
}

namespace {
// A type's 32-bit hash: the fields' 64-bit mix with its high bits folded
// into the low ones. The table keeps it, and places the type by it.
uint32_t fold(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  return static_cast<uint32_t>(h ^ (h >> 33));
}
}  // namespace

TypeTable::TypeTable() {
  error_ = intern(make(TyKind::Error));
  void_ = intern(make(TyKind::Void));
  bool_ = intern(make(TyKind::Bool));
}

TypeId TypeTable::intern(const TyData& d, const std::vector<TypeId>& list) {
  // Variables are never shared: each one is its own type. Nor are types
  // with a variable inside (the instances of a generic signature, one per
  // call): their identity is not their meaning anyway (a bound variable
  // is its binding), so the checker compares them by unifying or after
  // zonk, whose results are closed, and closed types are shared.
  bool isVariable = d.kind == TyKind::Var || d.kind == TyKind::IntVar || d.kind == TyKind::FloatVar;
  bool closed = !isVariable && (!d.a.valid() || types_[d.a.index].closed) && (!d.b.valid() || types_[d.b.index].closed);
  for (TypeId t : list) closed = closed && types_[t.index].closed;
  uint64_t h = 0;
  if (closed) {
    auto mix = [&](uint64_t v) { h = (h ^ v) * 0x100000001b3ull + (h >> 29); };
    mix(static_cast<uint64_t>(d.kind) << 8 | d.sub);
    mix(uint64_t{d.a.index} << 32 | d.b.index);
    mix(d.value);
    mix(list.size());
    for (TypeId t : list) mix(t.index);
    h = fold(h);
    if (!slots_.empty()) {
      size_t mask = slots_.size() - 1;
      for (size_t at = h & mask; slots_[at].id != 0; at = (at + 1) & mask) {
        if (slots_[at].hash != h) continue;
        uint32_t id = slots_[at].id - 1;
        const TyData& o = types_[id];
        if (o.kind != d.kind || o.sub != d.sub || o.a != d.a || o.b != d.b || o.value != d.value ||
            o.listCount != list.size())
          continue;
        bool same = true;
        for (size_t i = 0; i < list.size() && same; ++i) same = list_[o.listBegin + i] == list[i].index;
        if (same) return TypeId{id};
      }
    }
  }
  TyData copy = d;
  copy.closed = closed;
  copy.listBegin = static_cast<uint32_t>(list_.size());
  copy.listCount = static_cast<uint32_t>(list.size());
  for (TypeId t : list) list_.push_back(t.index);
  types_.push_back(copy);
  uint32_t id = static_cast<uint32_t>(types_.size() - 1);
  if (closed) indexInsert(static_cast<uint32_t>(h), id);
  return TypeId{id};
}

void TypeTable::indexInsert(uint32_t h, uint32_t id) {
  // Open addressing, linear probing, at most half full.
  if ((indexed_ + 1) * 2 > slots_.size()) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 256 : old.size() * 2, Slot{});
    indexed_ = 0;
    for (const Slot& s : old)
      if (s.id != 0) indexInsert(s.hash, s.id - 1);
  }
  size_t mask = slots_.size() - 1;
  size_t at = h & mask;
  while (slots_[at].id != 0) at = (at + 1) & mask;
  slots_[at] = Slot{h, id + 1};
  ++indexed_;
}

TypeId TypeTable::intTy(IntKind k) { return intern(make(TyKind::Int, static_cast<uint8_t>(k))); }
TypeId TypeTable::floatTy(FloatKind k) {
  return intern(make(TyKind::Float, static_cast<uint8_t>(k)));
}
TypeId TypeTable::tensor(TypeId elem, TypeId shape) {
  TyData d = make(TyKind::Tensor);
  d.a = elem;
  d.b = shape;
  return intern(d);
}
TypeId TypeTable::vec(TypeId elem) {
  TyData d = make(TyKind::Vec);
  d.a = elem;
  return intern(d);
}
TypeId TypeTable::ref(TypeId inner, bool mut) {
  TyData d = make(TyKind::Ref, static_cast<uint8_t>(mut ? 1 : 0));
  d.a = inner;
  return intern(d);
}
TypeId TypeTable::pinned(TypeId inner, TypeId mem) {
  if (kind(resolve(inner)) == TyKind::Void) return void_;
  // Copying an on-chip buffer gives the buffer's contents in the new space,
  // not a buffer of buffers.
  if (kind(resolve(inner)) == TyKind::Pinned) inner = get(resolve(inner)).a;
  TyData d = make(TyKind::Pinned);
  d.a = inner;
  d.b = mem;
  return intern(d);
}
TypeId TypeTable::token(TypeId inner, TypeId mem) {
  if (kind(resolve(inner)) == TyKind::Pinned) inner = get(resolve(inner)).a;
  TyData d = make(TyKind::Token);
  d.a = inner;
  d.b = mem;
  return intern(d);
}
TypeId TypeTable::tuple(const std::vector<TypeId>& elems) {
  if (elems.empty()) return void_;
  return intern(make(TyKind::Tuple), elems);
}
TypeId TypeTable::shape(const std::vector<TypeId>& dims) { return intern(make(TyKind::Shape), dims); }
TypeId TypeTable::dim(uint64_t value) {
  TyData d = make(TyKind::Dim);
  d.value = value;
  return intern(d);
}
TypeId TypeTable::extent(const std::string& name) {
  TyData d = make(TyKind::Extent);
  d.value = extentNames_.size();
  extentNames_.push_back(name);
  return intern(d);
}

bool TypeTable::hasExtent(TypeId t) const {
  t = resolve(t);
  const TyData& d = get(t);
  switch (d.kind) {
    case TyKind::Extent: return true;
    case TyKind::Tensor:
    case TyKind::Pinned:
    case TyKind::Token: return hasExtent(d.a) || hasExtent(d.b);
    case TyKind::Vec:
    case TyKind::Ref: return hasExtent(d.a);
    case TyKind::Tuple:
    case TyKind::Shape:
      for (uint32_t i = 0; i < d.listCount; ++i)
        if (hasExtent(elem(t, i))) return true;
      return false;
    default: return false;
  }
}

TypeId TypeTable::mem(MemSpace m) { return intern(make(TyKind::Mem, static_cast<uint8_t>(m))); }
TypeId TypeTable::topo(Topology t) { return intern(make(TyKind::Topo, static_cast<uint8_t>(t))); }

TypeId TypeTable::freshVar() {
  TyData d = make(TyKind::Var);
  d.value = bindings_.size();
  bindings_.push_back(TypeId{});
  return intern(d);
}
TypeId TypeTable::freshIntVar() {
  TyData d = make(TyKind::IntVar);
  d.value = bindings_.size();
  bindings_.push_back(TypeId{});
  return intern(d);
}
TypeId TypeTable::freshFloatVar() {
  TyData d = make(TyKind::FloatVar);
  d.value = bindings_.size();
  bindings_.push_back(TypeId{});
  return intern(d);
}

bool TypeTable::isVar(TypeId t) const {
  TyKind k = kind(t);
  return k == TyKind::Var || k == TyKind::IntVar || k == TyKind::FloatVar;
}

TypeId TypeTable::resolve(TypeId t) const {
  while (isVar(t)) {
    TypeId b = bindings_[get(t).value];
    if (!b.valid()) return t;
    t = b;
  }
  return t;
}

void TypeTable::bind(TypeId var, TypeId to) { bindings_[get(var).value] = to; }

TypeId TypeTable::zonk(TypeId t, bool defaults) {
  t = resolve(t);
  if (get(t).closed) return t;
  const TyData d = get(t);
  switch (d.kind) {
    case TyKind::IntVar: return defaults ? intTy(IntKind::I32) : t;
    case TyKind::FloatVar: return defaults ? floatTy(FloatKind::F64) : t;
    case TyKind::Var: return defaults ? error_ : t;
    case TyKind::Tensor: return tensor(zonk(d.a, defaults), zonk(d.b, defaults));
    case TyKind::Vec: return vec(zonk(d.a, defaults));
    case TyKind::Ref: return ref(zonk(d.a, defaults), d.sub != 0);
    case TyKind::Pinned: return pinned(zonk(d.a, defaults), zonk(d.b, defaults));
    case TyKind::Token: return token(zonk(d.a, defaults), zonk(d.b, defaults));
    case TyKind::Tuple:
    case TyKind::Shape: {
      std::vector<TypeId> elems;
      for (uint32_t i = 0; i < d.listCount; ++i) elems.push_back(zonk(elem(t, i), defaults));
      return d.kind == TyKind::Tuple ? tuple(elems) : shape(elems);
    }
    default: return t;
  }
}

std::string TypeTable::print(TypeId t) const { return print(t, {}); }

std::string TypeTable::print(TypeId t, const std::vector<std::pair<TypeId, std::string>>& names) const {
  t = resolve(t);
  for (const auto& [v, n] : names)
    if (v == t) return n;
  auto print = [&](TypeId x) { return this->print(x, names); };
  const TyData& d = get(t);
  switch (d.kind) {
    case TyKind::Error: return "{error}";
    case TyKind::Void: return "void";
    case TyKind::Bool: return "bool";
    case TyKind::Int: return intKindName(static_cast<IntKind>(d.sub));
    case TyKind::Float: return floatKindName(static_cast<FloatKind>(d.sub));
    case TyKind::Tensor: return "Tensor<" + print(d.a) + ", " + print(d.b) + ">";
    case TyKind::Vec: return "Vec<" + print(d.a) + ">";
    case TyKind::Ref: return std::string(d.sub ? "&mut " : "&") + print(d.a);
    case TyKind::Pinned: return "Pinned<" + print(d.a) + ", " + print(d.b) + ">";
    case TyKind::Token: return "Token<" + print(d.a) + ", " + print(d.b) + ">";
    case TyKind::Tuple:
    case TyKind::Shape: {
      std::string s = d.kind == TyKind::Tuple ? "(" : "[";
      for (uint32_t i = 0; i < d.listCount; ++i) {
        if (i) s += ", ";
        s += print(elem(t, i));
      }
      if (d.kind == TyKind::Tuple && d.listCount == 1) s += ",";
      return s + (d.kind == TyKind::Tuple ? ")" : "]");
    }
    case TyKind::Dim: return std::to_string(d.value);
    case TyKind::Extent: return extentNames_[d.value];
    case TyKind::Mem: return std::string("Memory::") + memSpaceName(static_cast<MemSpace>(d.sub));
    case TyKind::Topo: return std::string("Topology::") + topologyName(static_cast<Topology>(d.sub));
    case TyKind::Var: return "_";
    case TyKind::IntVar: return "{integer}";
    case TyKind::FloatVar: return "{float}";
  }
  return "?";
}

bool TypeTable::containsKind(TypeId t, TyKind k) const {
  t = resolve(t);
  const TyData& d = get(t);
  if (d.kind == k) return true;
  switch (d.kind) {
    case TyKind::Tensor:
    case TyKind::Pinned:
    case TyKind::Token: return containsKind(d.a, k) || containsKind(d.b, k);
    case TyKind::Vec:
    case TyKind::Ref: return containsKind(d.a, k);
    case TyKind::Tuple:
    case TyKind::Shape:
      for (uint32_t i = 0; i < d.listCount; ++i)
        if (containsKind(elem(t, i), k)) return true;
      return false;
    default: return false;
  }
}

bool TypeTable::isInteger(TypeId t) const {
  TyKind k = kind(resolve(t));
  return k == TyKind::Int || k == TyKind::IntVar;
}
bool TypeTable::isFloat(TypeId t) const {
  TyKind k = kind(resolve(t));
  return k == TyKind::Float || k == TyKind::FloatVar;
}

bool TypeTable::isCopy(TypeId t) const {
  t = resolve(t);
  const TyData& d = get(t);
  switch (d.kind) {
    case TyKind::Error:
    case TyKind::Void:
    case TyKind::Bool:
    case TyKind::Int:
    case TyKind::Float:
    case TyKind::IntVar:
    case TyKind::FloatVar:
    case TyKind::Mem:
    case TyKind::Topo:
    case TyKind::Dim:
    case TyKind::Extent:
    case TyKind::Shape: return true;
    case TyKind::Ref: return d.sub == 0;
    case TyKind::Tuple:
      for (uint32_t i = 0; i < d.listCount; ++i)
        if (!isCopy(elem(t, i))) return false;
      return true;
    default: return false;
  }
}

uint64_t TypeTable::elementCount(TypeId tensor) const {
  tensor = resolve(tensor);
  if (kind(tensor) != TyKind::Tensor) return 0;
  TypeId shape = resolve(get(tensor).b);
  if (kind(shape) != TyKind::Shape) return 0;
  uint64_t n = 1;
  for (uint32_t i = 0; i < count(shape); ++i) {
    TypeId d = resolve(elem(shape, i));
    if (kind(d) != TyKind::Dim) return 0;
    n *= get(d).value;
  }
  return n;
}

}  // namespace vx::hir
