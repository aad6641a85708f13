// `vxc check --emit=ast`: an indented S-expression. Types print the way the
// user wrote them; items and statements carry their byte ranges.
#include <cstdio>
#include <string>

#include "ast/Ast.h"

namespace vx::ast {

namespace {

struct Printer {
  const Module& m;
  const Interner& names;
  std::string out;

  std::string name(NameId id) { return id.valid() ? std::string(names.str(id)) : "_"; }
  static std::string range(Range r) {
    return "@" + std::to_string(r.begin) + ".." + std::to_string(r.end);
  }
  void indent(int depth) { out.append(static_cast<size_t>(depth) * 2, ' '); }

  std::string path(PathId id) {
    const Path& p = m.path(id);
    std::string s;
    for (uint32_t i = 0; i < p.segments.count; ++i) {
      if (i) s += "::";
      s += name(NameId{m.listAt(p.segments, i)});
    }
    if (p.hasGenerics) {
      s += "<";
      for (uint32_t i = 0; i < p.genericArgs.count; ++i) {
        if (i) s += ", ";
        s += type(TypeId{m.listAt(p.genericArgs, i)});
      }
      s += ">";
    }
    return s;
  }

  std::string meta(const Meta& mt) {
    std::string s = name(mt.name);
    switch (mt.kind) {
      case Meta::Kind::Word: break;
      case Meta::Kind::Value: s += " = \"" + mt.value + "\""; break;
      case Meta::Kind::List: {
        s += "(";
        for (size_t i = 0; i < mt.args.size(); ++i) s += (i ? ", " : "") + meta(mt.args[i]);
        s += ")";
        break;
      }
    }
    return s;
  }
  void attrs(const Item& it) {
    for (const Attr& a : it.attrs) {
      out += " #[" + name(a.level) + "(";
      for (size_t i = 0; i < a.args.size(); ++i) out += (i ? ", " : "") + meta(a.args[i]);
      out += ")]";
    }
  }

  std::string type(TypeId id) {
    if (!id.valid()) return "void";
    const Type& t = m.type(id);
    switch (t.kind) {
      case TypeKind::Error: return "<error>";
      case TypeKind::Ref: return std::string(t.mut ? "&mut " : "&") + type(t.inner);
      case TypeKind::Tuple:
      case TypeKind::Shape: {
        std::string s = t.kind == TypeKind::Tuple ? "(" : "[";
        for (uint32_t i = 0; i < t.list.count; ++i) {
          if (i) s += ", ";
          s += type(TypeId{m.listAt(t.list, i)});
        }
        return s + (t.kind == TypeKind::Tuple ? ")" : "]");
      }
      case TypeKind::Path: return path(t.path);
      case TypeKind::IntArg: return std::to_string(t.value);
      case TypeKind::DimBinary: return "(" + type(t.inner) + " " + opSpelling(t.op) + " " + type(t.rhs) + ")";
    }
    return "?";
  }

  std::string expr(ExprId id) {
    const Expr& e = m.expr(id);
    switch (e.kind) {
      case ExprKind::Error: return "(error)";
      case ExprKind::IntLit:
        return "(int " + std::to_string(m.ints[e.payload]) + suffixName(e.suffix) + ")";
      case ExprKind::FloatLit: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", m.floats[e.payload]);
        return std::string("(float ") + buf + suffixName(e.suffix) + ")";
      }
      case ExprKind::BoolLit: return e.payload ? "(bool true)" : "(bool false)";
      case ExprKind::Path: return "(path " + path(PathId{e.payload}) + ")";
      case ExprKind::Unit: return "(unit)";
      case ExprKind::Tuple: return "(tuple" + list(e.list) + ")";
      case ExprKind::Call: return "(call " + expr(e.lhs) + list(e.list) + ")";
      case ExprKind::MethodCall:
        return "(method " + expr(e.lhs) + " " + name(e.name) + list(e.list) + ")";
      case ExprKind::Field:
        return "(field " + expr(e.lhs) + " " +
               (e.name.valid() ? name(e.name) : std::to_string(e.payload)) + ")";
      case ExprKind::Index: return "(index " + expr(e.lhs) + " " + expr(e.rhs) + ")";
      case ExprKind::Unary: return std::string("(") + opSpelling(e.op) + " " + expr(e.lhs) + ")";
      case ExprKind::Borrow: return std::string(e.mut ? "(&mut " : "(& ") + expr(e.lhs) + ")";
      case ExprKind::Cast: return "(as " + expr(e.lhs) + " " + type(TypeId{e.payload}) + ")";
      case ExprKind::Binary:
        return std::string("(") + opSpelling(e.op) + " " + expr(e.lhs) + " " + expr(e.rhs) + ")";
    }
    return "?";
  }

