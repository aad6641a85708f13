// Places and accesses: what an expression names, whether two places may be
// the same memory (slots of one root alias exactly when the solver cannot
// tell their indices apart), and the checks every access goes through —
// against copies in flight (E6004-E6006) and against live borrows held in
// variables (E6008, NLL-style: a borrow lives until its variable's last use).
#include "check/own/Analysis.h"

namespace vx::check::own {

using hir::ExprKind;

namespace {

std::vector<Alt> whole(Analysis& a, hir::LocalId l, Term guard) {
  Place p;
  p.root = l;
  p.text = localName(a, l);
  return {Alt{p, guard}};
}

// The number of elements along the leading dimension of what `base`
// denotes: a Vec's length, a tensor's first dimension.
Term boundOf(Analysis& a, State& s, hir::ExprId base) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId ty = tt.resolve(a.prog.expr(base).type);
  while (tt.kind(ty) == hir::TyKind::Ref) ty = tt.resolve(tt.get(ty).a);
  if (tt.kind(ty) == hir::TyKind::Pinned) ty = tt.resolve(tt.get(ty).a);
  if (tt.kind(ty) == hir::TyKind::Vec) {
    const hir::Expr* x = &a.prog.expr(base);
    while (x->kind == ExprKind::Deref || x->kind == ExprKind::Borrow) x = &a.prog.expr(x->a);
    if (x->kind != ExprKind::Local) return {};
    hir::LocalId root = x->local;
    auto it = s.refs.find(root.index);
    if (it != s.refs.end()) {
      if (it->second.unknown || it->second.alts.size() != 1 || !it->second.alts[0].place.whole()) return {};
      root = it->second.alts[0].place.root;
    }
    return lenOf(a, root);
  }
  if (tt.kind(ty) != hir::TyKind::Tensor) return {};
  hir::TypeId shape = tt.resolve(tt.get(ty).b);
  if (tt.kind(shape) != hir::TyKind::Shape || tt.count(shape) == 0) return {};
  hir::TypeId d = tt.resolve(tt.elem(shape, 0));
  if (tt.kind(d) != hir::TyKind::Dim) return {};
  return a.terms.intConst(static_cast<smt::Int128>(tt.get(d).value));
}

}  // namespace

std::vector<Alt> placesOf(Analysis& a, State& s, hir::ExprId id) {
  const hir::Expr& e = a.prog.expr(id);
  TermStore& t = a.terms;
  switch (e.kind) {
    case ExprKind::Local: {
      auto it = s.refs.find(e.local.index);
      if (it != s.refs.end()) {
        if (it->second.unknown) {
          // Anywhere: every root the function can see. Reported as such.
          std::vector<Alt> out;
          for (const auto& [l, f] : s.moved) out.push_back(whole(a, hir::LocalId{l}, t.tru())[0]);
          for (const auto& [p, i] : a.paramOf) out.push_back(whole(a, hir::LocalId{p}, t.tru())[0]);
          return out;
        }
        return it->second.alts;
      }
      if (isRef(a, e.type) || isMoveOnly(a, e.type)) return whole(a, e.local, t.tru());
      return {};
    }
    case ExprKind::Borrow:
    case ExprKind::Deref: return placesOf(a, s, e.a);
    case ExprKind::Field: return placesOf(a, s, e.a);
    case ExprKind::Index: {
      std::vector<Alt> base = placesOf(a, s, e.a);
      if (base.empty()) return base;
      Term index;
      std::string text = sourceText(a, e.span);
      for (Alt& alt : base) {
        if (!alt.place.whole()) continue;
        if (!index.valid()) index = valueOf(a, s, e.b);
        alt.place.index = index;
        alt.place.text = text.empty() ? alt.place.text : text;
      }
      // An index out of bounds traps: nothing after it happens, so from
      // here on the index is in bounds.
      // (Only for linear index terms: a fact about `x % n` with `n` a
      // variable would make every later query non-linear, for little gain.)
      if (Term bound = boundOf(a, s, e.a); bound.valid()) {
        Term i = index.valid() ? index : valueOf(a, s, e.b);
        if (t.linear(i)) {
          Term fact = t.mkAnd(t.mkLe(t.intConst(0), i), t.mkLt(i, bound));
          s.pc = t.mkAnd(s.pc, fact);
          a.trapFacts = t.mkAnd(a.trapFacts, fact);
        }
      }
      return base;
    }
    case ExprKind::Call: {
      // A call that returns a reference (a view): any place of its
      // reference arguments.
      if (!isRef(a, e.type)) return {};
      std::vector<Alt> out;
      for (uint32_t i = 0; i < e.args.count; ++i) {
        hir::ExprId arg = a.prog.arg(e, i);
        if (!isRef(a, a.prog.expr(arg).type)) continue;
        for (Alt alt : placesOf(a, s, arg)) {
          alt.place.index = Term{};
          out.push_back(alt);
        }
      }
      return out;
    }
    // Not places of a buffer.
    case ExprKind::Error:
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Bool:
    case ExprKind::Const:
    case ExprKind::MemConst:
    case ExprKind::TopoConst:
    case ExprKind::Unit:
    case ExprKind::Tuple:
    case ExprKind::Len:
    case ExprKind::Unary:
    case ExprKind::Cast:
    case ExprKind::Binary: return {};
  }
  return {};
}

