// A hand-written recursive-descent parser for grammar/VxParser.g4 that
// builds the AST directly from RawTokens, without ANTLR's parse trees.
//
// It is the fast path, not a second definition of the language: it accepts a
// chunk only when it is sure ANTLR would parse it without error and
// AstBuilder would build it without a diagnostic. Anything else -- a syntax
// error, a literal out of range, an expression deeper than the limit, a
// chained comparison, `as T<`, which only ANTLR's full-context prediction can
// decide -- makes it give the chunk back untouched, and the ANTLR parser and
// AstBuilder then parse it and report. A differential test
// (tests/unit/parse/FastParserTest.cpp) requires the same AST, ranges
// included, from both on every test program and on mutated ones.
#pragma once

#include <string_view>
#include <vector>

#include "ast/Ast.h"
#include "parse/FastLexer.h"

namespace vx::parse {

// Parses one chunk: `tokens` are its default-channel tokens ending with EOF,
// offsets relative to `text`, which starts at byte `base` of the file.
// Returns true after appending the chunk's items to `m`; returns false with
// `m` as it was (names interned on the way may stay in `names`).
bool fastParseChunk(std::string_view text, const std::vector<RawToken>& tokens, uint32_t base,
                    ast::Module& m, ast::Interner& names, uint32_t maxExprDepth);

}  // namespace vx::parse
