// The checker's core IR: what the ownership analysis runs on, as rustc's
// borrow checker runs on MIR rather than on HIR (docs/checker.md, "The core
// IR"). A function body is a control-flow graph of basic blocks whose
// statements are few and explicit: assignments of one right-hand side to a
// place, borrows of places, calls whose operands are already evaluated,
// drops at the end of a value's life, and branches. Every sub-expression
// gets a temporary, in evaluation order; `&&` and `||` are branches; tuples
// and references are places with projections (field, index, deref).
//
// lowerBody (Lower*.cpp) is the one place that knows the forms of HIR
// expressions: the analysis handles only the kinds of CirKinds.def, so an
// expression form cannot be half-handled by it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/Id.h"
#include "base/Source.h"
#include "hir/Hir.h"

namespace vx::check::cir {

using LocalId = base::Id<struct LocalTag>;
using BlockId = base::Id<struct BlockTag>;
using LoopId = base::Id<struct LoopTag>;

enum class StmtKind : uint8_t {
#define CIR_STMT(K, N) K,
#include "check/cir/CirKinds.def"
};
enum class RvKind : uint8_t {
#define CIR_RVALUE(K, N) K,
#include "check/cir/CirKinds.def"
};
enum class TermKind : uint8_t {
#define CIR_TERM(K, N) K,
#include "check/cir/CirKinds.def"
};
enum class ProjKind : uint8_t {
#define CIR_PROJ(K, N) K,
#include "check/cir/CirKinds.def"
};
const char* name(StmtKind k);
const char* name(RvKind k);
const char* name(TermKind k);
const char* name(ProjKind k);

// Why a value's life ends at a Drop (the wording of E6003 and E6006).
enum class DropHow : uint8_t { ScopeEnd, Overwritten, Temporary, EarlyExit, Returned };

struct Local {
  std::string name;   // as written; "" for a temporary (printed `_N`)
  hir::TypeId type;
  base::Span span;    // the binding, or the expression a temporary holds
  base::Span written; // a temporary holding a borrow: the borrow as written (`&mut x`), where its loan is shown
  hir::LocalId hir;   // the source local; none for temporaries and the return place
  bool temp = false;
  bool param = false;
  bool mut = false;
  uint32_t scope = 0;  // the source block that binds it (footprint hand-overs)
};

struct Proj {
  ProjKind kind = ProjKind::Field;
  uint32_t field = 0;  // Field: the tuple index
  LocalId index;       // Index: the local holding the index; Block: the first row
  LocalId index2;      // Block: the first column
  uint64_t rows = 0, cols = 0;  // Block: its static shape
  hir::ExprId origin;  // Block: the `block` call (its bounds' proof)
  hir::TypeId type;    // the type of the place after this projection
  base::Span span;     // the place up to here, as written
};

// A local and its projections (a range of Body::projs).
struct Place {
  LocalId local;
  base::List proj;
  base::Span span;  // as written
  bool valid() const { return local.valid(); }
};

enum class OperandKind : uint8_t { Copy, Move, Const };
struct Operand {
  OperandKind kind = OperandKind::Const;
  Place place;          // Copy, Move
  hir::ExprId constant; // Const: a literal, a `const` item, `Memory::X`, `()`
  base::Span span;      // the expression as written
};

struct Stmt {
  StmtKind kind = StmtKind::StmtEnd;
  base::Span span;
  // Assign: dest = rvalue. Drop: dest is the place whose value ends.
  Place dest;
  RvKind rv = RvKind::Use;
  ast::Op op = ast::Op::None;  // Binary, Unary
  bool mut = false;            // Borrow
  Operand a, b;                // Use, Unary, Cast: a; Binary: a op b
  Place place;                 // Borrow, Len
  base::List args;             // Tuple, Call: a range of Body::operands
  hir::FnId fn;                // Call
  hir::ExprId origin;          // Call: the source call (a copy's site)
  hir::TypeId type;            // the rvalue's type (Cast: the target type)
  // StorageLive, StorageDead: the local. Drop: why.
  LocalId local;
  DropHow how = DropHow::ScopeEnd;
  uint32_t grid = 0;           // GridBegin, GridEnd: its index in Body::grids
};

// A `parallel` grid: its instances' indices and the extents they range over.
struct Grid {
  std::vector<LocalId> vars;
  std::vector<Operand> extents;  // evaluated once, before the instances
  hir::StmtId stmt;
  base::Span span;               // the grid's head
};

struct Terminator {
  TermKind kind = TermKind::Unreachable;
  BlockId target;     // Goto; Branch: if true; ForLoop: the body
  BlockId otherwise;  // Branch: if false; ForLoop: the exit
  Operand cond;       // Branch
  LoopId loop;        // ForLoop
  base::Span span;
};

struct Block {
  std::vector<Stmt> stmts;
  Terminator term;
  LoopId loop;  // the innermost loop containing the block
};

enum class LoopKind : uint8_t { For, While };
struct Loop {
  LoopKind kind = LoopKind::For;
  BlockId header;   // For: its terminator is ForLoop; While: evaluates the condition
  BlockId exit;     // where the loop is left (condition false, `break`)
  LoopId parent;
  LocalId var;      // For: the index, set at every entry of the body
  Operand lo, hi;   // For: the range, evaluated once before the loop
  hir::StmtId stmt;
  base::Span span;
};

struct Body {
  hir::FnId fn;
  std::vector<Local> locals;  // parameters first, then the return place
  std::vector<LocalId> params;
  LocalId ret;                // the return place
  std::vector<Block> blocks;  // blocks[0] is the entry
  std::vector<Loop> loops;
  std::vector<Grid> grids;
  std::vector<Proj> projs;
  std::vector<Operand> operands;

  const Local& local(LocalId l) const { return locals[l.index]; }
  const Block& block(BlockId b) const { return blocks[b.index]; }
  const Loop& loop(LoopId l) const { return loops[l.index]; }
  const Proj& proj(const Place& p, uint32_t i) const { return projs[p.proj.begin + i]; }
  const Operand& arg(const Stmt& s, uint32_t i) const { return operands[s.args.begin + i]; }
  // Is block `b` inside loop `l` (or one nested in it)?
  bool inLoop(BlockId b, LoopId l) const;
  // The type of a place (after all its projections).
  hir::TypeId typeOf(const Place& p) const;
};

// Lowers the body of `fn` (a user function with a body).
Body lowerBody(const hir::Program& prog, const base::SourceMap& sources, hir::FnId fn);

// `vxc check --emit=checker-ir`: every user function's body.
std::string printBody(const hir::Program& prog, const Body& body);

}  // namespace vx::check::cir
