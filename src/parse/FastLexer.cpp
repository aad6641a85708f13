#include "parse/FastLexer.h"

#include "CommonTokenFactory.h"
#include "VxLexer.h"
#include "misc/Interval.h"

namespace vx::parse {

using vxgen::VxLexer;

size_t ByteStream::LA(ssize_t i) {
  if (i == 0) return 0;
  ssize_t at = static_cast<ssize_t>(pos_) + (i > 0 ? i - 1 : i);
  if (at < 0 || at >= static_cast<ssize_t>(text_.size())) return antlr4::IntStream::EOF;
  return static_cast<unsigned char>(text_[static_cast<size_t>(at)]);
}

std::string ByteStream::getText(const antlr4::misc::Interval& interval) {
  if (interval.a < 0 || interval.b < interval.a) return {};
  size_t a = static_cast<size_t>(interval.a);
  size_t b = std::min(static_cast<size_t>(interval.b), text_.size() - 1);
  if (a >= text_.size()) return {};
  return std::string(text_.substr(a, b - a + 1));
}

antlr4::TokenFactory<antlr4::CommonToken>* FastLexer::getTokenFactory() {
  return antlr4::CommonTokenFactory::DEFAULT.get();
}

void FastLexer::reset(std::string_view text) {
  text_ = text;
  input_->load(text);
  pos_ = 0;
  line_ = 1;
  lineStart_ = 0;
}

namespace {

bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

size_t keyword(std::string_view w) {
  switch (w.size()) {
    case 2:
      if (w == "fn") return VxLexer::FN;
      if (w == "in") return VxLexer::IN;
      if (w == "if") return VxLexer::IF;
      if (w == "on") return VxLexer::ON;
      if (w == "as") return VxLexer::AS;
      break;
    case 3:
      if (w == "let") return VxLexer::LET;
      if (w == "mut") return VxLexer::MUT;
      if (w == "for") return VxLexer::FOR;
      break;
    case 4:
      if (w == "else") return VxLexer::ELSE;
      if (w == "true") return VxLexer::TRUE;
      break;
    case 5:
      if (w == "const") return VxLexer::CONST;
      if (w == "while") return VxLexer::WHILE;
      if (w == "break") return VxLexer::BREAK;
      if (w == "false") return VxLexer::FALSE;
      break;
    case 6:
      if (w == "extern") return VxLexer::EXTERN;
      if (w == "return") return VxLexer::RETURN;
      break;
    case 8:
      if (w == "continue") return VxLexer::CONTINUE;
      if (w == "parallel") return VxLexer::PARALLEL;
      break;
  }
  return VxLexer::IDENT;
}

}  // namespace

// Skips whitespace and comments (block comments nest). An unterminated block
// comment is not trivia: ANTLR's lexer then matches `/` alone, and so do we.
void FastLexer::skipTrivia() {
  const size_t n = text_.size();
  while (pos_ < n) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      ++pos_;
    } else if (c == '\n') {
      ++pos_;
      ++line_;
      lineStart_ = pos_;
    } else if (c == '/' && pos_ + 1 < n && text_[pos_ + 1] == '/') {
      while (pos_ < n && text_[pos_] != '\n') ++pos_;
    } else if (c == '/' && pos_ + 1 < n && text_[pos_ + 1] == '*') {
      size_t p = pos_ + 2, depth = 1, line = line_, lineStart = lineStart_;
      while (p < n && depth > 0) {
        if (text_[p] == '/' && p + 1 < n && text_[p + 1] == '*') {
          ++depth;
          p += 2;
        } else if (text_[p] == '*' && p + 1 < n && text_[p + 1] == '/') {
          --depth;
          p += 2;
        } else {
          if (text_[p] == '\n') {
            ++line;
            lineStart = p + 1;
          }
          ++p;
        }
      }
      if (depth > 0) return;
      pos_ = p;
      line_ = line;
      lineStart_ = lineStart;
    } else {
      return;
    }
  }
}

// Numbers, as grammar/VxLexer.g4's INT and FLOAT: the longest match.
size_t FastLexer::number(size_t start) {
  const size_t n = text_.size();
  auto digitsFrom = [&](size_t p) {  // [0-9] [0-9_]*
    if (p >= n || !isDigit(text_[p])) return p;
    ++p;
    while (p < n && (isDigit(text_[p]) || text_[p] == '_')) ++p;
    return p;
  };
  auto suffix = [&](size_t p, std::initializer_list<std::string_view> options) {
    size_t best = p;
    for (std::string_view s : options)
      if (text_.substr(p, s.size()) == s) best = std::max(best, p + s.size());
    return best;
  };
  auto intSuffix = [&](size_t p) { return suffix(p, {"i32", "i64", "u32", "u64", "usize"}); };
  auto floatSuffix = [&](size_t p) { return suffix(p, {"f16", "bf16", "f32", "f64"}); };
  auto exponent = [&](size_t p) {  // [eE] [+-]? [0-9_]+
    if (p >= n || (text_[p] != 'e' && text_[p] != 'E')) return p;
    size_t q = p + 1;
    if (q < n && (text_[q] == '+' || text_[q] == '-')) ++q;
    size_t r = q;
    while (r < n && (isDigit(text_[r]) || text_[r] == '_')) ++r;
    return r > q ? r : p;
  };
  size_t best = start;
  size_t type = VxLexer::INT;
  auto consider = [&](size_t end, size_t t) {
    if (end > best) {
      best = end;
      type = t;
    }
  };
  size_t d = digitsFrom(start);
  // INT: DIGITS INT_SUFFIX?
  consider(intSuffix(d), VxLexer::INT);
  consider(d, VxLexer::INT);
  // INT: '0x' hex+ / '0b' bin+, INT_SUFFIX?
  if (text_[start] == '0' && start + 1 < n && (text_[start + 1] == 'x' || text_[start + 1] == 'b')) {
    bool hex = text_[start + 1] == 'x';
    size_t p = start + 2;
    while (p < n && (text_[p] == '_' || (hex ? std::isxdigit(static_cast<unsigned char>(text_[p])) != 0
                                             : (text_[p] == '0' || text_[p] == '1'))))
      ++p;
    if (p > start + 2) consider(intSuffix(p), VxLexer::INT);
  }
  // FLOAT: DIGITS '.' DIGITS EXPONENT? FLOAT_SUFFIX?
  if (d < n && text_[d] == '.') {
    size_t frac = digitsFrom(d + 1);
    if (frac > d + 1) consider(floatSuffix(exponent(frac)), VxLexer::FLOAT);
  }
  // FLOAT: DIGITS EXPONENT FLOAT_SUFFIX? | DIGITS FLOAT_SUFFIX
  size_t e = exponent(d);
  if (e > d) consider(floatSuffix(e), VxLexer::FLOAT);
  size_t fs = floatSuffix(d);
  if (fs > d) consider(fs, VxLexer::FLOAT);
  pos_ = best;
  return type;
}

