// Places and accesses: what a core-IR place names, whether two places may
// be the same memory (slots of one root alias exactly when the solver
// cannot tell their indices apart), and the checks every access goes
// through — against copies in flight (E6004-E6006) and against live
// borrows held in variables (E6008, NLL-style: a borrow lives while its
// variable may still be used, by liveness over the control-flow graph).
#include <algorithm>

#include "check/own/Analysis.h"

namespace vx::check::own {

Alt wholeAt(Analysis& a, Loc l, Term guard) {
  Place p;
  p.root = l;
  p.text = locName(a, l);
  if (p.text.empty()) p.text = "a temporary";
  return Alt{p, guard};
}

void addRoots(TermStore& t, const RefVal& ref, std::vector<Loc>& roots) {
  for (const Alt& x : ref.alts)
    if (!t.isFalse(x.guard) && std::find(roots.begin(), roots.end(), x.place.root) == roots.end())
      roots.push_back(x.place.root);
}

namespace {

// The number of elements along the leading dimension of a value of type
// `ty` at `root` (when it is the whole root): a Vec's length, a tensor's
// first dimension.
Term boundOf(Analysis& a, hir::TypeId ty, const std::vector<Alt>& base) {
  const hir::TypeTable& tt = a.types();
  ty = tt.resolve(ty);
  if (tt.kind(ty) == hir::TyKind::Pinned) ty = tt.resolve(tt.get(ty).a);
  if (tt.kind(ty) == hir::TyKind::Vec) {
    if (base.size() != 1 || !base[0].place.whole()) return {};
    return lenOf(a, base[0].place.root);
  }
  if (tt.kind(ty) != hir::TyKind::Tensor) return {};
  hir::TypeId shape = tt.resolve(tt.get(ty).b);
  if (tt.kind(shape) != hir::TyKind::Shape || tt.count(shape) == 0) return {};
  hir::TypeId d = tt.resolve(tt.elem(shape, 0));
  if (tt.kind(d) != hir::TyKind::Dim) return {};
  return a.terms.intConst(static_cast<smt::Int128>(tt.get(d).value));
}

// The number of dimensions of a tensor type (0: not a tensor).
size_t tensorRank(const hir::TypeTable& tt, hir::TypeId ty) {
  ty = tt.resolve(ty);
  if (tt.kind(ty) == hir::TyKind::Pinned) ty = tt.resolve(tt.get(ty).a);
  if (tt.kind(ty) != hir::TyKind::Tensor) return 0;
  hir::TypeId shape = tt.resolve(tt.get(ty).b);
  return tt.kind(shape) == hir::TyKind::Shape ? tt.count(shape) : 0;
}

// E6009: rows [r, r + R) and columns [c, c + C) within the last two
// dimensions of `tensor`. A block out of bounds traps, so after it they
// are in bounds.
void blockBounds(Analysis& a, State& s, const cir::Proj& x, hir::TypeId tensor, Term r, Term c) {
  TermStore& t = a.terms;
  const hir::TypeTable& tt = a.types();
  hir::TypeId ty = tt.resolve(tensor);
  if (tt.kind(ty) == hir::TyKind::Pinned) ty = tt.resolve(tt.get(ty).a);
  if (tt.kind(ty) != hir::TyKind::Tensor) return;
  hir::TypeId shape = tt.resolve(tt.get(ty).b);
  if (tt.kind(shape) != hir::TyKind::Shape || tt.count(shape) != 2) return;
  Term rows = dimTerm(a, s, tt.elem(shape, 0)), cols = dimTerm(a, s, tt.elem(shape, 1));
  if (!rows.valid() || !cols.valid()) return;
  auto k = [&](uint64_t v) { return t.intConst(static_cast<smt::Int128>(v)); };
  Term inside = t.mkAnd(t.mkLe(t.mkAdd(r, k(x.rows)), rows), t.mkLe(t.mkAdd(c, k(x.cols)), cols));
  if (a.reporting()) {
    a.blockSites.insert(x.origin.index);
    Finding f;
    f.rule = Rule::BlockBounds;
    f.at = x.span;
    f.subject = sourceText(a, x.span);
    f.site = x.origin;
    f.element = {r, c, rows, cols};
    size_t before = a.findings.size();
    addFinding(a, s, std::move(f), t.mkNot(inside));
    if (a.findings.size() > before) {
      std::vector<smt::Shown>& show = a.findings.back().show;
      show.push_back(smt::Shown{"$block_row", r});
      show.push_back(smt::Shown{"$block_col", c});
      show.push_back(smt::Shown{"$block_rows", rows});
      show.push_back(smt::Shown{"$block_cols", cols});
    }
  }
  if (t.linear(inside)) {
    s.pc = t.mkAnd(s.pc, inside);
    a.trapFacts = t.mkAnd(a.trapFacts, inside);
  }
}

}  // namespace

Term dimTerm(Analysis& a, State& s, hir::TypeId dim) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId d = tt.resolve(dim);
  if (tt.kind(d) == hir::TyKind::Dim) return a.terms.intConst(static_cast<smt::Int128>(tt.get(d).value));
  if (tt.kind(d) != hir::TyKind::Extent) return {};
  for (const hir::Function::ExtentParam& e : a.fn.extents) {
    if (e.type != d) continue;
    for (cir::LocalId p : a.body.params)
      if (a.body.local(p).hir == e.local) return scalarAt(a, s, Loc{p.index, 0}, a.body.local(p).type);
  }
  return {};
}

