// `vxc check --emit=hir`: every user function with its locals numbered
// (`name#N`), every expression with its type, auto-borrows marked.
#include <cstdio>

#include "hir/Hir.h"

namespace vx::hir {

namespace {

struct Printer {
  const Program& p;
  std::string out;
  // Locals are numbered per function, in order of appearance, so that the
  // output does not depend on how many locals the prelude declares.
  std::vector<std::pair<uint32_t, uint32_t>> numbers;

  std::string ty(TypeId t) { return p.types.print(t); }
  std::string local(LocalId id) {
    for (const auto& [index, n] : numbers)
      if (index == id.index) return p.local(id).name + "#" + std::to_string(n);
    numbers.emplace_back(id.index, static_cast<uint32_t>(numbers.size()));
    return p.local(id).name + "#" + std::to_string(numbers.size() - 1);
  }
  void indent(int d) { out.append(static_cast<size_t>(d) * 2, ' '); }

  std::string args(const Expr& e) {
    std::string s;
    for (uint32_t i = 0; i < e.args.count; ++i) s += " " + expr(p.arg(e, i));
    return s;
  }

  std::string expr(ExprId id) {
    const Expr& e = p.expr(id);
    std::string body;
    switch (e.kind) {
      case ExprKind::Error: return "(error)";
      case ExprKind::Int: body = "int " + std::to_string(e.value); break;
      case ExprKind::Float: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", e.fvalue);
        body = std::string("float ") + buf;
        break;
      }
      case ExprKind::Bool: body = e.value ? "bool true" : "bool false"; break;
      case ExprKind::Local: body = "local " + local(e.local); break;
      case ExprKind::Const: body = "const " + p.consts[e.constant.index].name; break;
      case ExprKind::MemConst:
      case ExprKind::TopoConst: return ty(e.type);
      case ExprKind::Unit: return "()";
      case ExprKind::Tuple: body = "tuple" + args(e); break;
      case ExprKind::Call: body = "call " + p.fn(e.fn).name + args(e); break;
      case ExprKind::Len: body = "len " + expr(e.a); break;
      case ExprKind::Field: body = "field " + expr(e.a) + " " + std::to_string(e.value); break;
      case ExprKind::Index: body = "index " + expr(e.a) + " " + expr(e.b); break;
      case ExprKind::Unary: body = std::string(ast::opSpelling(e.op)) + " " + expr(e.a); break;
      case ExprKind::Borrow:
        body = std::string(e.autoBorrow ? "autoborrow" : "borrow") + (e.mut ? " mut " : " ") + expr(e.a);
        break;
      case ExprKind::Deref: body = "deref " + expr(e.a); break;
      case ExprKind::Cast: body = "cast " + expr(e.a); break;
      case ExprKind::Binary:
        body = std::string(ast::opSpelling(e.op)) + " " + expr(e.a) + " " + expr(e.b);
        break;
    }
    return "(" + body + " : " + ty(e.type) + ")";
  }

  std::string pat(PatId id) {
    const Pat& pt = p.pat(id);
    if (pt.kind == PatKind::Bind) {
      const Local& l = p.local(pt.local);
      return std::string(l.mut ? "mut " : "") + local(pt.local) + " : " + ty(l.type);
    }
    std::string s = "(";
    for (uint32_t i = 0; i < pt.elems.count; ++i) {
      if (i) s += ", ";
      s += pat(PatId{p.listAt(pt.elems, i)});
    }
    return s + ")";
  }

  void block(BlockId id, int d) {
    const Block& b = p.block(id);
    indent(d);
    out += "{\n";
    for (uint32_t i = 0; i < b.stmts.count; ++i) stmt(StmtId{p.listAt(b.stmts, i)}, d + 1);
    if (b.tail.valid()) {
      indent(d + 1);
      out += "tail " + expr(b.tail) + "\n";
    }
    indent(d);
    out += "}\n";
  }

  void stmt(StmtId id, int d) {
    const Stmt& s = p.stmt(id);
    indent(d);
    switch (s.kind) {
      case StmtKind::Let: out += "let " + pat(s.pat) + " = " + expr(s.a) + "\n"; return;
      case StmtKind::Assign:
        out += std::string("assign ") + ast::opSpelling(s.op) + " " + expr(s.a) + " " + expr(s.b) + "\n";
        return;
      case StmtKind::For:
        out += "for " + local(s.var) + " : " + ty(p.local(s.var).type) + " in " + expr(s.a) + " .. " +
               expr(s.b) + "\n";
        block(s.body, d + 1);
        return;
      case StmtKind::While:
      case StmtKind::If:
        out += std::string(stmtKindName(s.kind)) + " " + expr(s.a) + "\n";
        block(s.body, d + 1);
        if (s.elseStmt.valid()) {
          indent(d);
          out += "else\n";
          stmt(s.elseStmt, d + 1);
        }
        return;
      case StmtKind::Return: out += "return" + (s.a.valid() ? " " + expr(s.a) : "") + "\n"; return;
      case StmtKind::Break: out += "break\n"; return;
      case StmtKind::Continue: out += "continue\n"; return;
      case StmtKind::Block:
        out += "block\n";
        block(s.body, d + 1);
        return;
      case StmtKind::Expr: out += expr(s.a) + "\n"; return;
      case StmtKind::Parallel: {
        out += "parallel (";
        for (uint32_t i = 0; i < s.vars.count; ++i) out += (i ? ", " : "") + local(LocalId{p.listAt(s.vars, i)});
        out += ") in [";
        for (uint32_t i = 0; i < s.extents.count; ++i) out += (i ? ", " : "") + expr(ExprId{p.listAt(s.extents, i)});
        out += "]\n";
        block(s.body, d + 1);
        return;
      }
    }
  }
};

}  // namespace

std::string printProgram(const Program& p) {
  Printer pr{p, {}, {}};
  for (const auto& c : p.consts) pr.out += "const " + c.name + " : " + pr.ty(c.type) + " = " + pr.expr(c.value) + "\n";
  for (const auto& f : p.fns) {
    if (f.fromPrelude || f.isExtern) continue;
    pr.numbers.clear();
    pr.out += "fn " + f.name + "(";
    for (size_t i = 0; i < f.params.size(); ++i) {
      if (i) pr.out += ", ";
      const Local& l = p.local(f.params[i]);
      pr.out += std::string(l.mut ? "mut " : "") + pr.local(f.params[i]) + " : " + pr.ty(l.type);
    }
    pr.out += ") -> " + pr.ty(f.ret) + " on Topology::" + topologyName(f.topology) + "\n";
    if (f.body.valid()) pr.block(f.body, 0);
  }
  return pr.out;
}

}  // namespace vx::hir
