// HIR -> VIR: the module, function signatures, source locations.
#include "dialect/LowerHirImpl.h"
#include "diag/DiagKinds.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace vx::dialect {

mlir::Location loc(Lower& l, base::Span span) {
  if (!span.valid() || l.locations == Locations::None) return l.b.getUnknownLoc();
  uint64_t key = (uint64_t{span.begin} << 32) | span.end;
  if (span.file.index == l.locFile)
    if (auto it = l.locCache.find(key); it != l.locCache.end()) return it->second;
  if (l.locations == Locations::SpanOnly) {
    if (!l.locFileName) l.locFileName = mlir::StringAttr::get(&l.ctx, kSpanLocFile);
    return mlir::FileLineColLoc::get(l.locFileName, span.begin, span.end);
  }
  const base::SourceFile& f = l.sources.file(span.file);
  base::LineCol lc = f.lineCol(span.begin);
  if (l.locFile != span.file.index) {
    l.locFile = span.file.index;
    l.locFileName = mlir::StringAttr::get(&l.ctx, f.path());
    l.locCache.clear();
  }
  mlir::Location file = mlir::FileLineColLoc::get(l.locFileName, lc.line, lc.col);
  int32_t range[] = {static_cast<int32_t>(span.begin), static_cast<int32_t>(span.end)};
  mlir::Location made = mlir::FusedLoc::get(&l.ctx, {file}, mlir::DenseI32ArrayAttr::get(&l.ctx, range));
  l.locCache.try_emplace(key, made);
  return made;
}

base::Span spanOf(mlir::Location loc, base::FileId file) {
  if (auto fused = loc.dyn_cast<mlir::FusedLoc>()) {
    if (auto range = fused.getMetadata().dyn_cast_or_null<mlir::DenseI32ArrayAttr>()) {
      if (range.size() == 2)
        return base::Span{file, static_cast<uint32_t>(range[0]), static_cast<uint32_t>(range[1])};
    }
  }
  if (auto spanOnly = loc.dyn_cast<mlir::FileLineColLoc>())
    if (spanOnly.getFilename() == kSpanLocFile) return base::Span{file, spanOnly.getLine(), spanOnly.getColumn()};
  return base::Span{};
}

void unsupported(Lower& l, base::Span at, const std::string& what, const std::string& why) {
  l.failed = true;
  diag::Diagnostic d = diag::UnavailableOnTarget(what, l.target);
  if (at.valid()) d.primary(at, why);
  else d.note(why);
  d.note("vxc checks this program, but cannot lower it to VIR (docs/dialect.md lists what lowers)");
  l.sink.emit(std::move(d));
}