bool locOf(const Analysis& a, const cir::Place& p, Loc& out) { return locOf(a.body, p, out); }

std::vector<Alt> pointsTo(Analysis& a, const State& s, const RefVal& r) {
  if (!r.unknown) return r.alts;
  // Anywhere: every buffer the function can see. Reported as such.
  TermStore& t = a.terms;
  std::vector<Alt> out;
  for (const auto& [l, f] : s.moved) out.push_back(wholeAt(a, l, t.tru()));
  for (const auto& [l, p] : a.paramOf) out.push_back(wholeAt(a, l, t.tru()));
  return out;
}

namespace {
// The places as the user wrote the expression that reaches them.
void nameAll(std::vector<Alt>& alts, const std::string& text) {
  if (text.empty()) return;
  for (Alt& alt : alts) alt.place.text = text;
}
}  // namespace

void forgetRefsWithin(State& s, const std::vector<Alt>& places) {
  for (const Alt& alt : places)
    for (auto& [l, rv] : s.refs)
      if (within(l, alt.place.root)) rv.unknown = true;
}

Loc derefBase(const cir::Body& body, const cir::Place& p) {
  Loc l{p.local.index, 0};
  uint32_t i = 0;
  for (; i < p.proj.count && body.proj(p, i).kind == cir::ProjKind::Field; ++i)
    if (!childLoc(l, body.proj(p, i).field, l)) break;
  return i < p.proj.count && body.proj(p, i).kind == cir::ProjKind::Deref ? l : kNoVia;
}