  std::string list(List l) {
    std::string s;
    for (uint32_t i = 0; i < l.count; ++i) s += " " + expr(ExprId{m.listAt(l, i)});
    return s;
  }

  std::string pat(PatId id) {
    const Pat& p = m.pat(id);
    if (p.kind == PatKind::Bind) return std::string(p.mut ? "mut " : "") + name(p.name);
    std::string s = "(";
    for (uint32_t i = 0; i < p.list.count; ++i) {
      if (i) s += ", ";
      s += pat(PatId{m.listAt(p.list, i)});
    }
    return s + ")";
  }

  void block(BlockId id, int depth) {
    const Block& b = m.block(id);
    indent(depth);
    out += "(block " + range(b.range) + "\n";
    for (uint32_t i = 0; i < b.stmts.count; ++i) stmt(StmtId{m.listAt(b.stmts, i)}, depth + 1);
    if (b.tail.valid()) {
      indent(depth + 1);
      out += "(tail " + expr(b.tail) + ")\n";
    }
    indent(depth);
    out += ")\n";
  }

  void stmt(StmtId id, int depth) {
    const Stmt& s = m.stmt(id);
    indent(depth);
    std::string head = std::string("(") + stmtKindName(s.kind) + " " + range(s.range);
    switch (s.kind) {
      case StmtKind::Let:
        out += head + " " + pat(s.pat) + (s.type.valid() ? " : " + type(s.type) : "") + " " +
               expr(s.a) + ")\n";
        return;
      case StmtKind::Assign:
        out += head + " " + opSpelling(s.op) + " " + expr(s.a) + " " + expr(s.b) + ")\n";
        return;
      case StmtKind::For:
        if (s.depth.valid())
          out += head + " " + name(s.var) + " (" + name(s.form) + " " + expr(s.a) + " " + expr(s.b) + " " +
                 name(s.option) + " " + expr(s.depth) + ")\n";
        else
          out += head + " " + name(s.var) + " " + expr(s.a) + " " + expr(s.b) + "\n";
        block(s.body, depth + 1);
        break;
      case StmtKind::Parallel: {
        out += head + " " + pat(s.pat) + " [";
        for (uint32_t i = 0; i < s.list.count; ++i) out += (i ? " " : "") + expr(ExprId{m.listAt(s.list, i)});
        out += "]\n";
        block(s.body, depth + 1);
        break;
      }
      case StmtKind::While:
      case StmtKind::If:
        out += head + " " + expr(s.a) + "\n";
        block(s.body, depth + 1);
        if (s.elseStmt.valid()) {
          indent(depth + 1);
          out += "(else\n";
          stmt(s.elseStmt, depth + 2);
          indent(depth + 1);
          out += ")\n";
        }
        break;
      case StmtKind::Return:
        out += head + (s.a.valid() ? " " + expr(s.a) : "") + ")\n";
        return;
      case StmtKind::Break:
      case StmtKind::Continue:
      case StmtKind::Empty: out += head + ")\n"; return;
      case StmtKind::Block:
        out += head + "\n";
        block(s.body, depth + 1);
        break;
      case StmtKind::Expr: out += head + " " + expr(s.a) + ")\n"; return;
    }
    indent(depth);
    out += ")\n";
  }

  void item(const Item& it) {
    if (it.kind == ItemKind::Const) {
      out += "  (const " + name(it.name) + " " + range(it.range);
      attrs(it);
      out += " : " + type(it.constType) +
             " " + expr(it.constValue) + ")\n";
      return;
    }
    out += std::string("  (") + (it.isExtern ? "extern fn " : "fn ") + name(it.name) + " " +
           range(it.range);
    attrs(it);
    if (!it.generics.empty()) {
      out += " <";
      for (size_t i = 0; i < it.generics.size(); ++i) {
        if (i) out += ", ";
        out += name(it.generics[i].name);
        if (it.generics[i].bound.valid()) out += ": " + name(it.generics[i].bound);
      }
      out += ">";
    }
    out += "\n";
    for (const auto& p : it.params)
      out += "    (param " + std::string(p.mut ? "mut " : "") + name(p.name) + " : " +
             type(p.type) + ")\n";
    out += "    (returns " + type(it.ret) + ")\n";
    out += "    (on " + (it.topology.valid() ? path(it.topology) : std::string("Topology::Host")) +
           ")\n";
    if (it.body.valid()) block(it.body, 2);
    out += "  )\n";
  }
};

}  // namespace

std::string printModule(const Module& m, const Interner& names) {
  Printer p{m, names, {}};
  p.out = "(module\n";
  for (const auto& it : m.items) p.item(it);
  p.out += ")\n";
  return p.out;
}

}  // namespace vx::ast