Term alias(TermStore& t, const Place& x, const Place& y) {
  if (x.root != y.root) return t.fls();
  if (x.whole() || y.whole()) return t.tru();
  return t.mkEq(x.index, y.index);
}

namespace {

bool writes(AccessHow h) {
  return h == AccessHow::Write || h == AccessHow::CopyWrite || h == AccessHow::Move || h == AccessHow::Free;
}

// The place of `alts` that a copy's place list may alias, as a formula.
Term aliasAny(TermStore& t, const Transfer& tr, const std::vector<Alt>& copyPlaces, const Place& p,
              const Alt*& which) {
  std::vector<Term> parts;
  which = nullptr;
  for (const Alt& c : copyPlaces) {
    Term al = alias(t, c.place, p);
    if (t.isFalse(al)) continue;
    if (!which) which = &c;
    parts.push_back(t.mkAnd(c.guard, al));
  }
  return t.mkOr(parts);
}

struct Through {
  const Holds* stillLive = nullptr;
  base::Span related;
  std::string label;
};

void hazards(Analysis& a, State& s, const Alt& alt, AccessHow how, base::Span at, const Through& via = {}) {
  TermStore& t = a.terms;
  const Place& p = alt.place;
  for (const auto& [k, inflight] : s.inflight) {
    if (t.isFalse(inflight)) continue;
    const Transfer& tr = a.transfers[k];
    for (int side = 0; side < 2; ++side) {
      bool dst = side == 0;
      // Two readers never conflict.
      if (!dst && !writes(how)) continue;
      Term al;
      const Alt* which = nullptr;
      Place otherPlace;
      if (tr.anyPlace) {
        al = t.tru();
        otherPlace = p;
        otherPlace.text = "an unknown place";
      } else {
        al = aliasAny(t, tr, dst ? tr.writes : tr.reads, p, which);
        if (t.isFalse(al)) continue;
        otherPlace = which->place;
      }
      Finding f;
      f.at = at;
      f.subject = p.text;
      f.other = otherPlace.text;
      f.transfer = k;
      f.viaDst = dst;
      f.access = how;
      f.holder = holderOf(a, s, k);
      f.holders = holdersOf(a, s, k);
      if (dst) {
        f.rule = how == AccessHow::Free ? Rule::SourcePinned
                 : (how == AccessHow::Write || how == AccessHow::CopyWrite) ? Rule::HazardWrite
                                                                             : Rule::StaleRead;
      } else {
        f.rule = (how == AccessHow::Move || how == AccessHow::Free) ? Rule::SourcePinned : Rule::HazardWrite;
      }
      if (!p.whole() && !otherPlace.whole() && p.root == otherPlace.root) {
        f.slotRead = p.index;
        f.slotInFlight = otherPlace.index;
      }
      Term cond = t.mkAnd({alt.guard, inflight, al});
      if (via.stillLive) {
        auto it = via.stillLive->find(k);
        if (it != via.stillLive->end()) cond = t.mkAnd(cond, it->second);
      }
      if (via.related.valid()) {
        f.related = via.related;
        f.relatedLabel = via.label;
      }
      addFinding(a, s, std::move(f), cond);
    }
  }
}

}  // namespace