std::vector<Alt> placesOf(Analysis& a, State& s, const cir::Place& p) {
  TermStore& t = a.terms;
  Loc l{p.local.index, 0};
  hir::TypeId ty = a.body.local(p.local).type;
  uint32_t i = 0;
  // Fields of the root's tuple: a location.
  for (; i < p.proj.count; ++i) {
    const cir::Proj& x = a.body.proj(p, i);
    if (x.kind != cir::ProjKind::Field) break;
    Loc c;
    if (!childLoc(l, x.field, c)) {
      a.exhausted = true;  // nested deeper than the state tracks: not decided
      if (!a.tooDeep.valid()) {
        a.tooDeep = a.body.local(p.local).span;
        a.tooWide = x.field >= 255;
      }
      return {};
    }
    l = c;
    ty = x.type;
  }
  std::vector<Alt> alts;
  bool have = false;
  // Through a reference the state does not track: the places are every
  // buffer the function sees, whole, and so they stay. An index, block or
  // field after it is of wherever the reference points (a block, a row),
  // not of those wholes: applied to them it named another part (`q[1]`
  // with `q` some block of `a` was row 1 of `a`).
  bool anywhere = false;
  if (i < p.proj.count && a.body.proj(p, i).kind == cir::ProjKind::Deref && isRef(a, ty)) {
    auto it = s.refs.find(l);
    RefVal r;
    if (it != s.refs.end())
      r = it->second;
    else
      r.unknown = true;  // a reference nothing bound (after a loop forgot it)
    anywhere = r.unknown;
    alts = pointsTo(a, s, r);
    ty = a.body.proj(p, i).type;
    have = true;
    ++i;
  } else if (isMoveOnly(a, ty) && i == 0) {
    alts.push_back(wholeAt(a, l, t.tru()));
    have = true;
  } else if (isMoveOnly(a, ty)) {
    // A buffer inside a tuple: the tuple's location is its root.
    alts.push_back(wholeAt(a, l, t.tru()));
    have = true;
  } else if ((isScalar(a, ty) || isRef(a, ty)) && i == p.proj.count) {
    // A scalar or a reference location: what a reference to it reads
    // (`*&k`, `*&r`).
    return {wholeAt(a, l, t.tru())};
  } else if (a.types().kind(a.types().resolve(ty)) == hir::TyKind::Tuple && i == p.proj.count) {
    // A tuple of scalars and references, whole: a reference to it points
    // there (what it reads are unknown values), so that assigning the tuple
    // while the reference is live is E6008, as for a scalar.
    return {wholeAt(a, l, t.tru())};
  }
  if (!have) return {};
  for (; i < p.proj.count; ++i) {
    const cir::Proj& x = a.body.proj(p, i);
    switch (x.kind) {
      case cir::ProjKind::Index: {
        if (anywhere) {
          nameAll(alts, sourceText(a, x.span));
          break;
        }
        Term index = scalarAt(a, s, Loc{x.index.index, 0}, a.body.local(x.index).type);
        std::string text = sourceText(a, x.span);
        const size_t rank = tensorRank(a.types(), ty);
        // An index out of bounds traps: nothing after it happens, so from
        // here on the index is in bounds. (Only for linear index terms: a
        // fact about `x % n` with `n` a variable would make every later
        // query non-linear, for little gain.)
        if (Term bound = boundOf(a, ty, alts); bound.valid() && t.linear(index)) {
          Term fact = t.mkAnd(t.mkLe(t.intConst(0), index), t.mkLt(index, bound));
          s.pc = t.mkAnd(s.pc, fact);
          a.trapFacts = t.mkAnd(a.trapFacts, fact);
        }
        for (Alt& alt : alts) {
          if (alt.place.whole()) {
            alt.place.index = index;
            alt.place.rowIndex = rank == 2;
          } else if (alt.place.index.valid() && !alt.place.sub.valid() && !alt.place.blocked()) {
            alt.place.sub = index;  // `c[b][h]`: a sub-slot of slot `b`
          } else if (alt.place.blocked() && rank == 2) {
            // A row of a block: the block of that one row. (An index out
            // of the block traps, or reads that row of the tensor: r + i
            // either way.)
            alt.place.row = t.mkAdd(alt.place.row, index);
            alt.place.rows = 1;
          } else if (alt.place.blocked() && rank == 1 && alt.place.rows == 1) {
            alt.place.col = t.mkAdd(alt.place.col, index);  // an element of a block's row
            alt.place.cols = 1;
          } else {
            continue;  // deeper indices: the sub-slot stands for them
          }
          if (!text.empty()) alt.place.text = text;
        }
        break;
      }
      case cir::ProjKind::Deref: {
        // Through a reference held in a reference location the state
        // tracks (`**r` with `r = &mut q`): where that reference points,
        // under both conditions. A reference location changes only by an
        // assignment to it (tracked) or through a reference (which makes
        // it unknown: assignTo). Otherwise a reference stored in a buffer:
        // anywhere.
        // Through a reference inside what a reference parameter points to
        // (`*q.0`): somewhere the parameter reaches, as its whole place
        // stands for (the caller's argument reaches every place the
        // references it holds point to: Calls.cpp, addReached).
        for (Alt& alt : alts)
          if (alt.place.inner != 0 && a.paramOf.count(alt.place.root)) {
            alt.place.inner = 0;
            alt.place.clearSlot();
            alt.place.clearBlock();
          }
        bool tracked = isRef(a, ty) && !alts.empty();
        for (const Alt& alt : alts) {
          auto it = alt.place.whole() && alt.place.inner == 0 ? s.refs.find(alt.place.root) : s.refs.end();
          tracked = tracked && it != s.refs.end() && !it->second.unknown;
        }
        if (!tracked) {
          alts = pointsTo(a, s, RefVal{{}, false, true});
          anywhere = true;
          break;
        }
        std::vector<Alt> next;
        for (const Alt& alt : alts)
          for (Alt inner : pointsTo(a, s, s.refs.find(alt.place.root)->second)) {
            inner.guard = t.mkAnd(alt.guard, inner.guard);
            next.push_back(std::move(inner));
          }
        alts = std::move(next);
        break;
      }
      case cir::ProjKind::Field: {
        if (anywhere) {
          nameAll(alts, sourceText(a, x.span));
          break;
        }
        // A component of a tuple location reached through a reference
        // (`(*r).0` with `r = &p`): that component's own location, as
        // `p.0` names it. A component of an element (a slot, a block) or of
        // a place the state does not split: the element stands for it,
        // and a tuple's place overlaps its components' (alias).
        for (Alt& alt : alts) {
          Loc c;
          if (!alt.place.whole() || alt.place.sub.valid()) continue;
          hir::TypeId at = a.types().resolve(typeAt(a.types(), a.body, alt.place.root));
          if (alt.place.inner == 0 && a.types().kind(at) == hir::TyKind::Tuple && childLoc(alt.place.root, x.field, c)) {
            alt.place.root = c;
          } else if (a.paramOf.count(alt.place.root) && childPath(alt.place.inner, x.field, alt.place.inner)) {
            // A component of what a reference parameter points to: the
            // caller's argument gives its location (Summaries.cpp).
          } else {
            continue;
          }
          std::string text = sourceText(a, x.span);
          if (!text.empty()) alt.place.text = text;
        }
        break;
      }
      case cir::ProjKind::Block: {
        Term r = scalarAt(a, s, Loc{x.index.index, 0}, a.body.local(x.index).type);
        Term c = scalarAt(a, s, Loc{x.index2.index, 0}, a.body.local(x.index2).type);
        blockBounds(a, s, x, ty, r, c);
        if (anywhere) {
          nameAll(alts, sourceText(a, x.span));
          break;
        }
        std::string text = sourceText(a, x.span);
        for (Alt& alt : alts) {
          // A block of a view is a block of what the view shows.
          if (alt.place.blocked()) {
            alt.place.row = t.mkAdd(alt.place.row, r);
            alt.place.col = t.mkAdd(alt.place.col, c);
          } else {
            alt.place.row = r;
            alt.place.col = c;
          }
          alt.place.rows = x.rows;
          alt.place.cols = x.cols;
          if (!text.empty()) alt.place.text = text;
        }
        break;
      }
    }
    ty = x.type;
  }
  return alts;
}

