#include "hir/Hir.h"

namespace vx::hir {

const char* builtinName(Builtin b) { return b == Builtin::None ? "" : target::info(b).name; }

Builtin builtinByName(std::string_view name) { return target::builtinByName(name); }

const char* exprKindName(ExprKind k) {
  switch (k) {
    case ExprKind::Error: return "error";
    case ExprKind::Int: return "int";
    case ExprKind::Float: return "float";
    case ExprKind::Bool: return "bool";
    case ExprKind::Local: return "local";
    case ExprKind::Const: return "const";
    case ExprKind::MemConst: return "mem";
    case ExprKind::TopoConst: return "topology";
    case ExprKind::Unit: return "unit";
    case ExprKind::Tuple: return "tuple";
    case ExprKind::Call: return "call";
    case ExprKind::Len: return "len";
    case ExprKind::Field: return "field";
    case ExprKind::Index: return "index";
    case ExprKind::Unary: return "unary";
    case ExprKind::Borrow: return "borrow";
    case ExprKind::Deref: return "deref";
    case ExprKind::Cast: return "cast";
    case ExprKind::Binary: return "binary";
  }
  return "?";
}

const char* stmtKindName(StmtKind k) {
  switch (k) {
    case StmtKind::Let: return "let";
    case StmtKind::Assign: return "assign";
    case StmtKind::For: return "for";
    case StmtKind::While: return "while";
    case StmtKind::If: return "if";
    case StmtKind::Return: return "return";
    case StmtKind::Break: return "break";
    case StmtKind::Continue: return "continue";
    case StmtKind::Block: return "block";
    case StmtKind::Expr: return "expr";
    case StmtKind::Parallel: return "parallel";
  }
  return "?";
}

ExprId Program::add(const Expr& e) {
  exprs.push_back(e);
  return ExprId{static_cast<uint32_t>(exprs.size() - 1)};
}
StmtId Program::add(const Stmt& s) {
  stmts.push_back(s);
  return StmtId{static_cast<uint32_t>(stmts.size() - 1)};
}
BlockId Program::add(const Block& b) {
  blocks.push_back(b);
  return BlockId{static_cast<uint32_t>(blocks.size() - 1)};
}
PatId Program::add(const Pat& p) {
  pats.push_back(p);
  return PatId{static_cast<uint32_t>(pats.size() - 1)};
}
LocalId Program::add(const Local& l) {
  locals.push_back(l);
  return LocalId{static_cast<uint32_t>(locals.size() - 1)};
}
List Program::addList(const std::vector<uint32_t>& ids) {
  List l{static_cast<uint32_t>(lists.size()), static_cast<uint32_t>(ids.size())};
  lists.insert(lists.end(), ids.begin(), ids.end());
  return l;
}

LocalId Cloner::fresh(LocalId l) {
  LocalId n = p.add(Local(p.local(l)));
  renamed[l.index] = n;
  return n;
}

List Cloner::exprs(List l) {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < l.count; ++i) ids.push_back(expr(ExprId{p.listAt(l, i)}).index);
  return p.addList(ids);
}

ExprId Cloner::expr(ExprId id) {
  if (!id.valid()) return id;
  Expr e = p.expr(id);
  if (e.kind == ExprKind::Local) {
    if (auto s = subst.find(e.local.index); s != subst.end()) {
      Cloner plain(p);
      return plain.expr(s->second);
    }
    if (auto r = renamed.find(e.local.index); r != renamed.end()) e.local = r->second;
  }
  // Every kind's children are `a`, `b` and `args` (Hir.h).
  e.a = expr(e.a);
  e.b = expr(e.b);
  e.args = exprs(e.args);
  return p.add(e);
}

PatId Cloner::pat(PatId id) {
  if (!id.valid()) return id;
  Pat q = p.pat(id);
  if (q.kind == PatKind::Bind) q.local = fresh(q.local);
  std::vector<uint32_t> elems;
  for (uint32_t i = 0; i < q.elems.count; ++i) elems.push_back(pat(PatId{p.listAt(q.elems, i)}).index);
  q.elems = p.addList(elems);
  return p.add(q);
}

StmtId Cloner::stmt(StmtId id) {
  if (!id.valid()) return id;
  Stmt s = p.stmt(id);
  // The value first: a `let` may read a local its pattern shadows.
  s.a = expr(s.a);
  s.b = expr(s.b);
  s.extents = exprs(s.extents);
  s.pat = pat(s.pat);
  if (s.var.valid()) s.var = fresh(s.var);
  std::vector<uint32_t> vars;
  for (uint32_t i = 0; i < s.vars.count; ++i) vars.push_back(fresh(LocalId{p.listAt(s.vars, i)}).index);
  s.vars = p.addList(vars);
  s.body = block(s.body);
  s.elseStmt = stmt(s.elseStmt);
  return p.add(s);
}

BlockId Cloner::block(BlockId id) {
  if (!id.valid()) return id;
  Block b = p.block(id);
  std::vector<uint32_t> stmts;
  for (uint32_t i = 0; i < b.stmts.count; ++i) stmts.push_back(stmt(StmtId{p.listAt(b.stmts, i)}).index);
  b.stmts = p.addList(stmts);
  b.tail = expr(b.tail);
  return p.add(b);
}

}  // namespace vx::hir
