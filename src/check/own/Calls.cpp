// Calls. A builtin's effects come from its row of src/target/Builtins.def
// (reads, writes, copies started, tokens consumed), a user function's from
// its summary (Summaries.cpp): nothing is lost through a call. Every
// operand is evaluated before the call (the core IR made them temporaries,
// in order), so the call's accesses see the state after all of them: a
// borrow taken before a later argument waits its copy reads landed data.
#include "check/own/Analysis.h"

namespace vx::check::own {

using target::ArgEffect;

namespace {

AccessHow accessFor(ArgEffect e) {
  switch (e) {
    case ArgEffect::Write: return AccessHow::Write;
    case ArgEffect::DmaSrc: return AccessHow::CopyRead;
    case ArgEffect::DmaDst: return AccessHow::CopyWrite;
    case ArgEffect::Move: return AccessHow::Move;
    case ArgEffect::None:
    case ArgEffect::Space:
    case ArgEffect::Scalar:
    case ArgEffect::Read:
    case ArgEffect::Base:
    case ArgEffect::Consume: return AccessHow::Read;
  }
  return AccessHow::Read;
}

// The reference local an access through an operand goes through (`r`,
// `&*r`, `&mut (*r)[0]`): its own loan does not conflict with the access.
Loc viaOf(const Analysis& a, const cir::Operand& o) {
  Loc l;
  if (o.kind == cir::OperandKind::Const || !locOf(a, o.place, l)) return kNoVia;
  if (!a.body.local(o.place.local).temp) return isRef(a, a.body.typeOf(o.place)) ? l : kNoVia;
  auto it = a.facts.viaOf.find(o.place.local.index);
  return it == a.facts.viaOf.end() ? kNoVia : it->second;
}

// What a reference argument reaches when what it points to holds
// references (`&&s`, `&r` with `r = &s`, `&(&s, &t)`): the places those
// point to as well, to the depth of the type, so the callee's accesses
// through `**x` and the call's own borrows meet `s`. A reference location
// the state does not track points anywhere (pointsTo).
void addReached(Analysis& a, State& s, const std::vector<Alt>& from, hir::TypeId pointee, std::vector<Alt>& out,
                int depth) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId r = tt.resolve(pointee);
  if (depth > 8) return;
  if (tt.kind(r) == hir::TyKind::Ref) {
    for (const Alt& at : from) {
      if (!at.place.whole()) continue;  // a reference kept in a buffer's slot: not one the state holds
      // A reference inside what a reference parameter points to (`&q.0`
      // of `q: &(&A, &B)`): not one the state holds, so anywhere.
      auto it = at.place.inner == 0 ? s.refs.find(at.place.root) : s.refs.end();
      RefVal rv;
      if (it != s.refs.end())
        rv = it->second;
      else
        rv.unknown = true;
      std::vector<Alt> next = pointsTo(a, s, rv);
      for (Alt& n : next) n.guard = a.terms.mkAnd(at.guard, n.guard);
      out.insert(out.end(), next.begin(), next.end());
      addReached(a, s, next, tt.get(r).a, out, depth + 1);
    }
    return;
  }
  if (tt.kind(r) != hir::TyKind::Tuple) return;
  for (uint32_t i = 0; i < tt.count(r); ++i) {
    std::vector<Alt> fields;
    for (const Alt& at : from) {
      Loc c;
      Alt f = at;
      if (!at.place.whole()) continue;
      if (at.place.inner != 0) {
        if (!childPath(at.place.inner, i, f.place.inner)) continue;
      } else if (childLoc(at.place.root, i, c)) {
        f.place.root = c;
      } else {
        continue;
      }
      fields.push_back(f);
    }
    addReached(a, s, fields, tt.elem(r, i), out, depth + 1);
  }
}

struct Arg {
  Value value;
  std::vector<Alt> places;  // reference arguments: where they point; buffers moved in: where they were
  bool ref = false;
  bool moved = false;       // a buffer passed by value
  bool mut = false;
  base::Span span;          // the argument as written
  base::Span at;            // where its accesses are reported: the place a borrow names
  base::Span loanAt;        // where its loan's conflicts are reported: the borrow as written (`&mut x`)
  Loc via = kNoVia;
  size_t from = 0;          // flattened (flatBorrows): the argument it is, or is in
  bool writesRefs = false;  // a `&mut` to something holding references (`&mut &T`)
};

// An E6008 finding where argument `i`'s places may alias argument `j`'s:
// `i` accessed as `how` (a mutable borrow, or a buffer moved in), `j` borrowed.
void conflictBetween(Analysis& a, State& s, const std::vector<Arg>& args, size_t i, size_t j, AccessHow how,
                     const char* label, bool tuple = false) {
  TermStore& t = a.terms;
  for (const Alt& m : args[i].places)
    for (const Alt& o : args[j].places) {
      Term al = alias(t, m.place, o.place);
      if (t.isFalse(al)) continue;
      Finding f;
      f.rule = Rule::Conflict;
      f.at = args[i].span;
      f.subject = m.place.text;
      f.other = o.place.text;
      f.otherMut = args[j].mut;
      f.access = how;
      f.intoTuple = tuple;
      f.related = args[j].span;
      f.relatedLabel = label;
      if (m.place.index.valid() && o.place.index.valid()) {
        f.slotRead = m.place.index;
        f.slotInFlight = o.place.index;
      }
      addFinding(a, s, std::move(f), t.mkAnd({m.guard, o.guard, al}));
    }
}

// E6008 among the arguments of one call: a mutable borrow and another
// borrow of the same data; a buffer moved into a call that also borrows it
// (`f(&mut b, b)`, `f(b, &b)`: the callee would hold the buffer and a
// reference to it).
void checkArgBorrows(Analysis& a, State& s, const std::vector<Arg>& args, bool tuple = false) {
  for (size_t i = 0; i < args.size(); ++i)
    for (size_t j = 0; j < args.size(); ++j) {
      if (i == j || !args[j].ref || args[j].places.empty()) continue;
      // Two references in one tuple argument were checked where the tuple
      // was made (checkTupleBorrows).
      if (args[i].from == args[j].from && args[i].ref) continue;
      if (args[i].mut && !(args[j].mut && j < i))
        conflictBetween(a, s, args, i, j, AccessHow::Write,
                        args[j].mut ? "another mutable borrow of the same data" : "immutable borrow of the same data");
      if (args[i].moved)
        conflictBetween(a, s, args, i, j, AccessHow::Move,
                        tuple      ? (args[j].mut ? "mutably borrowed here, in the same tuple" : "borrowed here, in the same tuple")
                        : args[j].mut ? "mutably borrowed here, in the same call" : "borrowed here, in the same call",
                        tuple);
    }
}

// The references a value holds in its tuples, each as an argument of its
// own (`from`: the argument it is in).
void tupleRefs(Analysis& a, State& s, const Value& v, size_t from, base::Span span, std::vector<Arg>& out) {
  if (v.kind == Value::Kind::Ref) {
    Arg r;
    r.ref = true;
    r.places = pointsTo(a, s, v.ref);
    r.mut = v.ref.mut;
    r.writesRefs = v.ref.mut;  // (its type is not at hand: as if it held references)
    r.span = r.at = span;
    r.from = from;
    out.push_back(std::move(r));
    return;
  }
  if (v.kind != Value::Kind::Tuple) return;
  for (const Value& e : v.elems) tupleRefs(a, s, e, from, span, out);
}

// The call's arguments with the references inside tuple arguments as
// arguments of their own: `h1((&mut s, 0), &s)` borrows `s` twice.
std::vector<Arg> flatBorrows(Analysis& a, State& s, const std::vector<Arg>& args) {
  std::vector<Arg> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].value.kind == Value::Kind::Tuple && !args[i].ref) {
      tupleRefs(a, s, args[i].value, i, args[i].span, out);
      continue;
    }
    Arg x = args[i];
    x.from = i;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace

