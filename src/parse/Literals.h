// The values of INT and FLOAT tokens (grammar/VxLexer.g4): suffix, `_`
// separators, `0x`/`0b` radix. One reading for both parsers (AstBuilder and
// FastParser), so that they cannot disagree on a literal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ast/Ast.h"

namespace vx::parse {

// False when the value does not fit in 64 bits (the caller reports or gives
// the chunk back). `suffix` is set either way.
bool readIntLiteral(std::string_view text, uint64_t& value, ast::LitSuffix& suffix);
// False when the value overflows a 64-bit float.
bool readFloatLiteral(std::string_view text, double& value, ast::LitSuffix& suffix);
// The contents of a STRING token (quotes removed, `\"` and `\\` decoded).
std::string readStringLiteral(std::string_view text);

}  // namespace vx::parse