bool liveAt(const Analysis& a, uint32_t ref, uint32_t offset) {
  auto d = a.facts.refDef.find(ref);
  auto u = a.facts.refLastUse.find(ref);
  if (d == a.facts.refDef.end() || u == a.facts.refLastUse.end()) return false;
  return d->second < offset && offset <= u->second;
}

namespace {

void checkLoan(Analysis& a, State& s, const Alt& alt, AccessHow how, base::Span at, hir::LocalId via) {
  TermStore& t = a.terms;
  for (const auto& [r, ref] : s.refs) {
    if (via.valid() && r == via.index) continue;
    if (a.paramOf.count(r) || ref.unknown) continue;
    if (!ref.mut && !writes(how)) continue;
    if (!liveAt(a, r, at.begin)) continue;
    for (const Alt& other : ref.alts) {
      // The reference itself was made from this place through `via`.
      Term al = alias(t, other.place, alt.place);
      if (t.isFalse(al)) continue;
      Finding f;
      f.rule = Rule::Conflict;
      f.at = at;
      f.subject = alt.place.text;
      f.other = other.place.text;
      f.otherMut = ref.mut;
      f.access = how;
      f.related = a.prog.local(hir::LocalId{r}).span;
      f.relatedLabel = std::string(ref.mut ? "mutable" : "immutable") + " borrow held in `" +
                       localName(a, hir::LocalId{r}) + "`, used later";
      if (!alt.place.whole() && !other.place.whole()) {
        f.slotRead = alt.place.index;
        f.slotInFlight = other.place.index;
      }
      addFinding(a, s, std::move(f), t.mkAnd({alt.guard, other.guard, al}));
    }
  }
}

}  // namespace

void checkLoans(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at,
                hir::LocalId via) {
  if (!a.reporting()) return;
  for (const Alt& alt : places) checkLoan(a, s, alt, how, at, via);
}

void access(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at, hir::LocalId via) {
  if (!a.reporting()) return;
  for (const Alt& alt : places) {
    hazards(a, s, alt, how, at);
    checkLoan(a, s, alt, how, at, via);
  }
  recordForCaller(a, s, places, how, at);
}

void accessThroughCall(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at,
                       const Holds& stillLive, base::Span related, const std::string& label) {
  if (!a.reporting()) return;
  Through via{&stillLive, related, label};
  for (const Alt& alt : places) hazards(a, s, alt, how, at, via);
}

void recordForCaller(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at) {
  if (!a.reporting()) return;
  TermStore& t = a.terms;
  for (const Alt& alt : places) {
    auto p = a.paramOf.find(alt.place.root.index);
    if (p == a.paramOf.end()) continue;
    SummaryAccess acc;
    acc.place = ParamPlace{static_cast<uint32_t>(p->second), alt.place.index, t.mkAnd(s.pc, alt.guard),
                           alt.place.text};
    acc.how = how;
    acc.at = at;
    for (const auto& [param, k] : a.paramCopy) acc.tokenLive.emplace_back(param, lookup(s.inflight, k, t.fls()));
    a.summary.accesses.push_back(std::move(acc));
  }
}

}  // namespace vx::check::own