Term alias(TermStore& t, const Place& x, const Place& y) {
  // A tuple and a component of it (`p` whole, through a reference or at a
  // call, and `p.0`): the tuple's place holds the component's.
  if (x.root != y.root) return within(x.root, y.root) || within(y.root, x.root) ? t.tru() : t.fls();
  // Components of what one reference points to: apart unless one holds
  // the other (then the larger is all of it, as far as this goes).
  if (x.inner != y.inner) return innerWithin(x.inner, y.inner) || innerWithin(y.inner, x.inner) ? t.tru() : t.fls();
  if (x.whole() || y.whole()) return t.tru();
  // A row (or an element) of a 2-D tensor and a block of it: the row among
  // the block's rows (and the element's column among its columns).
  auto rowInBlock = [&t](const Place& r, const Place& b) {
    auto k = [&](uint64_t v) { return t.intConst(static_cast<smt::Int128>(v)); };
    std::vector<Term> in{t.mkLe(b.row, r.index), t.mkLt(r.index, t.mkAdd(b.row, k(b.rows)))};
    if (r.sub.valid()) {
      in.push_back(t.mkLe(b.col, r.sub));
      in.push_back(t.mkLt(r.sub, t.mkAdd(b.col, k(b.cols))));
    }
    return t.mkAnd(in);
  };
  auto isRow = [](const Place& r) { return r.rowIndex && r.index.valid() && !r.blocked(); };
  auto isBlock = [](const Place& b) { return b.blocked() && !b.index.valid(); };
  if (isRow(x) && isBlock(y)) return rowInBlock(x, y);
  if (isRow(y) && isBlock(x)) return rowInBlock(y, x);
  std::vector<Term> parts;
  if (x.index.valid() && y.index.valid()) parts.push_back(t.mkEq(x.index, y.index));
  if (x.sub.valid() && y.sub.valid()) parts.push_back(t.mkEq(x.sub, y.sub));
  if (x.blocked() && y.blocked()) parts.push_back(blocksOverlap(t, x, y));
  return t.mkAnd(parts);
}

