// Drives lexing and parsing one chunk (top-level item) at a time: the
// hand-written lexer, the token-level checks (E0002, E0003), then the fast
// parser; a chunk it gives back goes to ANTLR, SLL prediction first, full LL
// with error reporting only when SLL fails.
#include "parse/Parse.h"

#include <cstdio>

#include "ANTLRInputStream.h"
#include "BailErrorStrategy.h"
#include "CommonTokenStream.h"
#include "DefaultErrorStrategy.h"
#include "VxLexer.h"
#include "VxParser.h"
#include "atn/ParserATNSimulator.h"
#include "atn/PredictionMode.h"
#include "diag/DiagKinds.h"
#include "Exceptions.h"
#include "parse/AstBuilder.h"
#include "parse/FastLexer.h"
#include "parse/FastParser.h"
#include "parse/Prescan.h"
#include "parse/SyntaxErrors.h"

namespace vx::parse {

using vxgen::VxLexer;
using vxgen::VxParser;

namespace {

// Reports characters no token accepts (ERROR_CHAR on the hidden channel).
// A run of adjacent ASCII ones is one diagnostic, so that garbage input costs
// time linear in its size. Returns how many it reported.
unsigned reportBadChars(const std::vector<RawToken>& all, std::string_view original,
                        uint32_t base, base::FileId file, diag::Sink& sink) {
  unsigned n = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const RawToken* t = &all[i];
    if (t->type != VxLexer::ERROR_CHAR) continue;
    uint32_t off = base + t->start;
    unsigned char c = static_cast<unsigned char>(original[off]);
    if (c >= 0x80 && c < 0xC0) continue;  // continuation byte of a reported character
    if (c >= 0x80) {
      // A valid non-ASCII character outside a comment (invalid bytes were
      // reported by the pre-scan and are 0x80..0xFF too; skip those).
      size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      if (off + len > original.size()) continue;
      bool valid = true;
      for (size_t k = 1; k < len; ++k)
        valid = valid && (static_cast<unsigned char>(original[off + k]) & 0xC0) == 0x80;
      if (!valid || c < 0xC2) continue;
      uint32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
      for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (original[off + k] & 0x3F);
      char u[16];
      std::snprintf(u, sizeof u, "U+%04X", cp);
      sink.emit(diag::LexUnknownChar(std::string(original.substr(off, len)), u)
                    .primary(base::Span{file, off, off + static_cast<uint32_t>(len)},
                             "not valid in Vx source")
                    .note("identifiers are ASCII; other characters may appear only in comments"));
      ++n;
      continue;
    }
    if (c == '"') {
      // A quote no STRING token took: the string does not end on its line,
      // or holds an escape other than `\"` and `\\` (`"b\n200"`).
      uint32_t lineEnd = off;
      while (lineEnd < original.size() && original[lineEnd] != '\n' && original[lineEnd] != '\r') ++lineEnd;
      uint32_t badEscape = lineEnd;
      for (uint32_t k = off + 1; k < lineEnd; ++k) {
        if (original[k] == '"') break;
        if (original[k] != '\\') continue;
        if (k + 1 < lineEnd && (original[k + 1] == '"' || original[k + 1] == '\\')) {
          ++k;
          continue;
        }
        badEscape = k;
        break;
      }
      const char* help = "close it with `\"`; inside a string, write `\\\"` for a quote and `\\\\` for a backslash";
      if (badEscape < lineEnd && badEscape + 1 < lineEnd) {
        uint32_t escEnd = badEscape + 2;
        while (escEnd < lineEnd && (static_cast<unsigned char>(original[escEnd]) & 0xC0) == 0x80) ++escEnd;
        sink.emit(diag::LexUnknownEscape(std::string(original.substr(badEscape, escEnd - badEscape)))
                      .primary(base::Span{file, badEscape, escEnd}, "not an escape of a Vx string")
                      .help("a string's escapes are `\\\"` (a quote) and `\\\\` (a backslash)"));
      } else {
        sink.emit(diag::LexUnterminatedString()
                      .primary(base::Span{file, off, off + 1}, "this string does not end on its line")
                      .help(help));
      }
      ++n;
      // What follows on its line was meant as the string: one error for it.
      while (i + 1 < all.size() && base + all[i + 1].start < lineEnd) ++i;
      continue;
    }
    // Extend over the adjacent ASCII bad characters.
    uint32_t end = off + 1;
    unsigned run = 1;
    while (i + 1 < all.size() && all[i + 1].type == VxLexer::ERROR_CHAR &&
           base + all[i + 1].start == end &&
           static_cast<unsigned char>(original[end]) < 0x80) {
      ++i;
      ++end;
      ++run;
    }
    char u[16];
    std::snprintf(u, sizeof u, "U+%04X", c);
    std::string shown = c < 0x20 || c == 0x7F ? std::string("\\u{") + std::to_string(c) + "}"
                                              : std::string(1, static_cast<char>(c));
    diag::Diagnostic d = run == 1 ? diag::LexUnknownChar(shown, u) : diag::LexUnknownChars(run, shown, u);
    sink.emit(d.primary(base::Span{file, off, end}, run == 1 ? "not valid in Vx source" : "not valid in Vx source"));
    ++n;
  }
  return n;
}

// Bounds how deeply the parsers and later phases will recurse: brackets,
// angle brackets and runs of prefix operators open at once (`limit`), and
// `else if` chains, which nest in the tree without brackets (`chainLimit`,
// counted over the chains open at once). Returns false after reporting E0003.
bool checkNesting(const std::vector<RawToken>& tokens, uint32_t limit, uint32_t chainLimit,
                  uint32_t base, base::FileId file, diag::Sink& sink) {
  // Per open bracket: angle brackets, and the `else if`s of the chain at
  // that level.
  std::vector<uint32_t> angles{0}, chains{0};
  uint32_t brackets = 0, angleSum = 0, prefixRun = 0, chainSum = 0;
  bool afterElse = false, afterClose = false;
  auto endChain = [&] {
    chainSum -= chains.back();
    chains.back() = 0;
  };
  for (const RawToken& tok : tokens) {
    const RawToken* t = &tok;
    if (t->hidden) continue;
    // A chain goes on only through `} else`.
    if (afterClose && t->type != VxLexer::ELSE) endChain();
    afterClose = false;
    bool chained = afterElse && t->type == VxLexer::IF;
    afterElse = t->type == VxLexer::ELSE;
    if (chained) {
      ++chains.back();
      ++chainSum;
      if (chainSum > chainLimit) {
        uint32_t off = base + t->start;
        sink.emit(diag::NestingTooDeep("an `else if` chain", chainLimit)
                      .primary(base::Span{file, off, off + 2}, "too long here")
                      .help("move part of the chain into a helper function"));
        return false;
      }
    }
    switch (t->type) {
      case VxLexer::LPAREN:
      case VxLexer::LBRACK:
      case VxLexer::LBRACE:
        ++brackets;
        angles.push_back(0);
        chains.push_back(0);
        prefixRun = 0;
        break;
      case VxLexer::RPAREN:
      case VxLexer::RBRACK:
      case VxLexer::RBRACE:
        if (brackets > 0) {
          --brackets;
          angleSum -= angles.back();
          angles.pop_back();
          chainSum -= chains.back();
          chains.pop_back();
        }
        afterClose = t->type == VxLexer::RBRACE;
        prefixRun = 0;
        break;
      case VxLexer::LT:
        ++angles.back();
        ++angleSum;
        prefixRun = 0;
        break;
      case VxLexer::GT:
        if (angles.back() > 0) {
          --angles.back();
          --angleSum;
        }
        prefixRun = 0;
        break;
      case VxLexer::SEMI:
        angleSum -= angles.back();
        angles.back() = 0;
        endChain();
        prefixRun = 0;
        break;
      case VxLexer::MINUS:
      case VxLexer::BANG:
      case VxLexer::STAR:
      case VxLexer::AMP:
        ++prefixRun;
        break;
      case VxLexer::ANDAND:
        prefixRun += 2;
        break;
      case VxLexer::MUT:
        break;
      default:
        prefixRun = 0;
        break;
    }
    if (brackets + angleSum + prefixRun > limit) {
      uint32_t off = base + t->start;
      sink.emit(diag::NestingTooDeep("brackets, types and prefix operators", limit)
                    .primary(base::Span{file, off, off + 1}, "too deep here")
                    .help("name the inner parts with `let` or simplify the expression"));
      return false;
    }
  }
  return true;
}

// ANTLR's objects for one file, reused across chunks so the prediction
// caches stay warm.
struct Machinery {
  ByteStream input;
  FastLexer lexer{&input};
  antlr4::CommonTokenStream tokens{&lexer};
  VxParser parser{&tokens};
  std::shared_ptr<antlr4::BailErrorStrategy> bail = std::make_shared<antlr4::BailErrorStrategy>();
  std::shared_ptr<StatementRecovery> recover = std::make_shared<StatementRecovery>();

