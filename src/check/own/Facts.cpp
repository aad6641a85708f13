// Facts read off a function's core IR once, before the walk: which scalars
// are behind a `&mut` (never tracked), which borrows held in variables are
// live where (liveness over the control-flow graph), the order in which
// each region's blocks are walked, and what each loop may change of the
// state outside it.
#include <algorithm>

#include "check/own/Analysis.h"

namespace vx::check::own {

using cir::OperandKind;
using cir::RvKind;
using cir::StmtKind;
using smt::Int128;

namespace {

struct Scan {
  const hir::Program& prog;
  const cir::Body& body;
  FnFacts& facts;
  // The statement assigning each temporary (temporaries are assigned once).
  std::unordered_map<uint32_t, const cir::Stmt*> defOf;

  const hir::TypeTable& tt() const { return prog.types; }
  hir::TyKind kind(hir::TypeId t) const { return tt().kind(tt().resolve(t)); }
  bool hasRef(hir::TypeId t) const {
    hir::TypeId x = tt().resolve(t);
    if (tt().kind(x) == hir::TyKind::Ref) return true;
    if (tt().kind(x) != hir::TyKind::Tuple) return false;
    for (uint32_t i = 0; i < tt().count(x); ++i)
      if (hasRef(tt().elem(x, i))) return true;
    return false;
  }

  // Every location of a kind inside a value of type t at l.
  void locs(Loc l, hir::TypeId t, const std::function<bool(hir::TypeId)>& want, std::vector<Loc>& out) const {
    hir::TypeId x = tt().resolve(t);
    if (want(x)) {
      out.push_back(l);
      return;
    }
    if (tt().kind(x) != hir::TyKind::Tuple) return;
    for (uint32_t i = 0; i < tt().count(x); ++i) {
      Loc c;
      if (childLoc(l, i, c)) locs(c, tt().elem(x, i), want, out);
    }
  }

  void scanDefs() {
    // Locals assigned once (temporaries, and `let`s never reassigned): what
    // they hold can be traced to where it came from.
    std::unordered_map<uint32_t, unsigned> assigned;
    for (const cir::Block& b : body.blocks)
      for (const cir::Stmt& s : b.stmts)
        if (s.kind == StmtKind::Assign && s.dest.valid()) ++assigned[s.dest.local.index];
    for (const cir::Block& b : body.blocks)
      for (const cir::Stmt& s : b.stmts) {
        if (s.kind != StmtKind::Assign || !s.dest.valid() || s.dest.proj.count != 0) continue;
        if (assigned[s.dest.local.index] == 1) defOf[s.dest.local.index] = &s;
        if (s.rv == RvKind::Borrow && s.mut) facts.mutBorrowed.insert(s.place.local.index);
        if (s.rv == RvKind::Borrow && s.mut && s.place.proj.count == 0) {
          hir::TyKind k = kind(body.local(s.place.local).type);
          if (k == hir::TyKind::Int || k == hir::TyKind::Bool) facts.addressTaken.insert(s.place.local.index);
        }
        // `&*r`, `&mut (*r)[i]`: an access through it goes through `r`; a
        // view of a reborrow (`block(&*c, ..)`: `&(*t).block` with `t =
        // &*c`) through `t`, and so through `c` (checkLoan follows them).
        if (s.rv == RvKind::Borrow && body.local(s.dest.local).temp)
          if (Loc l = derefBase(body, s.place); l != kNoVia && l.local != s.dest.local.index)
            if (!body.local(s.place.local).temp || facts.viaOf.count(s.place.local.index))
              facts.viaOf[s.dest.local.index] = l;
      }
  }

