// `dumpModule`: every field of a module reachable from its items, byte
// ranges included, for the differential tests of the two parsers.
#include <sstream>

#include "ast/Ast.h"

namespace vx::ast {

namespace {

struct Dumper {
  const Module& m;
  const Interner& names;
  std::ostringstream out;

  void r(Range x) { out << '@' << x.begin << '-' << x.end << ' '; }
  void n(NameId id) { out << (id.valid() ? std::string(names.str(id)) : std::string("_")) << ' '; }
  void list(List l, void (Dumper::*f)(uint32_t)) {
    out << '[';
    for (uint32_t i = 0; i < l.count; ++i) (this->*f)(m.listAt(l, i));
    out << ']';
  }
  void path(PathId id) {
    const Path& p = m.path(id);
    out << "(path ";
    r(p.range);
    for (uint32_t i = 0; i < p.segments.count; ++i) {
      n(NameId{m.listAt(p.segments, i)});
      r(m.ranges[p.rangesBegin + i]);
    }
    if (p.hasGenerics) list(p.genericArgs, &Dumper::typeAt);
    out << ')';
  }
  void meta(const Meta& mt) {
    out << "(meta " << static_cast<int>(mt.kind) << ' ';
    n(mt.name);
    r(mt.nameRange);
    r(mt.range);
    if (mt.kind == Meta::Kind::Value) {
      out << '"' << mt.value << '"';
      r(mt.valueRange);
    }
    for (const Meta& a : mt.args) meta(a);
    out << ')';
  }
  void typeAt(uint32_t i) { type(TypeId{i}); }
  void type(TypeId id) {
    if (!id.valid()) {
      out << "(notype)";
      return;
    }
    const Type& t = m.type(id);
    out << "(type " << typeKindName(t.kind) << ' ' << t.mut << ' ' << t.value << ' ';
    r(t.range);
    if (t.inner.valid()) type(t.inner);
    if (t.kind == TypeKind::DimBinary) {
      out << opSpelling(t.op) << ' ';
      type(t.rhs);
    }
    if (t.kind == TypeKind::Path) path(t.path);
    if (t.kind == TypeKind::Tuple || t.kind == TypeKind::Shape) list(t.list, &Dumper::typeAt);
    out << ')';
  }
  void exprAt(uint32_t i) { expr(ExprId{i}); }
  void expr(ExprId id) {
    if (!id.valid()) {
      out << "(noexpr)";
      return;
    }
    const Expr& e = m.expr(id);
    out << "(expr " << exprKindName(e.kind) << ' ' << opSpelling(e.op) << ' ' << e.mut << ' '
        << suffixName(e.suffix) << ' ';
    r(e.range);
    n(e.name);
    switch (e.kind) {
      case ExprKind::IntLit: out << m.ints[e.payload]; break;
      case ExprKind::FloatLit: out << m.floats[e.payload]; break;
      case ExprKind::Path: path(PathId{e.payload}); break;
      case ExprKind::Cast: type(TypeId{e.payload}); break;
      default: out << e.payload; break;
    }
    if (e.lhs.valid()) expr(e.lhs);
    if (e.rhs.valid()) expr(e.rhs);
    list(e.list, &Dumper::exprAt);
    out << ')';
  }
  void patAt(uint32_t i) { pat(PatId{i}); }
  void pat(PatId id) {
    if (!id.valid()) return;
    const Pat& p = m.pat(id);
    out << "(pat " << (p.kind == PatKind::Bind ? "bind " : "tuple ") << p.mut << ' ';
    r(p.range);
    n(p.name);
    list(p.list, &Dumper::patAt);
    out << ')';
  }
  void block(BlockId id) {
    if (!id.valid()) {
      out << "(noblock)";
      return;
    }
    const Block& b = m.block(id);
    out << "(block ";
    r(b.range);
    list(b.stmts, &Dumper::stmtAt);
    expr(b.tail);
    out << ')';
  }
  void stmtAt(uint32_t i) { stmt(StmtId{i}); }
  void stmt(StmtId id) {
    if (!id.valid()) {
      out << "(nostmt)";
      return;
    }
    const Stmt& s = m.stmt(id);
    out << "(stmt " << stmtKindName(s.kind) << ' ' << opSpelling(s.op) << ' ';
    r(s.range);
    pat(s.pat);
    type(s.type);
    expr(s.a);
    expr(s.b);
    n(s.var);
    r(s.varRange);
    block(s.body);
    stmt(s.elseStmt);
    list(s.list, &Dumper::exprAt);
    expr(s.depth);
    n(s.form);
    r(s.formRange);
    n(s.option);
    r(s.optionRange);
    out << ')';
  }
  std::string run() {
    for (const Item& it : m.items) {
      out << "(item " << (it.kind == ItemKind::Fn ? "fn " : "const ") << it.isExtern << ' ';
      n(it.name);
      r(it.nameRange);
      r(it.range);
      for (const Attr& a : it.attrs) {
        out << "(attr ";
        n(a.level);
        r(a.levelRange);
        for (const Meta& mt : a.args) meta(mt);
        r(a.range);
        out << ')';
      }
      for (const GenericParam& g : it.generics) {
        n(g.name);
        r(g.range);
        n(g.bound);
      }
      for (const Param& p : it.params) {
        out << p.mut << ' ';
        n(p.name);
        r(p.range);
        type(p.type);
      }
      type(it.ret);
      if (it.topology.valid()) path(it.topology);
      block(it.body);
      type(it.constType);
      if (it.constValue.valid()) expr(it.constValue);
      out << ")\n";
    }
    return out.str();
  }
};

}  // namespace

std::string dumpModule(const Module& m, const Interner& names) { return Dumper{m, names, {}}.run(); }

}  // namespace vx::ast
