// The fast path's parser (FastParser.h), shared by FastParser.cpp (items,
// types, blocks, statements, patterns) and FastParserExpr.cpp (expressions).
// Private to src/parse.
#pragma once

#include <string_view>
#include <vector>

#include "VxLexer.h"
#include "parse/FastParser.h"
#include "parse/Literals.h"

namespace vx::parse::fast {

using namespace vx::ast;
using L = vxgen::VxLexer;

// Thrown to give the chunk back to the ANTLR path.
struct GiveBack {};

// Recursion bound of the fast path. Inputs that nest deeper go to the ANTLR
// path, whose own bound (E0003) was checked before parsing.
constexpr uint32_t kMaxRecursion = 4096;

class Parser {
 public:
  Parser(std::string_view text, const std::vector<RawToken>& toks, uint32_t base, Module& m,
         Interner& names, uint32_t maxDepth)
      : text_(text), toks_(toks), base_(base), m_(m), names_(names), maxDepth_(maxDepth) {}

  void file() {
    while (la() != RawToken::Eof) item();
  }

 private:
  // An expression as the parse tree has it: its AST node, where its context
  // begins (a parenthesized operand begins at `(`, its node inside), and the
  // height AstBuilder computes for it.
  struct Ex {
    ExprId id;
    uint32_t begin;
    uint32_t depth;
  };

  struct Guard {
    explicit Guard(uint32_t& d) : d_(d) {
      if (++d_ > kMaxRecursion) throw GiveBack{};
    }
    ~Guard() { --d_; }
    uint32_t& d_;
  };

  // --- tokens ---
  uint32_t la(size_t k = 0) const {
    size_t i = pos_ + k;
    return i < toks_.size() ? toks_[i].type : RawToken::Eof;
  }
  const RawToken& expect(uint32_t type) {
    if (la() != type) throw GiveBack{};
    return toks_[pos_++];
  }
  bool accept(uint32_t type) {
    if (la() != type) return false;
    ++pos_;
    return true;
  }
  // After `for k in`: `name(lo..hi, ...)`, the pipeline form (grammar's
  // pipelineStmt), rather than a range whose bound is a call: a `..` inside
  // the parentheses, outside any nested ones.
  bool pipelineForm() const {
    if (la() != L::IDENT || la(1) != L::LPAREN) return false;
    int depth = 0;
    for (size_t k = 1;; ++k) {
      uint32_t t = la(k);
      if (t == RawToken::Eof || t == L::LBRACE) return false;
      if (t == L::LPAREN || t == L::LBRACK) ++depth;
      else if (t == L::RPAREN || t == L::RBRACK) {
        if (--depth == 0) return false;
      } else if (t == L::DOTDOT && depth == 1) return true;
    }
  }
  uint32_t begin() const { return base_ + toks_[pos_].start; }
  // The end of the last consumed token: where the current context stops.
  uint32_t prevEnd() const { return base_ + toks_[pos_ - 1].end; }
  Range range(const RawToken& t) const { return Range{base_ + t.start, base_ + t.end}; }
  std::string_view text(const RawToken& t) const { return text_.substr(t.start, t.end - t.start); }
  NameId name(const RawToken& t) { return names_.intern(text(t)); }

  List pushList(const std::vector<uint32_t>& ids) {
    List l{static_cast<uint32_t>(m_.lists.size()), static_cast<uint32_t>(ids.size())};
    m_.lists.insert(m_.lists.end(), ids.begin(), ids.end());
    return l;
  }
  ExprId addExpr(const Expr& e) {
    m_.exprs.push_back(e);
    return ExprId{static_cast<uint32_t>(m_.exprs.size() - 1)};
  }
  TypeId addType(const Type& t) {
    m_.types.push_back(t);
    return TypeId{static_cast<uint32_t>(m_.types.size() - 1)};
  }
  StmtId addStmt(const Stmt& s) {
    m_.stmts.push_back(s);
    return StmtId{static_cast<uint32_t>(m_.stmts.size() - 1)};
  }

  // --- items ---
  // `word`, `name = "value"` or `name(meta, ...)` (grammar/VxParser.g4's `meta`).
  Meta meta();

  void item();

  // --- types ---
  // `castTop`: the type of an `as`, outside brackets. There `T<` may begin a
  // comparison instead of generic arguments, which only ANTLR's full-context
  // prediction decides: such a chunk goes to the ANTLR path.
  TypeId type(bool castTop);

  TypeId typePath(bool castTop);

  // `<` genericArg (`,` genericArg)* `,`? `>`
  List genericArgs();

  TypeId genericArg();

  // A shape dimension by precedence climbing: `*`, `/`, `%` bind tighter than
  // `+` and `-`, all left-associative, as grammar/VxParser.g4's `shapeDim`.
  TypeId shapeDim(int minPrec);

  TypeId dimAtom();

  // --- blocks and statements ---
  BlockId block();

  // `if` expr block (`else` (ifChain | block))?
  StmtId ifChain();

  PatId pattern();

  // --- expressions ---
  // `expr(minPrec)`: a primary, then every postfix and binary operator whose
  // level is at least `minPrec`.
  Ex expr(int minPrec);

  // (expr (`,` expr)* `,`?)? then `close`; `depth` receives the deepest.
  List args(uint32_t close, uint32_t& depth);

  Ex primary();

  // --- literals (Literals.h); out of range goes to AstBuilder, which reports ---
  uint64_t intValue(const RawToken& tok, LitSuffix* suffix = nullptr) {
    uint64_t v = 0;
    LitSuffix ignored = LitSuffix::None;
    if (!readIntLiteral(text(tok), v, suffix ? *suffix : ignored)) throw GiveBack{};
    return v;
  }

  double floatValue(const RawToken& tok, LitSuffix& suffix) {
    double v = 0;
    if (!readFloatLiteral(text(tok), v, suffix)) throw GiveBack{};
    return v;
  }

  std::string_view text_;
  const std::vector<RawToken>& toks_;
  size_t pos_ = 0;
  uint32_t base_;
  Module& m_;
  Interner& names_;
  uint32_t maxDepth_;
  uint32_t recursion_ = 0;
};

}  // namespace vx::parse::fast
