#include "smt/Term.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

namespace vx::smt {

std::string toString(Int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s += static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  }
  if (neg) s += '-';
  return std::string(s.rbegin(), s.rend());
}

namespace {
// Folding stays within +-2^120: far beyond every Vx type, never near
// __int128's own overflow.
constexpr Int128 kFoldLimit = Int128(1) << 120;
bool foldable(Int128 v) { return v > -kFoldLimit && v < kFoldLimit; }
}  // namespace

TermStore::TermStore() {
  true_ = make(TermOp::True, Sort::Bool, {});
  false_ = make(TermOp::False, Sort::Bool, {});
}

namespace {
uint32_t hashNode(TermOp op, Sort s, const Term* args, size_t count, Int128 value, uint32_t name) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(static_cast<uint64_t>(op) | static_cast<uint64_t>(s) << 8);
  mix(static_cast<uint64_t>(value));
  mix(static_cast<uint64_t>(static_cast<unsigned __int128>(value) >> 64));
  mix(name);
  for (size_t i = 0; i < count; ++i) mix(args[i].index);
  return static_cast<uint32_t>(h ^ (h >> 32));
}
}  // namespace

void TermStore::grow() {
  std::vector<Slot> bigger(index_.size() * 2);
  size_t mask = bigger.size() - 1;
  for (const Slot& s : index_) {
    if (s.node == UINT32_MAX) continue;
    size_t i = s.hash & mask;
    while (bigger[i].node != UINT32_MAX) i = (i + 1) & mask;
    bigger[i] = s;
  }
  index_ = std::move(bigger);
}

Term TermStore::make(TermOp op, Sort s, const Term* args, size_t count, Int128 value, uint32_t name) {
  uint32_t hash = hashNode(op, s, args, count, value, name);
  size_t mask = index_.size() - 1;
  size_t i = hash & mask;
  for (; index_[i].node != UINT32_MAX; i = (i + 1) & mask) {
    if (index_[i].hash != hash) continue;
    const TermNode& n = nodes_[index_[i].node];
    if (n.op == op && n.sort == s && n.value == value && n.name == name && n.args.size() == count &&
        std::equal(args, args + count, n.args.begin()))
      return Term{index_[i].node};
  }
  uint32_t id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(TermNode{op, s, value, name, std::vector<Term>(args, args + count)});
  index_[i] = Slot{id, hash};
  if (++indexed_ * 2 > index_.size()) grow();
  return Term{id};
}

Term TermStore::intConst(Int128 v) { return make(TermOp::IntConst, Sort::Int, {}, v); }
Term TermStore::bvConst(Sort s, int64_t v) { return make(TermOp::BvConst, s, {}, v); }

Term TermStore::var(const std::string& name, Sort s) {
  auto it = nameIndex_.find(name);
  uint32_t n;
  if (it == nameIndex_.end()) {
    n = static_cast<uint32_t>(names_.size());
    names_.push_back(name);
    nameIndex_.emplace(name, n);
  } else {
    n = it->second;
  }
  return make(TermOp::Var, s, {}, 0, n);
}

Term TermStore::fresh(const std::string& base, Sort s) {
  // `x`, `x'`, `x''`, `x'''`, then `x'4`, `x'5`, ...: short names for the
  // few that users see, no quadratic growth for the many internal ones.
  uint32_t& n = epochCount_[base];
  std::string name;
  do {
    name = n == 0 ? base : n <= 3 ? base + std::string(n, '\'') : base + "'" + std::to_string(n);
    ++n;
  } while (epochUsed_.count(name));
  epochUsed_[name] = true;
  return var(name, s);
}

Term TermStore::mkNot(Term a) {
  if (isTrue(a)) return false_;
  if (isFalse(a)) return true_;
  if (node(a).op == TermOp::Not) return node(a).args[0];
  return make(TermOp::Not, Sort::Bool, {a});
}

Term TermStore::mkAnd(Term a, Term b) {
  if (isFalse(a) || isFalse(b)) return false_;
  if (isTrue(a)) return b;
  if (isTrue(b) || a == b) return a;
  if ((node(a).op == TermOp::Not && node(a).args[0] == b) || (node(b).op == TermOp::Not && node(b).args[0] == a))
    return false_;
  if (a.index > b.index) std::swap(a, b);
  return make(TermOp::And, Sort::Bool, {a, b});
}

