// Items: declaring functions and constants (signatures first, so bodies can
// call functions declared later), then checking bodies.
#include <set>
#include <cmath>
#include <cstdio>

#include "base/Text.h"
#include "check/Sema.h"
#include "diag/Lint.h"
#include "check/Words.h"
#include "diag/DiagKinds.h"

namespace vx::check {

using hir::TypeId;

namespace {

bool checkDuplicate(Sema& s, const std::string& name, base::Span at) {
  base::Span previous;
  bool dup = false;
  if (auto it = s.fnByName.find(name); it != s.fnByName.end()) {
    // The user's file may shadow a builtin of the prelude, as Rust's
    // prelude: its own `fn fill` is the `fill` it calls.
    if (!s.inPrelude && s.prog.fns[it->second.index].fromPrelude) return false;
    dup = true;
    previous = s.prog.fns[it->second.index].nameSpan;
  } else if (auto ct = s.constByName.find(name); ct != s.constByName.end()) {
    dup = true;
    previous = s.prog.consts[ct->second.index].span;
  }
  if (!dup) return false;
  diag::Diagnostic d = diag::DuplicateItem(name);
  d.primary(at, "`" + name + "` redefined here");
  if (previous.valid())
    d.secondary(previous, "previous definition of `" + name + "` here");
  else
    d.note("`" + name + "` is a builtin of the prelude (stdlib/prelude.vx)");
  s.sink.emit(std::move(d));
  return true;
}

bool blockAlwaysReturns(const hir::Program& p, const hir::Block& b);

// The statement returns on every path through it.
bool stmtAlwaysReturns(const hir::Program& p, const hir::Stmt& st) {
  switch (st.kind) {
    case hir::StmtKind::Return: return true;
    case hir::StmtKind::Block: return blockAlwaysReturns(p, p.block(st.body));
    case hir::StmtKind::If:
      return st.elseStmt.valid() && blockAlwaysReturns(p, p.block(st.body)) &&
             stmtAlwaysReturns(p, p.stmt(st.elseStmt));
    case hir::StmtKind::Let:
    case hir::StmtKind::Assign:
    case hir::StmtKind::For:
    case hir::StmtKind::While:
    case hir::StmtKind::Break:
    case hir::StmtKind::Continue:
    case hir::StmtKind::Expr:
    case hir::StmtKind::Parallel: return false;
  }
  return false;
}

// The block's last statement returns on every path, and the block has no
// value of its own.
bool blockAlwaysReturns(const hir::Program& p, const hir::Block& b) {
  if (b.tail.valid() || b.stmts.count == 0) return false;
  return stmtAlwaysReturns(p, p.stmt(hir::StmtId{p.listAt(b.stmts, b.stmts.count - 1)}));
}

void reportUnknownAttribute(Sema& s, const ast::Attr& at) {
  std::string level = s.name(at.level);
  diag::Diagnostic d = diag::UnknownAttribute(level);
  d.primary(s.span(at.levelRange), "not an attribute");
  std::string close = base::closestMatch(level, {"allow", "warn", "deny", "cfg"});
  if (!close.empty())
    d.suggest("an attribute with a similar name exists: `" + close + "`", s.span(at.levelRange), close,
              diag::Applicability::MaybeIncorrect);
  else
    d.help("the attributes are `#[allow(..)]`, `#[warn(..)]`, `#[deny(..)]` and `#[cfg(..)]`");
  s.sink.emit(std::move(d));
}

void checkLiteralRanges(Sema& s, uint32_t firstExpr, uint32_t endExpr, bool floatsOnly);

void declareConst(Sema& s, const ast::Item& it) {
  s.constItemsDone.insert(&it);
  for (const ast::Attr& at : it.attrs) {
    std::string level = s.name(at.level);
    if (level == "cfg") continue;
    if (diag::levelByName(level))
      s.sink.emit(diag::MisplacedAttribute(level)
                      .primary(s.span(at.range), "not allowed on a `const`")
                      .help("lint levels are set on the function that uses the constant"));
    else
      reportUnknownAttribute(s, at);
  }
  std::string name = s.name(it.name);
  base::Span at = s.span(it.nameRange);
  if (checkDuplicate(s, name, at)) return;
  if (auto p = s.pendingConsts.find(name); p != s.pendingConsts.end() && p->second == &it) s.pendingConsts.erase(p);
  s.constInProgressAt.emplace(name, s.constsInProgress.size());
  s.constsInProgress.push_back(name);
  const size_t settledBefore = s.settledConstExprs.size();
  hir::Const c;
  c.name = name;
  c.span = at;
  c.type = lowerType(s, it.constType);
  // Constants see constants (declared first where they come later); no
  // locals, no function.
  s.scopes.clear();
  uint32_t firstExpr = static_cast<uint32_t>(s.prog.exprs.size());
  c.value = checkExpr(s, it.constValue, c.type);
  c.type = s.types().zonk(c.type, true);
  // Unsuffixed literals the constant's type does not reach (`5 as u32`)
  // default as they do in a body; not those of the constants declared on
  // the way (settled already).
  const uint32_t endExpr = static_cast<uint32_t>(s.prog.exprs.size());
  std::vector<std::pair<uint32_t, uint32_t>> own;  // this constant's ranges
  {
    uint32_t from = firstExpr;
    for (size_t k = settledBefore; k < s.settledConstExprs.size(); ++k) {
      auto [b, e] = s.settledConstExprs[k];
      if (b > from) own.emplace_back(from, b);
      from = std::max(from, e);
    }
    if (endExpr > from) own.emplace_back(from, endExpr);
  }
  for (auto [b, e] : own)
    for (uint32_t i = b; i < e; ++i) s.prog.exprs[i].type = s.types().zonk(s.prog.exprs[i].type, true);
  // Integers are folded exactly below (E0208 where one does not fit).
  for (auto [b, e] : own) checkLiteralRanges(s, b, e, true);
  s.settledConstExprs.resize(settledBefore);
  s.settledConstExprs.emplace_back(firstExpr, endExpr);
  s.constInProgressAt.erase(name);
  s.constsInProgress.pop_back();
  s.prog.consts.push_back(c);
  auto id = hir::ConstId{static_cast<uint32_t>(s.prog.consts.size() - 1)};
  s.constByName[name] = id;
  if (s.types().isInteger(c.type) && !s.types().containsError(s.prog.expr(c.value).type)) {
    ConstFold f = foldConstInt(s, c.value);
    if (f.status == ConstFold::Status::Ok) {
      s.constValues[id.index] = f.value;
      s.prog.consts[id.index].folded = true;
      s.prog.consts[id.index].foldedValue = f.value;
    }
    reportConstFold(s, f);
  }
}

void declareFn(Sema& s, const ast::Item& it, bool prelude) {
  hir::TypeTable& tt = s.types();
  hir::Function f;
  f.name = s.name(it.name);
  f.nameSpan = s.span(it.nameRange);
  f.span = s.span(it.range);
  f.isExtern = it.isExtern;
  f.fromPrelude = prelude;
  for (const ast::Attr& at : it.attrs) {
    std::string level = s.name(at.level);
    if (level == "cfg") continue;  // decided by itemActive
    std::optional<diag::LintLevel> lv = diag::levelByName(level);
    if (!lv) {
      reportUnknownAttribute(s, at);
      continue;
    }
    for (const ast::Meta& mt : at.args) {
      std::string lint = s.name(mt.name);
      if (lint == "warnings" && mt.kind == ast::Meta::Kind::Word) {  // the group: every lint left at `warn`
        f.lints.push_back(hir::Function::LintAttr{"warnings", static_cast<uint8_t>(*lv), s.span(at.range)});
        continue;
      }
      std::optional<diag::Lint> l = diag::lintByName(lint);
      if (!l || mt.kind != ast::Meta::Kind::Word) {
        std::string all;
        for (const std::string& n : diag::lintNames()) all += (all.empty() ? "`" : ", `") + n + "`";
        s.sink.emit(diag::UnknownLint(s.name(mt.name) + (mt.kind == ast::Meta::Kind::Word ? "" : "(..)"))
                        .primary(s.span(mt.range), "not a lint")
                        .help("the lints are " + all + ", and the group `warnings`" +
                              (mt.kind == ast::Meta::Kind::Word ? "" : ", each written alone")));
        continue;
      }
      f.lints.push_back(hir::Function::LintAttr{diag::lintCode(*l), static_cast<uint8_t>(*lv), s.span(at.range)});
    }
  }
  if (it.isExtern) {
    f.builtin = hir::builtinByName(f.name);
    if (f.builtin == hir::Builtin::None) {
      s.sink.emit(diag::UnknownBuiltin(f.name)
                      .primary(f.nameSpan, "not a builtin")
                      .note("`extern fn` declares the compiler's builtins (stdlib/prelude.vx); "
                            "write a `fn` with a body instead"));
      return;
    }
  }
  if (checkDuplicate(s, f.name, f.nameSpan)) return;
  if (it.topology.valid()) {
    f.topologyGiven = true;
    const ast::Path& p = s.m->path(it.topology);
    TypeId t = p.segments.count == 2 ? lowerConstPath(s, p, s.span(p.range)) : tt.error();
    if (tt.kind(t) == hir::TyKind::Topo) {
      f.topology = static_cast<hir::Topology>(tt.get(t).sub);
    } else {
      // Reported (here or where the path was resolved); the body's checks
      // that depend on the topology stay silent (one mistake, one error).
      f.topologyUnknown = true;
      if (tt.kind(t) != hir::TyKind::Error || p.segments.count != 2)
        s.sink.emit(diag::NonConstTopology().primary(s.span(p.range), "not a topology")
                        .help("write `on Topology::TensorCore` or `on Topology::Host`"));
    }
  }
  s.generics.clear();
  if (!it.generics.empty() && !it.isExtern) {
    s.sink.emit(diag::GenericUserFn(f.name)
                    .primary(s.span(ast::Range{it.generics.front().range.begin, it.generics.back().range.end}),
                             "generic parameters")
                    .help("write the function for the concrete types it is used with"));
  }
  for (const auto& g : it.generics) {
    std::string gn = s.name(g.name);
    for (const auto& prev : f.genericNames)
      if (prev == gn)
        s.sink.emit(diag::DuplicateBinding(gn, "generic parameter list").primary(s.span(g.range), "used again"));
    TypeId v = tt.freshVar();
    f.genericNames.push_back(gn);
    f.genericVars.push_back(v);
    f.memoryBound.push_back(g.bound.valid() && s.name(g.bound) == "Memory");
    s.generics.emplace_back(gn, v);
  }
  std::vector<std::string> seen;
  // Run-time extents: lower-case names in the parameters' shapes.
  if (!it.isExtern) {
    s.extents = &f.extents;
    s.extentsOpen = true;
  }
  for (const auto& p : it.params) {
    s.extentParam = static_cast<uint32_t>(f.params.size());
    std::string pn = s.name(p.name);
    bool duplicate = false;
    for (const auto& prev : seen)
      if (prev == pn) duplicate = true;
    if (duplicate) {
      s.sink.emit(diag::DuplicateBinding(pn, "parameter list").primary(s.span(p.range), "used again"));
      for (hir::LocalId earlier : f.params)
        if (s.prog.local(earlier).name == pn) s.prog.local(earlier).uses = 1;
    }
    seen.push_back(pn);
    TypeId ty = lowerType(s, p.type);
    if (!checkStaticOnChip(s, ty, s.span(s.m->type(p.type).range))) ty = tt.error();
    f.paramTypes.push_back(ty);
    hir::Local l;
    l.name = pn;
    l.span = s.span(p.range);
    l.type = ty;
    l.mut = p.mut;
    l.param = true;
    // A parameter whose type is broken, or a duplicate, was reported already.
    if (duplicate || tt.containsError(ty)) l.uses = 1;
    f.params.push_back(s.prog.add(l));
  }
  s.extentsOpen = false;
  f.userParams = static_cast<uint32_t>(f.params.size());
  // One hidden `usize` parameter per extent, after the written ones.
  for (hir::Function::ExtentParam& e : f.extents) {
    std::string en = tt.extentName(e.type);
    for (hir::LocalId p : f.params)
      if (s.prog.local(p).name == en && !s.prog.local(p).extent && ++s.prog.local(p).uses)
        s.sink.emit(diag::DuplicateBinding(en, "parameter list")
                        .primary(s.prog.local(p).span, "a parameter named like the run-time extent `" + en + "`")
                        .secondary(e.span, "`" + en + "` is a run-time extent here, a `usize` in the body")
                        .help("rename the parameter or the extent"));
    hir::Local l;
    l.name = en;
    l.span = e.span;
    l.type = tt.usize();
    l.param = true;
    l.extent = true;
    l.uses = 1;  // never W0001: the caller's shapes bind it
    e.local = s.prog.add(l);
    f.params.push_back(e.local);
    f.paramTypes.push_back(l.type);
  }
  f.ret = it.ret.valid() ? lowerType(s, it.ret) : tt.voidTy();
  if (it.ret.valid() && tt.hasExtent(f.ret)) {
    s.sink.emit(diag::OnChipShapeNotStatic(tt.print(f.ret))
                    .primary(s.span(s.m->type(it.ret).range), "a result with run-time extents")
                    .help("write results into a parameter: `out: &mut Tensor<f32, [m, n]>`"));
    f.ret = tt.error();
  }
  s.extents = nullptr;
  s.generics.clear();
  s.prog.fns.push_back(std::move(f));
  hir::FnId id{static_cast<uint32_t>(s.prog.fns.size() - 1)};
  s.fnByName[s.prog.fns.back().name] = id;
  if (s.inPrelude && s.prog.fns.back().builtin != hir::Builtin::None)
    s.builtinFns[static_cast<uint32_t>(s.prog.fns.back().builtin)] = id;
}

// Integer literals whose value does not fit the type inference gave them
// (`let k: u32 = 4294967297;`), and float literals that would round to an
// infinity (`3.5e38f32`): an error, as Rust's `overflowing_literals`
// is by default. The targets would wrap them, and the checker, which
// reasons about the literal's value, would prove things about a number the
// program never holds. `-2147483648` as an `i32` fits: a negated literal
// may reach the type's lowest value.
void checkLiteralRanges(Sema& s, uint32_t firstExpr, uint32_t endExpr, bool floatsOnly) {
  const hir::TypeTable& tt = s.types();
  std::vector<bool> negated(endExpr - firstExpr, false);
  for (uint32_t i = firstExpr; i < endExpr; ++i) {
    const hir::Expr& e = s.prog.exprs[i];
    if (e.kind == hir::ExprKind::Unary && e.op == ast::Op::Neg && e.a.valid() && e.a.index >= firstExpr &&
        e.a.index < endExpr)
      negated[e.a.index - firstExpr] = true;
  }
  for (uint32_t i = firstExpr; i < endExpr; ++i) {
    const hir::Expr& e = s.prog.exprs[i];
    if (e.kind == hir::ExprKind::Float) {
      // A float literal past its type's largest finite value (rounded to
      // nearest) would be an infinity: Rust's `overflowing_literals`.
      hir::TypeId ft = tt.resolve(e.type);
      if (tt.kind(ft) != hir::TyKind::Float) continue;
      auto fk = static_cast<hir::FloatKind>(tt.get(ft).sub);
      const auto [limit, largest] = hir::floatRange(fk);
      if (std::fabs(e.fvalue) < limit) continue;
      std::string name = hir::floatKindName(fk);
      char text[64];
      std::snprintf(text, sizeof text, "%g", largest);
      s.sink.emit(diag::LiteralOutOfRange(name)
                      .primary(e.span, "does not fit in `" + name + "`: it would be an infinity")
                      .note("the largest finite `" + name + "` is " + text)
                      .help(fk == hir::FloatKind::F64   ? "use a value in range"
                            : fk == hir::FloatKind::F32 ? "use a wider type (`f64`), or a value in range"
                                                        : "use a wider type (`f32`, `f64`), or a value in range"));
      continue;
    }
    // `-5` where inference made it unsigned (`let x: u64 = -5;`): the
    // negation type-checked while the literal's type was still open, and
    // would wrap (rustc refuses it after inference too).
    if (e.kind == hir::ExprKind::Unary && e.op == ast::Op::Neg && !floatsOnly) {
      hir::TypeId t = tt.resolve(e.type);
      if (tt.kind(t) == hir::TyKind::Int && !hir::intKindSigned(static_cast<hir::IntKind>(tt.get(t).sub)))
        s.sink.emit(diag::UnaryOperandMismatch("-", tt.print(t))
                        .primary(e.span, "`-` needs a signed number")
                        .note("the type is `" + tt.print(t) + "` from how the value is used; unsigned values cannot be negated"));
      continue;
    }
    if (e.kind != hir::ExprKind::Int || floatsOnly) continue;
    hir::TypeId t = tt.resolve(e.type);
    if (tt.kind(t) != hir::TyKind::Int) continue;
    auto k = static_cast<hir::IntKind>(tt.get(t).sub);
    uint64_t max = 0;
    switch (k) {
      case hir::IntKind::I32: max = (uint64_t{1} << 31) - (negated[i - firstExpr] ? 0 : 1); break;
      case hir::IntKind::I64: max = (uint64_t{1} << 63) - (negated[i - firstExpr] ? 0 : 1); break;
      case hir::IntKind::U32: max = (uint64_t{1} << 32) - 1; break;
      case hir::IntKind::U64:
      case hir::IntKind::Usize: max = UINT64_MAX; break;
    }
    if (e.value <= max) continue;
    std::string name = hir::intKindName(k);
    s.sink.emit(diag::LiteralOutOfRange(name)
                    .primary(e.span, "`" + std::to_string(e.value) + "` does not fit in `" + name + "`")
                    .note("the range of `" + name + "` is `" + (k == hir::IntKind::I32   ? "-2147483648..=2147483647"
                                                                 : k == hir::IntKind::I64 ? "-9223372036854775808..=9223372036854775807"
                                                                                          : "0..=4294967295") +
                          "`")
                    .help(k == hir::IntKind::I64   ? "use a value in range"
                          : k == hir::IntKind::I32 ? "use a wider type (`i64`), or a value in range"
                                                   : "use a wider type (`u64`, `usize`), or a value in range"));
  }
}

}  // namespace

void declareItems(Sema& s, const SourceUnit& unit) {
  s.m = unit.module;
  s.names = unit.names;
  s.file = unit.file;
  s.inPrelude = unit.prelude;
  // Constants first: types and dimensions may name them. In order, but a
  // use of a later one declares it first (usePendingConst).
  std::vector<const ast::Item*> consts;
  for (const auto& it : unit.module->items)
    if (it.kind == ast::ItemKind::Const && itemActive(s, it)) {
      consts.push_back(&it);
      s.pendingConsts.emplace(s.name(it.name), &it);  // the first of a name; a second is E0101
    }
  for (const ast::Item* it : consts)
    if (!s.constItemsDone.count(it)) declareConst(s, *it);  // else declared at a use above
  s.pendingConsts.clear();
  for (const auto& it : unit.module->items)
    if (it.kind == ast::ItemKind::Fn && itemActive(s, it)) declareFn(s, it, unit.prelude);
}

PendingConst usePendingConst(Sema& s, const std::string& n, base::Span at) {
  if (auto found = s.constInProgressAt.find(n); found != s.constInProgressAt.end()) {
    // The cycle, named whole up to eight constants, else its first four and
    // last three.
    const size_t i = found->second, len = s.constsInProgress.size() - i;
    std::string chain;
    for (size_t j = i; j < s.constsInProgress.size(); ++j) {
      if (len > 8 && j == i + 4) {
        chain += "... (" + std::to_string(len - 7) + " more) ... ";
        j = s.constsInProgress.size() - 4;
        continue;
      }
      chain += "`" + s.constsInProgress[j] + "` uses ";
    }
    s.sink.emit(diag::ConstEvalFailed("the constant `" + n + "` depends on itself")
                    .primary(at, "a cycle: " + chain + "`" + n + "`")
                    .help("a constant's value may name other constants, but not itself through them"));
    return PendingConst::Cycle;
  }
  auto p = s.pendingConsts.find(n);
  if (p == s.pendingConsts.end()) return PendingConst::None;
  const ast::Item* item = p->second;
  // Declared where it is used: the scopes (empty for constants) and the
  // diagnostics' positions are the constant's own.
  std::vector<Scope> saved;
  std::swap(saved, s.scopes);
  declareConst(s, *item);
  std::swap(saved, s.scopes);
  return PendingConst::Declared;
}

void checkBodies(Sema& s, const SourceUnit& unit) {
  s.m = unit.module;
  s.names = unit.names;
  s.file = unit.file;
  for (const auto& it : unit.module->items) {
    if (it.kind != ast::ItemKind::Fn || !it.body.valid()) continue;
    auto found = s.fnByName.find(s.name(it.name));
    if (found == s.fnByName.end()) continue;
    hir::FnId id = found->second;
    hir::Function& f = s.prog.fns[id.index];
    if (f.body.valid() || f.nameSpan.begin != s.span(it.nameRange).begin) continue;  // a duplicate
    s.fn = id;
    s.extents = &f.extents;
    s.extentsOpen = false;
    s.gridDepth = 0;
    s.fnFirstLocal = static_cast<uint32_t>(s.prog.locals.size());
    s.scopes.clear();
    s.scopes.emplace_back();
    for (hir::LocalId p : f.params) s.scopes.back().bindings.emplace_back(s.prog.local(p).name, p);
    uint32_t firstExpr = static_cast<uint32_t>(s.prog.exprs.size());
    const size_t errorsBefore = s.sink.errorCount();
    uint32_t firstLocal = static_cast<uint32_t>(s.prog.locals.size());
    TypeId ret = f.ret;
    hir::BlockId body = checkBlock(s, it.body, ret);
    s.prog.fns[id.index].body = body;
    // Around its grid, a kernel runs scalar set-up only (grid.md §3): no
    // calls, and no element of a tensor read or written, since every core
    // (tpu) and every CTA (b200/h100) runs that code, each when it starts
    // or ends its share of the instances, while the others run theirs.
    std::set<uint32_t> elementsAt;  // `c[0][0]` is two indices: one error
    if (s.prog.fns[id.index].grid)
      for (uint32_t i = firstExpr; i < s.prog.exprs.size(); ++i) {
        if (i == s.gridExprBegin) i = s.gridExprEnd;
        if (i >= s.prog.exprs.size()) break;
        const hir::Expr& e = s.prog.exprs[i];
        if (e.kind == hir::ExprKind::Call)
          s.sink.emit(diag::GridMisuse("around its `parallel` grid, a kernel runs scalar set-up only: no calls")
                          .primary(e.span, "a call outside the grid")
                          .help("move the call into the grid's body, where each instance makes it"));
        if (e.kind == hir::ExprKind::Index && elementsAt.insert(e.span.begin).second)
          s.sink.emit(diag::GridMisuse("around its `parallel` grid, a kernel runs scalar set-up only: no element "
                                       "of a tensor is read or written there")
                          .primary(e.span, "an element outside the grid")
                          .note("every core (tpu) or CTA (b200/h100) runs the code around the grid, each when "
                                "it starts or ends its share of the instances, while the others run theirs: a "
                                "write there would be made once per core, and a read could see an instance's "
                                "write")
                          .help("move the access into the grid's body (an instance of its own for it, "
                                "`if i == 0 { .. }`), or into a kernel of its own"));
      }
    const hir::Block& b = s.prog.block(body);
    hir::TypeTable& tt = s.types();
    if (tt.kind(tt.resolve(ret)) != hir::TyKind::Void && !b.tail.valid()) {
      // A body whose last statement returns on every path is fine: a
      // `return`, an `if` with an `else` whose branches each end so, or a
      // block that does (Rust's diverging tail).
      if (!blockAlwaysReturns(s.prog, b) && !tt.containsError(ret))
        s.sink.emit(diag::MissingReturnValue(f.name, tt.print(ret))
                        .primary(b.closeBrace, "the body ends here without a value")
                        .secondary(f.nameSpan, "declared to return `" + tt.print(ret) + "`")
                        .help("end the body with an expression of type `" + tt.print(ret) +
                              "` (no `;`), or `return` one"));
    }
    // A generic left open (`cast(&x)` with nothing to say its element
    // type): the first such call, as Rust asks for type annotations; what uses its result
    // follows from it.
    // (After another error of the function, an open variable is its
    // consequence: a turbofish argument that was no type leaves it open.)
    for (uint32_t i = firstExpr; i < s.prog.exprs.size() && s.sink.errorCount() == errorsBefore; ++i) {
      const hir::Expr& x = s.prog.exprs[i];
      if (x.kind != hir::ExprKind::Call || !tt.containsOpenVar(x.type)) continue;
      const std::string callee = x.fn.valid() ? s.prog.fns[x.fn.index].name : std::string("the function");
      s.sink.emit(diag::TypeAnnotationsNeeded(callee)
                      .primary(x.span, "cannot infer its type `" + tt.print(x.type) + "`")
                      .help("name the generic arguments (`" + callee + "::<...>(...)`, e.g. `cast::<bf16>(&x)`), "
                            "or give the `let` a type"));
      break;
    }
    // Settle inference: unsuffixed literals default to i32 / f64.
    for (uint32_t i = firstExpr; i < s.prog.exprs.size(); ++i)
      s.prog.exprs[i].type = tt.zonk(s.prog.exprs[i].type, true);
    for (uint32_t i = firstLocal; i < s.prog.locals.size(); ++i)
      s.prog.locals[i].type = tt.zonk(s.prog.locals[i].type, true);
    checkLiteralRanges(s, firstExpr, static_cast<uint32_t>(s.prog.exprs.size()), false);
    reportUnused(s, id, firstLocal);
    s.scopes.clear();
    s.extents = nullptr;
  }
  checkGridCalls(s);
}

void checkProgram(Sema& s, const SourceUnit& prelude, const SourceUnit& user) {
  declareItems(s, prelude);
  declareItems(s, user);
  checkBodies(s, user);
}

}  // namespace vx::check
