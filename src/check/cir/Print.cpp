// `vxc check --emit=checker-ir`: the core IR of every user function, as the
// ownership analysis sees it (golden tests pin it). Temporaries print as
// `_N`, user locals by name (`name@N` when a name is bound twice).
#include <algorithm>
#include <cstdio>

#include "check/cir/Cir.h"

namespace vx::check::cir {

namespace {

struct Printer {
  const hir::Program& prog;
  const Body& body;
  std::string out;
  std::vector<std::string> names;

  void nameLocals() {
    std::vector<std::string> seen;
    for (uint32_t i = 0; i < body.locals.size(); ++i) {
      const Local& l = body.locals[i];
      std::string n = i == body.ret.index ? "return" : l.name.empty() ? "_" + std::to_string(i) : l.name;
      if (!l.name.empty() && std::find(seen.begin(), seen.end(), l.name) != seen.end())
        n += "@" + std::to_string(i);
      seen.push_back(l.name);
      names.push_back(n);
    }
  }

  std::string ty(hir::TypeId t) const { return prog.types.print(t); }
  std::string local(LocalId l) const { return l.valid() && l.index < names.size() ? names[l.index] : "?"; }

  std::string place(const Place& p) const {
    std::string s = local(p.local);
    for (uint32_t i = 0; i < p.proj.count; ++i) {
      const Proj& x = body.proj(p, i);
      switch (x.kind) {
        case ProjKind::Field: s += "." + std::to_string(x.field); break;
        case ProjKind::Index: s += "[" + local(x.index) + "]"; break;
        case ProjKind::Deref: s = "(*" + s + ")"; break;
        case ProjKind::Block:
          s += ".block<" + std::to_string(x.rows) + ", " + std::to_string(x.cols) + ">(" + local(x.index) + ", " +
               local(x.index2) + ")";
          break;
      }
    }
    return s;
  }

  std::string constant(hir::ExprId id) const {
    if (!id.valid()) return "()";
    const hir::Expr& e = prog.expr(id);
    switch (e.kind) {
      case hir::ExprKind::Int: return std::to_string(e.value);
      case hir::ExprKind::Float: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", e.fvalue);
        return buf;
      }
      case hir::ExprKind::Bool: return e.value ? "true" : "false";
      case hir::ExprKind::Const: return prog.consts[e.constant.index].name;
      case hir::ExprKind::MemConst:
      case hir::ExprKind::TopoConst: return ty(e.type);
      case hir::ExprKind::Call: return "()";  // a call with no value, made before
      case hir::ExprKind::Unit: return "()";
      case hir::ExprKind::Error: return "(error)";
      case hir::ExprKind::Local:
      case hir::ExprKind::Tuple:
      case hir::ExprKind::Len:
      case hir::ExprKind::Field:
      case hir::ExprKind::Index:
      case hir::ExprKind::Unary:
      case hir::ExprKind::Borrow:
      case hir::ExprKind::Deref:
      case hir::ExprKind::Cast:
      case hir::ExprKind::Binary: return "?";
    }
    return "?";
  }

  std::string operand(const Operand& o) const {
    switch (o.kind) {
      case OperandKind::Copy: return "copy " + place(o.place);
      case OperandKind::Move: return "move " + place(o.place);
      case OperandKind::Const: return "const " + constant(o.constant);
    }
    return "?";
  }

  std::string args(const Stmt& s) const {
    std::string r;
    for (uint32_t i = 0; i < s.args.count; ++i) r += std::string(i ? ", " : "") + operand(body.arg(s, i));
    return r;
  }

  std::string rvalue(const Stmt& s) const {
    switch (s.rv) {
      case RvKind::Use: return operand(s.a);
      case RvKind::Borrow: return std::string(s.mut ? "&mut " : "&") + place(s.place);
      case RvKind::Binary: return operand(s.a) + " " + ast::opSpelling(s.op) + " " + operand(s.b);
      case RvKind::Unary: return std::string(ast::opSpelling(s.op)) + operand(s.a);
      case RvKind::Cast: return operand(s.a) + " as " + ty(s.type);
      case RvKind::Tuple: return "(" + args(s) + ")";
      case RvKind::Len: return "len(" + place(s.place) + ")";
      case RvKind::Call: return prog.fn(s.fn).name + "(" + args(s) + ")";
    }
    return "?";
  }