Term TermStore::mkAnd(const std::vector<Term>& xs) {
  Term r = true_;
  for (Term x : xs) r = mkAnd(r, x);
  return r;
}

Term TermStore::mkOr(Term a, Term b) {
  if (isTrue(a) || isTrue(b)) return true_;
  if (isFalse(a)) return b;
  if (isFalse(b) || a == b) return a;
  if ((node(a).op == TermOp::Not && node(a).args[0] == b) || (node(b).op == TermOp::Not && node(b).args[0] == a))
    return true_;
  if (a.index > b.index) std::swap(a, b);
  return make(TermOp::Or, Sort::Bool, {a, b});
}

Term TermStore::mkOr(const std::vector<Term>& xs) {
  Term r = false_;
  for (Term x : xs) r = mkOr(r, x);
  return r;
}

Term TermStore::mkImplies(Term a, Term b) { return mkOr(mkNot(a), b); }

Term TermStore::mkIte(Term c, Term a, Term b) {
  if (isTrue(c) || a == b) return a;
  if (isFalse(c)) return b;
  if (sort(a) == Sort::Bool) {
    if (isTrue(a) && isFalse(b)) return c;
    if (isFalse(a) && isTrue(b)) return mkNot(c);
    if (isTrue(a)) return mkOr(c, b);
    if (isFalse(a)) return mkAnd(mkNot(c), b);
    if (isTrue(b)) return mkOr(mkNot(c), a);
    if (isFalse(b)) return mkAnd(c, a);
  }
  return make(TermOp::Ite, sort(a), {c, a, b});
}

Term TermStore::mkEq(Term a, Term b) {
  if (a == b) return true_;
  const TermNode& na = node(a);
  const TermNode& nb = node(b);
  if ((na.op == TermOp::IntConst && nb.op == TermOp::IntConst) ||
      (na.op == TermOp::BvConst && nb.op == TermOp::BvConst))
    return boolConst(na.value == nb.value);
  if (sort(a) == Sort::Bool) {
    if (isTrue(a)) return b;
    if (isTrue(b)) return a;
    if (isFalse(a)) return mkNot(b);
    if (isFalse(b)) return mkNot(a);
  }
  if (a.index > b.index) std::swap(a, b);
  return make(TermOp::Eq, Sort::Bool, {a, b});
}

Term TermStore::mkLt(Term a, Term b) {
  if (isConst(a) && isConst(b)) return boolConst(node(a).value < node(b).value);
  if (a == b) return false_;
  return make(TermOp::Lt, Sort::Bool, {a, b});
}

Term TermStore::mkLe(Term a, Term b) {
  if (isConst(a) && isConst(b)) return boolConst(node(a).value <= node(b).value);
  if (a == b) return true_;
  return make(TermOp::Le, Sort::Bool, {a, b});
}

Term TermStore::mkAdd(Term a, Term b) {
  if (isConst(a) && isConst(b) && foldable(node(a).value) && foldable(node(b).value))
    return intConst(node(a).value + node(b).value);
  if (isConst(a) && node(a).value == 0) return b;
  if (isConst(b) && node(b).value == 0) return a;
  // Constants go right and gather: (x + 1) + 1 is x + 2, so that counters
  // stepped in unrolled iterations stay one addition deep.
  if (isConst(a)) std::swap(a, b);
  if (isConst(b) && node(a).op == TermOp::Add && isConst(node(a).args[1])) {
    Int128 c = node(node(a).args[1]).value, d = node(b).value;
    if (foldable(c) && foldable(d)) return mkAdd(node(a).args[0], intConst(c + d));
  }
  return make(TermOp::Add, Sort::Int, {a, b});
}

Term TermStore::mkSub(Term a, Term b) {
  if (isConst(a) && isConst(b) && foldable(node(a).value) && foldable(node(b).value))
    return intConst(node(a).value - node(b).value);
  if (isConst(b) && node(b).value == 0) return a;
  if (isConst(b) && foldable(node(b).value)) return mkAdd(a, intConst(-node(b).value));
  if (a == b) return intConst(0);
  return make(TermOp::Sub, Sort::Int, {a, b});
}