void checkTupleBorrows(Analysis& a, State& s, const cir::Stmt& st, const Value& tuple, base::Span at) {
  if (!a.reporting() || tuple.kind != Value::Kind::Tuple) return;
  std::vector<Arg> refs;
  for (size_t i = 0; i < tuple.elems.size(); ++i) tupleRefs(a, s, tuple.elems[i], i, at, refs);
  // A buffer moved into the tuple that a reference in it also reaches
  // (`(&x, x)`): whoever takes the tuple holds the buffer and a reference
  // to it, as a call given both (checkArgBorrows).
  for (uint32_t i = 0; i < st.args.count && i < tuple.elems.size(); ++i) {
    const cir::Operand& o = a.body.arg(st, i);
    if (o.kind != cir::OperandKind::Move || !isMoveOnly(a, operandType(a, o))) continue;
    Arg m;
    m.moved = true;
    m.places = placesOf(a, s, o.place);
    m.span = m.at = o.span;
    refs.push_back(std::move(m));
  }
  for (size_t i = 0; i < refs.size(); ++i) refs[i].from = i;  // every pair counts here
  checkArgBorrows(a, s, refs, /*tuple=*/true);
}

void readThrough(Analysis& a, State& s, const cir::Operand& o, const Value& v) {
  if (o.kind == cir::OperandKind::Const || !isRef(a, operandType(a, o)) || v.kind != Value::Kind::Ref) return;
  base::Span at = o.span;
  if (o.place.proj.count == 0 && a.body.local(o.place.local).temp) at = a.body.local(o.place.local).span;
  access(a, s, pointsTo(a, s, v.ref), AccessHow::Read, at, viaOf(a, o));
}