  Machinery() { parser.removeErrorListeners(); }

  void load(std::string_view text) {
    lexer.reset(text);
    tokens.setTokenSource(&lexer);
    tokens.fill();
  }

  // Parses the loaded chunk; `listener` receives errors of the LL pass.
  VxParser::FileContext* parse(SyntaxErrorListener* listener, bool& fellBack) {
    parser.getTreeTracker().reset();
    parser.setTokenStream(&tokens);
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::SLL);
    parser.setErrorHandler(bail);
    parser.removeErrorListeners();
    fellBack = false;
    try {
      return parser.file();
    } catch (const antlr4::ParseCancellationException&) {
    }
    fellBack = true;
    parser.getTreeTracker().reset();
    tokens.seek(0);
    parser.setTokenStream(&tokens);
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::LL);
    parser.setErrorHandler(recover);
    if (listener) parser.addErrorListener(listener);
    VxParser::FileContext* tree = parser.file();
    parser.removeErrorListeners();
    return tree;
  }
};

}  // namespace

ast::Module parseFile(const base::SourceMap& sources, base::FileId file, ast::Interner& names,
                      diag::Sink& sink, const ParseOptions& options, ParseStats* stats) {
  ast::Module m;
  m.file = file;
  std::string_view text = sources.file(file).text();
  PrescanResult pre = prescan(text, file, sink);
  if (pre.fatal) return m;

  // ANTLR's machinery is built only for a chunk the fast path gives back.
  std::unique_ptr<Machinery> mach;
  SyntaxErrorListener listener(sink, file);
  AstBuilder builder(m, names, sink, options.maxExprDepth);
  // Garbage input is reported, but not character by character forever.
  constexpr unsigned kMaxLexErrors = 100;
  unsigned lexErrors = 0, hidden = 0;
  diag::Sink lexSink;
  ByteStream lexInput;
  FastLexer lexer(&lexInput);
  std::vector<RawToken> tokens;
  for (const Chunk& c : pre.chunks) {
    std::string_view chunk = pre.ascii().substr(c.begin, c.end - c.begin);
    lexer.reset(chunk);
    tokens.clear();
    do tokens.push_back(lexer.nextRaw());
    while (tokens.back().type != RawToken::Eof);
    if (stats) {
      ++stats->chunks;
      stats->tokens += tokens.size();
    }
    unsigned bad = reportBadChars(tokens, text, c.begin, file, lexSink);
    if (bad > 0) {
      for (auto& d : const_cast<std::vector<diag::Diagnostic>&>(lexSink.diagnostics())) {
        if (lexErrors < kMaxLexErrors)
          sink.emit(std::move(d));
        else
          ++hidden;
        ++lexErrors;
      }
      lexSink = diag::Sink{};
      continue;
    }
    if (!checkNesting(tokens, options.maxNesting, options.maxElseIfChain, c.begin, file, sink)) continue;
    // No hidden token is left: `tokens` is the default channel.
    if (options.fastParser && fastParseChunk(chunk, tokens, c.begin, m, names, options.maxExprDepth))
      continue;
    if (stats) ++stats->antlrChunks;
    if (!mach) mach = std::make_unique<Machinery>();
    mach->load(chunk);
    listener.setBase(c.begin);
    listener.resetCount();
    bool fellBack = false;
    VxParser::FileContext* tree = mach->parse(&listener, fellBack);
    if (stats && fellBack) ++stats->llFallbacks;
    if (listener.errors() == 0) builder.buildFile(tree, c.begin);
    mach->parser.getTreeTracker().reset();
  }
  if (hidden > 0)
    sink.emit(diag::LexTooManyErrors(hidden).primary(base::Span{file, static_cast<uint32_t>(text.size()),
                                                                static_cast<uint32_t>(text.size())},
                                                     "the file ends here"));
  return m;
}