Term blocksOverlap(TermStore& t, const Place& x, const Place& y) {
  auto c = [&](uint64_t v) { return t.intConst(static_cast<smt::Int128>(v)); };
  // [x.row, x.row + rows) meets [y.row, y.row + rows), and the same for columns.
  return t.mkAnd({t.mkLt(x.row, t.mkAdd(y.row, c(y.rows))), t.mkLt(y.row, t.mkAdd(x.row, c(x.rows))),
                  t.mkLt(x.col, t.mkAdd(y.col, c(y.cols))), t.mkLt(y.col, t.mkAdd(x.col, c(x.cols)))});
}

bool samePlace(const Place& x, const Place& y) {
  return x.root == y.root && x.inner == y.inner && x.index == y.index && x.sub == y.sub && x.row == y.row && x.col == y.col && x.rows == y.rows &&
         x.cols == y.cols;
}

Term placeWithin(TermStore& t, const Place& x, const Place& y) {
  if (x.root != y.root) return t.fls();
  if (x.inner != y.inner) {
    // Inside all of a component (or of the whole) that holds x's.
    bool whole = !y.index.valid() && !y.sub.valid() && !y.blocked();
    return whole && innerWithin(x.inner, y.inner) ? t.tru() : t.fls();
  }
  std::vector<Term> parts;
  if (y.index.valid()) {
    if (!x.index.valid()) return t.fls();
    parts.push_back(t.mkEq(x.index, y.index));
  }
  if (y.sub.valid()) {
    if (!x.sub.valid()) return t.fls();
    parts.push_back(t.mkEq(x.sub, y.sub));
  }
  if (y.blocked()) {
    if (!x.blocked()) return t.fls();
    auto c = [&](uint64_t v) { return t.intConst(static_cast<smt::Int128>(v)); };
    parts.push_back(t.mkLe(y.row, x.row));
    parts.push_back(t.mkLe(t.mkAdd(x.row, c(x.rows)), t.mkAdd(y.row, c(y.rows))));
    parts.push_back(t.mkLe(y.col, x.col));
    parts.push_back(t.mkLe(t.mkAdd(x.col, c(x.cols)), t.mkAdd(y.col, c(y.cols))));
  }
  return t.mkAnd(parts);
}

