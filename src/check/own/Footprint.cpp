// E6007: the on-chip bytes live at once. Buffers bound by `let` (tuple
// bindings included) live until the end of their block (a loop body's are
// freed each iteration); a token's destination buffer is allocated when the
// copy starts; a call adds the callee's own peak (its summary). A `let`
// that moves a buffer bound earlier in the same block (`let b = a;`) hands
// it over rather than adding a second one; a move from an outer block, or
// under a condition, still counts both, so the bound never falls short.
// The result of `wait` stays a temporary of its own while the token holds
// the buffer: the b200 runtime's arena does not yet free the token's
// buffer early enough for the count of one (examples/stream_out.vx at
// 128x128 traps in it). Shapes are
// static, so the bound is exact arithmetic over the structured code; byte
// counts saturate instead of wrapping. Capacities and alignments come from
// the target table (src/target/MemSpaces.def).
#include "check/own/Analysis.h"
#include "diag/DiagKinds.h"

namespace vx::check::own {

namespace {

constexpr uint64_t kMax = UINT64_MAX;

uint64_t satMul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kMax : r;
}
uint64_t satAdd(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? kMax : r;
}
uint64_t roundUp(uint64_t x, uint64_t align) {
  if (align <= 1 || x == kMax) return x;
  uint64_t r = satAdd(x, align - 1);
  return r == kMax ? kMax : r / align * align;
}

struct Live {
  std::string what;
  base::Span span;
  uint64_t bytes;
  hir::MemSpace space;
  uint32_t local = UINT32_MAX;  // the `let` binding that owns it, if any
  unsigned depth = 0;           // the block it was bound in
};

uint64_t elemBytes(const hir::TypeTable& tt, hir::TypeId elem) {
  elem = tt.resolve(elem);
  if (tt.kind(elem) == hir::TyKind::Float) return hir::floatBytes(static_cast<hir::FloatKind>(tt.get(elem).sub));
  if (tt.kind(elem) == hir::TyKind::Int) {
    auto k = static_cast<hir::IntKind>(tt.get(elem).sub);
    return k == hir::IntKind::I32 || k == hir::IntKind::U32 ? 4 : 8;
  }
  return 4;
}

struct Footprint {
  Analysis& a;
  diag::Sink& sink;
  std::vector<Live> live;
  bool reported = false;
  uint64_t peak[4] = {0, 0, 0, 0};
  uint64_t extra[4] = {0, 0, 0, 0};  // a callee's peak during a call
  bool params = true;
  uint64_t paramBytes[4] = {0, 0, 0, 0};  // the caller counts these
  unsigned depth = 0;                     // blocks open

  // On-chip (bytes, space) of values of type t, summed over tuple elements.
  void onChip(hir::TypeId t, const std::string& what, base::Span span, std::vector<Live>& out) {
    const hir::TypeTable& tt = a.types();
    hir::TypeId r = tt.resolve(t);
    hir::TyKind k = tt.kind(r);
    if (k == hir::TyKind::Tuple) {
      for (uint32_t i = 0; i < tt.count(r); ++i) onChip(tt.elem(r, i), what, span, out);
      return;
    }
    if (k != hir::TyKind::Pinned && k != hir::TyKind::Token) return;
    hir::TypeId mem = tt.resolve(tt.get(r).b);
    if (tt.kind(mem) != hir::TyKind::Mem) return;
    auto space = static_cast<hir::MemSpace>(tt.get(mem).sub);
    if (!target::info(space).onChip) return;
    hir::TypeId inner = tt.resolve(tt.get(r).a);
    if (tt.kind(inner) != hir::TyKind::Tensor) return;
    hir::TypeId shape = tt.resolve(tt.get(inner).b);
    uint64_t count = 1;
    std::vector<uint64_t> dims;
    if (tt.kind(shape) == hir::TyKind::Shape)
      for (uint32_t i = 0; i < tt.count(shape); ++i) {
        hir::TypeId d = tt.resolve(tt.elem(shape, i));
        uint64_t v = tt.kind(d) == hir::TyKind::Dim ? tt.get(d).value : 0;
        dims.push_back(v);
        count = satMul(count, v);
      }
    uint64_t eb = elemBytes(tt, tt.get(inner).a);
    uint64_t bytes = satMul(count, eb);
    if (space == hir::MemSpace::TMEM && !dims.empty()) {
      // Tensor memory: 128 lanes of 32-bit columns, allocated in powers of
      // two of at least 32 columns.
      uint64_t rowBytes = count / std::max<uint64_t>(dims[0], 1) * eb;
      uint64_t columns = std::max<uint64_t>(32, (rowBytes + 3) / 4);
      uint64_t p = 32;
      while (p < columns && p < (uint64_t(1) << 40)) p <<= 1;
      uint64_t lanes = (dims[0] + 127) / 128;
      bytes = satMul(satMul(p, 128 * 4), lanes);
    }
    bytes = roundUp(bytes, target::memory(a.target, space).alignment);
    if (bytes == 0) return;
    out.push_back(Live{what, span, bytes, space});
  }