  // ---- liveness of the locals that hold references (loans) ----
  void liveness() {
    size_t n = body.blocks.size();
    std::vector<bool> tracked(body.locals.size(), false);
    bool any = false;
    for (uint32_t i = 0; i < body.locals.size(); ++i) {
      // Temporaries too: a borrow made for a call or an operator is a loan
      // until the call uses it, and the arguments evaluated in between
      // (`f(&x, g(x))`, `&x * &h(&mut x)`) must not move or write what it
      // lends (liveHere takes a temporary's liveness after the statement).
      tracked[i] = !body.locals[i].param && hasRef(body.locals[i].type);
      any = any || tracked[i];
    }
    if (!any) return;  // no borrow held in a variable: no loans to check
    auto usesOfPlace = [&](const cir::Place& p, std::vector<uint32_t>& u) {
      if (!p.valid()) return;
      if (tracked[p.local.index]) u.push_back(p.local.index);
    };
    auto usesOfOperand = [&](const cir::Operand& o, std::vector<uint32_t>& u) {
      if (o.kind != OperandKind::Const) usesOfPlace(o.place, u);
    };
    // Per statement: what it uses, and what it defines (kills).
    auto effect = [&](const cir::Stmt& s, std::vector<uint32_t>& use, std::vector<uint32_t>& def) {
      switch (s.kind) {
        case StmtKind::Assign:
          usesOfOperand(s.a, use);
          usesOfOperand(s.b, use);
          usesOfPlace(s.place, use);
          for (uint32_t i = 0; i < s.args.count; ++i) usesOfOperand(body.arg(s, i), use);
          if (s.dest.valid()) {
            if (s.dest.proj.count == 0 && tracked[s.dest.local.index])
              def.push_back(s.dest.local.index);
            else
              usesOfPlace(s.dest, use);
          }
          return;
        case StmtKind::StorageLive:
        case StmtKind::StorageDead:
          if (tracked[s.local.index]) def.push_back(s.local.index);
          return;
        case StmtKind::Drop:
        case StmtKind::StmtEnd:
        case StmtKind::GridBegin:
        case StmtKind::GridEnd: return;
      }
    };
    auto termUses = [&](const cir::Terminator& t, std::vector<uint32_t>& use) {
      if (t.kind == cir::TermKind::Branch) usesOfOperand(t.cond, use);
    };
    using Set = std::vector<uint32_t>;
    auto unite = [](Set& into, const Set& from) {
      Set out;
      std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(out));
      bool grew = out.size() != into.size();
      into = std::move(out);
      return grew;
    };
    auto norm = [](Set s) {
      std::sort(s.begin(), s.end());
      s.erase(std::unique(s.begin(), s.end()), s.end());
      return s;
    };
    std::vector<Set> liveIn(n), liveOut(n);
    auto blockIn = [&](uint32_t b, std::vector<Set>* perStmt) {
      const cir::Block& blk = body.blocks[b];
      Set live = liveOut[b];
      Set u;
      termUses(blk.term, u);
      unite(live, norm(u));
      if (perStmt) perStmt->assign(blk.stmts.size(), {});
      for (size_t i = blk.stmts.size(); i-- > 0;) {
        Set use, def;
        effect(blk.stmts[i], use, def);
        def = norm(def);
        // Temporaries used after statement i (its own uses are its
        // arguments: the call's own checks compare them).
        Set tempsAfter;
        if (perStmt)
          for (uint32_t l : live)
            if (body.locals[l].temp) tempsAfter.push_back(l);
        Set after;
        std::set_difference(live.begin(), live.end(), def.begin(), def.end(), std::back_inserter(after));
        live = std::move(after);
        unite(live, norm(use));
        if (perStmt) {
          // Variables used at or after statement i, temporaries after it.
          Set here;
          for (uint32_t l : live)
            if (!body.locals[l].temp) here.push_back(l);
          unite(here, tempsAfter);
          (*perStmt)[i] = std::move(here);
        }
      }
      return live;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t b = n; b-- > 0;) {
        const cir::Terminator& t = body.blocks[b].term;
        for (cir::BlockId s : {t.target, t.otherwise})
          if (s.valid()) changed = unite(liveOut[b], liveIn[s.index]) || changed;
        Set in = blockIn(static_cast<uint32_t>(b), nullptr);
        if (in != liveIn[b]) {
          liveIn[b] = std::move(in);
          changed = true;
        }
      }
    }
    facts.liveRefs.resize(n);
    for (uint32_t b = 0; b < n; ++b) blockIn(b, &facts.liveRefs[b]);
  }

