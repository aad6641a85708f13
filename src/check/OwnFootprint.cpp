// E6007: the on-chip bytes live at once. Buffers bound by `let` live until
// the end of their block (a loop body's are freed each iteration); a token's
// destination buffer is allocated when the transfer starts. Shapes are
// static, so the bound is exact arithmetic over the structured code.
#include "check/OwnState.h"
#include "diag/DiagKinds.h"

namespace vx::check::own {

namespace {

struct Live {
  std::string what;
  base::Span span;
  uint64_t bytes;
  hir::MemSpace space;
};

uint64_t capacity(const std::string& target, hir::MemSpace m) {
  bool gpu = target == "b200" || target == "h100";
  switch (m) {
    case hir::MemSpace::VMEM: return gpu ? 227ull * 1024 : 128ull * 1024 * 1024;
    case hir::MemSpace::SMEM: return 1ull * 1024 * 1024;
    case hir::MemSpace::TMEM: return 128ull * 512 * 4;
    case hir::MemSpace::HBM: return UINT64_MAX;
  }
  return UINT64_MAX;
}

// On-chip bytes a value of type `t` occupies, and where.
bool onChip(const Walk& w, hir::TypeId t, uint64_t& bytes, hir::MemSpace& space) {
  const hir::TypeTable& tt = w.types();
  hir::TypeId r = tt.resolve(t);
  hir::TyKind k = tt.kind(r);
  if (k != hir::TyKind::Pinned && k != hir::TyKind::Token) return false;
  hir::TypeId mem = tt.resolve(tt.get(r).b);
  if (tt.kind(mem) != hir::TyKind::Mem) return false;
  space = static_cast<hir::MemSpace>(tt.get(mem).sub);
  if (space == hir::MemSpace::HBM) return false;
  hir::TypeId inner = tt.resolve(tt.get(r).a);
  if (tt.kind(inner) != hir::TyKind::Tensor) return false;
  hir::TypeId elem = tt.resolve(tt.get(inner).a);
  uint64_t eb = tt.kind(elem) == hir::TyKind::Float ? hir::floatBytes(static_cast<hir::FloatKind>(tt.get(elem).sub))
                : tt.kind(elem) == hir::TyKind::Int  ? 4
                                                      : 4;
  bytes = tt.elementCount(inner) * eb;
  return bytes > 0;
}

struct Footprint {
  Walk& w;
  const hir::Function& f;
  std::vector<Live> live;
  bool reported = false;

  uint64_t total(hir::MemSpace m) const {
    uint64_t n = 0;
    for (const auto& l : live)
      if (l.space == m) n += l.bytes;
    return n;
  }

  void check(base::Span at, hir::MemSpace m) {
    uint64_t cap = capacity(w.target.name, m);
    uint64_t used = total(m);
    if (used <= cap || reported || !shouldReport(w, "E6007", at)) return;
    reported = true;
    std::string space = std::string("Memory::") + hir::memSpaceName(m);
    diag::Diagnostic d =
        diag::FootprintTooLarge(f.name, std::to_string(used), space, std::to_string(cap), w.target.name);
    d.primary(at, "this allocation brings the total to " + std::to_string(used) + " bytes");
    int n = 0;
    for (const auto& l : live)
      if (l.space == m && l.span.begin != at.begin && n++ < 3)
        d.secondary(l.span, std::to_string(l.bytes) + " bytes live here");
    d.help("use smaller tiles or fewer ring slots, or free buffers (end their scope) before allocating more");
    w.sink.emit(std::move(d));
  }

  // Temporaries of one statement: on-chip values made and used within it.
  void temporaries(hir::ExprId id, size_t mark) {
    const hir::Expr& e = w.prog.expr(id);
    if (e.kind == hir::ExprKind::Call) {
      for (uint32_t i = 0; i < e.args.count; ++i) temporaries(w.prog.arg(e, i), mark);
      uint64_t bytes;
      hir::MemSpace space;
      if (onChip(w, e.type, bytes, space)) {
        live.push_back(Live{"temporary", e.span, bytes, space});
        check(e.span, space);
      }
    }
    (void)mark;
  }

  void block(hir::BlockId id) {
    const hir::Block& b = w.prog.block(id);
    size_t mark = live.size();
    for (uint32_t i = 0; i < b.stmts.count; ++i) stmt(hir::StmtId{w.prog.listAt(b.stmts, i)});
    if (b.tail.valid()) {
      size_t m2 = live.size();
      temporaries(b.tail, m2);
      live.resize(m2);
    }
    live.resize(mark);
  }

  void stmt(hir::StmtId id) {
    const hir::Stmt& st = w.prog.stmt(id);
    switch (st.kind) {
      case hir::StmtKind::Let: {
        size_t mark = live.size();
        temporaries(st.a, mark);
        live.resize(mark);
        const hir::Pat& p = w.prog.pat(st.pat);
        uint64_t bytes;
        hir::MemSpace space;
        if (p.kind == hir::PatKind::Bind && onChip(w, w.prog.local(p.local).type, bytes, space)) {
          live.push_back(Live{w.prog.local(p.local).name, p.span, bytes, space});
          check(w.prog.expr(st.a).span, space);
        }
        return;
      }
      case hir::StmtKind::Assign:
      case hir::StmtKind::Expr:
      case hir::StmtKind::Return: {
        if (!st.b.valid() && !st.a.valid()) return;
        size_t mark = live.size();
        temporaries(st.kind == hir::StmtKind::Assign ? st.b : st.a, mark);
        live.resize(mark);
        return;
      }
      case hir::StmtKind::For:
      case hir::StmtKind::While:
      case hir::StmtKind::Block: block(st.body); return;
      case hir::StmtKind::If:
        block(st.body);
        if (st.elseStmt.valid()) stmt(st.elseStmt);
        return;
      default: return;
    }
  }
};

}  // namespace

void checkFootprint(Walk& w, const hir::Function& f) {
  Footprint fp{w, f, {}, false};
  for (hir::LocalId p : f.params) {
    uint64_t bytes;
    hir::MemSpace space;
    // On-chip parameters, by value or by reference, are live for the whole
    // call (a kernel's entry places them on chip).
    hir::TypeId t = w.types().resolve(w.prog.local(p).type);
    if (w.types().kind(t) == hir::TyKind::Ref) t = w.types().get(t).a;
    if (onChip(w, t, bytes, space)) fp.live.push_back(Live{w.prog.local(p).name, w.prog.local(p).span, bytes, space});
  }
  if (f.body.valid()) fp.block(f.body);
}

}  // namespace vx::check::own
