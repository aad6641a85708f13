// E6007: the on-chip bytes live at once, by a forward dataflow over the
// core IR whose facts are the buffers live at each point (their owner, a
// local or a temporary, and their bytes). A local's buffer lives from the
// assignment that makes it until the end of its life (StorageDead: the end
// of its block; a loop body's are freed each iteration); a temporary's
// until the end of its statement; a token's destination buffer is
// allocated when the copy starts; a call adds the callee's own peak (its
// summary). A `let` that moves a buffer bound in the same block (`let b =
// a;`, `let x = wait(t);`) hands it over rather than adding a
// second one, after the statement (during it both count, as the runtimes
// allocate the result first); a move from an outer block, or under a
// condition, still counts both, so the bound never falls short. A buffer
// assigned again after its first was handed over is a new one. At a call
// into its own recursive cycle with on-chip buffers live, the footprint
// grows with the depth: E6007. Shapes are static, so the bound is exact
// arithmetic; byte counts saturate instead of wrapping. Capacities and
// alignments come from the target table (src/target/MemSpaces.def).
#include <optional>

#include "check/own/Analysis.h"

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

uint64_t elemBytes(const hir::TypeTable& tt, hir::TypeId elem) {
  elem = tt.resolve(elem);
  if (tt.kind(elem) == hir::TyKind::Float) return hir::floatBytes(static_cast<hir::FloatKind>(tt.get(elem).sub));
  if (tt.kind(elem) == hir::TyKind::Int) {
    auto k = static_cast<hir::IntKind>(tt.get(elem).sub);
    return k == hir::IntKind::I32 || k == hir::IntKind::U32 ? 4 : 8;
  }
  return 4;
}

struct Buf {
  uint64_t bytes = 0;
  hir::MemSpace space = hir::MemSpace::VMEM;
  base::Span span;
  bool param = false;
};

// The buffers live at a point, by the location that owns each.
using Live = std::map<Loc, Buf>;

struct Footprint {
  Analysis& a;
  uint64_t peak[4] = {0, 0, 0, 0};
  std::vector<Finding> found;