Term TermStore::mkMul(Term a, Term b) {
  if (isConst(a) && isConst(b)) {
    Int128 x = node(a).value, y = node(b).value, r;
    if (!__builtin_mul_overflow(x, y, &r) && foldable(r)) return intConst(r);
  }
  if (isConst(a) && node(a).value == 1) return b;
  if (isConst(b) && node(b).value == 1) return a;
  if ((isConst(a) && node(a).value == 0) || (isConst(b) && node(b).value == 0)) return intConst(0);
  return make(TermOp::Mul, Sort::Int, {a, b});
}

Term TermStore::mkNeg(Term a) {
  if (isConst(a) && foldable(node(a).value)) return intConst(-node(a).value);
  return make(TermOp::Neg, Sort::Int, {a});
}

Term TermStore::mkTruncDiv(Term a, Term b) {
  // 128-bit division of values within the fold limit cannot overflow
  // (i64::MIN / -1 is 2^63 here; the program traps on it at run time).
  if (isConst(a) && isConst(b) && node(b).value != 0 && foldable(node(a).value) && foldable(node(b).value))
    return intConst(node(a).value / node(b).value);
  // trunc(a / b) = sign(a)*sign(b) * (|a| div |b|): for b > 0 this is
  // a >= 0 ? a div b : -((-a) div b).
  Term ediv = make(TermOp::EuclidDiv, Sort::Int, {a, b});
  Term negDiv = mkNeg(make(TermOp::EuclidDiv, Sort::Int, {mkNeg(a), b}));
  Term nonneg = mkLe(intConst(0), a);
  if (isConst(b) && node(b).value > 0) return mkIte(nonneg, ediv, negDiv);
  Term absDiv = make(TermOp::EuclidDiv, Sort::Int,
                     {mkIte(nonneg, a, mkNeg(a)), mkIte(mkLe(intConst(0), b), b, mkNeg(b))});
  Term sameSign = mkEq(nonneg, mkLe(intConst(0), b));
  return mkIte(sameSign, absDiv, mkNeg(absDiv));
}

Term TermStore::mkTruncRem(Term a, Term b) {
  if (isConst(a) && isConst(b) && node(b).value != 0 && foldable(node(a).value) && foldable(node(b).value))
    return intConst(node(a).value % node(b).value);
  // a % b = a - b * trunc(a / b); the sign follows a.
  if (isConst(b)) return mkSub(a, mkMul(b, mkTruncDiv(a, b)));
  // By a run-time divisor, b * trunc(a / b) is a product of two unknowns;
  // the same value is |a| mod |b| with a's sign (a % -b == a % b), through
  // the Euclidean remainder, whose range the solver knows (Solver.cpp): a
  // counterexample then never has `1 % 2 == -1`.
  Term absB = mkIte(mkLe(intConst(0), b), b, mkNeg(b));
  Term nonneg = mkLe(intConst(0), a);
  return mkIte(nonneg, mkEuclidMod(a, absB), mkNeg(mkEuclidMod(mkNeg(a), absB)));
}

Term TermStore::mkEuclidDiv(Term a, Term b) {
  if (isConst(a) && isConst(b) && node(b).value > 0 && node(a).value >= 0)
    return intConst(node(a).value / node(b).value);
  return make(TermOp::EuclidDiv, Sort::Int, {a, b});
}

Term TermStore::mkEuclidMod(Term a, Term b) {
  if (isConst(a) && isConst(b) && node(b).value > 0 && node(a).value >= 0)
    return intConst(node(a).value % node(b).value);
  if (isConst(b) && node(b).value > 0) {
    // With a constant modulus R > 0 (Euclidean, always in [0, R)):
    // (x mod R) mod R = x mod R, and (x mod R + c) mod R = (x + c) mod R —
    // a ring counter stepped k times stays one `mod` deep.
    const TermNode& n = node(a);
    if (n.op == TermOp::EuclidMod && n.args[1] == b) return a;
    if (n.op == TermOp::Add && isConst(n.args[1])) {
      const TermNode& inner = node(n.args[0]);
      if (inner.op == TermOp::EuclidMod && inner.args[1] == b) return mkEuclidMod(mkAdd(inner.args[0], n.args[1]), b);
    }
  }
  return make(TermOp::EuclidMod, Sort::Int, {a, b});
}

