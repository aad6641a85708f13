// Effects of expressions on the state: token consumption and drops (E6002,
// E6003), accesses against transfers in flight (E6004-E6006), moves (E6001),
// and the calls that start transfers.
#include "check/OwnState.h"
#include "diag/DiagKinds.h"

namespace vx::check::own {

using hir::ExprKind;

namespace {

Term aliasTerm(Walk& w, const Region& a, const Region& b) {
  if (a.root != b.root) return w.terms.fls();
  if (a.whole || b.whole) return w.terms.tru();
  return w.terms.mkEq(a.index, b.index);
}

std::string rootName(Walk& w, const Region& r) { return localName(w, r.root); }

// Labels the transfers a token may hold: "token created here".
void labelCreations(Walk& w, diag::Diagnostic& d, const State& s, const TokenVal& v, const char* label) {
  int n = 0;
  std::vector<uint32_t> seenSites;
  for (const auto& [k, h] : v.holds.empty() ? v.ghost : v.holds) {
    if (w.terms.isFalse(h) || n >= 2) continue;
    const Transfer& t = w.transfers[k];
    bool dup = false;
    for (uint32_t site : seenSites) dup = dup || site == t.site.index;
    if (dup || !t.span.valid()) continue;
    seenSites.push_back(t.site.index);
    d.secondary(t.span, t.age > 0 ? std::string(label) + " in an earlier iteration" : std::string(label));
    ++n;
  }
  (void)s;
}

}  // namespace

std::optional<Region> regionOf(Walk& w, State& s, hir::ExprId place) {
  const hir::Expr* e = &w.prog.expr(place);
  while (e->kind == ExprKind::Borrow) e = &w.prog.expr(e->a);
  Region r;
  base::Span span = e->span;
  switch (e->kind) {
    case ExprKind::Local: r.root = e->local; break;
    case ExprKind::Index: {
      // The first index below the root names the slot: `slots[i % 2]`, `tiles[i]`.
      const hir::Expr* base = e;
      hir::ExprId indexExpr = e->b;
      while (w.prog.expr(base->a).kind == ExprKind::Index) {
        indexExpr = w.prog.expr(base->a).b;
        base = &w.prog.expr(base->a);
      }
      const hir::Expr& root = w.prog.expr(base->a);
      const hir::Expr* rootLocal = &root;
      while (rootLocal->kind == ExprKind::Deref || rootLocal->kind == ExprKind::Field) rootLocal = &w.prog.expr(rootLocal->a);
      if (rootLocal->kind != ExprKind::Local) return std::nullopt;
      r.root = rootLocal->local;
      r.whole = false;
      r.index = valueOf(w, s, indexExpr);
      break;
    }
    case ExprKind::Deref:
    case ExprKind::Field: {
      const hir::Expr* x = e;
      while (x->kind == ExprKind::Deref || x->kind == ExprKind::Field) x = &w.prog.expr(x->a);
      if (x->kind != ExprKind::Local) return std::nullopt;
      r.root = x->local;
      break;
    }
    default: return std::nullopt;
  }
  r.text = sourceText(w, span);
  if (r.text.empty()) r.text = localName(w, r.root);
  return r;
}

void checkAccess(Walk& w, State& s, const Region& r, Access a, base::Span at) {
  // Accesses change no state: while loop facts are gathered, skip them.
  if (w.silent > 0) return;
  smt::TermStore& t = w.terms;
  for (const auto& [k, inflight] : s.inflight) {
    if (t.isFalse(inflight)) continue;
    const Transfer& tr = w.transfers[k];
    bool viaDst = tr.dst && tr.dst->root == r.root;
    bool viaSrc = tr.src && tr.src->root == r.root;
    if (!viaDst && !viaSrc) continue;
    if (viaSrc && !viaDst && a == Access::Read) continue;  // two readers are fine
    const Region& other = viaDst ? *tr.dst : *tr.src;
    Term alias = aliasTerm(w, other, r);
    Term bad = t.mkAnd(inflight, alias);
    const char* code = viaDst ? (a == Access::Write ? "E6005" : a == Access::Free ? "E6006" : "E6004")
                              : (a == Access::Write ? "E6005" : "E6006");
    // A state query (QF_BV): the read's tag is "in flight" and its value the
    // contents from before the copy; an index query (QF_LIA) names the slots.
    Term query = bad;
    std::string name = rootName(w, r);
    if (std::string(code) == "E6004") {
      Term tag = t.var("tag_" + name, smt::Sort::BV2);
      Term val = t.var("val_" + name, smt::Sort::BV8);
      query = t.mkAnd({bad, t.mkEq(tag, t.mkIte(bad, t.bvConst(smt::Sort::BV2, 3), t.bvConst(smt::Sort::BV2, 0))),
                       t.mkEq(tag, t.bvConst(smt::Sort::BV2, 3)),
                       t.mkEq(val, t.mkIte(t.mkEq(tag, t.bvConst(smt::Sort::BV2, 3)), t.bvConst(smt::Sort::BV8, 0),
                                           t.bvConst(smt::Sort::BV8, 1)))});
      if (!r.whole && !other.whole) {
        Term sr = t.var("slot_read", smt::Sort::Int), sf = t.var("slot_inflight", smt::Sort::Int);
        query = t.mkAnd({query, t.mkEq(sr, r.index), t.mkEq(sf, other.index)});
        for (Term v : {sr, sf}) {
          bool seen = false;
          for (Term x : w.shown) seen = seen || x == v;
          if (!seen) w.shown.push_back(v);
        }
      }
      for (Term v : {tag, val}) {
        bool seen = false;
        for (Term x : w.shown) seen = seen || x == v;
        if (!seen) w.shown.push_back(v);
      }
    }
    smt::Model model;
    smt::Verdict v = possible(w, s, query, &model);
    if (v == smt::Verdict::Unsat) continue;
    if (v == smt::Verdict::Unknown) {
      reportUnknown(w, at, "that `" + r.text + "` is not accessed while a transfer is in flight");
      continue;
    }
    if (!shouldReport(w, code, at)) continue;
    std::string cex = counterexample(w, model);
    diag::Diagnostic d;
    std::string tokenHint = tr.tokenName.empty() ? "its token" : "`" + tr.tokenName + "`";
    if (std::string(code) == "E6004") {
      d = diag::StaleRead(r.text);
      d.primary(at, "read here while the transfer may be in flight");
      d.secondary(tr.span, "transfer into `" + other.text + "` started here");
      if (!cex.empty()) d.note("z3 counterexample: " + cex);
      if (!r.whole && !other.whole)
        d.note("the slot read, `" + r.text + "`, may be the slot still being written, `" + other.text + "`");
      d.help(tr.tokenName.empty() ? "wait for the transfer before reading" : "wait first: `wait(" + tr.tokenName + ");`");
    } else if (std::string(code) == "E6005") {
      d = diag::HazardWrite(r.text, viaDst ? "into" : "reading");
      d.primary(at, viaDst ? "written here while a transfer writes it" : "written here while a transfer reads it");
      d.secondary(tr.span, viaDst ? "transfer into `" + other.text + "` started here"
                                  : "transfer from `" + other.text + "` started here");
      if (!cex.empty()) d.note("z3 counterexample: " + cex);
      d.help("wait for " + tokenHint + " before writing");
    } else {
      const char* how = a == Access::Move ? "moved" : a == Access::Free ? "dropped" : "written";
      d = diag::SourceMoved(r.text, how);
      d.primary(at, std::string(how) + " here while the transfer is in flight");
      d.secondary(tr.span, viaDst ? "transfer into `" + other.text + "` started here"
                                  : "transfer from `" + other.text + "` started here");
      d.help("wait for " + tokenHint + " first");
    }
    w.sink.emit(std::move(d));
  }
}

void useLocal(Walk& w, State& s, hir::LocalId l, base::Span at, bool moves) {
  const hir::Local& local = w.prog.local(l);
  if (!isMoveOnly(w, local.type)) return;
  smt::TermStore& t = w.terms;
  Term moved = get(s.moved, l.index, t.fls());
  if (!t.isFalse(moved) && w.silent == 0) {
    smt::Model m;
    smt::Verdict v = possible(w, s, moved, &m);
    if (v == smt::Verdict::Unknown) reportUnknown(w, at, "that `" + local.name + "` is not used after a move");
    if (v == smt::Verdict::Sat && shouldReport(w, "E6001", at)) {
      diag::Diagnostic d = diag::UseAfterMove(local.name);
      d.primary(at, "value used here after move");
      bool earlierIteration = false;
      for (const auto& [sp, g] : s.moveSites[l.index]) {
        if (t.isFalse(g)) continue;
        if (sp.begin == at.begin && sp.end == at.end) {
          earlierIteration = true;
          continue;
        }
        d.secondary(sp, "value moved here");
        break;
      }
      if (earlierIteration)
        d.note("`" + local.name + "` is moved here in an earlier iteration of the loop, and not assigned again");
      std::string note = pathNote(w, s, moved, m);
      if (!note.empty()) d.note(note);
      d.note("`" + local.name + "` has type `" + w.types().print(local.type) + "`, which is moved, not copied");
      w.sink.emit(std::move(d));
    }
  }
  if (moves) {
    Region r;
    r.root = l;
    r.text = local.name;
    checkAccess(w, s, r, Access::Move, at);
    s.moved[l.index] = t.tru();
    s.moveSites[l.index].emplace_back(at, s.pc);
  }
}

void consume(Walk& w, State& s, const TokenVal& v, base::Span at, const std::string& name, hir::ExprId site,
             bool completes) {
  smt::TermStore& t = w.terms;
  Term liveF = live(w, s, v);
  smt::Model m;
  smt::Verdict verdict = w.silent > 0 ? smt::Verdict::Unsat : possible(w, s, t.mkNot(liveF), &m);
  if (verdict == smt::Verdict::Unknown) reportUnknown(w, at, "that `" + name + "` holds a token not yet consumed");
  if (verdict == smt::Verdict::Sat && shouldReport(w, "E6002", at)) {
    diag::Diagnostic d = diag::TokenConsumedTwice(name);
    d.primary(at, "consumed again here");
    bool earlierIteration = false;
    int labelled = 0;
    for (const auto& [k, h] : v.holds.empty() ? v.ghost : v.holds) {
      auto it = s.consumeSites.find(k);
      if (it == s.consumeSites.end()) continue;
      for (const auto& [sp, g] : it->second) {
        if (t.isFalse(g) || labelled >= 1) continue;
        if (sp.begin == at.begin && sp.end == at.end) {
          earlierIteration = true;
          continue;
        }
        d.secondary(sp, "first consumed here");
        ++labelled;
      }
    }
    labelCreations(w, d, s, v, "token created here");
    if (earlierIteration || (labelled == 0 && !w.loops.empty()))
      d.note("`" + name + "` is consumed in the loop, without afterwards being reassigned: the next iteration "
             "consumes it again");
    std::string note = pathNote(w, s, t.mkNot(liveF), m);
    if (!note.empty()) d.note(note);
    d.help("a token is consumed exactly once: by `wait`, by passing it to a function that takes it, or by "
           "returning it");
    w.sink.emit(std::move(d));
  }
  for (const auto& [k, h] : v.holds) {
    if (t.isFalse(h)) continue;
    if (completes) s.inflight[k] = t.mkAnd(get(s.inflight, k, t.fls()), t.mkNot(h));
    s.consumeSites[k].emplace_back(at, t.mkAnd(s.pc, h));
  }
  (void)site;
}

void checkDropped(Walk& w, State& s, const TokenVal& v, base::Span at, const std::string& name, int how) {
  smt::TermStore& t = w.terms;
  Term liveF = live(w, s, v);
  if (t.isFalse(liveF) || w.silent > 0) return;
  smt::Model m;
  smt::Verdict verdict = possible(w, s, liveF, &m);
  if (verdict == smt::Verdict::Unknown) {
    reportUnknown(w, at, "that `" + name + "` is waited before it is dropped");
    return;
  }
  if (verdict != smt::Verdict::Sat || !shouldReport(w, "E6003", at)) return;
  diag::Diagnostic d;
  switch (how) {
    case 1:
      d = diag::TokenOverwritten(name);
      d.primary(at, "the previous token is overwritten here, never waited");
      break;
    case 2:
      d = diag::TokenTemporaryDropped();
      d.primary(at, "this token is dropped at the end of the statement");
      break;
    case 3:
      d = diag::TokenDropped(name);
      d.primary(at, "`" + name + "` is still in flight when control leaves here");
      break;
    default:
      d = diag::TokenDropped(name);
      d.primary(at, "`" + name + "` dropped here while still in flight");
      break;
  }
  labelCreations(w, d, s, v, "token created here");
  std::string note = pathNote(w, s, liveF, m);
  if (!note.empty()) d.note(note);
  if (how == 2) {
    d.help("bind it and wait for it: `let t = ...; wait(t);`");
  } else {
    // The mechanical fix: a `wait` on its own line before the statement that
    // drops the token (or before the `}` that ends its scope).
    bool suggested = false;
    if (at.valid()) {
      std::string_view text = w.sources.file(at.file).text();
      uint32_t lineStart = at.begin;
      while (lineStart > 0 && text[lineStart - 1] != '\n') --lineStart;
      uint32_t indentEnd = lineStart;
      while (indentEnd < text.size() && (text[indentEnd] == ' ' || text[indentEnd] == '\t')) ++indentEnd;
      std::string indent(text.substr(lineStart, indentEnd - lineStart));
      if (indentEnd == at.begin && name != "the token") {
        std::string wait = "wait(" + name + ");";
        if (how == 0)  // before the closing brace, one level deeper
          d.suggest("wait for it first: `" + wait + "`", base::Span{at.file, lineStart, lineStart},
                    indent + "  " + wait + "\n");
        else
          d.suggest("wait for it first: `" + wait + "`", base::Span{at.file, at.begin, at.begin},
                    wait + "\n" + indent);
        suggested = true;
      }
    }
    if (!suggested) d.help("wait for it first: `wait(" + name + ");`");
  }
  w.sink.emit(std::move(d));
}

void checkArgBorrows(Walk& w, State& s, const hir::Expr& call) {
  if (w.silent > 0) return;
  struct B {
    Region r;
    bool mut;
    base::Span span;
  };
  std::vector<B> borrows;
  for (uint32_t i = 0; i < call.args.count; ++i) {
    hir::ExprId a = w.prog.arg(call, i);
    const hir::Expr& e = w.prog.expr(a);
    bool isBorrow = e.kind == ExprKind::Borrow;
    bool refLocal = e.kind == ExprKind::Local && w.types().kind(w.types().resolve(e.type)) == hir::TyKind::Ref;
    if (!isBorrow && !refLocal) continue;
    std::optional<Region> r = regionOf(w, s, a);
    if (!r) continue;
    bool mut = isBorrow ? e.mut : w.types().get(w.types().resolve(e.type)).sub == 1;
    borrows.push_back(B{*r, mut, e.span});
  }
  smt::TermStore& t = w.terms;
  for (size_t i = 0; i < borrows.size(); ++i)
    for (size_t j = 0; j < borrows.size(); ++j) {
      if (i == j || !borrows[i].mut || (borrows[j].mut && j < i)) continue;
      const B& m = borrows[i];
      const B& o = borrows[j];
      Term alias = aliasTerm(w, m.r, o.r);
      if (t.isFalse(alias)) continue;
      smt::Model model;
      smt::Verdict v = possible(w, s, alias, &model);
      if (v == smt::Verdict::Unknown) reportUnknown(w, m.span, "that `" + m.r.text + "` and `" + o.r.text + "` are disjoint");
      if (v != smt::Verdict::Sat || !shouldReport(w, "E6008", m.span)) continue;
      diag::Diagnostic d = o.mut ? diag::ConflictingMutBorrows(m.r.text) : diag::ConflictingBorrows(m.r.text);
      d.primary(m.span, "mutable borrow here");
      d.secondary(o.span, o.mut ? "another mutable borrow of the same data" : "immutable borrow of the same data");
      std::string cex = counterexample(w, model);
      if (!cex.empty() && !m.r.whole && !o.r.whole) d.note("the slots may be the same: z3 counterexample: " + cex);
      d.help("an operation's output must not alias its inputs; use a separate buffer");
      w.sink.emit(std::move(d));
    }
}

std::optional<TokenVal> applyCall(Walk& w, State& s, const hir::Expr& call,
                                  std::vector<std::optional<TokenVal>>& args) {
  const hir::Function& f = w.prog.fn(call.fn);
  smt::TermStore& t = w.terms;
  auto argName = [&](uint32_t i) {
    const hir::Expr& a = w.prog.expr(w.prog.arg(call, i));
    return a.kind == ExprKind::Local ? localName(w, a.local) : std::string("the token");
  };
  auto newTransfer = [&](std::optional<Region> src, std::optional<Region> dst) {
    Transfer tr;
    tr.site = hir::ExprId{static_cast<uint32_t>(&call - &w.prog.exprs[0])};
    tr.kind = f.builtin;
    tr.src = std::move(src);
    tr.dst = std::move(dst);
    tr.span = call.span;
    w.transfers.push_back(tr);
    uint32_t k = static_cast<uint32_t>(w.transfers.size() - 1);
    s.inflight[k] = t.tru();
    TokenVal v;
    v.holds[k] = t.tru();
    return v;
  };
  switch (f.builtin) {
    case hir::Builtin::Wait:
      if (args[0]) consume(w, s, *args[0], w.prog.expr(w.prog.arg(call, 0)).span, argName(0), w.prog.arg(call, 0));
      return std::nullopt;
    case hir::Builtin::TransferAsync:
      return newTransfer(regionOf(w, s, w.prog.arg(call, 0)), std::nullopt);
    case hir::Builtin::TransferAsyncInto:
    case hir::Builtin::StoreAsync:
      return newTransfer(regionOf(w, s, w.prog.arg(call, 0)), regionOf(w, s, w.prog.arg(call, 1)));
    case hir::Builtin::None: {
      // A user function: tokens passed by value are consumed here (the callee
      // must consume them); a returned token is a new obligation.
      for (uint32_t i = 0; i < call.args.count && i < f.paramTypes.size(); ++i)
        if (args[i] && isTokenType(w, f.paramTypes[i]))
          consume(w, s, *args[i], w.prog.expr(w.prog.arg(call, i)).span, argName(i), w.prog.arg(call, i));
      if (isTokenType(w, f.ret)) return newTransfer(std::nullopt, std::nullopt);
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

}  // namespace vx::check::own