Value walkCall(Analysis& a, State& s, const cir::Stmt& st) {
  const hir::Function& f = a.prog.fn(st.fn);
  bool builtin = f.builtin != hir::Builtin::None;
  const target::BuiltinInfo* info = builtin ? &target::info(f.builtin) : nullptr;
  std::vector<Arg> args;
  for (uint32_t i = 0; i < st.args.count; ++i) {
    const cir::Operand& o = a.body.arg(st, i);
    Arg arg;
    arg.span = arg.at = o.span;
    // A builtin reads what it takes by value, except `dbg`, which returns it.
    bool read = builtin && !(info->result == target::ResultKind::Same && i == 0);
    arg.value = evalOperand(a, s, o, read ? OperandUse::Read : OperandUse::Kept);
    hir::TypeId type = operandType(a, o);
    if (o.kind == cir::OperandKind::Move && isMoveOnly(a, type)) {
      arg.moved = true;
      arg.places = placesOf(a, s, o.place);  // where it was: the local, or the slot read in place
    }
    if (isRef(a, type)) {
      arg.ref = true;
      arg.places = arg.value.kind == Value::Kind::Ref ? pointsTo(a, s, arg.value.ref) : std::vector<Alt>{};
      std::vector<Alt> reached;
      addReached(a, s, arg.places, a.types().get(a.types().resolve(type)).a, reached, 0);
      arg.places.insert(arg.places.end(), reached.begin(), reached.end());
      arg.mut = a.types().get(a.types().resolve(type)).sub == 1;
      arg.writesRefs = arg.mut && hasRefs(a, a.types().get(a.types().resolve(type)).a);
      arg.via = viaOf(a, o);
      // A borrow made for the call (`&slots[i]`): its place.
      if (o.kind != cir::OperandKind::Const && o.place.proj.count == 0 && a.body.local(o.place.local).temp) {
        arg.at = a.body.local(o.place.local).span;
        if (a.body.local(o.place.local).written.valid()) arg.loanAt = a.body.local(o.place.local).written;
      }
    }
    args.push_back(std::move(arg));
  }
  // The call's own accesses, once every operand is evaluated.
  // The locals whose loans this call is handed (tuples holding references,
  // passed by value): the call's borrows are checked against those loans
  // pairwise (checkArgBorrows), not again as loans held elsewhere.
  std::vector<uint32_t> handed;
  for (uint32_t i = 0; i < args.size(); ++i)
    if (args[i].value.kind == Value::Kind::Tuple && !args[i].ref && a.body.arg(st, i).kind != cir::OperandKind::Const)
      handed.push_back(a.body.arg(st, i).place.local.index);
  for (uint32_t i = 0; i < args.size(); ++i) {
    if (!args[i].ref) continue;
    if (builtin) {
      ArgEffect effect = i < 3 ? info->args[i] : ArgEffect::Read;
      access(a, s, args[i].places, accessFor(effect), args[i].at, args[i].via);
    } else {
      // A user function's accesses come from its summary; the borrow
      // itself still conflicts with live borrows.
      checkLoans(a, s, args[i].places, args[i].mut ? AccessHow::Write : AccessHow::Read,
                 args[i].loanAt.valid() ? args[i].loanAt : args[i].at, args[i].via, handed);
    }
  }
  std::vector<Arg> flat = flatBorrows(a, s, args);
  checkArgBorrows(a, s, flat);
  // References inside tuple arguments conflict with the borrows held, as
  // reference arguments do.
  // (Not against the loans the tuples of this call hold: `let q = (&mut b,
  // 1.0); f(q);` hands those loans to the callee, it does not take them
  // again.)
  for (const Arg& x : flat)
    if (x.ref && !args[x.from].ref) checkLoans(a, s, x.places, x.mut ? AccessHow::Write : AccessHow::Read, x.at, kNoVia, handed);
  if (!builtin) {
    // References the callee may write through a `&mut` argument (`setq(&mut
    // q, y)` with `*q = y` inside): no longer said where they point.
    for (const Arg& x : flat)
      if (x.ref && x.writesRefs) forgetRefsWithin(s, x.places);
    // Integers the callee may write through a `&mut` argument (`bump(&mut
    // p)` with `p.1 += 1` inside, `set(&mut p.1)`): unknown afterwards. (A
    // whole integer local lent mutably is never tracked: addressTaken.)
    for (const Arg& x : flat)
      if (x.ref && x.mut) havocScalarsWithin(a, s, x.places);
    std::vector<Value> values;
    std::vector<std::vector<Alt>> places;
    std::vector<Alt> reachable;
    for (const Arg& x : flat)
      if (x.ref) reachable.insert(reachable.end(), x.places.begin(), x.places.end());
    for (Arg& arg : args) {
      values.push_back(std::move(arg.value));
      places.push_back(arg.ref ? std::move(arg.places) : std::vector<Alt>{});
    }
    return applySummary(a, s, st, a.summaries[st.fn.index], values, places, reachable);
  }
  switch (info->result) {
    case target::ResultKind::Token: {
      Transfer tr;
      tr.site = st.origin;
      tr.kind = f.builtin;
      tr.span = st.span;
      for (size_t i = 0; i < args.size() && i < 3; ++i) {
        if (info->args[i] == ArgEffect::DmaSrc) tr.reads.insert(tr.reads.end(), args[i].places.begin(), args[i].places.end());
        if (info->args[i] == ArgEffect::DmaDst)
          tr.writes.insert(tr.writes.end(), args[i].places.begin(), args[i].places.end());
      }
      return startCopy(a, s, std::move(tr));
    }
    case target::ResultKind::Payload:
      for (size_t i = 0; i < args.size() && i < 3; ++i)
        if (info->args[i] == ArgEffect::Consume)
          consume(a, s, args[i].value, args[i].span, args[i].value.name.empty() ? "the token" : args[i].value.name,
                  true);
      return Value{};
    case target::ResultKind::Same: return args.empty() ? Value{} : args[0].value;
    case target::ResultKind::View:  // (the core IR makes blocks borrows: not reached)
    case target::ResultKind::Void:
    case target::ResultKind::Buffer: {
      // Values passed by value that hold tokens are consumed.
      for (Arg& arg : args)
        if (arg.value.kind == Value::Kind::Token || arg.value.kind == Value::Kind::Tuple)
          consume(a, s, arg.value, arg.span, arg.value.name.empty() ? "the token" : arg.value.name, true);
      if (isRef(a, st.type)) {
        // A view: any place of its reference arguments.
        Value v;
        v.kind = Value::Kind::Ref;
        for (const Arg& arg : args)
          for (Alt alt : arg.places) {
            alt.place.clearSlot();
            alt.place.clearBlock();
            v.ref.alts.push_back(alt);
          }
        return v;
      }
      return Value{};
    }
  }
  return Value{};
}

}  // namespace vx::check::own
