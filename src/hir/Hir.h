// The typed HIR: what the ownership checker and the backends read. Names are
// resolved (locals, functions, builtins, constants, memory spaces), every
// expression has a type, auto-borrows are explicit, and everything lives in
// vectors of one Program indexed by typed IDs.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/StableVector.h"

#include "ast/Ast.h"
#include "base/Id.h"
#include "base/Source.h"
#include "hir/Types.h"
#include "target/Target.h"

namespace vx::hir {

using base::Id;
using base::List;
using base::Span;
using ExprId = Id<struct ExprTag>;
using StmtId = Id<struct StmtTag>;
using BlockId = Id<struct BlockTag>;
using PatId = Id<struct PatTag>;
using LocalId = Id<struct LocalTag>;
using FnId = Id<struct FnTag>;
using ConstId = Id<struct ConstTag>;

// Builtins are rows of src/target/Builtins.def.
using target::Builtin;
const char* builtinName(Builtin b);
Builtin builtinByName(std::string_view name);

using ast::Op;

enum class ExprKind : uint8_t {
  Error,
  Int,       // value
  Float,     // fvalue
  Bool,      // value
  Local,     // local
  Const,     // constant
  MemConst,  // type is Mem
  TopoConst,
  Unit,
  Tuple,     // args
  Call,      // fn, args
  Len,       // a: the Vec (or reference to it)
  Field,     // a, value: tuple index
  Index,     // a[b]
  Unary,     // op a (Neg, Not)
  Borrow,    // &a / &mut a (mut); `autoBorrow` when inserted by the checker
  Deref,     // *a
  Cast,      // a as type
  Binary,    // a op b
};
const char* exprKindName(ExprKind k);

struct Expr {
  ExprKind kind = ExprKind::Error;
  Op op = Op::None;
  bool mut = false;
  bool autoBorrow = false;
  TypeId type;
  Span span;
  ExprId a, b;
  List args;            // ExprIds
  LocalId local;
  FnId fn;
  ConstId constant;
  uint64_t value = 0;
  double fvalue = 0;
};

enum class StmtKind : uint8_t { Let, Assign, For, While, If, Return, Break, Continue, Block, Expr, Parallel };
const char* stmtKindName(StmtKind k);

struct Stmt {
  StmtKind kind = StmtKind::Expr;
  Op op = Op::None;   // Assign: Assign, AddAssign, ...
  Span span;
  PatId pat;          // Let
  ExprId a;           // Let init, Assign place, For lo, While/If cond, Return value, Expr
  ExprId b;           // Assign value, For hi
  LocalId var;        // For
  BlockId body;       // For, While, If then, Block
  StmtId elseStmt;    // If: an If or a Block statement
  // Parallel (`parallel (i, j) in [e0, e1] { body }`): the instance indices
  // (LocalIds, `usize`) and the grid's extents (ExprIds), one each.
  List vars, extents;
};

enum class PatKind : uint8_t { Bind, Tuple };
struct Pat {
  PatKind kind = PatKind::Bind;
  Span span;
  LocalId local;  // Bind
  List elems;     // Tuple: PatIds
};

struct Block {
  Span span;
  Span closeBrace;  // the `}`: where the block's locals die
  List stmts;       // StmtIds
  ExprId tail;
};

struct Local {
  std::string name;
  Span span;       // the binding
  TypeId type;
  bool mut = false;
  bool param = false;
  bool loopVar = false; // a `for`, `pipeline` or `parallel` index: its pattern has no `mut`
  bool extent = false;  // a run-time extent (`m` of `Tensor<f32, [m, k]>`): a hidden `usize` parameter
  // A pipelined copy's ring (docs/pipeline.md): what the user's name denotes
  // in the loop's body, one slot of `type`.
  TypeId slot;
  uint32_t uses = 0;  // reads, for W0001
};

struct Function {
  std::string name;
  Span nameSpan;
  Span span;
  bool isExtern = false;
  bool fromPrelude = false;
  Builtin builtin = Builtin::None;
  Topology topology = Topology::Host;
  bool topologyGiven = false;
  bool topologyUnknown = false;  // written, but no topology (an error said so): no check depends on it  // `on ...` written (for builtins: only callable there)
  // The written parameters, then one hidden `usize` parameter per run-time
  // extent of their types (`Tensor<f32, [m, k]>`), in order of first use:
  // callers pass the extents their arguments' shapes bind (grid.md §1).
  std::vector<LocalId> params;
  std::vector<TypeId> paramTypes;
  uint32_t userParams = 0;  // the written ones
  struct ExtentParam {
    TypeId type;   // the extent type its parameters' shapes name
    LocalId local; // the hidden parameter holding its value
    Span span;     // its first use
    // Every (written parameter, dimension) it sizes, the first one first.
    std::vector<std::pair<uint32_t, uint32_t>> uses;
  };
  std::vector<ExtentParam> extents;
  // Has a `parallel` grid at the top level of its body (a launch: callable
  // only as an entry point).
  bool grid = false;
  TypeId ret;
  // Generic parameters of an extern fn: the type variables its signature
  // mentions, instantiated afresh at each call; `memoryBound` marks `M: Memory`.
  std::vector<std::string> genericNames;
  std::vector<TypeId> genericVars;
  std::vector<bool> memoryBound;
  BlockId body;  // none for extern fns
  // `#[allow(unproved)]` and the like: (lint code, level 0 allow / 1 warn /
  // 2 deny, where), the last one for a lint wins.
  struct LintAttr {
    std::string code;
    uint8_t level;
    Span span;
  };
  std::vector<LintAttr> lints;
  // The ownership checker could not prove it and the user allowed that:
  // the cpu target checks its tokens at run time (set by the driver).
  bool runtimeChecks = false;
  // The level an attribute gives the lint of `code` (or the group
  // "warnings"); -1 if none.
  int lintLevel(std::string_view code, Span* where = nullptr) const {
    int level = -1;
    for (const LintAttr& a : lints)
      if (a.code == code) {
        level = a.level;
        if (where) *where = a.span;
      }
    return level;
  }
};

struct Const {
  std::string name;
  Span span;
  TypeId type;
  ExprId value;
  // An integer constant's value, folded exactly by Sema (SemaConsts.cpp).
  bool folded = false;
  __int128 foldedValue = 0;
};

// Node tables are StableVectors: a reference to a node stays valid while nodes are
// added (lowering and checking hold references across `add`).
struct Program {
  TypeTable types;
  base::StableVector<Function> fns;
  base::StableVector<Const> consts;
  base::StableVector<Local> locals;
  base::StableVector<Expr> exprs;
  base::StableVector<Stmt> stmts;
  base::StableVector<Block> blocks;
  base::StableVector<Pat> pats;
  std::vector<uint32_t> lists;
  // The `block` calls (ExprId indices) whose bounds the ownership checker
  // proved: lowered without a run-time check (filled by the driver).
  std::unordered_set<uint32_t> provedBlocks;