  // On-chip buffers of a value of type t at `at` (a tuple's, one each).
  void onChip(hir::TypeId t, Loc at, base::Span span, std::vector<std::pair<Loc, Buf>>& out) const {
    const hir::TypeTable& tt = a.types();
    hir::TypeId r = tt.resolve(t);
    hir::TyKind k = tt.kind(r);
    if (k == hir::TyKind::Tuple) {
      for (uint32_t i = 0; i < tt.count(r); ++i) {
        Loc c = at;
        if (!childLoc(at, i, c)) c = at;  // deeper than tracked: counted at the tuple
        onChip(tt.elem(r, i), c, span, out);
      }
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
    out.emplace_back(at, Buf{bytes, space, span, false});
  }

  static uint64_t total(const Live& live, hir::MemSpace m, bool withParams) {
    uint64_t n = 0;
    for (const auto& [owner, b] : live)
      if (b.space == m && (withParams || !b.param)) n = satAdd(n, b.bytes);
    return n;
  }

  void check(const Live& live, base::Span at, hir::MemSpace m, uint64_t extra, bool recursion) {
    unsigned i = static_cast<unsigned>(m);
    uint64_t used = satAdd(total(live, m, true), extra);
    peak[i] = std::max(peak[i], satAdd(total(live, m, false), extra));
    if (recursion) used = peak[i] = kMax;
    target::MemoryInfo mem = target::memory(a.target, m);
    if (!mem.exists || mem.capacity == 0 || used <= mem.capacity) return;
    Finding f;
    f.rule = Rule::Footprint;
    f.at = at;
    f.bad = a.terms.tru();
    f.pc = a.terms.tru();
    f.condition = a.terms.tru();
    f.subject = a.fn.name;
    f.footprint.space = m;
    f.footprint.used = used;
    f.footprint.capacity = mem.capacity;
    f.footprint.callee = extra;
    f.footprint.recursion = recursion;
    for (const auto& [owner, b] : live)
      if (b.space == m && b.span.begin != at.begin && f.footprint.live.size() < 3)
        f.footprint.live.emplace_back(b.span, b.bytes);
    found.push_back(std::move(f));
  }

  void add(Live& live, const std::vector<std::pair<Loc, Buf>>& bufs, base::Span at) {
    for (const auto& [l, b] : bufs) {
      live[l] = b;
      check(live, at, b.space, 0, false);
    }
  }

  static void eraseWithin(Live& live, Loc l) {
    for (auto it = live.begin(); it != live.end();) it = within(it->first, l) ? live.erase(it) : std::next(it);
  }
  static bool holds(const Live& live, Loc l) {
    for (const auto& [k, b] : live)
      if (within(k, l)) return true;
    return false;
  }

  // A moved operand hands its buffers over to the destination: always from
  // a temporary; from a local only when both are bound in one block.
  void handOver(Live& live, const cir::Operand& o, const cir::Local& dest) {
    Loc from;
    if (o.kind != cir::OperandKind::Move || !locOf(a, o.place, from)) return;
    const cir::Local& src = a.body.locals[from.local];
    if (src.temp || (!dest.temp && src.scope == dest.scope)) eraseWithin(live, from);
  }

  void stmt(Live& live, const cir::Stmt& st) {
    switch (st.kind) {
      case cir::StmtKind::StorageLive:
      case cir::StmtKind::StorageDead: eraseWithin(live, Loc{st.local.index, 0}); return;
      case cir::StmtKind::Drop:
      case cir::StmtKind::StmtEnd:
      case cir::StmtKind::GridBegin:
      case cir::StmtKind::GridEnd: return;
      case cir::StmtKind::Assign: break;
    }
    // A call adds its callee's own peak while it runs; into its own
    // recursive cycle with buffers live, the footprint grows with depth.
    if (st.rv == cir::RvKind::Call && a.prog.fn(st.fn).builtin == hir::Builtin::None) {
      const Summary& sum = a.summaries[st.fn.index];
      bool cycle = a.cycle.count(st.fn.index) > 0;
      for (unsigned m = 0; m < 4; ++m) {
        auto space = static_cast<hir::MemSpace>(m);
        // (or a callee of the cycle that grows so itself: mutual recursion)
        bool grows = cycle && (total(live, space, false) > 0 || sum.peak[m] == kMax);
        if (sum.peak[m] || grows) check(live, st.span, space, sum.peak[m], grows);
      }
    }
    if (!st.dest.valid()) return;
    bool newValue = st.rv == cir::RvKind::Call || st.rv == cir::RvKind::Binary || st.rv == cir::RvKind::Unary;
    if (newValue) {
      // The result is made while the arguments (and the old value) live.
      std::vector<std::pair<Loc, Buf>> made;
      onChip(st.type, Loc{UINT32_MAX, 0}, st.span, made);
      Live during = live;
      for (const auto& [l, b] : made) {
        during[Loc{UINT32_MAX, static_cast<uint32_t>(during.size())}] = b;
        check(during, st.span, b.space, 0, false);
      }
    }
    const cir::Local& dl = a.body.local(st.dest.local);
    // Buffers moved into the destination leave their old owners.
    if (st.rv == cir::RvKind::Use) handOver(live, st.a, dl);
    if (st.rv == cir::RvKind::Tuple)
      for (uint32_t i = 0; i < st.args.count; ++i) handOver(live, a.body.arg(st, i), dl);
    if (st.rv == cir::RvKind::Call && st.args.count > 0) {
      // `wait(t)` returns the buffer of `t`'s copy.
      const hir::Function& f = a.prog.fn(st.fn);
      if (f.builtin != hir::Builtin::None) {
        target::ResultKind r = target::info(f.builtin).result;
        if (r == target::ResultKind::Payload || r == target::ResultKind::Same) handOver(live, a.body.arg(st, 0), dl);
      }
    }
    Loc d;
    if (!locOf(a, st.dest, d)) return;  // through a reference: not this function's buffer
    std::vector<std::pair<Loc, Buf>> made;
    onChip(a.body.typeOf(st.dest), d, dl.temp ? st.span : dl.span, made);
    if (made.empty()) return;
    eraseWithin(live, d);  // the old value is replaced
    add(live, made, st.span);
  }

  void run() {
    const cir::Body& body = a.body;
    Live entry;
    const hir::TypeTable& tt = a.types();
    for (cir::LocalId p : body.params) {
      // On-chip parameters, by value or by reference, are live for the
      // whole call (a kernel's entry places them on chip); a caller counts
      // them.
      hir::TypeId t = tt.resolve(body.local(p).type);
      if (tt.kind(t) == hir::TyKind::Ref) t = tt.get(t).a;
      std::vector<std::pair<Loc, Buf>> bufs;
      onChip(t, Loc{p.index, 0}, body.local(p).span, bufs);
      for (auto& [l, b] : bufs) {
        b.param = true;
        entry[l] = b;
      }
    }
    size_t n = body.blocks.size();
    std::vector<std::optional<Live>> in(n);
    in[0] = entry;
    std::vector<uint32_t> work{0};
    std::vector<bool> queued(n, false);
    queued[0] = true;
    while (!work.empty()) {
      uint32_t b = work.back();
      work.pop_back();
      queued[b] = false;
      Live live = *in[b];
      for (const cir::Stmt& st : body.blocks[b].stmts) stmt(live, st);
      const cir::Terminator& term = body.blocks[b].term;
      for (cir::BlockId s : {term.target, term.otherwise}) {
        if (!s.valid()) continue;
        bool changed = false;
        if (!in[s.index]) {
          in[s.index] = live;
          changed = true;
        } else {
          // Live on some path: the union.
          for (const auto& [owner, buf] : live) {
            auto it = in[s.index]->find(owner);
            if (it == in[s.index]->end() || it->second.bytes < buf.bytes) {
              (*in[s.index])[owner] = buf;
              changed = true;
            }
          }
        }
        if (changed && !queued[s.index]) {
          queued[s.index] = true;
          work.push_back(s.index);
        }
      }
    }
  }
};

}  // namespace

void checkFootprint(Analysis& a) {
  Footprint fp{a, {0, 0, 0, 0}, {}};
  fp.run();
  for (unsigned m = 0; m < 4; ++m) a.summary.peak[m] = fp.peak[m];
  // One finding per function: the first point in source order.
  const Finding* first = nullptr;
  for (const Finding& f : fp.found)
    if (!first || f.at.begin < first->at.begin) first = &f;
  if (first) a.findings.push_back(*first);
}

}  // namespace vx::check::own
