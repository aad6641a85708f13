// The fast path of parsing (see FastParser.h). Each function mirrors one rule
// of grammar/VxParser.g4 and builds what AstBuilder builds from that rule's
// parse tree; ranges are those of the rule's context (first token to last
// token). Expressions are parsed by precedence climbing with the levels ANTLR
// gives the left-recursive `expr` rule: postfix 17-20, prefix operands 16
// (`-`, `!`, `*`), 15 (`&`), 14 (`&&`), `as` 13, `* / %` 12, `+ -` 11,
// comparisons 10, `&&` 9, `||` 8.
#include "parse/FastParser.h"


#include "VxLexer.h"
#include "parse/Literals.h"

namespace vx::parse {

using namespace vx::ast;
using L = vxgen::VxLexer;

namespace {

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
  Meta meta() {
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

  void item() {
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

  // --- types ---
  // `castTop`: the type of an `as`, outside brackets. There `T<` may begin a
  // comparison instead of generic arguments, which only ANTLR's full-context
  // prediction decides: such a chunk goes to the ANTLR path.
  TypeId type(bool castTop) {
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

  TypeId typePath(bool castTop) {
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
  List genericArgs() {
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

  TypeId genericArg() {
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
  TypeId shapeDim(int minPrec) {
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

  TypeId dimAtom() {
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

  // --- blocks and statements ---
  BlockId block() {
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
  StmtId ifChain() {
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

  PatId pattern() {
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

  // --- expressions ---
  // `expr(minPrec)`: a primary, then every postfix and binary operator whose
  // level is at least `minPrec`.
  Ex expr(int minPrec) {
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
  List args(uint32_t close, uint32_t& depth) {
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

  Ex primary() {
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

}  // namespace

bool fastParseChunk(std::string_view text, const std::vector<RawToken>& tokens, uint32_t base,
                    Module& m, Interner& names, uint32_t maxExprDepth) {
  const size_t items = m.items.size(), exprs = m.exprs.size(), stmts = m.stmts.size(),
               types = m.types.size(), pats = m.pats.size(), blocks = m.blocks.size(),
               paths = m.paths.size(), lists = m.lists.size(), ranges = m.ranges.size(),
               ints = m.ints.size(), floats = m.floats.size();
  try {
    Parser(text, tokens, base, m, names, maxExprDepth).file();
    return true;
  } catch (const GiveBack&) {
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