  uint64_t total(hir::MemSpace m) const {
    uint64_t n = extra[static_cast<unsigned>(m)];
    for (const auto& l : live)
      if (l.space == m) n = satAdd(n, l.bytes);
    return n;
  }

  void check(base::Span at, hir::MemSpace m) {
    uint64_t used = total(m);
    unsigned i = static_cast<unsigned>(m);
    if (!params) peak[i] = std::max(peak[i], used - std::min(used, paramBytes[i]));
    target::MemoryInfo mem = target::memory(a.target, m);
    uint64_t cap = mem.capacity;
    if (!mem.exists || cap == 0 || used <= cap || reported) return;
    reported = true;
    std::string space = std::string("Memory::") + hir::memSpaceName(m);
    std::string usedText = used == kMax ? "more than 18446744073709551615" : std::to_string(used);
    diag::Diagnostic d = diag::FootprintTooLarge(a.fn.name, usedText, space, std::to_string(cap),
                                                 target::info(a.target).name);
    d.primary(at, "this brings the total to " + usedText + " bytes");
    int n = 0;
    for (const auto& l : live)
      if (l.space == m && l.span.begin != at.begin && n++ < 3)
        d.secondary(l.span, std::to_string(l.bytes) + " bytes live here");
    if (extra[i]) d.note("the callee's own buffers take " + std::to_string(extra[i]) + " bytes of it");
    if (m == hir::MemSpace::TMEM && used != kMax)
      d.note("in tensor-memory columns (512 bytes each, one 32-bit cell in each of 128 lanes): " +
             std::to_string(used / 512) + " of the " + std::to_string(cap / 512));
    d.note(std::string("`") + space + "` on target `" + target::info(a.target).name + "`: " + mem.source);
    d.help("use smaller tiles or fewer ring slots, or free buffers (end their scope) before allocating more");
    sink.emit(std::move(d));
  }

  void add(const std::vector<Live>& ls) {
    for (const Live& l : ls) {
      live.push_back(l);
      check(l.span, l.space);
    }
  }

  // Temporaries of one statement: on-chip values made and used within it,
  // and the peak of the functions it calls.
  void temporaries(hir::ExprId id) {
    if (!id.valid()) return;
    const hir::Expr& e = a.prog.expr(id);
    switch (e.kind) {
      case hir::ExprKind::Call: {
        for (uint32_t i = 0; i < e.args.count; ++i) temporaries(a.prog.arg(e, i));
        const hir::Function& f = a.prog.fn(e.fn);
        if (f.builtin == hir::Builtin::None) {
          const Summary& sum = a.summaries[e.fn.index];
          for (unsigned m = 0; m < 4; ++m)
            if (sum.peak[m]) {
              extra[m] = sum.peak[m];
              check(e.span, static_cast<hir::MemSpace>(m));
              extra[m] = 0;
            }
        }
        std::vector<Live> ls;
        onChip(e.type, "temporary", e.span, ls);
        add(ls);
        return;
      }
      case hir::ExprKind::Tuple:
        for (uint32_t i = 0; i < e.args.count; ++i) temporaries(a.prog.arg(e, i));
        return;
      case hir::ExprKind::Binary:
        temporaries(e.a);
        temporaries(e.b);
        if (a.types().kind(a.types().resolve(e.type)) == hir::TyKind::Pinned) {
          std::vector<Live> ls;
          onChip(e.type, "temporary", e.span, ls);
          add(ls);
        }
        return;
      case hir::ExprKind::Unary:
      case hir::ExprKind::Cast:
      case hir::ExprKind::Borrow:
      case hir::ExprKind::Deref:
      case hir::ExprKind::Field: temporaries(e.a); return;
      case hir::ExprKind::Index:
        temporaries(e.a);
        temporaries(e.b);
        return;
      case hir::ExprKind::Error:
      case hir::ExprKind::Int:
      case hir::ExprKind::Float:
      case hir::ExprKind::Bool:
      case hir::ExprKind::Local:
      case hir::ExprKind::Const:
      case hir::ExprKind::MemConst:
      case hir::ExprKind::TopoConst:
      case hir::ExprKind::Unit:
      case hir::ExprKind::Len: return;
    }
  }