namespace {

// Declares func.func for every user function, so calls may precede bodies.
// A function whose signature has no lowering is reported and left out.
bool declareFunctions(Lower& l) {
  l.fns.assign(l.prog.fns.size(), nullptr);
  bool ok = true;
  for (size_t i = 0; i < l.prog.fns.size(); ++i) {
    const hir::Function& fn = l.prog.fns[i];
    if (fn.isExtern || !fn.body.valid()) continue;
    llvm::SmallVector<mlir::Type> params, results;
    llvm::SmallVector<mlir::DictionaryAttr> argAttrs;
    bool typed = true;
    for (hir::LocalId p : fn.params) {
      const hir::Local& local = l.prog.local(p);
      size_t before = params.size();
      if (!lowerType(l, local.type, params, local.span)) {
        typed = false;
        break;
      }
      const hir::TypeTable& tt = l.types();
      hir::TypeId t = tt.resolve(local.type);
      bool isMutRef = tt.kind(t) == hir::TyKind::Ref && tt.get(t).sub == 1;
      for (size_t k = before; k < params.size(); ++k) {
        std::string name = params.size() - before == 1 ? local.name : local.name + "." + std::to_string(k - before);
        llvm::SmallVector<mlir::NamedAttribute, 2> attrs{l.b.getNamedAttr("vx.name", l.b.getStringAttr(name))};
        if (isMutRef) attrs.push_back(l.b.getNamedAttr("vx.mut", l.b.getUnitAttr()));
        // u32/u64 are signless in VIR; the C ABI still declares them unsigned.
        if (isUnsignedInt(tt, derefAll(tt, t)) && !params[k].isIndex())
          attrs.push_back(l.b.getNamedAttr(kUnsignedAttr, l.b.getUnitAttr()));
        // Run-time extents (grid.md §1): the hidden parameter of each, and
        // per dimension of a tensor with extents, the parameter holding it.
        if (local.extent) attrs.push_back(l.b.getNamedAttr("vx.extent", l.b.getUnitAttr()));
        hir::TypeId x = derefAll(tt, t);
        if (tt.kind(x) == hir::TyKind::Tensor && tt.hasExtent(x)) {
          hir::TypeId shape = tt.resolve(tt.get(x).b);
          llvm::SmallVector<mlir::Attribute> dims;
          for (uint32_t d = 0; d < tt.count(shape); ++d) {
            hir::TypeId dim = tt.resolve(tt.elem(shape, d));
            dims.push_back(l.b.getStringAttr(tt.kind(dim) == hir::TyKind::Extent ? tt.extentName(dim) : ""));
          }
          attrs.push_back(l.b.getNamedAttr("vx.extents", l.b.getArrayAttr(dims)));
        }
        argAttrs.push_back(l.b.getDictionaryAttr(attrs));
      }
    }
    if (!typed || !lowerType(l, fn.ret, results, fn.nameSpan)) {
      ok = false;
      continue;
    }
    l.b.setInsertionPointToEnd(l.module.getBody());
    auto f = l.b.create<mlir::func::FuncOp>(loc(l, fn.nameSpan), fn.name, l.b.getFunctionType(params, results));
    // All at once: one attribute per argument set one by one rebuilt the
    // whole list each time, a quadratic amount of uniqued memory.
    if (!argAttrs.empty()) f.setAllArgAttrs(argAttrs);
    if (results.size() == 1 && isUnsignedInt(l.types(), fn.ret) && !results[0].isIndex())
      f.setResultAttr(0, kUnsignedAttr, l.b.getUnitAttr());
    if (fn.topology == hir::Topology::TensorCore) f->setAttr("vx.tensorcore", l.b.getUnitAttr());
    if (fn.runtimeChecks) f->setAttr("vx.runtime_checks", l.b.getUnitAttr());
    l.fns[i] = f;
  }
  return ok;
}

}  // namespace

mlir::OwningOpRef<mlir::ModuleOp> lowerHir(mlir::MLIRContext& context, const hir::Program& program,
                                           const base::SourceMap& sources, base::FileId file,
                                           const std::string& target, diag::Sink& sink,
                                           Locations locations) {
  Lower l(context, program, sources, file, target, sink);
  l.locations = locations;
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc(l, base::Span{}));
  l.module = *module;
  l.locals.assign(program.locals.size(), {});
  l.bound.assign(program.locals.size(), false);
  bool ok = declareFunctions(l);
  // One function's unsupported construct stops that function only, so that
  // each function reports its first problem.
  for (size_t i = 0; i < program.fns.size(); ++i) {
    if (!l.fns[i]) continue;
    l.failed = false;
    ok = lowerFunction(l, hir::FnId{static_cast<uint32_t>(i)}) && ok;
  }
  if (!ok) return nullptr;
  // Placeholders nothing reads (the variable of a moved token that no
  // branch or trip carries on) are dropped.
  llvm::SmallVector<UndefOp> unused;
  module->walk([&](UndefOp u) {
    if (u->use_empty()) unused.push_back(u);
  });
  for (UndefOp u : unused) u->erase();
  return module;
}

}  // namespace vx::dialect
