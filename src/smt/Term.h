// Hash-consed formulas over booleans, integers and small bit-vectors. The
// checker builds these; only Solver.cpp translates them to Z3 (the one file
// that includes z3++.h). Construction folds constants and trivial cases, so
// most questions are answered before a solver is asked.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <initializer_list>
#include <unordered_map>
#include <vector>

#include "base/StableVector.h"

#include "base/Id.h"

namespace vx::smt {

using Term = base::Id<struct TermTag>;

enum class Sort : uint8_t { Bool, Int, BV2, BV8 };

enum class TermOp : uint8_t {
  True, False, IntConst, BvConst, Var,
  Not, And, Or, Implies, Ite, Eq,
  Lt, Le, Add, Sub, Mul, Neg,
  EuclidDiv, EuclidMod,  // SMT-LIB div/mod; Rust's truncating ops are built from them
};

// Integer constants are 128-bit: every value of every Vx integer type (u64
// included) and the bounds of their ranges fit, and constant folding that
// would leave the range is not done (the node is kept), so it never wraps.
using Int128 = __int128;
std::string toString(Int128 v);

struct TermNode {
  TermOp op;
  Sort sort;
  Int128 value = 0;    // IntConst, BvConst
  uint32_t name = 0;   // Var: index into names
  std::vector<Term> args;
};

class TermStore {
 public:
  TermStore();
  // The hash-consing index refers to `nodes_` through `this`.
  TermStore(const TermStore&) = delete;
  TermStore& operator=(const TermStore&) = delete;

  const TermNode& node(Term t) const { return nodes_[t.index]; }
  Sort sort(Term t) const { return nodes_[t.index].sort; }
  const std::string& varName(Term t) const { return names_[nodes_[t.index].name]; }

  Term tru() const { return true_; }
  Term fls() const { return false_; }
  Term boolConst(bool b) const { return b ? true_ : false_; }
  Term intConst(Int128 v);
  Term bvConst(Sort s, int64_t v);
  // A variable: the same name and sort give the same term.
  Term var(const std::string& name, Sort s);
  // A variable with a name not used before in this epoch (`base`, `base'`,
  // ...). Epochs are per function: identical functions then build identical
  // formulas, and the solver's cache answers the second one.
  Term fresh(const std::string& base, Sort s);
  void newEpoch() {
    epochUsed_.clear();
    epochCount_.clear();
  }

  Term mkNot(Term a);
  Term mkAnd(Term a, Term b);
  Term mkAnd(const std::vector<Term>& xs);
  Term mkOr(Term a, Term b);
  Term mkOr(const std::vector<Term>& xs);
  Term mkImplies(Term a, Term b);
  Term mkIte(Term c, Term a, Term b);
  Term mkEq(Term a, Term b);
  Term mkLt(Term a, Term b);
  Term mkLe(Term a, Term b);
  Term mkAdd(Term a, Term b);
  Term mkSub(Term a, Term b);
  Term mkMul(Term a, Term b);
  Term mkNeg(Term a);
  // Rust's `/` and `%`: truncate toward zero (SMT-LIB's are Euclidean).
  Term mkTruncDiv(Term a, Term b);
  Term mkTruncRem(Term a, Term b);
  // SMT-LIB's Euclidean div/mod: equal to Rust's for a >= 0, b > 0 (unsigned).
  Term mkEuclidDiv(Term a, Term b);
  Term mkEuclidMod(Term a, Term b);

  bool isTrue(Term t) const { return t == true_; }
  bool isFalse(Term t) const { return t == false_; }
  bool isConst(Term t) const { return node(t).op == TermOp::IntConst; }
  Int128 constValue(Term t) const { return node(t).value; }

  // t with every variable in `from` replaced by the matching term in `to`.
  Term substitute(Term t, const std::vector<Term>& from, const std::vector<Term>& to);
  // Whether t has more than `limit` distinct subterms (walks at most limit + 1).
  bool largerThan(Term t, size_t limit) const;
  // No product of two non-constants, no division or remainder by one: the
  // term is in linear integer arithmetic.
  bool linear(Term t) const;
  // The variables a term mentions, in first-seen order.
  std::vector<Term> variables(Term t) const;
  // Those of several terms (invalid ones skipped), each once, in first-seen
  // order over the roots in turn.
  std::vector<Term> variables(const std::vector<Term>& roots) const;
  // SMT-LIB text of a term, for --explain-proof.
  std::string print(Term t) const;
  size_t size() const { return nodes_.size(); }

 private:
  // The node with these fields, made if new. The arguments are copied only
  // into a new node: finding an existing one allocates nothing.
  Term make(TermOp op, Sort s, std::initializer_list<Term> args, Int128 value = 0, uint32_t name = 0) {
    return make(op, s, args.begin(), args.size(), value, name);
  }
  Term make(TermOp op, Sort s, const std::vector<Term>& args, Int128 value = 0, uint32_t name = 0) {
    return make(op, s, args.data(), args.size(), value, name);
  }
  Term make(TermOp op, Sort s, const Term* args, size_t count, Int128 value, uint32_t name);
  // References from node() stay valid while make() appends.
  base::StableVector<TermNode> nodes_;
  std::deque<std::string> names_;  // varName() references stay valid while it grows
  std::unordered_map<std::string, uint32_t> nameIndex_;
  // Hash-consing: an open-addressing table (linear probing, at most half
  // full) of node indices with their contents' hashes, so that a probe
  // reads a node only when the hashes agree, and finding an existing node
  // allocates nothing.
  struct Slot {
    uint32_t node = UINT32_MAX;  // UINT32_MAX: empty
    uint32_t hash = 0;
  };
  std::vector<Slot> index_ = std::vector<Slot>(64);
  size_t indexed_ = 0;
  void grow();
  // variables(): visited stamps, one per node.
  mutable std::vector<uint32_t> visitMark_;
  mutable uint32_t visitEpoch_ = 0;
  mutable std::vector<uint8_t> linearMemo_;  // per node: 0 not known yet, 1 linear, 2 not (linear)
  // substitute()'s memo, stamped the same way.
  std::vector<uint32_t> subMark_;
  std::vector<Term> subValue_;
  uint32_t subEpoch_ = 0;
  std::unordered_map<std::string, bool> epochUsed_;
  std::unordered_map<std::string, uint32_t> epochCount_;
  Term true_, false_;
};

}  // namespace vx::smt
