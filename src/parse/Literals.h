// The values of INT and FLOAT tokens (grammar/VxLexer.g4): suffix, `_`
// separators, `0x`/`0b` radix. One reading for both parsers (AstBuilder and
// FastParser), so that they cannot disagree on a literal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ast/Ast.h"

namespace vx::parse {

// Why a literal has no value: what the error's label says.
enum class LiteralProblem : uint8_t { None, TooLarge, NoDigits, EmptyExponent };

// False when the value does not fit in 64 bits or the literal has no digits
// (`0x`, `0b_`: the lexer takes `_` as a digit); the caller reports or gives
// the chunk back. `suffix` is set either way.
bool readIntLiteral(std::string_view text, uint64_t& value, ast::LitSuffix& suffix,
                    LiteralProblem* why = nullptr);
// False when the value overflows a 64-bit float, or its exponent has no
// digit (`1e_`: the lexer takes `_` as a digit, as Rust's does).
bool readFloatLiteral(std::string_view text, double& value, ast::LitSuffix& suffix,
                      LiteralProblem* why = nullptr);
// The contents of a STRING token (quotes removed, `\"` and `\\` decoded).
std::string readStringLiteral(std::string_view text);

}  // namespace vx::parse