Term TermStore::substitute(Term t, const std::vector<Term>& from, const std::vector<Term>& to) {
  // Memo and replacements stamped with a fresh epoch per call (as
  // visitMark_): no hash map and no recursion, so that a summary's terms,
  // substituted at every call, cost a walk of their distinct subterms.
  if (subMark_.size() < nodes_.size()) {
    subMark_.resize(nodes_.size() + nodes_.size() / 2, 0);
    subValue_.resize(subMark_.size());
  }
  if (++subEpoch_ == 0) {
    std::fill(subMark_.begin(), subMark_.end(), 0);
    subEpoch_ = 1;
  }
  const uint32_t epoch = subEpoch_;
  for (size_t i = 0; i < from.size(); ++i)
    if (subMark_[from[i].index] != epoch) {  // the first of repeated entries wins, as before
      subMark_[from[i].index] = epoch;
      subValue_[from[i].index] = to[i];
    }
  // Post-order: a node is rebuilt once its arguments are.
  std::vector<std::pair<Term, bool>> stack{{t, false}};
  std::vector<Term> args;
  while (!stack.empty()) {
    auto [x, ready] = stack.back();
    stack.pop_back();
    if (subMark_[x.index] == epoch) continue;
    const TermNode& n0 = node(x);
    if (n0.args.empty()) {
      subMark_[x.index] = epoch;
      subValue_[x.index] = x;
      continue;
    }
    if (!ready) {
      stack.push_back({x, true});
      for (auto it = n0.args.rbegin(); it != n0.args.rend(); ++it)
        if (subMark_[it->index] != epoch) stack.push_back({*it, false});
      continue;
    }
    const TermNode n = n0;  // make() below may grow nodes_
    args.clear();
    for (Term a : n.args) args.push_back(subValue_[a.index]);
    Term r;
    switch (n.op) {
      case TermOp::Not: r = mkNot(args[0]); break;
      case TermOp::And: r = mkAnd(args[0], args[1]); break;
      case TermOp::Or: r = mkOr(args[0], args[1]); break;
      case TermOp::Ite: r = mkIte(args[0], args[1], args[2]); break;
      case TermOp::Eq: r = mkEq(args[0], args[1]); break;
      case TermOp::Lt: r = mkLt(args[0], args[1]); break;
      case TermOp::Le: r = mkLe(args[0], args[1]); break;
      case TermOp::Add: r = mkAdd(args[0], args[1]); break;
      case TermOp::Sub: r = mkSub(args[0], args[1]); break;
      case TermOp::Mul: r = mkMul(args[0], args[1]); break;
      case TermOp::Neg: r = mkNeg(args[0]); break;
      case TermOp::True:
      case TermOp::False:
      case TermOp::IntConst:
      case TermOp::BvConst:
      case TermOp::Var:
      case TermOp::Implies:
      case TermOp::EuclidDiv:
      case TermOp::EuclidMod: r = make(n.op, n.sort, std::vector<Term>(args), n.value, n.name); break;
    }
    // The store grew: the arrays cover the new nodes (never marked here).
    if (subMark_.size() < nodes_.size()) {
      subMark_.resize(nodes_.size() + nodes_.size() / 2, 0);
      subValue_.resize(subMark_.size());
    }
    subMark_[x.index] = epoch;
    subValue_[x.index] = r;
  }
  return subValue_[t.index];
}

bool TermStore::linear(Term t) const {
  // Memoised per node (terms are immutable): a chain of N assignments
  // (`k = (k * 3 + 1) % 1000;` N times) asked this of a term N deep at
  // every step, quadratic in the chain.
  if (linearMemo_.size() < nodes_.size()) linearMemo_.resize(nodes_.size() + nodes_.size() / 2, 0);
  if (linearMemo_[t.index] != 0) return linearMemo_[t.index] == 1;
  std::vector<std::pair<Term, bool>> stack{{t, false}};
  while (!stack.empty()) {
    auto [x, ready] = stack.back();
    stack.pop_back();
    if (linearMemo_[x.index] != 0) continue;
    const TermNode& n = node(x);
    if (!ready) {
      stack.push_back({x, true});
      for (Term y : n.args)
        if (linearMemo_[y.index] == 0) stack.push_back({y, false});
      continue;
    }
    bool own = true;
    switch (n.op) {
      case TermOp::Mul: own = isConst(n.args[0]) || isConst(n.args[1]); break;
      case TermOp::EuclidDiv:
      case TermOp::EuclidMod: own = isConst(n.args[1]); break;
      case TermOp::True:
      case TermOp::False:
      case TermOp::IntConst:
      case TermOp::BvConst:
      case TermOp::Var:
      case TermOp::Not:
      case TermOp::And:
      case TermOp::Or:
      case TermOp::Implies:
      case TermOp::Ite:
      case TermOp::Eq:
      case TermOp::Lt:
      case TermOp::Le:
      case TermOp::Add:
      case TermOp::Sub:
      case TermOp::Neg: break;
    }
    for (Term y : n.args) own = own && linearMemo_[y.index] == 1;
    linearMemo_[x.index] = own ? 1 : 2;
  }
  return linearMemo_[t.index] == 1;
}