  // ---- the walk's order ----
  void order(cir::LoopId loop) {
    const cir::Loop* L = loop.valid() ? &body.loop(loop) : nullptr;
    uint32_t start = L ? L->header.index : 0;
    std::vector<uint32_t> post;
    std::vector<uint8_t> state(body.blocks.size(), 0);
    auto succs = [&](uint32_t b) {
      std::vector<uint32_t> out;
      const cir::Block& blk = body.blocks[b];
      // A nested loop's head stands for the loop: it leads to its exit.
      if (blk.loop.valid() && blk.loop != loop && body.loop(blk.loop).header.index == b) {
        out.push_back(body.loop(blk.loop).exit.index);
        return out;
      }
      if (L && b == L->header.index && L->kind == cir::LoopKind::For) {
        out.push_back(blk.term.target.index);
        return out;
      }
      for (cir::BlockId s : {blk.term.target, blk.term.otherwise}) {
        if (!s.valid()) continue;
        if (L && (s == L->header || !body.inLoop(s, loop))) continue;  // back edge, exit
        out.push_back(s.index);
      }
      return out;
    };
    std::vector<std::pair<uint32_t, size_t>> work{{start, 0}};
    std::vector<std::vector<uint32_t>> kids;
    state[start] = 1;
    std::vector<std::vector<uint32_t>> succCache(body.blocks.size());
    succCache[start] = succs(start);
    while (!work.empty()) {
      auto& [b, i] = work.back();
      if (i < succCache[b].size()) {
        uint32_t s = succCache[b][i++];
        if (state[s] == 0) {
          state[s] = 1;
          succCache[s] = succs(s);
          work.emplace_back(s, 0);
        }
        continue;
      }
      state[b] = 2;
      post.push_back(b);
      work.pop_back();
    }
    std::reverse(post.begin(), post.end());
    facts.order[L ? loop.index : UINT32_MAX] = std::move(post);
  }

