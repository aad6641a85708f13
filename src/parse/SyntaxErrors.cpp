#include "parse/SyntaxErrors.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <vector>

#include "InputMismatchException.h"
#include "NoViableAltException.h"
#include "Parser.h"
#include "VxParser.h"
#include "diag/DiagKinds.h"

namespace vx::parse {

using vxgen::VxParser;

namespace {

bool isKeyword(size_t type) { return type >= VxParser::FN && type <= VxParser::FALSE; }

std::string tokenName(size_t type, const antlr4::dfa::Vocabulary& vocab) {
  switch (type) {
    case antlr4::Token::EOF: return "end of file";
    case VxParser::IDENT: return "identifier";
    case VxParser::INT: return "integer literal";
    case VxParser::FLOAT: return "float literal";
    default: break;
  }
  std::string lit = vocab.getLiteralName(type);
  if (lit.size() >= 2 && lit.front() == '\'') return "`" + lit.substr(1, lit.size() - 2) + "`";
  return vocab.getSymbolicName(type);
}

const std::vector<size_t>& binaryOperators() {
  static const std::vector<size_t> ops = {
      VxParser::STAR, VxParser::SLASH, VxParser::PERCENT, VxParser::PLUS, VxParser::MINUS,
      VxParser::EQEQ, VxParser::NE,    VxParser::LT,      VxParser::GT,   VxParser::LE,
      VxParser::GE,   VxParser::ANDAND, VxParser::OROR,   VxParser::AS,   VxParser::DOT,
      VxParser::LBRACK, VxParser::LPAREN};
  return ops;
}

const std::vector<size_t>& expressionStarts() {
  static const std::vector<size_t> starts = {
      VxParser::IDENT, VxParser::INT,  VxParser::FLOAT, VxParser::TRUE,   VxParser::FALSE,
      VxParser::LPAREN, VxParser::MINUS, VxParser::BANG, VxParser::STAR, VxParser::AMP,
      VxParser::ANDAND};
  return starts;
}

// Names a set of expected tokens the way rustc does, collapsing the long
// tails: "one of `,`, `)`, or an operator".
std::string describeExpected(const antlr4::misc::IntervalSet& set,
                             const antlr4::dfa::Vocabulary& vocab) {
  std::vector<size_t> types;
  for (auto t : set.toList()) types.push_back(static_cast<size_t>(t));
  auto has = [&](size_t t) { return std::find(types.begin(), types.end(), t) != types.end(); };
  auto removeAll = [&](const std::vector<size_t>& group) {
    types.erase(std::remove_if(types.begin(), types.end(),
                               [&](size_t t) {
                                 return std::find(group.begin(), group.end(), t) != group.end();
                               }),
                types.end());
  };
  std::vector<std::string> words;
  static const std::vector<size_t> itemStarts = {VxParser::FN, VxParser::EXTERN, VxParser::CONST, VxParser::HASH};
  static const std::vector<size_t> stmtStarts = {
      VxParser::LET,    VxParser::FOR,   VxParser::WHILE,    VxParser::IF, VxParser::RETURN,
      VxParser::BREAK,  VxParser::CONTINUE, VxParser::PARALLEL, VxParser::SEMI, VxParser::LBRACE};
  bool item = std::all_of(itemStarts.begin(), itemStarts.end(), has);
  if (item) {
    removeAll(itemStarts);
    removeAll({antlr4::Token::EOF});
  }
  bool statement = std::all_of(stmtStarts.begin(), stmtStarts.end(), has);
  if (statement) removeAll(stmtStarts);
  bool expression = std::all_of(expressionStarts().begin(), expressionStarts().end(), has);
  size_t binops = std::count_if(binaryOperators().begin(), binaryOperators().end(), has);
  if (expression) removeAll(expressionStarts());
  bool operators = binops >= 5;
  if (operators) removeAll(binaryOperators());
  if (item) words.push_back("an item (`fn`, `extern fn`, `const` or an attribute `#[...]`)");
  if (statement) words.push_back("a statement");
  for (size_t t : types) words.push_back(tokenName(t, vocab));
  if (expression && !statement) words.push_back("an expression");
  if (operators) words.push_back("an operator");
  if (words.empty()) return "something else";
  if (words.size() == 1) return words[0];
  if (words.size() == 2) return words[0] + " or " + words[1];
  std::string s = "one of ";
  for (size_t i = 0; i < words.size(); ++i) {
    if (i) s += i + 1 == words.size() ? ", or " : ", ";
    s += words[i];
  }
  return s;
}

// "expression", "type", "pattern" when the error is at the start of one.
std::string describeRule(const antlr4::ParserRuleContext* ctx, const antlr4::Token* offending) {
  if (!ctx || ctx->start != offending) return {};
  switch (ctx->getRuleIndex()) {
    case VxParser::RuleExpr: return "an expression";
    case VxParser::RuleType:
    case VxParser::RuleTypePath: return "a type";
    case VxParser::RulePattern: return "a pattern";
    case VxParser::RuleItem: return "an item (`fn`, `extern fn`, `const` or an attribute `#[...]`)";
    case VxParser::RuleGenericArg: return "a type, shape or integer";
    default: return {};
  }
}

// The last token before `offending` on the default channel (not a comment
// or a bad character), or null.
const antlr4::Token* previousToken(antlr4::Parser* parser, const antlr4::Token* offending) {
  for (size_t i = offending->getTokenIndex(); i-- > 0;) {
    antlr4::Token* t = parser->getTokenStream()->get(i);
    if (t->getChannel() == antlr4::Token::DEFAULT_CHANNEL) return t;
  }
  return nullptr;
}

bool endsExpression(const antlr4::Token* t) {
  switch (t->getType()) {
    case VxParser::IDENT:
    case VxParser::INT:
    case VxParser::FLOAT:
    case VxParser::TRUE:
    case VxParser::FALSE:
    case VxParser::RPAREN:
    case VxParser::RBRACK:
      return true;
    default:
      return false;
  }
}

// ANTLR reports only the token of the `match` that failed (`)`), because the
// decisions before it (another argument? another operator?) exited silently.
// When the previous token ended an expression, those alternatives were just
// as valid: name them too, as rustc does.
void widenExpected(antlr4::misc::IntervalSet& set, antlr4::Parser* parser,
                   const antlr4::Token* offending) {
  if (set.size() != 1 || offending->getTokenIndex() == 0) return;
  size_t only = static_cast<size_t>(set.getMinElement());
  if (only != VxParser::RPAREN && only != VxParser::RBRACK && only != VxParser::SEMI &&
      only != VxParser::RBRACE && only != VxParser::LBRACE)
    return;
  const antlr4::Token* prev = previousToken(parser, offending);
  if (!prev || !endsExpression(prev)) return;
  auto* ctx = parser->getContext();
  if (only == VxParser::RPAREN &&
      (dynamic_cast<VxParser::CallExprContext*>(ctx) ||
       dynamic_cast<VxParser::MethodCallExprContext*>(ctx) ||
       dynamic_cast<VxParser::TupleExprContext*>(ctx)))
    set.add(VxParser::COMMA);
  for (size_t op : binaryOperators()) set.add(static_cast<ssize_t>(op));
}

// Whether the parser is in a body's code (a statement, an expression, its
// arguments), not in a type, a shape, a pattern, a parameter list or an
// attribute, where `<`, `(`, `[` or `,` open something else: the innermost
// enclosing rule of either list decides.
bool inExpressionCode(antlr4::Parser* parser) {
  static const size_t code[] = {VxParser::RuleExpr, VxParser::RuleArgs, VxParser::RuleStmt, VxParser::RuleIfChain,
                                VxParser::RuleBlock};
  static const size_t other[] = {VxParser::RuleFile,          VxParser::RuleItem,       VxParser::RuleAttribute,
                                 VxParser::RuleMeta,          VxParser::RuleGenericParams, VxParser::RuleGenericParam,
                                 VxParser::RuleParamList,     VxParser::RuleParam,      VxParser::RuleType,
                                 VxParser::RuleTypePath,      VxParser::RuleGenericArgs, VxParser::RuleGenericArg,
                                 VxParser::RuleShape,         VxParser::RuleShapeDim,   VxParser::RulePattern};
  for (auto* ctx = parser->getContext(); ctx; ctx = dynamic_cast<antlr4::ParserRuleContext*>(ctx->parent)) {
    size_t rule = ctx->getRuleIndex();
    if (std::find(std::begin(code), std::end(code), rule) != std::end(code)) return true;
    if (std::find(std::begin(other), std::end(other), rule) != std::end(other)) return false;
  }
  return false;
}

// Tokens after which an expression's operand must come.
bool expectsOperand(size_t type) {
  static const size_t before[] = {
      VxParser::PLUS,   VxParser::MINUS,   VxParser::STAR,    VxParser::SLASH,   VxParser::PERCENT,
      VxParser::EQEQ,   VxParser::NE,      VxParser::LT,      VxParser::GT,      VxParser::LE,
      VxParser::GE,     VxParser::ANDAND,  VxParser::OROR,    VxParser::ASSIGN,  VxParser::PLUSEQ,
      VxParser::MINUSEQ, VxParser::STAREQ, VxParser::SLASHEQ, VxParser::PERCENTEQ, VxParser::BANG,
      VxParser::AMP,    VxParser::COMMA,   VxParser::LPAREN,  VxParser::LBRACK,  VxParser::RETURN};
  return std::find(std::begin(before), std::end(before), type) != std::end(before);
}

// Inside an attribute (`#[...]`, grammar: `attribute`, `meta`): what its
// grammar expects at `offending`, found by reading the attribute from its
// `#` up to there; empty when `offending` is not inside one (or the
// attribute went wrong before it). ANTLR names the item rule there ("an
// item"), because the attribute is part of the item's prediction.
std::string attributeExpected(antlr4::Parser* parser, const antlr4::Token* offending) {
  antlr4::TokenStream* ts = parser->getTokenStream();
  std::vector<size_t> types;  // from the `#` to the token before `offending`
  bool found = false;
  // At most 256 tokens back (comments counted): an attribute is short, and
  // each syntax error of a huge file must stay cheap.
  for (size_t i = offending->getTokenIndex(), seen = 0; i-- > 0 && seen < 256;) {
    antlr4::Token* t = ts->get(i);
    ++seen;
    if (t->getChannel() != antlr4::Token::DEFAULT_CHANNEL) continue;
    size_t type = t->getType();
    types.push_back(type);
    if (type == VxParser::HASH) {
      found = true;
      break;
    }
    if (type == VxParser::RBRACK || type == VxParser::FN || type == VxParser::CONST || type == VxParser::LBRACE ||
        type == VxParser::RBRACE || type == VxParser::SEMI)
      return {};
  }
  if (!found) return {};
  std::reverse(types.begin(), types.end());
  // `#[name(` first: what comes next while the attribute is still in it.
  static const size_t prefix[] = {VxParser::HASH, VxParser::LBRACK, VxParser::IDENT, VxParser::LPAREN};
  static const char* const prefixNext[] = {"`[`", "the attribute's name", "`(`"};
  for (size_t k = 0; k < std::size(prefix); ++k) {
    if (k == types.size()) return prefixNext[k - 1];
    if (types[k] != prefix[k]) return {};
  }
  // Then its metas: `name`, `name = "..."` or `name(meta, ...)`, separated
  // by `,`, up to the `)` that closes the attribute's list and its `]`.
  enum class At { MetaName, Value, Str, MetaEnd, Close };
  At at = At::MetaName;
  size_t depth = 1;  // open `(` of the attribute and its metas
  for (size_t k = std::size(prefix); k < types.size(); ++k) {
    size_t t = types[k];
    switch (at) {
      case At::MetaName:
        // `)` after a `,` (a trailing comma), or closing a meta's empty list
        // (`any()`; the attribute's own list holds at least one).
        if (t == VxParser::RPAREN && (types[k - 1] == VxParser::COMMA || depth > 1)) {
          at = --depth == 0 ? At::Close : At::MetaEnd;
          break;
        }
        if (t != VxParser::IDENT) return {};
        at = At::Value;
        break;
      case At::Value:  // after a meta's name: `= "..."`, `(...)`, or nothing
        if (t == VxParser::ASSIGN) {
          at = At::Str;
          break;
        }
        if (t == VxParser::LPAREN) {
          ++depth;
          at = At::MetaName;
          break;
        }
        [[fallthrough]];
      case At::MetaEnd:
        if (t == VxParser::COMMA) {
          at = At::MetaName;
          break;
        }
        if (t != VxParser::RPAREN) return {};
        at = --depth == 0 ? At::Close : At::MetaEnd;
        break;
      case At::Str:
        if (t != VxParser::STRING) return {};
        at = At::MetaEnd;
        break;
      case At::Close:
        return {};  // `]` would have closed it before `offending`
    }
  }
  switch (at) {
    case At::MetaName: return "a lint name or `target = \"...\"`";
    case At::Value: return "`,`, `)`, `=` or `(`";
    case At::Str: return "a string literal";
    case At::MetaEnd: return "`,` or `)`";
    case At::Close: return "`]`";
  }
  return {};
}

}  // namespace

antlr4::misc::IntervalSet StatementRecovery::getErrorRecoverySet(antlr4::Parser* parser) {
  antlr4::misc::IntervalSet set;
  bool inBlock = false;
  for (auto* ctx = parser->getContext(); ctx; ctx = dynamic_cast<antlr4::ParserRuleContext*>(ctx->parent))
    if (ctx->getRuleIndex() == VxParser::RuleBlock) inBlock = true;
  if (inBlock) {
    set.add(VxParser::SEMI);
    set.add(VxParser::RBRACE);
  } else {
    set.add(VxParser::LBRACE);
    set.add(VxParser::SEMI);
  }
  set.add(antlr4::Token::EOF);
  return set;
}

antlr4::Token* StatementRecovery::singleTokenDeletion(antlr4::Parser* recognizer) {
  size_t next = recognizer->getInputStream()->LA(1);
  if (next == VxParser::SEMI || next == VxParser::RBRACE) return nullptr;
  // Nor a keyword or an opening bracket: what follows belongs to it (`let y
  // = if c {..} else {..};`, `[1, 2]`), and parsed without it, it reads as
  // a cascade of errors; skipped whole (consumeUntil), it is one.
  if (isKeyword(next) || next == VxParser::LBRACE || next == VxParser::LBRACK || next == VxParser::LPAREN)
    return nullptr;
  return antlr4::DefaultErrorStrategy::singleTokenDeletion(recognizer);
}

void StatementRecovery::consumeUntil(antlr4::Parser* recognizer, const antlr4::misc::IntervalSet& set) {
  size_t depth = 0;
  // A skip that starts at a `{` is a statement's block that came too soon
  // (`for i in 0.. { }`): that block is where the statement ends, the
  // parser goes on from its `}` (counted, it took the enclosing `}` too).
  const bool atBlock = recognizer->getInputStream()->LA(1) == VxParser::LBRACE;
  for (size_t t = recognizer->getInputStream()->LA(1); t != antlr4::Token::EOF;
       t = recognizer->getInputStream()->LA(1)) {
    if (depth == 0 && set.contains(t)) return;
    // Braces only: a statement ends in no `(` or `[` (the skipped tokens
    // may start at an unclosed one: ANTLR's prediction rewinds to the
    // decision that failed, `(x + ;`).
    if (t == VxParser::LBRACE && !atBlock)
      ++depth;
    else if (t == VxParser::RBRACE && depth > 0)
      --depth;
    recognizer->consume();
  }
}

std::string describeFound(const antlr4::Token* t) {
  if (t->getType() == antlr4::Token::EOF) return "end of file";
  std::string text = t->getText();
  if (isKeyword(t->getType())) return "keyword `" + text + "`";
  return "`" + text + "`";
}

void SyntaxErrorListener::syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending,
                                      size_t, size_t, const std::string& msg, std::exception_ptr ep) {
  auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
  if (!parser || !offending) return;
  ++errors_;
  if (getenv("VXC_DEBUG_ANTLR")) fprintf(stderr, "antlr: %s\n", msg.c_str());
  std::string expected;
  antlr4::misc::IntervalSet set;
  try {
    if (ep) std::rethrow_exception(ep);
    set = parser->getExpectedTokens();
  } catch (const antlr4::RecognitionException& e) {
    expected = describeRule(dynamic_cast<antlr4::ParserRuleContext*>(e.getCtx()), offending);
    set = e.getExpectedTokens();
  } catch (...) {
    set = parser->getExpectedTokens();
  }
  const ssize_t first = set.getMinElement();
  bool single = set.size() == 1 && first != static_cast<ssize_t>(VxParser::IDENT) &&
                first != static_cast<ssize_t>(VxParser::INT) && first != static_cast<ssize_t>(antlr4::Token::EOF);
  ssize_t onlyType = set.getMinElement();
  widenExpected(set, parser, offending);
  // At end of file inside a block, the one thing that helps is the `}`.
  const antlr4::Token* unclosed = nullptr;
  if (offending->getType() == antlr4::Token::EOF && set.contains(static_cast<ssize_t>(VxParser::RBRACE))) {
    for (auto* ctx = parser->getContext(); ctx;
         ctx = dynamic_cast<antlr4::ParserRuleContext*>(ctx->parent))
      if (ctx->getRuleIndex() == VxParser::RuleBlock) {
        unclosed = ctx->start;
        break;
      }
    if (unclosed) expected = "`}`";
  }
  // After an operator, an opening `(`/`[` or a `,` (`x + }`, `f(x,,)`):
  // what is missing is an operand, whatever ANTLR's prediction stopped on
  // (it named the statements that could follow the enclosing statement:
  // "expected a statement or `}`, found `}`").
  if (const antlr4::Token* before = previousToken(parser, offending);
      before && expectsOperand(before->getType()) && !unclosed && inExpressionCode(parser)) {
    expected = "an expression";
    single = false;
  }
  const std::string inAttribute = unclosed ? std::string() : attributeExpected(parser, offending);
  if (!inAttribute.empty()) {
    expected = inAttribute;
    single = false;
  }
  if (expected.empty()) expected = describeExpected(set, parser->getVocabulary());

  uint32_t begin = base_ + static_cast<uint32_t>(offending->getStartIndex());
  uint32_t end = offending->getType() == antlr4::Token::EOF
                     ? begin
                     : base_ + static_cast<uint32_t>(offending->getStopIndex()) + 1;
  if (offending->getType() == antlr4::Token::EOF) {
    // The EOF token of a chunk sits at the chunk's end.
    begin = end = base_ + static_cast<uint32_t>(offending->getStartIndex());
  }
  diag::Diagnostic d = diag::SyntaxExpectedFound(expected, describeFound(offending));

  // When the previous token ends on an earlier line, the missing piece
  // belongs right after it (rustc's "expected `;`" placement).
  const antlr4::Token* prev = previousToken(parser, offending);
  if (unclosed) {
    uint32_t at = base_ + static_cast<uint32_t>(unclosed->getStartIndex());
    d.secondary(base::Span{file_, at, at + 1}, "this `{` is never closed");
  }
  if (prev && (prev->getLine() < offending->getLine() ||
               offending->getType() == antlr4::Token::EOF)) {
    uint32_t after = base_ + static_cast<uint32_t>(prev->getStopIndex()) + 1;
    d.primary(base::Span{file_, after, after}, "expected " + expected);
    if (offending->getType() != antlr4::Token::EOF)
      d.secondary(base::Span{file_, begin, end}, "unexpected token");
    if (single) {
      std::string tok = tokenName(static_cast<size_t>(onlyType), parser->getVocabulary());
      d.suggest("add " + tok + " here", base::Span{file_, after, after},
                tok.substr(1, tok.size() - 2));
    }
  } else {
    d.primary(base::Span{file_, begin, end}, "expected " + expected);
  }
  if (!inAttribute.empty())
    d.note("the attributes are `#[allow(lint, ...)]`, `#[warn(lint, ...)]`, `#[deny(lint, ...)]` and "
           "`#[cfg(target = \"...\")]` (with `not(...)`, `any(...)`, `all(...)`)");
  // What the user may have meant, where Vx differs from Rust.
  if (expected == "an expression" && offending->getType() == VxParser::IF)
    d.note("`if` is a statement in Vx, not an expression: assign in each branch "
           "(`let mut y = 0; if c { y = 1; } else { y = 2; }`)");
  if (expected == "an expression" && offending->getType() == VxParser::LBRACK)
    d.note("Vx has no array literals: tensors are made by `zeros::<T, [..]>(Memory::...)` and filled");
  const bool bitAnd = prev && endsExpression(prev) && offending->getType() == VxParser::AMP;
  const bool shift = prev && (offending->getType() == VxParser::LT || offending->getType() == VxParser::GT) &&
                     prev->getType() == offending->getType() && prev->getStopIndex() + 1 == offending->getStartIndex();
  if (bitAnd || shift)
    d.note("Vx has no bitwise operators (`&`, `|`, `^`, `<<`, `>>`): use `%`, `/` and `*` by powers of two");
  sink_.emit(std::move(d));
}

}  // namespace vx::parse