namespace {

bool writes(AccessHow h) {
  return h == AccessHow::Write || h == AccessHow::CopyWrite || h == AccessHow::Move || h == AccessHow::Free;
}

// The place of a copy's place list that `p` may alias, as a formula.
Term aliasAny(TermStore& t, const std::vector<Alt>& copyPlaces, const Place& p, const Alt*& which) {
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
        al = aliasAny(t, dst ? tr.writes : tr.reads, p, which);
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
      if (p.index.valid() && otherPlace.index.valid() && p.root == otherPlace.root) {
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

bool liveHere(const Analysis& a, uint32_t local) {
  if (a.curBlock >= a.facts.liveRefs.size()) return false;
  const auto& perStmt = a.facts.liveRefs[a.curBlock];
  if (a.curStmt >= perStmt.size()) return false;
  const std::vector<uint32_t>& live = perStmt[a.curStmt];
  return std::binary_search(live.begin(), live.end(), local);
}

// A reference said to point anywhere (unknown) reaches every buffer in
// scope and every variable of the function.
std::vector<Alt> reachedAnywhere(Analysis& a, const State& s, const RefVal& ref) {
  std::vector<Alt> out = pointsTo(a, s, ref);
  for (uint32_t l = 0; l < a.body.locals.size(); ++l) {
    if (a.body.locals[l].temp || isRef(a, a.body.locals[l].type)) continue;
    Loc at{l, 0};
    if (std::none_of(out.begin(), out.end(), [&](const Alt& x) { return x.place.root == at; }))
      out.push_back(wholeAt(a, at, a.terms.tru()));
  }
  return out;
}

// What a reference reaches: where it points, and through references stored
// there, where those point (`let pp = &p;` with `p = &s` reaches `s`; the
// temporary of `*&&x` reaches `x`), each with whether every link on the
// way is mutable. At most 64 places.
std::vector<std::pair<Alt, bool>> reachOf(Analysis& a, const State& s, const RefVal& ref) {
  std::vector<std::pair<Alt, bool>> reach;
  if (ref.unknown) {
    for (const Alt& x : reachedAnywhere(a, s, ref)) reach.emplace_back(x, ref.mut);
    return reach;
  }
  for (const Alt& x : ref.alts) reach.emplace_back(x, ref.mut);
  for (size_t i = 0; i < reach.size() && reach.size() < 64; ++i) {
    if (!reach[i].first.place.whole() || reach[i].first.place.inner != 0) continue;
    // The reference locations there: the place itself, or the components
    // of a tuple (`&(&x, 0)` reaches `x`).
    const Loc root = reach[i].first.place.root;
    const bool outerMut = reach[i].second;
    for (const auto& [l, inner] : s.refs) {
      if (!within(l, root)) continue;
      const bool mut = outerMut && inner.mut;
      for (const Alt& x : inner.unknown ? reachedAnywhere(a, s, inner) : inner.alts)
        if (std::none_of(reach.begin(), reach.end(), [&](const auto& y) { return samePlace(y.first.place, x.place); }))
          reach.emplace_back(x, mut);
    }
  }
  return reach;
}

// Whether an access through `via` goes through the reference at `r`: `via`
// itself (or another reference of the tuple holding it), or a reference a
// chain of reborrowing temporaries leads back to (`block(&*c, ..)`).
bool goesThrough(const Analysis& a, Loc via, Loc r) {
  for (int depth = 0; via != kNoVia && depth < 16; ++depth) {
    if (r == via || r.local == via.local) return true;
    if (!a.body.locals[via.local].temp) return false;
    auto next = a.facts.viaOf.find(via.local);
    if (next == a.facts.viaOf.end()) return false;
    via = next->second;
  }
  return false;
}

void checkLoan(Analysis& a, State& s, const Alt& alt, AccessHow how, base::Span at, Loc via, bool assignment = false,
               const std::vector<uint32_t>& handed = {}) {
  TermStore& t = a.terms;
  for (const auto& [r, ref] : s.refs) {
    if (std::find(handed.begin(), handed.end(), r.local) != handed.end()) continue;
    // Its own loan, or another held in the same tuple: two references one
    // tuple holds were checked against each other where it was made
    // (checkTupleBorrows), once.
    if (goesThrough(a, via, r)) continue;
    // (A reference that points anywhere lends everything: reachOf.)
    if (a.paramOf.count(r)) continue;
    if (a.body.locals[r.local].param) continue;
    if (!liveHere(a, r.local)) continue;
    const bool temp = a.body.locals[r.local].temp;
    for (const auto& [other, mut] : reachOf(a, s, ref)) {
      if (!mut && !writes(how)) continue;
      Term al = alias(t, other.place, alt.place);
      if (t.isFalse(al)) continue;
      Finding f;
      f.rule = Rule::Conflict;
      f.assigned = assignment;
      f.at = at;
      f.subject = alt.place.text;
      f.other = other.place.text;
      f.otherMut = mut;
      f.access = how;
      f.laterInExpression = temp;
      f.freedTemporary = how == AccessHow::Free && a.body.locals[alt.place.root.local].temp;
      const cir::Local& holder = a.body.locals[r.local];
      f.related = temp && holder.written.valid() ? holder.written : holder.span;
      f.relatedLabel = temp ? std::string(mut ? "mutable" : "immutable") + " borrow of `" + other.place.text +
                                  "` here, used later in this expression"
                            : std::string(mut ? "mutable" : "immutable") + " borrow held in `" + locName(a, r) +
                                  "`, used later";
      if (alt.place.index.valid() && other.place.index.valid()) {
        f.slotRead = alt.place.index;
        f.slotInFlight = other.place.index;
      }
      addFinding(a, s, std::move(f), t.mkAnd({alt.guard, other.guard, al}));
    }
  }
}

}  // namespace

void checkAssignLoans(Analysis& a, State& s, Loc l, const std::string& text, base::Span at) {
  if (!a.reporting()) return;
  for (const auto& [r, ref] : s.refs) {
    if (within(r, l) || a.paramOf.count(r)) continue;  // rebinding the reference itself
    if (a.body.locals[r.local].temp || a.body.locals[r.local].param) continue;
    if (!liveHere(a, r.local)) continue;
    for (const auto& reached : reachOf(a, s, ref)) {
      const Alt& other = reached.first;
      if (!within(other.place.root, l) && !within(l, other.place.root)) continue;
      Finding f;
      f.rule = Rule::Conflict;
      f.assigned = true;
      f.at = at;
      f.subject = text;
      f.other = other.place.text;
      f.otherMut = ref.mut;
      f.access = AccessHow::Write;
      f.related = a.body.locals[r.local].span;
      f.relatedLabel = std::string(ref.mut ? "mutable" : "immutable") + " borrow held in `" + locName(a, r) +
                       "`, used later";
      addFinding(a, s, std::move(f), other.guard);
      break;
    }
  }
}

void checkLoans(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at, Loc via,
                const std::vector<uint32_t>& handed) {
  if (!a.reporting()) return;
  for (const Alt& alt : places) checkLoan(a, s, alt, how, at, via, false, handed);
}

void access(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at, Loc via,
            bool assignment) {
  recordForCaller(a, s, places, how, at);
  recordForGrid(a, s, places, how, at);
  if (!a.reporting()) return;
  for (const Alt& alt : places) {
    hazards(a, s, alt, how, at);
    checkLoan(a, s, alt, how, at, via, assignment);
  }
}

void accessThroughCall(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at,
                       const Holds& stillLive, base::Span related, const std::string& label) {
  if (!a.reporting()) return;
  Through via{&stillLive, related, label};
  for (const Alt& alt : places) hazards(a, s, alt, how, at, via);
}

void recordForCaller(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at,
                     bool direct, const Holds* stillLive) {
  if (!a.reporting()) return;
  TermStore& t = a.terms;
  for (const Alt& alt : places) {
    auto p = a.paramOf.find(alt.place.root);
    if (p == a.paramOf.end()) continue;
    SummaryAccess acc;
    acc.place = paramPlace(p->second, alt.place, t.mkAnd(s.pc, alt.guard));
    acc.how = how;
    acc.at = at;
    for (const auto& [param, k] : a.paramCopy) {
      Term live = lookup(s.inflight, k, t.fls());
      if (stillLive)
        if (auto it = stillLive->find(k); it != stillLive->end()) live = t.mkAnd(live, it->second);
      acc.tokenLive.emplace_back(param, live);
    }
    const ParamPlace& pp = acc.place;
    std::string key;
    for (uint64_t v : {uint64_t{pp.root.param}, uint64_t{pp.root.path}, uint64_t{pp.inner}, uint64_t{pp.index.index},
                       uint64_t{pp.row.index}, uint64_t{pp.col.index}, pp.rows, pp.cols, uint64_t(how)})
      key += std::to_string(v) + ",";
    for (const auto& [param, live] : acc.tokenLive)
      key += std::to_string(param.param) + "." + std::to_string(param.path) + "=" + std::to_string(live.index) + ",";
    auto [it, fresh] = a.accessIndex.emplace(std::move(key), a.summary.accesses.size());
    if (!fresh) {
      SummaryAccess& same = a.summary.accesses[it->second];
      same.place.guard = t.mkOr(same.place.guard, acc.place.guard);
      if (direct && !a.accessDirect[it->second]) {
        same.at = at;
        same.place.text = acc.place.text;
        a.accessDirect[it->second] = true;
      }
      continue;
    }
    a.summary.accesses.push_back(std::move(acc));
    a.accessDirect.push_back(direct);
  }
}

}  // namespace vx::check::own
