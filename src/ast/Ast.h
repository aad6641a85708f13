// The AST: what the user wrote, with spans, stored in vectors indexed by typed
// 32-bit IDs (no pointer graph). Variable-length children live in one shared
// `lists` vector as (begin, count) ranges. Identifiers are interned.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/StableVector.h"

#include "base/Id.h"
#include "base/Source.h"

namespace vx::ast {

using base::Id;
using base::List;
using ExprId = Id<struct ExprTag>;
using StmtId = Id<struct StmtTag>;
using TypeId = Id<struct TypeTag>;
using PatId = Id<struct PatTag>;
using BlockId = Id<struct BlockTag>;
using PathId = Id<struct PathTag>;
using ItemId = Id<struct ItemTag>;
using NameId = Id<struct NameTag>;

enum class ExprKind : uint8_t {
#define AST_EXPR(K) K,
#include "ast/AstKinds.def"
#undef AST_EXPR
};
enum class StmtKind : uint8_t {
#define AST_STMT(K) K,
#include "ast/AstKinds.def"
#undef AST_STMT
};
enum class TypeKind : uint8_t {
#define AST_TYPE(K) K,
#include "ast/AstKinds.def"
#undef AST_TYPE
};
enum class Op : uint8_t {
#define AST_OP(K, S) K,
#include "ast/AstKinds.def"
#undef AST_OP
};
const char* exprKindName(ExprKind k);
const char* stmtKindName(StmtKind k);
const char* typeKindName(TypeKind k);
const char* opSpelling(Op op);

// A literal's type suffix: `1usize`, `2.0f32`.
enum class LitSuffix : uint8_t { None, I32, I64, U32, U64, Usize, F16, Bf16, F32, F64 };
const char* suffixName(LitSuffix s);

// Byte range in the module's file.
struct Range {
  uint32_t begin = 0;
  uint32_t end = 0;
};

// `a::b::c` with optional generic arguments (types or `<..>` turbofish).
struct Path {
  Range range;
  List segments;         // NameIds
  uint32_t rangesBegin = 0;  // segment i's range is Module::ranges[rangesBegin + i]
  List genericArgs;      // TypeIds; `hasGenerics` tells `f::<>` from `f`
  bool hasGenerics = false;
};

struct Expr {
  ExprKind kind = ExprKind::Error;
  Op op = Op::None;   // Unary, Binary
  bool mut = false;   // Borrow
  LitSuffix suffix = LitSuffix::None;  // IntLit, FloatLit
  Range range;
  ExprId lhs;         // operand, callee, receiver, base
  ExprId rhs;         // right operand, index
  List list;          // call args, tuple elements (ExprIds)
  NameId name;        // method or field name
  uint32_t payload = 0;  // PathId (Path), TypeId (Cast), literal index (Int/Float), bool value, tuple field
};

struct Type {
  TypeKind kind = TypeKind::Error;
  bool mut = false;  // Ref
  Range range;
  Op op = Op::None;  // DimBinary
  TypeId inner;      // Ref; DimBinary's left operand
  TypeId rhs;        // DimBinary's right operand
  List list;         // Tuple elements, Shape dims (TypeIds of IntArg, Path or DimBinary)
  PathId path;       // Path
  uint64_t value = 0;  // IntArg
};

enum class PatKind : uint8_t { Bind, Tuple };
struct Pat {
  PatKind kind = PatKind::Bind;
  bool mut = false;
  Range range;
  NameId name;
  List list;  // PatIds
};

struct Block {
  Range range;
  List stmts;   // StmtIds
  ExprId tail;  // trailing expression without `;`
};

struct Stmt {
  StmtKind kind = StmtKind::Empty;
  Op op = Op::None;  // Assign
  Range range;
  PatId pat;         // Let, Parallel (the instance indices)
  TypeId type;       // Let annotation
  ExprId a;          // Let init, Assign lhs, For lo, While/If cond, Return value, Expr
  ExprId b;          // Assign rhs, For hi
  NameId var;        // For variable
  Range varRange;
  BlockId body;      // For, While, If then, Block
  StmtId elseStmt;   // If: an If or Block statement
  List list;         // Parallel: the extents (ExprIds)
  // For over `form(lo..hi, option = depth)` (`pipeline(0..n, depth = 2)`):
  // the form's and the option's names; `depth` is invalid for a plain range.
  ExprId depth;
  NameId form, option;
  Range formRange, optionRange;
};

struct GenericParam {
  NameId name;
  Range range;
  NameId bound;  // `M: Memory`
};
struct Param {
  bool mut = false;
  NameId name;
  Range range;  // the name
  TypeId type;
};

enum class ItemKind : uint8_t { Fn, Const };
// `#[level(name, ...)]` before a `fn`.
// One argument of an attribute, as Rust's meta items: a word (`unproved`),
// a name with a string (`target = "b200"`) or a name with a list
// (`not(target = "cpu")`).
struct Meta {
  enum class Kind : uint8_t { Word, Value, List };
  Kind kind = Kind::Word;
  NameId name;
  Range nameRange;
  Range range;
  std::string value;  // Value: the string's contents, escapes decoded
  Range valueRange;
  std::vector<Meta> args;  // List
};

struct Attr {
  NameId level;
  Range levelRange;
  std::vector<Meta> args;
  Range range;
};

struct Item {
  ItemKind kind = ItemKind::Fn;
  std::vector<Attr> attrs;
  bool isExtern = false;
  NameId name;
  Range nameRange;
  Range range;
  std::vector<GenericParam> generics;
  std::vector<Param> params;
  TypeId ret;       // none: `void`
  PathId topology;  // none: `Topology::Host`
  BlockId body;     // none for extern fn
  TypeId constType; // Const
  ExprId constValue;
};

// One parsed file. Node tables are StableVectors: a reference to a node stays
// valid while the parser appends more.
struct Module {
  base::FileId file;
  base::StableVector<Item> items;
  base::StableVector<Expr> exprs;
  base::StableVector<Stmt> stmts;
  base::StableVector<Type> types;
  base::StableVector<Pat> pats;
  base::StableVector<Block> blocks;
  base::StableVector<Path> paths;
  std::vector<uint32_t> lists;
  std::vector<Range> ranges;
  std::vector<uint64_t> ints;
  std::vector<double> floats;