  // The local whose buffer the initializer of a `let` moves out: the
  // local itself, or the token or value a builtin returns the buffer of
  // (`wait(t)`, `relu(x)`).
  uint32_t movedLocal(hir::ExprId init) const {
    if (!init.valid()) return UINT32_MAX;
    const hir::Expr& e = a.prog.expr(init);
    if (e.kind == hir::ExprKind::Local && e.local.valid()) return e.local.index;
    if (e.kind != hir::ExprKind::Call || e.args.count == 0) return UINT32_MAX;
    const hir::Function& f = a.prog.fn(e.fn);
    if (f.builtin == hir::Builtin::None) return UINT32_MAX;
    target::ResultKind r = target::info(f.builtin).result;
    if (r != target::ResultKind::Payload && r != target::ResultKind::Same) return UINT32_MAX;
    const hir::Expr& arg = a.prog.expr(a.prog.arg(e, 0));
    return arg.kind == hir::ExprKind::Local && arg.local.valid() ? arg.local.index : UINT32_MAX;
  }

  void bind(hir::PatId p, base::Span at, uint32_t from = UINT32_MAX) {
    const hir::Pat& pat = a.prog.pat(p);
    if (pat.kind == hir::PatKind::Bind) {
      std::vector<Live> ls;
      onChip(a.prog.local(pat.local).type, a.prog.local(pat.local).name, pat.span, ls);
      // One buffer moved from a local of this block: handed over.
      if (from != UINT32_MAX && ls.size() == 1)
        for (size_t i = live.size(); i-- > 0;)
          if (live[i].local == from && live[i].depth == depth && live[i].space == ls[0].space &&
              live[i].bytes == ls[0].bytes) {
            live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
            break;
          }
      for (Live& l : ls) {
        l.local = pat.local.index;
        l.depth = depth;
        live.push_back(l);
        check(at, l.space);
      }
      return;
    }
    for (uint32_t i = 0; i < pat.elems.count; ++i) bind(hir::PatId{a.prog.listAt(pat.elems, i)}, at);
  }

  void block(hir::BlockId id) {
    const hir::Block& b = a.prog.block(id);
    size_t mark = live.size();
    ++depth;
    for (uint32_t i = 0; i < b.stmts.count; ++i) stmt(hir::StmtId{a.prog.listAt(b.stmts, i)});
    if (b.tail.valid()) {
      size_t m2 = live.size();
      temporaries(b.tail);
      live.resize(m2);
    }
    live.resize(mark);
    --depth;
  }

  void stmt(hir::StmtId id) {
    const hir::Stmt& st = a.prog.stmt(id);
    switch (st.kind) {
      case hir::StmtKind::Let: {
        size_t mark = live.size();
        temporaries(st.a);
        live.resize(mark);
        bind(st.pat, st.a.valid() ? a.prog.expr(st.a).span : st.span, movedLocal(st.a));
        return;
      }
      case hir::StmtKind::Assign:
      case hir::StmtKind::Expr:
      case hir::StmtKind::Return: {
        size_t mark = live.size();
        temporaries(st.kind == hir::StmtKind::Assign ? st.b : st.a);
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
      case hir::StmtKind::Break:
      case hir::StmtKind::Continue: return;
    }
  }
};

}  // namespace

void checkFootprint(Analysis& a, diag::Sink& sink) {
  Footprint fp{a, sink, {}, false, {}, {}, true, {}};
  const hir::TypeTable& tt = a.types();
  for (hir::LocalId p : a.fn.params) {
    // On-chip parameters, by value or by reference, are live for the whole
    // call (a kernel's entry places them on chip); a caller counts them.
    hir::TypeId t = tt.resolve(a.prog.local(p).type);
    if (tt.kind(t) == hir::TyKind::Ref) t = tt.get(t).a;
    std::vector<Live> ls;
    fp.onChip(t, a.prog.local(p).name, a.prog.local(p).span, ls);
    for (const Live& l : ls) {
      fp.live.push_back(l);
      unsigned m = static_cast<unsigned>(l.space);
      fp.paramBytes[m] = satAdd(fp.paramBytes[m], l.bytes);
    }
  }
  fp.params = false;
  if (a.fn.body.valid()) fp.block(a.fn.body);
  for (unsigned m = 0; m < 4; ++m) a.summary.peak[m] = fp.peak[m];
}

}  // namespace vx::check::own
