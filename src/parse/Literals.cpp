#include "parse/Literals.h"

#include <cerrno>
#include <cstdlib>
#include <string>
#include <utility>

namespace vx::parse {

using ast::LitSuffix;

namespace {
template <size_t N>
void stripSuffix(std::string_view& s, const std::pair<std::string_view, LitSuffix> (&table)[N], LitSuffix& out) {
  for (const auto& [sfx, k] : table)
    if (s.size() > sfx.size() && s.substr(s.size() - sfx.size()) == sfx) {
      out = k;
      s.remove_suffix(sfx.size());
      return;
    }
}
}  // namespace

bool readIntLiteral(std::string_view s, uint64_t& value, LitSuffix& suffix, LiteralProblem* why) {
  auto fail = [&](LiteralProblem p) {
    if (why) *why = p;
    return false;
  };
  static const std::pair<std::string_view, LitSuffix> suffixes[] = {
      {"usize", LitSuffix::Usize}, {"i32", LitSuffix::I32}, {"i64", LitSuffix::I64},
      {"u32", LitSuffix::U32},     {"u64", LitSuffix::U64}};
  stripSuffix(s, suffixes, suffix);
  unsigned radix = 10;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'b')) {
    radix = s[1] == 'x' ? 16 : 2;
    s.remove_prefix(2);
  }
  uint64_t v = 0;
  bool any = false;
  for (char c : s) {
    if (c == '_') continue;
    unsigned d;
    if (c >= '0' && c <= '9')
      d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A' + 10);
    else
      return fail(LiteralProblem::NoDigits);
    if (d >= radix) return fail(LiteralProblem::NoDigits);
    if (__builtin_mul_overflow(v, radix, &v) || __builtin_add_overflow(v, d, &v)) return fail(LiteralProblem::TooLarge);
    any = true;
  }
  value = v;
  return any ? true : fail(LiteralProblem::NoDigits);
}

bool readFloatLiteral(std::string_view s, double& value, LitSuffix& suffix, LiteralProblem* why) {
  static const std::pair<std::string_view, LitSuffix> suffixes[] = {
      {"bf16", LitSuffix::Bf16}, {"f16", LitSuffix::F16}, {"f32", LitSuffix::F32}, {"f64", LitSuffix::F64}};
  stripSuffix(s, suffixes, suffix);
  std::string digits;
  digits.reserve(s.size());
  for (char c : s)
    if (c != '_') digits += c;
  // An exponent needs a digit: `1e_` (which the lexer takes whole) is no
  // `1e0`, and strtod would stop before the `e`.
  if (size_t e = digits.find_first_of("eE"); e != std::string::npos) {
    size_t d = e + 1;
    if (d < digits.size() && (digits[d] == '+' || digits[d] == '-')) ++d;
    if (d >= digits.size()) {
      value = 0;
      if (why) *why = LiteralProblem::EmptyExponent;
      return false;
    }
  }
  errno = 0;
  value = std::strtod(digits.c_str(), nullptr);
  if (errno == ERANGE && (value > 1.0 || value < -1.0)) {
    if (why) *why = LiteralProblem::TooLarge;
    return false;
  }
  return true;
}

std::string readStringLiteral(std::string_view text) {
  std::string out;
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    if (text[i] == '\\' && i + 2 < text.size()) ++i;
    out += text[i];
  }
  return out;
}

}  // namespace vx::parse
