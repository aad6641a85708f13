// Calls. A builtin's effects come from its row of src/target/Builtins.def
// (reads, writes, copies started, tokens consumed), a user function's from
// its summary (Summaries.cpp): nothing is lost through a call.
#include "check/own/Analysis.h"

namespace vx::check::own {

using hir::ExprKind;
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
    case ArgEffect::Consume: return AccessHow::Read;
  }
  return AccessHow::Read;
}

// The reference local an argument goes through (`r`, `&*r`, `&mut (*r)[0]`).
hir::LocalId viaOf(const Analysis& a, hir::ExprId e) {
  const hir::Expr* x = &a.prog.expr(e);
  while (x->kind == ExprKind::Borrow || x->kind == ExprKind::Deref || x->kind == ExprKind::Index) x = &a.prog.expr(x->a);
  if (x->kind == ExprKind::Local && isRef(a, x->type)) return x->local;
  return {};
}

struct Arg {
  hir::ExprId expr;
  Value value;
  std::vector<Alt> places;  // reference arguments: where they point
  bool mut = false;
  base::Span span;
};

// E6008 among the reference arguments of one call.
void checkArgBorrows(Analysis& a, State& s, const std::vector<Arg>& args) {
  TermStore& t = a.terms;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].mut) continue;
    for (size_t j = 0; j < args.size(); ++j) {
      if (i == j || args[j].places.empty() || (args[j].mut && j < i)) continue;
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
          f.access = AccessHow::Write;
          f.related = args[j].span;
          f.relatedLabel = args[j].mut ? "another mutable borrow of the same data" : "immutable borrow of the same data";
          if (!m.place.whole() && !o.place.whole()) {
            f.slotRead = m.place.index;
            f.slotInFlight = o.place.index;
          }
          addFinding(a, s, std::move(f), t.mkAnd({m.guard, o.guard, al}));
        }
    }
  }
}

}  // namespace

Value walkCall(Analysis& a, State& s, hir::ExprId id) {
  const hir::Expr& call = a.prog.expr(id);
  const hir::Function& f = a.prog.fn(call.fn);
  bool builtin = f.builtin != hir::Builtin::None;
  const target::BuiltinInfo* info = builtin ? &target::info(f.builtin) : nullptr;
  std::vector<Arg> args;
  for (uint32_t i = 0; i < call.args.count; ++i) {
    Arg arg;
    arg.expr = a.prog.arg(call, i);
    const hir::Expr& ae = a.prog.expr(arg.expr);
    arg.span = ae.span;
    ArgEffect effect = info && i < 3 ? info->args[i] : ArgEffect::Read;
    if (ae.kind == ExprKind::Borrow) {
      const hir::Expr& inner = a.prog.expr(ae.a);
      if (inner.kind == ExprKind::Index) walkExpr(a, s, inner.b);
      for (hir::ExprId x = ae.a; x.valid();) {
        const hir::Expr& xe = a.prog.expr(x);
        if (xe.kind == ExprKind::Local) {
          useLocal(a, s, xe.local, inner.span, false);
          break;
        }
        if (xe.kind != ExprKind::Index && xe.kind != ExprKind::Field && xe.kind != ExprKind::Deref) break;
        x = xe.a;
      }
      arg.places = placesOf(a, s, arg.expr);
      arg.mut = ae.mut;
      arg.value.kind = Value::Kind::Ref;
      arg.value.ref.alts = arg.places;
      arg.value.ref.mut = ae.mut;
      if (builtin) {
        access(a, s, arg.places, accessFor(effect), inner.span, viaOf(a, arg.expr));
      } else {
        // A user function's accesses come from its summary; the borrow
        // itself still conflicts with live borrows.
        checkLoans(a, s, arg.places, ae.mut ? AccessHow::Write : AccessHow::Read, inner.span, viaOf(a, arg.expr));
      }
    } else if (isRef(a, ae.type)) {
      arg.value = walkExpr(a, s, arg.expr);
      arg.places = placesOf(a, s, arg.expr);
      arg.mut = a.types().get(a.types().resolve(ae.type)).sub == 1;
      hir::LocalId via = ae.kind == ExprKind::Local ? ae.local : hir::LocalId{};
      if (builtin) access(a, s, arg.places, accessFor(effect), ae.span, via);
    } else {
      arg.value = walkExpr(a, s, arg.expr);
    }
    args.push_back(std::move(arg));
  }
  checkArgBorrows(a, s, args);
  if (!builtin) {
    std::vector<Value> values;
    for (Arg& arg : args) values.push_back(std::move(arg.value));
    return applySummary(a, s, id, a.summaries[call.fn.index], values);
  }
  switch (info->result) {
    case target::ResultKind::Token: {
      Transfer tr;
      tr.site = id;
      tr.kind = f.builtin;
      tr.span = call.span;
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
    case target::ResultKind::Void:
    case target::ResultKind::Buffer: {
      // Values passed by value that hold tokens are consumed.
      for (Arg& arg : args)
        if (arg.value.kind == Value::Kind::Token || arg.value.kind == Value::Kind::Tuple)
          consume(a, s, arg.value, arg.span, arg.value.name.empty() ? "the token" : arg.value.name, true);
      if (isRef(a, call.type)) {
        Value v;
        v.kind = Value::Kind::Ref;
        v.ref.alts = placesOf(a, s, id);
        return v;
      }
      return Value{};
    }
  }
  return Value{};
}

}  // namespace vx::check::own