std::vector<LexedToken> lexForTesting(std::string_view text, bool reference) {
  std::vector<LexedToken> out;
  auto collect = [&](antlr4::TokenSource& source) {
    for (;;) {
      std::unique_ptr<antlr4::Token> t = source.nextToken();
      out.push_back(LexedToken{static_cast<uint32_t>(t->getType()), static_cast<uint32_t>(t->getChannel()),
                               static_cast<uint32_t>(t->getStartIndex()), static_cast<uint32_t>(t->getStopIndex()),
                               static_cast<uint32_t>(t->getLine()),
                               static_cast<uint32_t>(t->getCharPositionInLine())});
      if (t->getType() == antlr4::Token::EOF) break;
    }
  };
  if (reference) {
    antlr4::ANTLRInputStream input{std::string(text)};
    VxLexer lexer(&input);
    lexer.removeErrorListeners();
    collect(lexer);
  } else {
    ByteStream input;
    FastLexer lexer(&input);
    lexer.reset(text);
    collect(lexer);
  }
  return out;
}

uint64_t lexAndParseOnly(const base::SourceMap& sources, base::FileId file, diag::Sink& sink) {
  std::string_view text = sources.file(file).text();
  PrescanResult pre = prescan(text, file, sink);
  if (pre.fatal) return 0;
  Machinery mach;
  SyntaxErrorListener listener(sink, file);
  uint64_t tokens = 0;
  for (const Chunk& c : pre.chunks) {
    mach.load(pre.ascii().substr(c.begin, c.end - c.begin));
    tokens += mach.tokens.size();
    listener.setBase(c.begin);
    bool fellBack = false;
    mach.parse(&listener, fellBack);
  }
  mach.parser.getTreeTracker().reset();
  return tokens;
}

}  // namespace vx::parse
