#include "parse/AstBuilder.h"

#include <type_traits>
#include <typeinfo>

#include "diag/DiagKinds.h"
#include "parse/Literals.h"

namespace vx::parse {

using namespace vx::ast;

namespace {

// A literal as a message quotes it: whole up to 40 characters, else its
// ends (a megabyte of digits is no message).
std::string shortLiteral(const std::string& text) {
  if (text.size() <= 40) return text;
  return text.substr(0, 24) + "..." + text.substr(text.size() - 12);
}
// The labelled-alternative contexts are leaf classes: an exact type test is
// enough, and far cheaper than dynamic_cast (which dominated AST building).
template <typename TPtr, typename B>
TPtr as(B* p) {
  using T = std::remove_pointer_t<TPtr>;
  return p && typeid(*p) == typeid(T) ? static_cast<TPtr>(p) : nullptr;
}
}  // namespace

Range AstBuilder::range(antlr4::ParserRuleContext* ctx) const {
  uint32_t b = base_ + static_cast<uint32_t>(ctx->start->getStartIndex());
  uint32_t e = ctx->stop && ctx->stop->getStopIndex() != INVALID_INDEX &&
                       ctx->stop->getTokenIndex() >= ctx->start->getTokenIndex()
                   ? base_ + static_cast<uint32_t>(ctx->stop->getStopIndex()) + 1
                   : b;
  return Range{b, e};
}

Range AstBuilder::range(antlr4::Token* t) const {
  return Range{base_ + static_cast<uint32_t>(t->getStartIndex()),
               base_ + static_cast<uint32_t>(t->getStopIndex()) + 1};
}

List AstBuilder::pushList(const std::vector<uint32_t>& ids) {
  List l{static_cast<uint32_t>(m_.lists.size()), static_cast<uint32_t>(ids.size())};
  m_.lists.insert(m_.lists.end(), ids.begin(), ids.end());
  return l;
}

ExprId AstBuilder::addExpr(Expr e) {
  m_.exprs.push_back(e);
  return ExprId{static_cast<uint32_t>(m_.exprs.size() - 1)};
}

void AstBuilder::buildFile(P::FileContext* file, uint32_t base) {
  base_ = base;
  depthReported_ = false;
  for (auto* it : file->item()) item(it);
}

void AstBuilder::item(P::ItemContext* ctx) {
  Item it;
  it.range = range(ctx);
  auto attrs = [&](const std::vector<P::AttributeContext*>& list) {
    for (auto* a : list) {
      Attr at;
      at.level = name(a->level);
      at.levelRange = range(a->level);
      for (auto* mt : a->meta()) at.args.push_back(meta(mt));
      at.range = range(a);
      it.attrs.push_back(std::move(at));
    }
  };
  if (auto* c = as<P::ConstItemContext*>(ctx)) {
    attrs(c->attribute());
    it.kind = ItemKind::Const;
    it.name = name(c->name);
    it.nameRange = range(c->name);
    it.constType = type(c->type());
    it.constValue = expr(c->expr());
    m_.items.push_back(std::move(it));
    return;
  }
  auto* f = static_cast<P::FnItemContext*>(ctx);
  it.kind = ItemKind::Fn;
  attrs(f->attribute());
  it.isExtern = f->EXTERN() != nullptr;
  it.name = name(f->name);
  it.nameRange = range(f->name);
  if (auto* g = f->genericParams()) {
    for (auto* gp : g->genericParam()) {
      auto ids = gp->IDENT();
      GenericParam p;
      p.name = name(ids[0]);
      p.range = range(ids[0]);
      if (ids.size() > 1) p.bound = name(ids[1]);
      it.generics.push_back(p);
    }
  }
  if (auto* pl = f->paramList()) {
    for (auto* pc : pl->param()) {
      Param p;
      p.mut = pc->MUT() != nullptr;
      p.name = name(pc->IDENT());
      p.range = range(pc->IDENT());
      p.type = type(pc->type());
      it.params.push_back(p);
    }
  }
  if (f->retType) it.ret = type(f->retType);
  if (f->topology) {
    TypeId t = typePath(f->topology);
    it.topology = m_.type(t).path;
  }
  std::string fnName(names_.str(it.name));
  if (f->body) {
    if (it.isExtern)
      sink_.emit(diag::SyntaxExternWithBody(fnName)
                     .primary(m_.span(range(f->body)), "a body is not allowed here")
                     .help("an `extern fn` is implemented by the compiler; replace the body with `;`"));
    else
      it.body = block(f->body);
  } else if (!it.isExtern) {
    sink_.emit(diag::SyntaxFnWithoutBody(fnName)
                   .primary(m_.span(range(f->SEMI())), "expected `{` here")
                   .help("only `extern fn` declarations end with `;`"));
  }
  m_.items.push_back(std::move(it));
}

TypeId AstBuilder::type(P::TypeContext* ctx) {
  Type t;
  t.range = range(ctx);
  if (auto* r = as<P::RefTypeContext*>(ctx)) {
    t.kind = TypeKind::Ref;
    t.mut = r->MUT() != nullptr;
    t.inner = type(r->type());
  } else if (auto* rr = as<P::RefRefTypeContext*>(ctx)) {
    // `&&T` is `& &T`.
    Type inner;
    inner.kind = TypeKind::Ref;
    inner.mut = rr->MUT() != nullptr;
    inner.range = Range{t.range.begin + 1, t.range.end};
    inner.inner = type(rr->type());
    m_.types.push_back(inner);
    t.kind = TypeKind::Ref;
    t.inner = TypeId{static_cast<uint32_t>(m_.types.size() - 1)};
  } else if (auto* tu = as<P::TupleTypeContext*>(ctx)) {
    t.kind = TypeKind::Tuple;
    std::vector<uint32_t> ids;
    for (auto* e : tu->type()) ids.push_back(type(e).index);
    t.list = pushList(ids);
  } else if (auto* p = as<P::PathTypeContext*>(ctx)) {
    return typePath(p->typePath());
  }
  m_.types.push_back(t);
  return TypeId{static_cast<uint32_t>(m_.types.size() - 1)};
}

TypeId AstBuilder::typePath(P::TypePathContext* ctx) {
  Type t;
  t.kind = TypeKind::Path;
  t.range = range(ctx);
  t.path = path(ctx, ctx->IDENT(), ctx->genericArgs());
  m_.types.push_back(t);
  return TypeId{static_cast<uint32_t>(m_.types.size() - 1)};
}

PathId AstBuilder::path(antlr4::ParserRuleContext* ctx,
                        const std::vector<antlr4::tree::TerminalNode*>& idents,
                        P::GenericArgsContext* generics) {
  Path p;
  p.range = range(ctx);
  std::vector<uint32_t> segs;
  p.rangesBegin = static_cast<uint32_t>(m_.ranges.size());
  for (auto* id : idents) {
    segs.push_back(name(id).index);
    m_.ranges.push_back(range(id));
  }
  p.segments = pushList(segs);
  if (generics) {
    p.hasGenerics = true;
    std::vector<uint32_t> args;
    for (auto* a : generics->genericArg()) args.push_back(genericArg(a).index);
    p.genericArgs = pushList(args);
  }
  m_.paths.push_back(p);
  return PathId{static_cast<uint32_t>(m_.paths.size() - 1)};
}

TypeId AstBuilder::genericArg(P::GenericArgContext* ctx) {
  if (auto* t = as<P::TypeArgContext*>(ctx)) return type(t->type());
  Type t;
  t.range = range(ctx);
  auto intValue = [&](antlr4::tree::TerminalNode* n) {
    ExprId e = intLiteral(n->getSymbol(), range(n));
    return m_.expr(e).kind == ExprKind::IntLit ? m_.ints[m_.expr(e).payload] : 0;
  };
  if (auto* i = as<P::IntArgContext*>(ctx)) {
    t.kind = TypeKind::IntArg;
    t.value = intValue(i->INT());
  } else {
    auto* s = static_cast<P::ShapeArgContext*>(ctx)->shape();
    t.kind = TypeKind::Shape;
    std::vector<uint32_t> dims;
    for (auto* d : s->shapeDim()) dims.push_back(shapeDim(d, 1).index);
    t.list = pushList(dims);
  }
  m_.types.push_back(t);
  return TypeId{static_cast<uint32_t>(m_.types.size() - 1)};
}

namespace {
Op binaryOp(size_t tokenType);
}  // namespace

Meta AstBuilder::meta(P::MetaContext* ctx) {
  Meta mt;
  mt.name = name(ctx->IDENT());
  mt.nameRange = range(ctx->IDENT());
  mt.range = range(ctx);
  if (ctx->STRING()) {
    mt.kind = Meta::Kind::Value;
    mt.value = readStringLiteral(ctx->STRING()->getText());
    mt.valueRange = range(ctx->STRING());
  } else if (ctx->LPAREN()) {
    mt.kind = Meta::Kind::List;
    for (auto* a : ctx->meta()) mt.args.push_back(meta(a));
  }
  return mt;
}

TypeId AstBuilder::shapeDim(P::ShapeDimContext* ctx, uint32_t depth) {
  Type dim;
  dim.range = range(ctx);
  if (depth > maxDepth_) {
    if (!depthReported_)
      sink_.emit(diag::NestingTooDeep("shape dimension", maxDepth_)
                     .primary(m_.span(dim.range), "this dimension is too deep")
                     .help("name parts of it with `const` items"));
    depthReported_ = true;
    m_.types.push_back(dim);
    return TypeId{static_cast<uint32_t>(m_.types.size() - 1)};
  }
  if (auto* p = as<P::DimParenContext*>(ctx)) return shapeDim(p->shapeDim(), depth + 1);
  if (auto* i = as<P::DimIntContext*>(ctx)) {
    ExprId e = intLiteral(i->INT()->getSymbol(), range(i->INT()));
    dim.kind = TypeKind::IntArg;
    dim.value = m_.expr(e).kind == ExprKind::IntLit ? m_.ints[m_.expr(e).payload] : 0;
  } else if (auto* n = as<P::DimNameContext*>(ctx)) {
    dim.kind = TypeKind::Path;
    std::vector<antlr4::tree::TerminalNode*> ids{n->IDENT()};
    dim.path = path(n, ids, nullptr);
  } else {
    auto binary = [&](auto* b) {
      dim.kind = TypeKind::DimBinary;
      dim.op = binaryOp(b->op->getType());
      dim.inner = shapeDim(b->lhs, depth + 1);
      dim.rhs = shapeDim(b->rhs, depth + 1);
    };
    if (auto* b = as<P::DimMulDivContext*>(ctx))
      binary(b);
    else
      binary(static_cast<P::DimAddSubContext*>(ctx));
  }
  m_.types.push_back(dim);
  return TypeId{static_cast<uint32_t>(m_.types.size() - 1)};
}

BlockId AstBuilder::block(P::BlockContext* ctx) {
  Block b;
  b.range = range(ctx);
  std::vector<uint32_t> stmts;
  for (auto* s : ctx->stmt()) stmts.push_back(stmt(s).index);
  b.stmts = pushList(stmts);
  if (ctx->tail) b.tail = expr(ctx->tail);
  m_.blocks.push_back(b);
  return BlockId{static_cast<uint32_t>(m_.blocks.size() - 1)};
}

StmtId AstBuilder::ifChain(P::IfChainContext* ctx) {
  Stmt s;
  s.kind = StmtKind::If;
  s.range = range(ctx);
  s.a = expr(ctx->expr());
  auto blocks = ctx->block();
  s.body = block(blocks[0]);
  if (auto* next = ctx->ifChain()) {
    s.elseStmt = ifChain(next);
  } else if (blocks.size() > 1) {
    Stmt e;
    e.kind = StmtKind::Block;
    e.range = range(blocks[1]);
    e.body = block(blocks[1]);
    m_.stmts.push_back(e);
    s.elseStmt = StmtId{static_cast<uint32_t>(m_.stmts.size() - 1)};
  }
  m_.stmts.push_back(s);
  return StmtId{static_cast<uint32_t>(m_.stmts.size() - 1)};
}

StmtId AstBuilder::stmt(P::StmtContext* ctx) {
  if (auto* c = as<P::IfStmtContext*>(ctx)) return ifChain(c->ifChain());
  Stmt s;
  s.range = range(ctx);
  if (auto* c = as<P::LetStmtContext*>(ctx)) {
    s.kind = StmtKind::Let;
    s.pat = pattern(c->pattern());
    if (c->type()) s.type = type(c->type());
    s.a = expr(c->expr());
  } else if (auto* c = as<P::AssignStmtContext*>(ctx)) {
    s.kind = StmtKind::Assign;
    switch (c->op->getType()) {
      case P::PLUSEQ: s.op = Op::AddAssign; break;
      case P::MINUSEQ: s.op = Op::SubAssign; break;
      case P::STAREQ: s.op = Op::MulAssign; break;
      case P::SLASHEQ: s.op = Op::DivAssign; break;
      case P::PERCENTEQ: s.op = Op::RemAssign; break;
      default: s.op = Op::Assign; break;
    }
    auto es = c->expr();
    s.a = expr(es[0]);
    s.b = expr(es[1]);
  } else if (auto* c = as<P::PipelineStmtContext*>(ctx)) {
    s.kind = StmtKind::For;
    s.var = name(c->var);
    s.varRange = range(c->var);
    s.form = name(c->form);
    s.formRange = range(c->form);
    auto es = c->expr();
    s.a = expr(es[0]);
    s.b = expr(es[1]);
    s.option = name(c->option);
    s.optionRange = range(c->option);
    s.depth = expr(es[2]);
    s.body = block(c->block());
  } else if (auto* c = as<P::ForStmtContext*>(ctx)) {
    s.kind = StmtKind::For;
    s.var = name(c->IDENT());
    s.varRange = range(c->IDENT());
    auto es = c->expr();
    s.a = expr(es[0]);
    s.b = expr(es[1]);
    s.body = block(c->block());
  } else if (auto* c = as<P::ParallelStmtContext*>(ctx)) {
    s.kind = StmtKind::Parallel;
    s.pat = pattern(c->pattern());
    std::vector<uint32_t> ids;
    for (auto* e : c->expr()) ids.push_back(expr(e).index);
    s.list = pushList(ids);
    s.body = block(c->block());
  } else if (auto* c = as<P::WhileStmtContext*>(ctx)) {
    s.kind = StmtKind::While;
    s.a = expr(c->expr());
    s.body = block(c->block());
  } else if (auto* c = as<P::ReturnStmtContext*>(ctx)) {
    s.kind = StmtKind::Return;
    if (c->expr()) s.a = expr(c->expr());
  } else if (as<P::BreakStmtContext*>(ctx)) {
    s.kind = StmtKind::Break;
  } else if (as<P::ContinueStmtContext*>(ctx)) {
    s.kind = StmtKind::Continue;
  } else if (auto* c = as<P::BlockStmtContext*>(ctx)) {
    s.kind = StmtKind::Block;
    s.body = block(c->block());
  } else if (auto* c = as<P::ExprStmtContext*>(ctx)) {
    s.kind = StmtKind::Expr;
    s.a = expr(c->expr());
  } else {
    s.kind = StmtKind::Empty;
  }
  m_.stmts.push_back(s);
  return StmtId{static_cast<uint32_t>(m_.stmts.size() - 1)};
}

PatId AstBuilder::pattern(P::PatternContext* ctx) {
  Pat p;
  p.range = range(ctx);
  if (auto* b = as<P::BindPatternContext*>(ctx)) {
    p.kind = PatKind::Bind;
    p.mut = b->MUT() != nullptr;
    p.name = name(b->IDENT());
  } else {
    p.kind = PatKind::Tuple;
    std::vector<uint32_t> ids;
    for (auto* sub : static_cast<P::TuplePatternContext*>(ctx)->pattern())
      ids.push_back(pattern(sub).index);
    p.list = pushList(ids);
  }
  m_.pats.push_back(p);
  return PatId{static_cast<uint32_t>(m_.pats.size() - 1)};
}

namespace {

// The left operand of a left-recursive alternative, or nullptr.
vxgen::VxParser::ExprContext* leftOperand(vxgen::VxParser::ExprContext* ctx) {
  using P = vxgen::VxParser;
  if (auto* c = as<P::BinaryExprContext*>(ctx)) return c->expr(0);
  if (auto* c = as<P::MethodCallExprContext*>(ctx)) return c->expr();
  if (auto* c = as<P::FieldExprContext*>(ctx)) return c->expr();
  if (auto* c = as<P::CallExprContext*>(ctx)) return c->expr();
  if (auto* c = as<P::IndexExprContext*>(ctx)) return c->expr(0);
  if (auto* c = as<P::CastExprContext*>(ctx)) return c->expr();
  return nullptr;
}

bool isComparison(Op op) {
  return op == Op::Eq || op == Op::Ne || op == Op::Lt || op == Op::Gt || op == Op::Le ||
         op == Op::Ge;
}

Op binaryOp(size_t tokenType) {
  using P = vxgen::VxParser;
  switch (tokenType) {
    case P::STAR: return Op::Mul;
    case P::SLASH: return Op::Div;
    case P::PERCENT: return Op::Rem;
    case P::PLUS: return Op::Add;
    case P::MINUS: return Op::Sub;
    case P::EQEQ: return Op::Eq;
    case P::NE: return Op::Ne;
    case P::LT: return Op::Lt;
    case P::GT: return Op::Gt;
    case P::LE: return Op::Le;
    case P::GE: return Op::Ge;
    case P::ANDAND: return Op::And;
    default: return Op::Or;
  }
}

}  // namespace

// Left-recursive chains (`a + b + c`, `x.f().g()`) are walked iteratively so
// that a long chain costs no stack; the tree's height is still bounded.
ExprId AstBuilder::expr(P::ExprContext* ctx, uint32_t& depth) {
  std::vector<P::ExprContext*> spine;
  P::ExprContext* bottom = ctx;
  while (P::ExprContext* left = leftOperand(bottom)) {
    spine.push_back(bottom);
    bottom = left;
  }
  ExprId cur = primary(bottom, depth);
  for (size_t k = spine.size(); k-- > 0;) {
    P::ExprContext* c = spine[k];
    Expr e;
    e.range = range(c);
    e.lhs = cur;
    uint32_t other = 0;
    if (auto* b = as<P::BinaryExprContext*>(c)) {
      e.kind = ExprKind::Binary;
      e.op = binaryOp(b->op->getType());
      e.rhs = expr(b->expr(1), other);
      if (isComparison(e.op)) {
        auto* r = as<P::BinaryExprContext*>(b->expr(1));
        const Expr& l = m_.expr(cur);
        bool leftCmp = l.kind == ExprKind::Binary && isComparison(l.op) &&
                       as<P::BinaryExprContext*>(b->expr(0));
        bool rightCmp = r && isComparison(binaryOp(r->op->getType()));
        if (leftCmp || rightCmp)
          sink_.emit(diag::SyntaxChainedComparison()
                         .primary(m_.span(e.range), "")
                         .help("split the comparison: `a < b && b < c`"));
      }
    } else if (auto* mc = as<P::MethodCallExprContext*>(c)) {
      e.kind = ExprKind::MethodCall;
      e.name = name(mc->IDENT());
      std::vector<uint32_t> args;
      if (auto* a = mc->args())
        for (auto* x : a->expr()) {
          uint32_t d = 0;
          args.push_back(expr(x, d).index);
          other = std::max(other, d);
        }
      e.list = pushList(args);
    } else if (auto* f = as<P::FieldExprContext*>(c)) {
      e.kind = ExprKind::Field;
      if (f->IDENT()) {
        e.name = name(f->IDENT());
      } else {
        ExprId lit = intLiteral(f->INT()->getSymbol(), range(f->INT()));
        e.payload = m_.expr(lit).kind == ExprKind::IntLit
                        ? static_cast<uint32_t>(m_.ints[m_.expr(lit).payload])
                        : 0;
      }
    } else if (auto* call = as<P::CallExprContext*>(c)) {
      e.kind = ExprKind::Call;
      std::vector<uint32_t> args;
      if (auto* a = call->args())
        for (auto* x : a->expr()) {
          uint32_t d = 0;
          args.push_back(expr(x, d).index);
          other = std::max(other, d);
        }
      e.list = pushList(args);
    } else if (auto* ix = as<P::IndexExprContext*>(c)) {
      e.kind = ExprKind::Index;
      e.rhs = expr(ix->expr(1), other);
    } else if (auto* cast = as<P::CastExprContext*>(c)) {
      e.kind = ExprKind::Cast;
      e.payload = type(cast->type()).index;
    }
    depth = std::max(depth, other) + 1;
    if (depth > maxDepth_) {
      if (!depthReported_)
        sink_.emit(diag::NestingTooDeep("expression", maxDepth_)
                       .primary(m_.span(e.range), "this expression is too deep")
                       .help("split it into several `let` statements"));
      depthReported_ = true;
      depth = 1;
      Expr err;
      err.range = e.range;
      cur = addExpr(err);
      continue;
    }
    cur = addExpr(e);
  }
  return cur;
}

ExprId AstBuilder::primary(P::ExprContext* ctx, uint32_t& depth) {
  Expr e;
  e.range = range(ctx);
  depth = 1;
  uint32_t sub = 0;
  if (auto* c = as<P::IntExprContext*>(ctx)) return intLiteral(c->INT()->getSymbol(), e.range);
  if (auto* c = as<P::FloatExprContext*>(ctx))
    return floatLiteral(c->FLOAT()->getSymbol(), e.range);
  if (auto* c = as<P::BoolExprContext*>(ctx)) {
    e.kind = ExprKind::BoolLit;
    e.payload = c->TRUE() != nullptr;
  } else if (auto* c = as<P::PathExprContext*>(ctx)) {
    e.kind = ExprKind::Path;
    e.payload = path(c, c->IDENT(), c->genericArgs()).index;
  } else if (as<P::UnitExprContext*>(ctx)) {
    e.kind = ExprKind::Unit;
  } else if (auto* c = as<P::ParenExprContext*>(ctx)) {
    ExprId inner = expr(c->expr(), depth);
    return inner;
  } else if (auto* c = as<P::TupleExprContext*>(ctx)) {
    e.kind = ExprKind::Tuple;
    std::vector<uint32_t> elems;
    for (auto* x : c->expr()) {
      uint32_t d = 0;
      elems.push_back(expr(x, d).index);
      sub = std::max(sub, d);
    }
    e.list = pushList(elems);
  } else if (auto* c = as<P::UnaryExprContext*>(ctx)) {
    e.kind = ExprKind::Unary;
    e.op = c->op->getType() == P::MINUS ? Op::Neg : c->op->getType() == P::BANG ? Op::Not : Op::Deref;
    e.lhs = expr(c->expr(), sub);
  } else if (auto* c = as<P::BorrowExprContext*>(ctx)) {
    e.kind = ExprKind::Borrow;
    e.mut = c->MUT() != nullptr;
    e.lhs = expr(c->expr(), sub);
  } else if (auto* c = as<P::BorrowBorrowExprContext*>(ctx)) {
    // `&&x` is `& &x`.
    Expr inner;
    inner.kind = ExprKind::Borrow;
    inner.mut = c->MUT() != nullptr;
    inner.range = Range{e.range.begin + 1, e.range.end};
    inner.lhs = expr(c->expr(), sub);
    ++sub;
    e.kind = ExprKind::Borrow;
    e.lhs = addExpr(inner);
  }
  depth = sub + 1;
  return addExpr(e);
}

ExprId AstBuilder::intLiteral(antlr4::Token* t, Range r) {
  Expr e;
  e.range = r;
  uint64_t v = 0;
  LiteralProblem why = LiteralProblem::None;
  if (!readIntLiteral(t->getText(), v, e.suffix, &why)) {
    if (why == LiteralProblem::NoDigits)
      sink_.emit(diag::SyntaxLiteralNoDigits("integer", shortLiteral(t->getText()))
                     .primary(m_.span(r), "no digits after the prefix")
                     .help("write at least one digit: `0x1f`, `0b101`"));
    else
      sink_.emit(diag::SyntaxBadLiteral("integer", shortLiteral(t->getText()))
                     .primary(m_.span(r), "does not fit in 64 bits")
                     .note("the largest integer literal is 18446744073709551615"));
    e.kind = ExprKind::Error;
    return addExpr(e);
  }
  e.kind = ExprKind::IntLit;
  e.payload = static_cast<uint32_t>(m_.ints.size());
  m_.ints.push_back(v);
  return addExpr(e);
}

ExprId AstBuilder::floatLiteral(antlr4::Token* t, Range r) {
  Expr e;
  e.range = r;
  double v = 0;
  LiteralProblem why = LiteralProblem::None;
  if (!readFloatLiteral(t->getText(), v, e.suffix, &why)) {
    if (why == LiteralProblem::EmptyExponent)
      sink_.emit(diag::SyntaxLiteralNoDigits("float", shortLiteral(t->getText()))
                     .primary(m_.span(r), "no digits in the exponent")
                     .help("write at least one digit after `e`: `1e3`, `2.5e-4`"));
    else
      sink_.emit(diag::SyntaxBadLiteral("float", shortLiteral(t->getText()))
                     .primary(m_.span(r), "does not fit in a 64-bit float"));
    e.kind = ExprKind::Error;
    return addExpr(e);
  }
  e.kind = ExprKind::FloatLit;
  e.payload = static_cast<uint32_t>(m_.floats.size());
  m_.floats.push_back(v);
  return addExpr(e);
}

}  // namespace vx::parse
