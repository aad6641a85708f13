// Written types -> semantic types.
#include "base/Text.h"
#include "check/Sema.h"
#include "check/Words.h"
#include "diag/DiagKinds.h"

namespace vx::check {

using hir::TyKind;
using hir::TypeId;

namespace {

bool scalarByName(hir::TypeTable& t, const std::string& n, TypeId& out) {
  static const std::pair<const char*, hir::IntKind> ints[] = {
      {"i32", hir::IntKind::I32}, {"i64", hir::IntKind::I64}, {"u32", hir::IntKind::U32},
      {"u64", hir::IntKind::U64}, {"usize", hir::IntKind::Usize}};
  static const std::pair<const char*, hir::FloatKind> floats[] = {
      {"f16", hir::FloatKind::F16}, {"bf16", hir::FloatKind::Bf16}, {"f32", hir::FloatKind::F32},
      {"f64", hir::FloatKind::F64}};
  for (const auto& [name, k] : ints)
    if (n == name) return (out = t.intTy(k)), true;
  for (const auto& [name, k] : floats)
    if (n == name) return (out = t.floatTy(k)), true;
  if (n == "bool") return (out = t.boolTy()), true;
  if (n == "void") return (out = t.voidTy()), true;
  return false;
}

const std::vector<std::string>& typeNames() {
  static const std::vector<std::string> names = {"i32",  "i64",    "u32",    "u64",   "usize", "f16",
                                                 "bf16", "f32",    "f64",    "bool",  "void",  "Tensor",
                                                 "Vec",  "Pinned", "Token"};
  return names;
}

}  // namespace

bool memSpaceByName(const std::string& n, hir::MemSpace& out) {
  static const std::pair<const char*, hir::MemSpace> spaces[] = {{"HBM", hir::MemSpace::HBM},
                                                                 {"VMEM", hir::MemSpace::VMEM},
                                                                 {"SMEM", hir::MemSpace::SMEM},
                                                                 {"TMEM", hir::MemSpace::TMEM}};
  for (const auto& [name, m] : spaces)
    if (n == name) return (out = m), true;
  return false;
}

bool topologyByName(const std::string& n, hir::Topology& out) {
  if (n == "Host") return (out = hir::Topology::Host), true;
  if (n == "TensorCore") return (out = hir::Topology::TensorCore), true;
  return false;
}

std::string unknownPathHelp(const std::string& head, const std::string& tail) {
  std::vector<std::string> cands;
  if (head == "Memory") cands = {"HBM", "VMEM", "SMEM", "TMEM"};
  if (head == "Topology") cands = {"Host", "TensorCore"};
  std::string close = base::closestMatch(tail, cands);
  if (!close.empty()) return "did you mean `" + head + "::" + close + "`?";
  if (!cands.empty()) {
    std::string list;
    for (const auto& c : cands) list += (list.empty() ? "`" : ", `") + head + "::" + c + "`";
    return "the known ones are " + list;
  }
  return {};
}

// Resolves `Memory::X` / `Topology::X`; reports E0100 for unknown names.
TypeId lowerConstPath(Sema& s, const ast::Path& p, base::Span at) {
  std::string head = s.name(ast::NameId{s.m->listAt(p.segments, 0)});
  std::string tail = s.name(ast::NameId{s.m->listAt(p.segments, 1)});
  hir::MemSpace mem;
  hir::Topology topo;
  if (p.segments.count == 2 && head == "Memory" && memSpaceByName(tail, mem)) return s.types().mem(mem);
  if (p.segments.count == 2 && head == "Topology" && topologyByName(tail, topo))
    return s.types().topo(topo);
  std::string full;
  for (uint32_t i = 0; i < p.segments.count; ++i)
    full += (i ? "::" : "") + s.name(ast::NameId{s.m->listAt(p.segments, i)});
  diag::Diagnostic d = diag::UnknownValue(full);
  d.primary(at, "not found");
  std::string help = unknownPathHelp(head, tail);
  if (!help.empty()) d.help(help);
  s.sink.emit(std::move(d));
  return s.types().error();
}

bool tensorSizeFits(Sema& s, TypeId elem, TypeId shape, base::Span at) {
  hir::TypeTable& tt = s.types();
  elem = tt.resolve(elem);
  shape = tt.resolve(shape);
  if (tt.kind(shape) != TyKind::Shape) return true;
  uint64_t bytes = tt.kind(elem) == TyKind::Float ? hir::floatBytes(static_cast<hir::FloatKind>(tt.get(elem).sub)) : 8;
  uint64_t total = bytes;
  bool overflow = false;
  std::string dims;
  for (uint32_t i = 0; i < tt.count(shape); ++i) {
    TypeId d = tt.resolve(tt.elem(shape, i));
    if (tt.kind(d) != TyKind::Dim) continue;  // a run-time extent: checked where the tensor is passed
    overflow = overflow || __builtin_mul_overflow(total, tt.get(d).value, &total);
  }
  if (!overflow && total <= static_cast<uint64_t>(INT64_MAX)) return true;
  s.sink.emit(diag::ConstEvalFailed("a tensor of shape `" + tt.print(shape) + "` has more than 2^63 bytes")
                  .primary(at, "its size in bytes overflows")
                  .note("sizes and offsets are 64-bit on every target"));
  return false;
}

namespace {

TypeId lowerDim(Sema& s, ast::TypeId id) {
  const ast::Type& t = s.m->type(id);
  if (t.kind == ast::TypeKind::IntArg) return checkedDim(s, t.value, s.span(t.range), false);
  if (t.kind == ast::TypeKind::Path) {
    const ast::Path& p = s.m->path(t.path);
    std::string n = s.name(ast::NameId{s.m->listAt(p.segments, 0)});
    for (const auto& [gn, gv] : s.generics)
      if (gn == n) return gv;
    if (p.segments.count == 1 && !p.hasGenerics)
      if (TypeId e = extentByName(s, n, s.span(t.range)); e.valid()) return e;
    return lowerDimExpr(s, id);
  }
  if (t.kind == ast::TypeKind::DimBinary) return lowerDimExpr(s, id);
  return lowerType(s, id);
}

}  // namespace

TypeId extentByName(Sema& s, const std::string& n, base::Span at) {
  if (!s.extents || n.empty() || s.constByName.count(n)) return {};
  hir::TypeTable& tt = s.types();
  for (hir::Function::ExtentParam& e : *s.extents)
    if (tt.extentName(e.type) == n) {
      if (s.extentsOpen) e.uses.emplace_back(s.extentParam, s.extentDim);
      return e.type;
    }
  // A new extent: a lower-case name in a parameter's shape.
  if (!s.extentsOpen || !(n[0] >= 'a' && n[0] <= 'z')) return {};
  hir::Function::ExtentParam e;
  e.type = tt.extent(n);
  e.span = at;
  e.uses.emplace_back(s.extentParam, s.extentDim);
  s.extents->push_back(e);
  return e.type;
}

bool checkStaticOnChip(Sema& s, TypeId type, base::Span at) {
  hir::TypeTable& tt = s.types();
  TypeId t = tt.resolve(type);
  const hir::TyData d = tt.get(t);
  switch (d.kind) {
    case TyKind::Pinned:
    case TyKind::Token:
      if (!tt.hasExtent(t)) return true;
      s.sink.emit(diag::OnChipShapeNotStatic(tt.print(t))
                      .primary(at, "a buffer with run-time extents")
                      .help("copy a block of a static shape into on-chip memory: "
                            "`transfer_async(block::<[R, C]>(a, r, c), Memory::VMEM)`"));
      return false;
    case TyKind::Ref: return checkStaticOnChip(s, d.a, at);
    case TyKind::Vec:
      if (!tt.hasExtent(t)) return true;
      s.sink.emit(diag::OnChipShapeNotStatic(tt.print(t))
                      .primary(at, "a Vec of tensors with run-time extents")
                      .help("a Vec's tensors have a static shape; pass one tensor with a leading dimension "
                            "instead: `Tensor<f32, [m, k]>`, or `Tensor<f32, [b, m, 64]>` indexed as `x[i]`"));
      return false;
    case TyKind::Tuple:
      for (uint32_t i = 0; i < d.listCount; ++i)
        if (!checkStaticOnChip(s, tt.elem(t, i), at)) return false;
      return true;
    default: return true;
  }
}

TypeId lowerType(Sema& s, ast::TypeId id) {
  hir::TypeTable& tt = s.types();
  if (!id.valid()) return tt.voidTy();
  const ast::Type& t = s.m->type(id);
  switch (t.kind) {
    case ast::TypeKind::Error: return tt.error();
    case ast::TypeKind::Ref: return tt.ref(lowerType(s, t.inner), t.mut);
    case ast::TypeKind::Tuple: {
      std::vector<TypeId> elems;
      for (uint32_t i = 0; i < t.list.count; ++i) elems.push_back(lowerType(s, ast::TypeId{s.m->listAt(t.list, i)}));
      return tt.tuple(elems);
    }
    case ast::TypeKind::Shape: {
      std::vector<TypeId> dims;
      for (uint32_t i = 0; i < t.list.count; ++i) {
        s.extentDim = i;
        dims.push_back(lowerDim(s, ast::TypeId{s.m->listAt(t.list, i)}));
      }
      return tt.shape(dims);
    }
    case ast::TypeKind::IntArg: return tt.dim(t.value);
    case ast::TypeKind::DimBinary: return lowerDimExpr(s, id);
    case ast::TypeKind::Path: break;
  }
  const ast::Path& p = s.m->path(t.path);
  base::Span at = s.span(t.range);
  if (p.segments.count > 1) {
    if (p.hasGenerics) {
      s.sink.emit(diag::GenericArgCountMismatch(s.name(ast::NameId{s.m->listAt(p.segments, 0)}),
                                                "no generic arguments", plural(p.genericArgs.count, "was", "were"))
                      .primary(at, ""));
      return tt.error();
    }
    return lowerConstPath(s, p, at);
  }
  std::string n = s.name(ast::NameId{s.m->listAt(p.segments, 0)});
  std::vector<ast::TypeId> args;
  for (uint32_t i = 0; i < p.genericArgs.count; ++i) args.push_back(ast::TypeId{s.m->listAt(p.genericArgs, i)});
  auto arity = [&](size_t want) {
    if (args.size() == want) return true;
    s.sink.emit(diag::GenericArgCountMismatch(n, countOf(want, "generic argument"),
                                              plural(static_cast<uint32_t>(args.size()), "was", "were"))
                    .primary(at, "expected " + countOf(want, "generic argument")));
    return false;
  };
  TypeId scalar;
  if (scalarByName(tt, n, scalar)) return arity(0) ? scalar : tt.error();
  for (const auto& [gn, gv] : s.generics)
    if (gn == n) return arity(0) ? gv : tt.error();
  if (n == "Vec") return arity(1) ? tt.vec(lowerType(s, args[0])) : tt.error();
  auto memArg = [&](ast::TypeId a) {
    TypeId m = tt.resolve(lowerType(s, a));
    if (tt.kind(m) == TyKind::Mem || tt.kind(m) == TyKind::Var || tt.kind(m) == TyKind::Error) return m;
    s.sink.emit(diag::NonConstMemSpace().primary(s.span(s.m->type(a).range), "not a memory space")
                    .help("write `Memory::HBM`, `Memory::VMEM`, `Memory::SMEM` or `Memory::TMEM`"));
    return tt.error();
  };
  if (n == "Pinned" || n == "Token") {
    if (!arity(2)) return tt.error();
    TypeId inner = lowerType(s, args[0]);
    TypeId mem = memArg(args[1]);
    return n == "Pinned" ? tt.pinned(inner, mem) : tt.token(inner, mem);
  }
  if (n == "Tensor") {
    if (!arity(2)) return tt.error();
    TypeId elem = lowerType(s, args[0]);
    TypeId shape = lowerType(s, args[1]);
    TypeId re = tt.resolve(elem), rs = tt.resolve(shape);
    if (!tt.isNumeric(re) && tt.kind(re) != TyKind::Var && tt.kind(re) != TyKind::Error) {
      s.sink.emit(diag::KindMismatch("a numeric element type", "`" + tt.print(elem) + "`")
                      .primary(s.span(s.m->type(args[0]).range), "tensor elements are numbers"));
      return tt.error();
    }
    if (tt.kind(rs) != TyKind::Shape && tt.kind(rs) != TyKind::Var && tt.kind(rs) != TyKind::Error) {
      s.sink.emit(diag::KindMismatch("a shape like `[128, 128]`", "`" + tt.print(shape) + "`")
                      .primary(s.span(s.m->type(args[1]).range), "expected a shape"));
      return tt.error();
    }
    if (!tensorSizeFits(s, re, rs, at)) return tt.error();
    return tt.tensor(elem, shape);
  }
  if (n == "Memory" || n == "Topology") {
    // `m: Memory`: a memory space is not a run-time value.
    diag::Diagnostic d = diag::SpaceAsValueType(n);
    d.primary(at, std::string(n == "Memory" ? "memory spaces" : "topologies") + " are constants, not values");
    if (n == "Memory")
      d.note("a memory space is written where it is used, as a constant: `transfer_async(x, Memory::VMEM)`; "
             "`Pinned<T, Memory::VMEM>` names it in a type")
          .help("write the space at the call, or take the buffer instead: `x: &Pinned<Tensor<f32, [128, 128]>, "
                "Memory::VMEM>`");
    else
      d.help("write the topology after the signature: `fn f(...) on Topology::TensorCore { ... }`");
    s.sink.emit(std::move(d));
    return tt.error();
  }
  std::vector<std::string> cands = typeNames();
  for (const auto& [gn, gv] : s.generics) cands.push_back(gn);
  diag::Diagnostic d = diag::UnknownType(n);
  d.primary(at, "not found in this scope");
  std::string close = base::closestMatch(n, cands);
  if (!close.empty()) d.help("a type with a similar name exists: `" + close + "`");
  s.sink.emit(std::move(d));
  return tt.error();
}

}  // namespace vx::check