  // ---- what each loop changes ----
  // The local a scalar operand comes from, through temporaries holding
  // arithmetic of it (`i % 3` in `i % 3 == 2`).
  bool sourceLoc(const cir::Operand& o, Loc& out, int depth = 0) const {
    if (o.kind == OperandKind::Const || depth > 32) return false;
    if (!locOf(body, o.place, out)) return false;
    const cir::Local& l = body.local(o.place.local);
    auto it = defOf.find(o.place.local.index);
    if (it == defOf.end() || out.path != 0) return !l.temp;
    // A temporary is what it was made from; so is a user local assigned
    // once from another (`let i = i + 0;`), else it stands for itself.
    Loc self = out;
    const cir::Stmt& d = *it->second;
    bool traced = false;
    switch (d.rv) {
      case RvKind::Use:
      case RvKind::Cast:
      case RvKind::Unary: traced = sourceLoc(d.a, out, depth + 1); break;
      case RvKind::Binary:
        traced = d.a.kind != OperandKind::Const ? sourceLoc(d.a, out, depth + 1) : sourceLoc(d.b, out, depth + 1);
        break;
      case RvKind::Borrow:
      case RvKind::Tuple:
      case RvKind::Len:
      case RvKind::Call: break;
    }
    if (traced) return true;
    out = self;
    return !l.temp;
  }
  // `o` as a BoundExpr: a temporary made by `+ - *` (through copies) of
  // integer constants and scalar locals, with at least one operation; false
  // for anything else (a call, a division, a field, a local read as such).
  bool boundExpr(const cir::Operand& o, BoundExpr& out) const {
    size_t ops = 0;
    int root = boundNode(o, out, ops, 0);
    return root >= 0 && ops > 0 && out.size() <= 32;
  }
  int boundNode(const cir::Operand& o, BoundExpr& out, size_t& ops, int depth) const {
    if (depth > 16 || out.size() > 32) return -1;
    Int128 c;
    if (intConst(o, c)) {
      BoundNode n;
      n.kind = BoundNode::Kind::Const;
      n.value = c;
      out.push_back(n);
      return static_cast<int>(out.size()) - 1;
    }
    if (o.kind == OperandKind::Const || o.place.proj.count != 0) return -1;
    const cir::Local& l = body.local(o.place.local);
    if (!l.temp) {
      Loc at;
      if (!locOf(body, o.place, at) || !tt().isInteger(body.typeOf(o.place))) return -1;
      BoundNode n;
      n.kind = BoundNode::Kind::Loc;
      n.loc = at;
      out.push_back(n);
      return static_cast<int>(out.size()) - 1;
    }
    auto it = defOf.find(o.place.local.index);
    if (it == defOf.end()) return -1;
    const cir::Stmt& d = *it->second;
    if (d.rv == RvKind::Use) return boundNode(d.a, out, ops, depth + 1);
    if (d.rv != RvKind::Binary || !tt().isInteger(d.type)) return -1;
    BoundNode n;
    if (d.op == ast::Op::Add) n.kind = BoundNode::Kind::Add;
    else if (d.op == ast::Op::Sub) n.kind = BoundNode::Kind::Sub;
    else if (d.op == ast::Op::Mul) n.kind = BoundNode::Kind::Mul;
    else return -1;
    n.a = boundNode(d.a, out, ops, depth + 1);
    if (n.a < 0) return -1;
    n.b = boundNode(d.b, out, ops, depth + 1);
    if (n.b < 0) return -1;
    ++ops;
    out.push_back(n);
    return static_cast<int>(out.size()) - 1;
  }
  // The user local `o` reads, as it is (not traced to what it was made from).
  bool directLoc(const cir::Operand& o, Loc& out) const {
    if (o.kind == OperandKind::Const || !locOf(body, o.place, out)) return false;
    return !body.local(o.place.local).temp;
  }
  bool intConst(const cir::Operand& o, Int128& v) const {
    if (o.kind != OperandKind::Const || !o.constant.valid()) return false;
    // A literal, or an integer `const` item (`const BM: usize = 16;`,
    // `const S: usize = G * BM;`), as Sema folded it.
    const hir::Expr& e = prog.expr(o.constant);
    if (e.kind == hir::ExprKind::Int) {
      v = static_cast<Int128>(e.value);
      return true;
    }
    if (e.kind != hir::ExprKind::Const || !prog.consts[e.constant.index].folded) return false;
    v = prog.consts[e.constant.index].foldedValue;
    return true;
  }
  // x op y for the candidates' constants: small magnitudes only.
  static bool foldOp(ast::Op op, Int128 x, Int128 y, Int128& v) {
    const Int128 kSmall = Int128{1} << 31;
    if (x <= -kSmall || x >= kSmall || y <= -kSmall || y >= kSmall) return false;
    if (op == ast::Op::Add) v = x + y;
    else if (op == ast::Op::Sub) v = x - y;
    else if (op == ast::Op::Mul) v = x * y;
    else if (op == ast::Op::Div && x >= 0 && y > 0) v = x / y;
    else if (op == ast::Op::Rem && x >= 0 && y > 0) v = x % y;
    else return false;
    return true;
  }
  // An integer constant, or a temporary assigned once from constants
  // (`r += G * BM` is `_t = G * BM; r = r + _t`): folded, its magnitude
  // kept small. A candidate invariant it feeds is still asked of the
  // solver; a wrong value would only be one that fails.
  bool intValue(const cir::Operand& o, Int128& v, int depth = 0) const {
    if (intConst(o, v)) return true;
    if (o.kind == OperandKind::Const || depth > 8 || o.place.proj.count != 0) return false;
    if (!body.local(o.place.local).temp) return false;
    auto it = defOf.find(o.place.local.index);
    if (it == defOf.end()) return false;
    const cir::Stmt& d = *it->second;
    Int128 x = 0, y = 0;
    if (d.rv == RvKind::Use || d.rv == RvKind::Cast) {
      if (!intValue(d.a, x, depth + 1) || x < 0 || x >= (Int128{1} << 31)) return false;
      v = x;
      return true;
    }
    return d.rv == RvKind::Binary && intValue(d.a, x, depth + 1) && intValue(d.b, y, depth + 1) &&
           foldOp(d.op, x, y, v);
  }
  void loopInfo(cir::LoopId loop) {
    LoopInfo& info = facts.loops[loop.index];
    std::set<uint32_t> declared;
    for (uint32_t i = 0; i < body.loops.size(); ++i)
      if (i == loop.index || body.inLoop(body.loop(cir::LoopId{i}).header, loop))
        if (body.loops[i].var.valid()) declared.insert(body.loops[i].var.index);
    std::set<Loc> assignedScalars, assignedTokens, assignedHere, movedOrAssigned, refsAssigned, usedTokens;
    bool writesThroughRef = false, callsOut = false, callsUser = false;
    std::set<uint32_t> assignedLocals;
    std::map<Loc, std::set<Int128>> constants;
    std::map<Loc, std::set<Loc>> partners;
    std::map<Loc, std::vector<BoundExpr>> exprBounds;
    auto isTok = [&](hir::TypeId t) { return tt().kind(t) == hir::TyKind::Token; };
    auto isBuf = [&](hir::TypeId t) {
      hir::TyKind k = tt().kind(t);
      return k == hir::TyKind::Tensor || k == hir::TyKind::Vec || k == hir::TyKind::Pinned;
    };
    auto isSca = [&](hir::TypeId t) {
      hir::TyKind k = tt().kind(t);
      return k == hir::TyKind::Int || k == hir::TyKind::Bool;
    };
    auto isRefT = [&](hir::TypeId t) { return tt().kind(t) == hir::TyKind::Ref; };
    for (uint32_t b = 0; b < body.blocks.size(); ++b) {
      if (!body.inLoop(cir::BlockId{b}, loop)) continue;
      const cir::Block& blk = body.blocks[b];
      bool here = blk.loop == loop;
      for (const cir::Stmt& s : blk.stmts) {
        if (s.kind == StmtKind::StorageLive) declared.insert(s.local.index);
        if (s.kind != StmtKind::Assign) continue;
        auto moves = [&](const cir::Operand& o) {
          Loc l;
          if (o.kind != OperandKind::Move || !locOf(body, o.place, l)) return;
          std::vector<Loc> ls;
          locs(l, body.typeOf(o.place), isTok, ls);
          usedTokens.insert(ls.begin(), ls.end());
          ls.clear();
          locs(l, body.typeOf(o.place), isBuf, ls);
          movedOrAssigned.insert(ls.begin(), ls.end());
        };
        moves(s.a);
        moves(s.b);
        for (uint32_t i = 0; i < s.args.count; ++i) moves(body.arg(s, i));
        // A write through a reference (`p.0 = ...`, `*p = ...` with
        // `p = &mut q`) may change any part of a local lent mutably.
        if (s.dest.valid())
          for (uint32_t i = 0; i < s.dest.proj.count; ++i)
            if (body.proj(s.dest, i).kind == cir::ProjKind::Deref) writesThroughRef = true;
        Loc d;
        if (s.dest.valid() && locOf(body, s.dest, d)) {
          hir::TypeId t = body.typeOf(s.dest);
          assignedLocals.insert(d.local);
          std::vector<Loc> ls;
          locs(d, t, isSca, ls);
          assignedScalars.insert(ls.begin(), ls.end());
          ls.clear();
          locs(d, t, isTok, ls);
          assignedTokens.insert(ls.begin(), ls.end());
          if (here) assignedHere.insert(ls.begin(), ls.end());
          ls.clear();
          locs(d, t, isBuf, ls);
          movedOrAssigned.insert(ls.begin(), ls.end());
          ls.clear();
          locs(d, t, isRefT, ls);
          refsAssigned.insert(ls.begin(), ls.end());
          Int128 c;
          if (s.rv == RvKind::Use && intValue(s.a, c)) constants[d].insert(c);
        }
        if (s.rv == RvKind::Binary) {
          Int128 c;
          Loc x;
          if (intValue(s.b, c) && sourceLoc(s.a, x)) constants[x].insert(c);
          if (intValue(s.a, c) && sourceLoc(s.b, x)) constants[x].insert(c);
          // Two locals compared (`i == m`, also through `let i = i + 0;`):
          // each is the other's partner (a candidate; the solver checks).
          Loc l, r;
          if (sourceLoc(s.a, l) && sourceLoc(s.b, r) && l != r && !body.local(cir::LocalId{l.local}).temp &&
              !body.local(cir::LocalId{r.local}).temp) {
            partners[l].insert(r);
            partners[r].insert(l);
          }
          // A local compared with an expression computed in the loop
          // (`while r != (2 * s + 2) * BM`): the expression, if it is
          // made of constants and locals by `+ - *`; whether the loop
          // leaves those locals alone is seen below.
          {
            Loc cl;
            BoundExpr ex;
            if (directLoc(s.a, cl) && boundExpr(s.b, ex)) exprBounds[cl].push_back(ex);
            ex.clear();
            if (directLoc(s.b, cl) && boundExpr(s.a, ex)) exprBounds[cl].push_back(ex);
          }
          // And the user locals compared as they are: `let end = (2 * s
          // + 2) * BM; while r != end` traces `end` to `s`, whose value is
          // not the bound.
          Loc dl, dr;
          if (s.op != ast::Op::And && s.op != ast::Op::Or && directLoc(s.a, dl) && directLoc(s.b, dr) && dl != dr) {
            Loc tl = dl, tr = dr;
            sourceLoc(s.a, tl);
            sourceLoc(s.b, tr);
            if (tl != dr) {
              partners[tl].insert(dr);
              partners[dr].insert(tl);
            }
            if (dl != tr) {
              partners[dl].insert(tr);
              partners[tr].insert(dl);
            }
          }
        }
        if (s.rv == RvKind::Call && hasTokensT(s.type)) info.sites.push_back(s.origin.index);
        // A callee may write through a `&mut` it is given (`set(&mut q, ..)`
        // with `*r = x` inside): the references of a local lent mutably.
        if (s.rv == RvKind::Call) callsOut = true;
        // And its integers (`bump(&mut p)` with `p.1 += 1` inside): a user
        // function's call writes them as `*r = x` does (builtins write
        // tensors only).
        if (s.rv == RvKind::Call && prog.fn(s.fn).builtin == hir::Builtin::None) callsUser = true;
      }
    }
    if (writesThroughRef || callsOut)
      for (uint32_t local : facts.mutBorrowed) {
        std::vector<Loc> ls;
        if (writesThroughRef || callsUser) {
          locs(Loc{local, 0}, body.local(cir::LocalId{local}).type, isSca, ls);
          assignedScalars.insert(ls.begin(), ls.end());
          assignedLocals.insert(local);
          ls.clear();
        }
        // `*rr = &buf` with `rr = &mut prev`: `prev` is reassigned too.
        locs(Loc{local, 0}, body.local(cir::LocalId{local}).type, isRefT, ls);
        refsAssigned.insert(ls.begin(), ls.end());
      }
    Changed& ch = info.changed;
    auto outside = [&](Loc l) { return !declared.count(l.local); };
    for (Loc l : assignedScalars)
      if (outside(l) && !(l.path == 0 && facts.addressTaken.count(l.local))) {
        ch.scalars.push_back(l);
        ch.scalarIsBool.push_back(tt().kind(typeAt(l)) == hir::TyKind::Bool);
      }
    for (Loc l : movedOrAssigned)
      if (outside(l)) ch.moved.push_back(l);
    for (Loc l : refsAssigned)
      if (outside(l)) ch.refs.push_back(l);
    std::set<Loc> tokens = assignedTokens;
    tokens.insert(usedTokens.begin(), usedTokens.end());
    for (Loc l : tokens)
      if (outside(l)) ch.tokens.push_back(l);
    // The unroll depth: the token locations this loop's own body assigns
    // (a copy then needs that many iterations to reach the oldest of them);
    // locations only nested loops assign are carried exactly by those
    // loops' exit states, one unrolled iteration suffices here.
    unsigned nested = 0;
    for (Loc l : assignedTokens)
      if (outside(l)) (assignedHere.count(l) ? info.carried : nested) += 1;
    if (info.carried == 0 && nested > 0) info.carried = 1;
    for (const auto& [l, cs] : constants) info.constants[l] = std::vector<Int128>(cs.begin(), cs.end());
    for (const auto& [l, ps] : partners)
      for (Loc q : ps)
        if (!assignedLocals.count(q.local)) info.partners[l].push_back(q);  // unchanged by the loop
    for (auto& [l, es] : exprBounds)
      for (BoundExpr& e : es) {
        bool unchanged = true;
        for (const BoundNode& n : e)
          unchanged = unchanged && (n.kind != BoundNode::Kind::Loc || !assignedLocals.count(n.loc.local));
        if (unchanged && info.boundExprs[l].size() < 4) info.boundExprs[l].push_back(std::move(e));
      }
  }

