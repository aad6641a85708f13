// Parse tree -> AST for one chunk (one top-level item). Called only on trees
// without syntax errors. Reports the few syntax rules the grammar does not
// encode (chained comparisons, literal ranges, bodies of extern fns) and
// expression trees deeper than the limit.
#pragma once

#include <vector>

#include "VxParser.h"
#include "ast/Ast.h"
#include "diag/Sink.h"

namespace vx::parse {

class AstBuilder {
 public:
  AstBuilder(ast::Module& m, ast::Interner& names, diag::Sink& sink, uint32_t maxExprDepth)
      : m_(m), names_(names), sink_(sink), maxDepth_(maxExprDepth) {}

  // `base` is the chunk's byte offset in the file.
  void buildFile(vxgen::VxParser::FileContext* file, uint32_t base);

 private:
  using P = vxgen::VxParser;

  ast::Range range(antlr4::ParserRuleContext* ctx) const;
  ast::Range range(antlr4::Token* t) const;
  ast::Range range(antlr4::tree::TerminalNode* t) const { return range(t->getSymbol()); }
  ast::NameId name(antlr4::Token* t) { return names_.intern(t->getText()); }
  ast::NameId name(antlr4::tree::TerminalNode* t) { return name(t->getSymbol()); }
  ast::List pushList(const std::vector<uint32_t>& ids);

  void item(P::ItemContext* ctx);
  ast::TypeId type(P::TypeContext* ctx);
  ast::TypeId typePath(P::TypePathContext* ctx);
  ast::PathId path(antlr4::ParserRuleContext* ctx, const std::vector<antlr4::tree::TerminalNode*>& idents,
                   P::GenericArgsContext* generics);
  ast::TypeId genericArg(P::GenericArgContext* ctx);
  ast::TypeId shapeDim(P::ShapeDimContext* ctx, uint32_t depth);
  ast::Meta meta(P::MetaContext* ctx);
  ast::BlockId block(P::BlockContext* ctx);
  ast::StmtId stmt(P::StmtContext* ctx);
  ast::StmtId ifChain(P::IfChainContext* ctx);
  ast::PatId pattern(P::PatternContext* ctx);
  // Builds an expression; `depth` receives the height of its tree.
  ast::ExprId expr(P::ExprContext* ctx, uint32_t& depth);
  ast::ExprId expr(P::ExprContext* ctx) {
    uint32_t d = 0;
    return expr(ctx, d);
  }
  ast::ExprId primary(P::ExprContext* ctx, uint32_t& depth);
  ast::ExprId addExpr(ast::Expr e);
  ast::ExprId intLiteral(antlr4::Token* t, ast::Range r);
  ast::ExprId floatLiteral(antlr4::Token* t, ast::Range r);

  ast::Module& m_;
  ast::Interner& names_;
  diag::Sink& sink_;
  uint32_t maxDepth_;
  uint32_t base_ = 0;
  bool depthReported_ = false;
};

}  // namespace vx::parse
