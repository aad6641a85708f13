// The fast path's expressions (FastParserImpl.h): precedence climbing with
// the levels ANTLR gives the left-recursive `expr` rule (FastParser.cpp's
// header lists them), call arguments and primary expressions.
#include "parse/FastParserImpl.h"

namespace vx::parse::fast {

// `expr(minPrec)`: a primary, then every postfix and binary operator whose
// level is at least `minPrec`.
Parser::Ex Parser::expr(int minPrec) {
  Guard g(recursion_);
  Ex lhs = primary();
  bool lhsIsComparison = false;  // an unparenthesized comparison, built here
  for (;;) {
    Expr e;
    uint32_t other = 0;
    bool comparison = false;
    uint32_t t = la();
    if (t == L::DOT) {
      ++pos_;
      if (la() == L::IDENT && la(1) == L::LPAREN) {
        e.kind = ExprKind::MethodCall;
        e.name = name(toks_[pos_]);
        pos_ += 2;
        e.list = args(L::RPAREN, other);
      } else if (la() == L::IDENT) {
        e.kind = ExprKind::Field;
        e.name = name(toks_[pos_++]);
      } else if (la() == L::INT) {
        e.kind = ExprKind::Field;
        e.payload = static_cast<uint32_t>(intValue(toks_[pos_++]));
      } else {
        throw GiveBack{};
      }
    } else if (t == L::LPAREN) {
      ++pos_;
      e.kind = ExprKind::Call;
      e.list = args(L::RPAREN, other);
    } else if (t == L::LBRACK) {
      ++pos_;
      e.kind = ExprKind::Index;
      Ex r = expr(0);
      expect(L::RBRACK);
      e.rhs = r.id;
      other = r.depth;
    } else if (t == L::AS) {
      if (13 < minPrec) break;
      ++pos_;
      e.kind = ExprKind::Cast;
      e.payload = type(true).index;
    } else {
      int prec;
      switch (t) {
        case L::STAR: e.op = Op::Mul; prec = 12; break;
        case L::SLASH: e.op = Op::Div; prec = 12; break;
        case L::PERCENT: e.op = Op::Rem; prec = 12; break;
        case L::PLUS: e.op = Op::Add; prec = 11; break;
        case L::MINUS: e.op = Op::Sub; prec = 11; break;
        case L::EQEQ: e.op = Op::Eq; prec = 10; break;
        case L::NE: e.op = Op::Ne; prec = 10; break;
        case L::LT: e.op = Op::Lt; prec = 10; break;
        case L::GT: e.op = Op::Gt; prec = 10; break;
        case L::LE: e.op = Op::Le; prec = 10; break;
        case L::GE: e.op = Op::Ge; prec = 10; break;
        case L::ANDAND: e.op = Op::And; prec = 9; break;
        case L::OROR: e.op = Op::Or; prec = 8; break;
        default: prec = -1; break;
      }
      if (prec < minPrec) break;
      comparison = prec == 10;
      // `a < b < c`: AstBuilder reports the chain.
      if (comparison && lhsIsComparison) throw GiveBack{};
      ++pos_;
      e.kind = ExprKind::Binary;
      Ex r = expr(prec + 1);
      e.rhs = r.id;
      other = r.depth;
    }
    e.lhs = lhs.id;
    e.range = Range{lhs.begin, prevEnd()};
    lhs.depth = std::max(lhs.depth, other) + 1;
    if (lhs.depth > maxDepth_) throw GiveBack{};
    lhs.id = addExpr(e);
    lhsIsComparison = comparison;
  }
  return lhs;
}

// (expr (`,` expr)* `,`?)? then `close`; `depth` receives the deepest.
List Parser::args(uint32_t close, uint32_t& depth) {
  std::vector<uint32_t> ids;
  while (la() != close) {
    Ex a = expr(0);
    ids.push_back(a.id.index);
    depth = std::max(depth, a.depth);
    if (!accept(L::COMMA)) break;
  }
  expect(close);
  return pushList(ids);
}

Parser::Ex Parser::primary() {
  uint32_t b = begin();
  Expr e;
  uint32_t sub = 0;
  const RawToken& tok = toks_[pos_];
  switch (tok.type) {
    case L::INT: {
      ++pos_;
      e.range = range(tok);
      e.kind = ExprKind::IntLit;
      e.payload = static_cast<uint32_t>(m_.ints.size());
      uint64_t v = intValue(tok, &e.suffix);
      m_.ints.push_back(v);
      return Ex{addExpr(e), b, 1};
    }
    case L::FLOAT: {
      ++pos_;
      e.range = range(tok);
      e.kind = ExprKind::FloatLit;
      double v = floatValue(tok, e.suffix);
      e.payload = static_cast<uint32_t>(m_.floats.size());
      m_.floats.push_back(v);
      return Ex{addExpr(e), b, 1};
    }
    case L::TRUE:
    case L::FALSE:
      ++pos_;
      e.kind = ExprKind::BoolLit;
      e.payload = tok.type == L::TRUE;
      e.range = range(tok);
      return Ex{addExpr(e), b, 1};
    case L::IDENT: {
      // IDENT (`::` IDENT)* (`::` genericArgs)?
      std::vector<uint32_t> segs;
      Path p;
      p.rangesBegin = static_cast<uint32_t>(m_.ranges.size());
      segs.push_back(name(tok).index);
      m_.ranges.push_back(range(tok));
      ++pos_;
      while (la() == L::PATHSEP) {
        if (la(1) == L::IDENT) {
          segs.push_back(name(toks_[pos_ + 1]).index);
          m_.ranges.push_back(range(toks_[pos_ + 1]));
          pos_ += 2;
        } else if (la(1) == L::LT) {
          ++pos_;
          p.segments = pushList(segs);
          p.hasGenerics = true;
          p.genericArgs = genericArgs();
          break;
        } else {
          throw GiveBack{};
        }
      }
      if (!p.hasGenerics) p.segments = pushList(segs);
      p.range = Range{b, prevEnd()};
      m_.paths.push_back(p);
      e.kind = ExprKind::Path;
      e.payload = static_cast<uint32_t>(m_.paths.size() - 1);
      e.range = p.range;
      return Ex{addExpr(e), b, 1};
    }
    case L::LPAREN: {
      ++pos_;
      if (accept(L::RPAREN)) {
        e.kind = ExprKind::Unit;
        e.range = Range{b, prevEnd()};
        return Ex{addExpr(e), b, 1};
      }
      Ex first = expr(0);
      if (accept(L::RPAREN)) return Ex{first.id, b, first.depth};  // parentheses
      expect(L::COMMA);
      std::vector<uint32_t> elems{first.id.index};
      sub = first.depth;
      while (la() != L::RPAREN) {
        Ex x = expr(0);
        elems.push_back(x.id.index);
        sub = std::max(sub, x.depth);
        if (!accept(L::COMMA)) break;
      }
      expect(L::RPAREN);
      e.kind = ExprKind::Tuple;
      e.list = pushList(elems);
      break;
    }
    case L::MINUS:
    case L::BANG:
    case L::STAR: {
      Guard g(recursion_);
      ++pos_;
      e.kind = ExprKind::Unary;
      e.op = tok.type == L::MINUS ? Op::Neg : tok.type == L::BANG ? Op::Not : Op::Deref;
      Ex x = expr(16);
      e.lhs = x.id;
      sub = x.depth;
      break;
    }
    case L::AMP: {
      Guard g(recursion_);
      ++pos_;
      e.kind = ExprKind::Borrow;
      e.mut = accept(L::MUT);
      Ex x = expr(15);
      e.lhs = x.id;
      sub = x.depth;
      break;
    }
    case L::ANDAND: {
      // `&&x` is `& &x`.
      Guard g(recursion_);
      ++pos_;
      Expr inner;
      inner.kind = ExprKind::Borrow;
      inner.mut = accept(L::MUT);
      Ex x = expr(14);
      inner.lhs = x.id;
      inner.range = Range{b + 1, prevEnd()};
      sub = x.depth + 1;
      e.kind = ExprKind::Borrow;
      e.lhs = addExpr(inner);
      break;
    }
    default:
      throw GiveBack{};
  }
  e.range = Range{b, prevEnd()};
  return Ex{addExpr(e), b, sub + 1};
}

}  // namespace vx::parse::fast