  bool hasTokensT(hir::TypeId t) const {
    hir::TypeId x = tt().resolve(t);
    if (tt().kind(x) == hir::TyKind::Token) return true;
    if (tt().kind(x) != hir::TyKind::Tuple) return false;
    for (uint32_t i = 0; i < tt().count(x); ++i)
      if (hasTokensT(tt().elem(x, i))) return true;
    return false;
  }

  hir::TypeId typeAt(Loc l) const { return own::typeAt(tt(), body, l); }
};

}  // namespace

bool locOf(const cir::Body& body, const cir::Place& p, Loc& out) {
  Loc l{p.local.index, 0};
  for (uint32_t i = 0; i < p.proj.count; ++i) {
    const cir::Proj& x = body.proj(p, i);
    if (x.kind != cir::ProjKind::Field || !childLoc(l, x.field, l)) return false;
  }
  out = l;
  return true;
}

FnFacts computeFacts(const hir::Program& prog, const cir::Body& body) {
  FnFacts facts;
  Scan scan{prog, body, facts, {}};
  scan.scanDefs();
  scan.liveness();
  facts.loops.resize(body.loops.size());
  scan.order(cir::LoopId{});
  for (uint32_t i = 0; i < body.loops.size(); ++i) {
    scan.order(cir::LoopId{i});
    scan.loopInfo(cir::LoopId{i});
  }
  return facts;
}

}  // namespace vx::check::own
