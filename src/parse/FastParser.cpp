// The fast path of parsing (see FastParser.h). Each function mirrors one rule
// of grammar/VxParser.g4 and builds what AstBuilder builds from that rule's
// parse tree; ranges are those of the rule's context (first token to last
// token). Expressions are parsed by precedence climbing with the levels ANTLR
// gives the left-recursive `expr` rule: postfix 17-20, prefix operands 16
// (`-`, `!`, `*`), 15 (`&`), 14 (`&&`), `as` 13, `* / %` 12, `+ -` 11,
// comparisons 10, `&&` 9, `||` 8. The parser class is in FastParserImpl.h, the
// expressions in FastParserExpr.cpp.
#include "parse/FastParserImpl.h"

namespace vx::parse {

using namespace vx::ast;

namespace fast {

// `word`, `name = "value"` or `name(meta, ...)` (grammar/VxParser.g4's `meta`).
Meta Parser::meta() {
  Guard g(recursion_);
  Meta mt;
  uint32_t b = begin();
  const RawToken& n = expect(L::IDENT);
  mt.name = name(n);
  mt.nameRange = range(n);
  if (accept(L::ASSIGN)) {
    const RawToken& v = expect(L::STRING);
    mt.kind = Meta::Kind::Value;
    mt.value = readStringLiteral(text(v));
    mt.valueRange = range(v);
  } else if (accept(L::LPAREN)) {
    mt.kind = Meta::Kind::List;
    while (la() != L::RPAREN) {
      mt.args.push_back(meta());
      if (!accept(L::COMMA)) break;
    }
    expect(L::RPAREN);
  }
  mt.range = Range{b, prevEnd()};
  return mt;
}

void Parser::item() {
  Item it;
  uint32_t b = begin();
  while (la() == L::HASH) {
    Attr at;
    uint32_t ab = begin();
    expect(L::HASH);
    expect(L::LBRACK);
    const RawToken& lv = expect(L::IDENT);
    at.level = name(lv);
    at.levelRange = range(lv);
    expect(L::LPAREN);
    do {
      if (la() == L::RPAREN && !at.args.empty()) break;
      at.args.push_back(meta());
    } while (accept(L::COMMA));
    expect(L::RPAREN);
    expect(L::RBRACK);
    at.range = Range{ab, prevEnd()};
    it.attrs.push_back(std::move(at));
  }
  if (accept(L::CONST)) {
    it.kind = ItemKind::Const;
    const RawToken& n = expect(L::IDENT);
    it.name = name(n);
    it.nameRange = range(n);
    expect(L::COLON);
    it.constType = type(false);
    expect(L::ASSIGN);
    it.constValue = expr(0).id;
    expect(L::SEMI);
    it.range = Range{b, prevEnd()};
    m_.items.push_back(std::move(it));
    return;
  }
  it.kind = ItemKind::Fn;
  it.isExtern = accept(L::EXTERN);
  expect(L::FN);
  const RawToken& n = expect(L::IDENT);
  it.name = name(n);
  it.nameRange = range(n);
  if (accept(L::LT)) {
    do {
      if (la() == L::GT) break;
      const RawToken& g = expect(L::IDENT);
      GenericParam p;
      p.name = name(g);
      p.range = range(g);
      if (accept(L::COLON)) p.bound = name(expect(L::IDENT));
      it.generics.push_back(p);
    } while (accept(L::COMMA));
    if (it.generics.empty()) throw GiveBack{};
    expect(L::GT);
  }
  expect(L::LPAREN);
  if (la() != L::RPAREN) {
    do {
      if (la() == L::RPAREN && !it.params.empty()) break;
      Param p;
      p.mut = accept(L::MUT);
      const RawToken& pn = expect(L::IDENT);
      p.name = name(pn);
      p.range = range(pn);
      expect(L::COLON);
      p.type = type(false);
      it.params.push_back(p);
    } while (accept(L::COMMA));
  }
  expect(L::RPAREN);
  if (accept(L::ARROW)) it.ret = type(false);
  if (accept(L::ON)) it.topology = m_.type(typePath(false)).path;
  // An extern fn with a body, or a fn without one, is reported by AstBuilder.
  if (it.isExtern) {
    expect(L::SEMI);
  } else {
    it.body = block();
  }
  it.range = Range{b, prevEnd()};
  m_.items.push_back(std::move(it));
}

// `castTop`: the type of an `as`, outside brackets. There `T<` may begin a
// comparison instead of generic arguments, which only ANTLR's full-context
// prediction decides: such a chunk goes to the ANTLR path.
TypeId Parser::type(bool castTop) {
  Guard g(recursion_);
  uint32_t b = begin();
  Type t;
  switch (la()) {
    case L::AMP: {
      ++pos_;
      t.kind = TypeKind::Ref;
      t.mut = accept(L::MUT);
      t.inner = type(castTop);
      t.range = Range{b, prevEnd()};
      return addType(t);
    }
    case L::ANDAND: {
      // `&&T` is `& &T`.
      ++pos_;
      Type inner;
      inner.kind = TypeKind::Ref;
      inner.mut = accept(L::MUT);
      inner.inner = type(castTop);
      inner.range = Range{b + 1, prevEnd()};
      t.kind = TypeKind::Ref;
      t.inner = addType(inner);
      t.range = Range{b, prevEnd()};
      return addType(t);
    }
    case L::LPAREN: {
      ++pos_;
      t.kind = TypeKind::Tuple;
      std::vector<uint32_t> ids;
      while (la() != L::RPAREN) {
        ids.push_back(type(false).index);
        if (!accept(L::COMMA)) break;
      }
      expect(L::RPAREN);
      t.list = pushList(ids);
      t.range = Range{b, prevEnd()};
      return addType(t);
    }
    case L::IDENT:
      return typePath(castTop);
    default:
      throw GiveBack{};
  }
}

TypeId Parser::typePath(bool castTop) {
  uint32_t b = begin();
  std::vector<uint32_t> segs;
  uint32_t rangesBegin = static_cast<uint32_t>(m_.ranges.size());
  do {
    const RawToken& id = expect(L::IDENT);
    segs.push_back(name(id).index);
    m_.ranges.push_back(range(id));
  } while (accept(L::PATHSEP));
  Path p;
  p.rangesBegin = rangesBegin;
  p.segments = pushList(segs);
  if (la() == L::LT) {
    if (castTop) throw GiveBack{};
    p.hasGenerics = true;
    p.genericArgs = genericArgs();
  }
  p.range = Range{b, prevEnd()};
  m_.paths.push_back(p);
  Type t;
  t.kind = TypeKind::Path;
  t.range = p.range;
  t.path = PathId{static_cast<uint32_t>(m_.paths.size() - 1)};
  return addType(t);
}

// `<` genericArg (`,` genericArg)* `,`? `>`
List Parser::genericArgs() {
  Guard g(recursion_);
  expect(L::LT);
  std::vector<uint32_t> args;
  do {
    if (la() == L::GT && !args.empty()) break;
    args.push_back(genericArg().index);
  } while (accept(L::COMMA));
  expect(L::GT);
  return pushList(args);
}

TypeId Parser::genericArg() {
  Type t;
  uint32_t b = begin();
  if (la() == L::INT) {
    const RawToken& tok = toks_[pos_++];
    t.kind = TypeKind::IntArg;
    t.value = intValue(tok);
    t.range = range(tok);
    return addType(t);
  }
  if (la() != L::LBRACK) return type(false);
  ++pos_;
  std::vector<uint32_t> dims;
  while (la() != L::RBRACK) {
    dims.push_back(shapeDim(1).index);
    if (!accept(L::COMMA)) break;
  }
  expect(L::RBRACK);
  t.kind = TypeKind::Shape;
  t.list = pushList(dims);
  t.range = Range{b, prevEnd()};
  return addType(t);
}

// A shape dimension by precedence climbing: `*`, `/`, `%` bind tighter than
// `+` and `-`, all left-associative, as grammar/VxParser.g4's `shapeDim`.
TypeId Parser::shapeDim(int minPrec) {
  Guard g(recursion_);
  uint32_t b = begin();
  TypeId lhs = dimAtom();
  for (;;) {
    const uint32_t t = la();
    const Op op = t == L::STAR ? Op::Mul : t == L::SLASH ? Op::Div : t == L::PERCENT ? Op::Rem
                  : t == L::PLUS ? Op::Add : t == L::MINUS ? Op::Sub : Op::None;
    const int prec = op == Op::Add || op == Op::Sub ? 1 : 2;
    if (op == Op::None || prec < minPrec) return lhs;
    ++pos_;
    Type dim;
    dim.kind = TypeKind::DimBinary;
    dim.op = op;
    dim.inner = lhs;
    dim.rhs = shapeDim(prec + 1);
    dim.range = Range{b, prevEnd()};
    lhs = addType(dim);
  }
}

TypeId Parser::dimAtom() {
  const RawToken& d = toks_[pos_];
  Type dim;
  dim.range = range(d);
  if (d.type == L::LPAREN) {
    ++pos_;
    TypeId inner = shapeDim(1);
    expect(L::RPAREN);
    return inner;
  }
  if (d.type == L::INT) {
    ++pos_;
    dim.kind = TypeKind::IntArg;
    dim.value = intValue(d);
  } else if (d.type == L::IDENT) {
    ++pos_;
    dim.kind = TypeKind::Path;
    Path p;
    p.range = dim.range;
    p.rangesBegin = static_cast<uint32_t>(m_.ranges.size());
    m_.ranges.push_back(dim.range);
    p.segments = pushList({name(d).index});
    m_.paths.push_back(p);
    dim.path = PathId{static_cast<uint32_t>(m_.paths.size() - 1)};
  } else {
    throw GiveBack{};
  }
  return addType(dim);
}

BlockId Parser::block() {
  Guard g(recursion_);
  Block bl;
  uint32_t b = begin();
  expect(L::LBRACE);
  std::vector<uint32_t> stmts;
  while (la() != L::RBRACE) {
    uint32_t sb = begin();
    Stmt s;
    switch (la()) {
      case L::LET: {
        ++pos_;
        s.kind = StmtKind::Let;
        s.pat = pattern();
        if (accept(L::COLON)) s.type = type(false);
        expect(L::ASSIGN);
        s.a = expr(0).id;
        expect(L::SEMI);
        break;
      }
      case L::FOR: {
        ++pos_;
        s.kind = StmtKind::For;
        const RawToken& v = expect(L::IDENT);
        s.var = name(v);
        s.varRange = range(v);
        expect(L::IN);
        if (pipelineForm()) {
          const RawToken& f = expect(L::IDENT);
          s.form = name(f);
          s.formRange = range(f);
          expect(L::LPAREN);
          s.a = expr(0).id;
          expect(L::DOTDOT);
          s.b = expr(0).id;
          expect(L::COMMA);
          const RawToken& o = expect(L::IDENT);
          s.option = name(o);
          s.optionRange = range(o);
          expect(L::ASSIGN);
          s.depth = expr(0).id;
          accept(L::COMMA);
          expect(L::RPAREN);
          s.body = block();
          break;
        }
        s.a = expr(0).id;
        expect(L::DOTDOT);
        s.b = expr(0).id;
        s.body = block();
        break;
      }
      case L::PARALLEL: {
        ++pos_;
        s.kind = StmtKind::Parallel;
        s.pat = pattern();
        expect(L::IN);
        expect(L::LBRACK);
        std::vector<uint32_t> ids;
        do {
          if (la() == L::RBRACK && !ids.empty()) break;  // a trailing comma
          ids.push_back(expr(0).id.index);
        } while (accept(L::COMMA));
        expect(L::RBRACK);
        s.list = pushList(ids);
        s.body = block();
        break;
      }
      case L::WHILE:
        ++pos_;
        s.kind = StmtKind::While;
        s.a = expr(0).id;
        s.body = block();
        break;
      case L::IF:
        stmts.push_back(ifChain().index);
        continue;
      case L::RETURN:
        ++pos_;
        s.kind = StmtKind::Return;
        if (la() != L::SEMI) s.a = expr(0).id;
        expect(L::SEMI);
        break;
      case L::BREAK:
        ++pos_;
        s.kind = StmtKind::Break;
        expect(L::SEMI);
        break;
      case L::CONTINUE:
        ++pos_;
        s.kind = StmtKind::Continue;
        expect(L::SEMI);
        break;
      case L::LBRACE:
        s.kind = StmtKind::Block;
        s.body = block();
        break;
      case L::SEMI:
        ++pos_;
        s.kind = StmtKind::Empty;
        break;
      default: {
        ExprId e = expr(0).id;
        Op op;
        switch (la()) {
          case L::ASSIGN: op = Op::Assign; break;
          case L::PLUSEQ: op = Op::AddAssign; break;
          case L::MINUSEQ: op = Op::SubAssign; break;
          case L::STAREQ: op = Op::MulAssign; break;
          case L::SLASHEQ: op = Op::DivAssign; break;
          case L::PERCENTEQ: op = Op::RemAssign; break;
          case L::SEMI: op = Op::None; break;
          case L::RBRACE: op = Op::None; bl.tail = e; break;
          default: throw GiveBack{};
        }
        if (bl.tail.valid()) break;
        ++pos_;
        s.a = e;
        if (op == Op::None) {
          s.kind = StmtKind::Expr;
        } else {
          s.kind = StmtKind::Assign;
          s.op = op;
          s.b = expr(0).id;
          expect(L::SEMI);
        }
        break;
      }
    }
    if (bl.tail.valid()) break;
    s.range = Range{sb, prevEnd()};
    stmts.push_back(addStmt(s).index);
  }
  expect(L::RBRACE);
  bl.stmts = pushList(stmts);
  bl.range = Range{b, prevEnd()};
  m_.blocks.push_back(bl);
  return BlockId{static_cast<uint32_t>(m_.blocks.size() - 1)};
}

// `if` expr block (`else` (ifChain | block))?
StmtId Parser::ifChain() {
  Guard g(recursion_);
  uint32_t b = begin();
  expect(L::IF);
  Stmt s;
  s.kind = StmtKind::If;
  s.a = expr(0).id;
  s.body = block();
  if (accept(L::ELSE)) {
    if (la() == L::IF) {
      s.elseStmt = ifChain();
    } else {
      Stmt e;
      e.kind = StmtKind::Block;
      uint32_t eb = begin();
      e.body = block();
      e.range = Range{eb, prevEnd()};
      s.elseStmt = addStmt(e);
    }
  }
  s.range = Range{b, prevEnd()};
  return addStmt(s);
}

PatId Parser::pattern() {
  Guard g(recursion_);
  Pat p;
  uint32_t b = begin();
  if (accept(L::LPAREN)) {
    p.kind = PatKind::Tuple;
    std::vector<uint32_t> ids;
    while (la() != L::RPAREN) {
      ids.push_back(pattern().index);
      if (!accept(L::COMMA)) break;
    }
    expect(L::RPAREN);
    p.list = pushList(ids);
  } else {
    p.kind = PatKind::Bind;
    p.mut = accept(L::MUT);
    p.name = name(expect(L::IDENT));
  }
  p.range = Range{b, prevEnd()};
  m_.pats.push_back(p);
  return PatId{static_cast<uint32_t>(m_.pats.size() - 1)};
}

}  // namespace fast

bool fastParseChunk(std::string_view text, const std::vector<RawToken>& tokens, uint32_t base,
                    Module& m, Interner& names, uint32_t maxExprDepth) {
  const size_t items = m.items.size(), exprs = m.exprs.size(), stmts = m.stmts.size(),
               types = m.types.size(), pats = m.pats.size(), blocks = m.blocks.size(),
               paths = m.paths.size(), lists = m.lists.size(), ranges = m.ranges.size(),
               ints = m.ints.size(), floats = m.floats.size();
  try {
    fast::Parser(text, tokens, base, m, names, maxExprDepth).file();
    return true;
  } catch (const fast::GiveBack&) {
  }
  m.items.resize(items);
  m.exprs.resize(exprs);
  m.stmts.resize(stmts);
  m.types.resize(types);
  m.pats.resize(pats);
  m.blocks.resize(blocks);
  m.paths.resize(paths);
  m.lists.resize(lists);
  m.ranges.resize(ranges);
  m.ints.resize(ints);
  m.floats.resize(floats);
  return false;
}

}  // namespace vx::parse