  const Expr& expr(ExprId id) const { return exprs[id.index]; }
  const Stmt& stmt(StmtId id) const { return stmts[id.index]; }
  const Type& type(TypeId id) const { return types[id.index]; }
  const Pat& pat(PatId id) const { return pats[id.index]; }
  const Block& block(BlockId id) const { return blocks[id.index]; }
  const Path& path(PathId id) const { return paths[id.index]; }
  uint32_t listAt(List l, uint32_t i) const { return lists[l.begin + i]; }
  base::Span span(Range r) const { return base::Span{file, r.begin, r.end}; }
};

// Identifier interning, shared by every module of a compilation.
class Interner {
 public:
  Interner() = default;
  // The index holds views of the strings: a copy would point into the
  // original. A move keeps the deque's storage, and so the views.
  Interner(const Interner&) = delete;
  Interner& operator=(const Interner&) = delete;
  Interner(Interner&&) = default;
  Interner& operator=(Interner&&) = default;
  NameId intern(std::string_view s);
  std::string_view str(NameId id) const { return names_[id.index]; }

 private:
  // A deque keeps each string where it is, so the index can hold views.
  std::deque<std::string> names_;
  std::unordered_map<std::string_view, uint32_t> index_;
};

// Writes the module as an indented S-expression with byte ranges, for golden
// tests (`vxc check --emit=ast`).
std::string printModule(const Module& m, const Interner& names);

// Every node, name, literal and byte range of the module in tree order: what
// the fast and the ANTLR parser must agree on (tests, fuzzing).
std::string dumpModule(const Module& m, const Interner& names);

}  // namespace vx::ast
