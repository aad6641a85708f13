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

}  // namespace vx::hir