RawToken FastLexer::nextRaw() {
  skipTrivia();
  const size_t n = text_.size();
  size_t start = pos_, line = line_, col = pos_ - lineStart_;
  auto make = [&](size_t type, bool hidden) {
    return RawToken{static_cast<uint32_t>(type), static_cast<uint32_t>(start), static_cast<uint32_t>(pos_),
                    static_cast<uint32_t>(line), static_cast<uint32_t>(col), hidden};
  };
  if (pos_ >= n) return make(antlr4::Token::EOF, false);
  char c = text_[pos_];
  if (isIdentStart(c)) {
    while (pos_ < n && isIdentChar(text_[pos_])) ++pos_;
    return make(keyword(text_.substr(start, pos_ - start)), false);
  }
  if (isDigit(c)) {
    size_t type = number(start);
    return make(type, false);
  }
  char next = pos_ + 1 < n ? text_[pos_ + 1] : '\0';
  size_t type = VxLexer::ERROR_CHAR;
  size_t len = 1;
  auto two = [&](char second, size_t t2, size_t t1) {
    if (next == second) {
      type = t2;
      len = 2;
    } else {
      type = t1;
    }
  };
  switch (c) {
    case '-': if (next == '>') { type = VxLexer::ARROW; len = 2; } else two('=', VxLexer::MINUSEQ, VxLexer::MINUS); break;
    case ':': two(':', VxLexer::PATHSEP, VxLexer::COLON); break;
    case '.': two('.', VxLexer::DOTDOT, VxLexer::DOT); break;
    case ',': type = VxLexer::COMMA; break;
    case ';': type = VxLexer::SEMI; break;
    case '(': type = VxLexer::LPAREN; break;
    case ')': type = VxLexer::RPAREN; break;
    case '[': type = VxLexer::LBRACK; break;
    case '#': type = VxLexer::HASH; break;
    case ']': type = VxLexer::RBRACK; break;
    case '{': type = VxLexer::LBRACE; break;
    case '}': type = VxLexer::RBRACE; break;
    case '+': two('=', VxLexer::PLUSEQ, VxLexer::PLUS); break;
    case '*': two('=', VxLexer::STAREQ, VxLexer::STAR); break;
    case '/': two('=', VxLexer::SLASHEQ, VxLexer::SLASH); break;
    case '%': two('=', VxLexer::PERCENTEQ, VxLexer::PERCENT); break;
    case '=': two('=', VxLexer::EQEQ, VxLexer::ASSIGN); break;
    case '!': two('=', VxLexer::NE, VxLexer::BANG); break;
    case '<': two('=', VxLexer::LE, VxLexer::LT); break;
    case '>': two('=', VxLexer::GE, VxLexer::GT); break;
    case '&': two('&', VxLexer::ANDAND, VxLexer::AMP); break;
    case '|':
      if (next == '|') {
        type = VxLexer::OROR;
        len = 2;
      }
      break;
    case '"': {
      // STRING: '"' (~["\\\r\n] | '\\' ["\\])* '"'; otherwise the quote alone is ERROR_CHAR.
      size_t p = pos_ + 1;
      while (p < n && text_[p] != '"' && text_[p] != '\r' && text_[p] != '\n') {
        if (text_[p] == '\\') {
          if (p + 1 >= n || (text_[p + 1] != '"' && text_[p + 1] != '\\')) break;
          ++p;
        }
        ++p;
      }
      if (p < n && text_[p] == '"') {
        type = VxLexer::STRING;
        len = p + 1 - pos_;
      }
      break;
    }
    default: break;
  }
  pos_ += len;
  return make(type, type == VxLexer::ERROR_CHAR);
}

std::unique_ptr<antlr4::Token> FastLexer::nextToken() {
  RawToken r = nextRaw();
  // EOF's stop index is one before its start, as ANTLR's lexer makes it.
  bool eof = r.type == RawToken::Eof;
  size_t type = eof ? antlr4::Token::EOF : r.type;
  size_t stop = eof ? static_cast<size_t>(r.start) - 1 : r.end - 1;
  auto t = std::make_unique<antlr4::CommonToken>(
      std::make_pair(static_cast<antlr4::TokenSource*>(this), static_cast<antlr4::CharStream*>(input_)),
      type, r.hidden ? antlr4::Token::HIDDEN_CHANNEL : antlr4::Token::DEFAULT_CHANNEL, r.start, stop);
  t->setLine(r.line);
  t->setCharPositionInLine(r.col);
  return t;
}

}  // namespace vx::parse