  static const char* how(DropHow h) {
    switch (h) {
      case DropHow::ScopeEnd: return "scope end";
      case DropHow::Overwritten: return "overwritten";
      case DropHow::Temporary: return "temporary";
      case DropHow::EarlyExit: return "early exit";
      case DropHow::Returned: return "returned";
    }
    return "?";
  }

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Assign:
        out += "    " + (s.dest.valid() ? place(s.dest) + " = " : std::string()) + rvalue(s) + "\n";
        return;
      case StmtKind::StorageLive: out += "    live " + local(s.local) + "\n"; return;
      case StmtKind::Drop: out += "    drop " + place(s.dest) + " (" + how(s.how) + ")\n"; return;
      case StmtKind::StorageDead: out += "    dead " + local(s.local) + "\n"; return;
      case StmtKind::StmtEnd: return;  // markers for the analysis only
      case StmtKind::GridBegin: {
        const Grid& g = body.grids[s.grid];
        out += "    instance (";
        for (size_t i = 0; i < g.vars.size(); ++i) out += (i ? ", " : "") + local(g.vars[i]);
        out += ") in [";
        for (size_t i = 0; i < g.extents.size(); ++i) out += (i ? ", " : "") + operand(g.extents[i]);
        out += "]\n";
        return;
      }
      case StmtKind::GridEnd: out += "    end instance\n"; return;
    }
  }

  std::string bb(BlockId b) const { return "bb" + std::to_string(b.index); }

  void term(const Terminator& t) {
    switch (t.kind) {
      case TermKind::Goto: out += "    goto " + bb(t.target) + "\n"; return;
      case TermKind::Branch:
        out += "    branch " + operand(t.cond) + " ? " + bb(t.target) + " : " + bb(t.otherwise) + "\n";
        return;
      case TermKind::ForLoop: {
        const Loop& l = body.loop(t.loop);
        out += "    for " + local(l.var) + " in " + operand(l.lo) + ".." + operand(l.hi) + " ? " + bb(t.target) +
               " : " + bb(t.otherwise) + "\n";
        return;
      }
      case TermKind::Return: out += "    return\n"; return;
      case TermKind::Unreachable: out += "    unreachable\n"; return;
    }
  }

  void print() {
    nameLocals();
    const hir::Function& f = prog.fn(body.fn);
    out += "fn " + f.name + "(";
    for (size_t i = 0; i < body.params.size(); ++i)
      out += std::string(i ? ", " : "") + local(body.params[i]) + ": " + ty(body.local(body.params[i]).type);
    out += ") -> " + ty(f.ret) + " {\n";
    for (uint32_t i = 0; i < body.locals.size(); ++i) {
      const Local& l = body.locals[i];
      if (l.param) continue;
      out += "  let " + std::string(l.mut ? "mut " : "") + names[i] + ": " + ty(l.type) + ";\n";
    }
    for (uint32_t i = 0; i < body.loops.size(); ++i) {
      const Loop& l = body.loops[i];
      out += "  // loop " + std::to_string(i) + ": " + (l.kind == LoopKind::For ? "for" : "while") + ", head " +
             bb(l.header) + ", exit " + bb(l.exit) +
             (l.parent.valid() ? ", in loop " + std::to_string(l.parent.index) : std::string()) + "\n";
    }
    // Blocks nothing reaches (the code after a `return`) are left out.
    std::vector<bool> reached(body.blocks.size(), false);
    std::vector<uint32_t> work{0};
    reached[0] = true;
    while (!work.empty()) {
      const Terminator& t = body.blocks[work.back()].term;
      work.pop_back();
      for (BlockId n : {t.target, t.otherwise})
        if (n.valid() && !reached[n.index]) {
          reached[n.index] = true;
          work.push_back(n.index);
        }
    }
    for (uint32_t i = 0; i < body.blocks.size(); ++i) {
      if (!reached[i]) continue;
      const Block& b = body.blocks[i];
      out += "  " + bb(BlockId{i}) + ":\n";
      for (const Stmt& s : b.stmts) stmt(s);
      term(b.term);
    }
    out += "}\n";
  }
};

}  // namespace

std::string printBody(const hir::Program& prog, const Body& body) {
  Printer p{prog, body, {}, {}};
  p.print();
  return p.out;
}

}  // namespace vx::check::cir