  const Expr& expr(ExprId id) const { return exprs[id.index]; }
  Expr& expr(ExprId id) { return exprs[id.index]; }
  const Stmt& stmt(StmtId id) const { return stmts[id.index]; }
  const Block& block(BlockId id) const { return blocks[id.index]; }
  const Pat& pat(PatId id) const { return pats[id.index]; }
  const Local& local(LocalId id) const { return locals[id.index]; }
  Local& local(LocalId id) { return locals[id.index]; }
  const Function& fn(FnId id) const { return fns[id.index]; }
  uint32_t listAt(List l, uint32_t i) const { return lists[l.begin + i]; }
  ExprId arg(const Expr& e, uint32_t i) const { return ExprId{listAt(e.args, i)}; }

  ExprId add(const Expr& e);
  StmtId add(const Stmt& s);
  BlockId add(const Block& b);
  PatId add(const Pat& p);
  LocalId add(const Local& l);
  List addList(const std::vector<uint32_t>& ids);
};

// Copies of HIR subtrees, for code the checker derives from what the user
// wrote (the pipeline form's short-trip loop and its copies' sources at other
// trips: docs/pipeline.md). Locals bound inside a copied subtree (`let`
// patterns, loop variables) become fresh locals; a read of a local in
// `subst` becomes a copy of that expression (copied without substitution).
struct Cloner {
  Program& p;
  std::unordered_map<uint32_t, LocalId> renamed;
  std::unordered_map<uint32_t, ExprId> subst;

  explicit Cloner(Program& prog) : p(prog) {}
  ExprId expr(ExprId id);
  StmtId stmt(StmtId id);
  BlockId block(BlockId id);
  PatId pat(PatId id);
  // A fresh local like `l`, which copies made from now on read instead.
  LocalId fresh(LocalId l);

 private:
  List exprs(List l);
};

// `vxc check --emit=hir`: user functions with typed, resolved bodies.
std::string printProgram(const Program& p);

}  // namespace vx::hir
