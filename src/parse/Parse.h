// Parsing: source text -> AST, reporting E0001 (syntax), E0002 (lexical) and
// E0003 (nesting) into a Sink. Plain C++: no ANTLR type crosses this header.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ast/Ast.h"
#include "base/Source.h"
#include "diag/Sink.h"

namespace vx::parse {

struct ParseOptions {
  // Brackets, angle brackets and prefix operators open at once.
  uint32_t maxNesting = 256;
  // Depth of an expression tree, e.g. a chain `a + b + c + ...`.
  uint32_t maxExprDepth = 2048;
  // `else if` arms of the chains open at once (each arm nests in the tree).
  uint32_t maxElseIfChain = 1024;
  // Parse with the hand-written parser first, with ANTLR only the chunks it
  // gives back; false: ANTLR for every chunk (the reference, for the
  // differential tests).
  bool fastParser = true;
};

struct ParseStats {
  uint32_t chunks = 0;       // top-level items parsed separately
  uint32_t antlrChunks = 0;  // chunks the fast parser gave to ANTLR
  uint32_t llFallbacks = 0;  // of those, chunks that SLL prediction could not parse
  uint64_t tokens = 0;
};

// Parses file `file`. When the file has lexical or syntax errors, the module
// holds only the items that parsed cleanly; callers stop after parsing then.
ast::Module parseFile(const base::SourceMap& sources, base::FileId file, ast::Interner& names,
                      diag::Sink& sink, const ParseOptions& options = {},
                      ParseStats* stats = nullptr);

// The tokens of ASCII `text` from the hand-written lexer, or from the
// ANTLR-generated reference lexer (grammar/VxLexer.g4) when `reference` is
// set: the differential test compares the two.
struct LexedToken {
  uint32_t type, channel, start, stop, line, col;
  friend bool operator==(const LexedToken& a, const LexedToken& b) {
    return a.type == b.type && a.channel == b.channel && a.start == b.start && a.stop == b.stop &&
           a.line == b.line && a.col == b.col;
  }
};
std::vector<LexedToken> lexForTesting(std::string_view text, bool reference);

// Lexes and parses every chunk with the ANTLR parser, without building an
// AST: the reference path's speed, for benchmarks.
uint64_t lexAndParseOnly(const base::SourceMap& sources, base::FileId file, diag::Sink& sink);

}  // namespace vx::parse