bool TermStore::largerThan(Term t, size_t limit) const {
  if (visitMark_.size() < nodes_.size()) visitMark_.resize(nodes_.size() + nodes_.size() / 2, 0);
  if (++visitEpoch_ == 0) {
    std::fill(visitMark_.begin(), visitMark_.end(), 0);
    visitEpoch_ = 1;
  }
  size_t count = 0;
  std::vector<Term> stack{t};
  while (!stack.empty()) {
    Term x = stack.back();
    stack.pop_back();
    if (!x.valid() || visitMark_[x.index] == visitEpoch_) continue;
    visitMark_[x.index] = visitEpoch_;
    if (++count > limit) return true;
    for (Term y : node(x).args) stack.push_back(y);
  }
  return false;
}

std::vector<Term> TermStore::variables(Term t) const { return variables(std::vector<Term>{t}); }

std::vector<Term> TermStore::variables(const std::vector<Term>& roots) const {
  std::vector<Term> out;
  // Visited marks are stamped with a fresh epoch per call: no per-call
  // array the size of the whole store, and subterms the roots share are
  // walked once.
  if (visitMark_.size() < nodes_.size()) visitMark_.resize(nodes_.size() + nodes_.size() / 2, 0);
  if (++visitEpoch_ == 0) {
    std::fill(visitMark_.begin(), visitMark_.end(), 0);
    visitEpoch_ = 1;
  }
  std::vector<Term> stack;
  for (Term root : roots) {
    if (!root.valid()) continue;
    stack.push_back(root);
    while (!stack.empty()) {
      Term x = stack.back();
      stack.pop_back();
      if (visitMark_[x.index] == visitEpoch_) continue;
      visitMark_[x.index] = visitEpoch_;
      const TermNode& n = node(x);
      if (n.op == TermOp::Var) out.push_back(x);
      for (auto it = n.args.rbegin(); it != n.args.rend(); ++it) stack.push_back(*it);
    }
  }
  return out;
}

std::string TermStore::print(Term t) const {
  const TermNode& n = node(t);
  auto list = [&](const char* op) {
    std::string s = std::string("(") + op;
    for (Term a : n.args) s += " " + print(a);
    return s + ")";
  };
  switch (n.op) {
    case TermOp::True: return "true";
    case TermOp::False: return "false";
    case TermOp::IntConst: return n.value < 0 ? "(- " + toString(-n.value) + ")" : toString(n.value);
    case TermOp::BvConst: {
      if (n.sort == Sort::BV2) return std::string("#b") + ((n.value >> 1) & 1 ? "1" : "0") + (n.value & 1 ? "1" : "0");
      static const char* hex = "0123456789abcdef";
      return std::string("#x") + hex[(n.value >> 4) & 15] + hex[n.value & 15];
    }
    case TermOp::Var: return "|" + names_[n.name] + "|";
    case TermOp::Not: return list("not");
    case TermOp::And: return list("and");
    case TermOp::Or: return list("or");
    case TermOp::Implies: return list("=>");
    case TermOp::Ite: return list("ite");
    case TermOp::Eq: return list("=");
    case TermOp::Lt: return list("<");
    case TermOp::Le: return list("<=");
    case TermOp::Add: return list("+");
    case TermOp::Sub: return list("-");
    case TermOp::Mul: return list("*");
    case TermOp::Neg: return list("-");
    case TermOp::EuclidDiv: return list("div");
    case TermOp::EuclidMod: return list("mod");
  }
  return "?";
}

}  // namespace vx::smt
