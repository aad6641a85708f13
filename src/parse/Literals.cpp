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

bool readIntLiteral(std::string_view s, uint64_t& value, LitSuffix& suffix) {
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
      return false;
    if (d >= radix || __builtin_mul_overflow(v, radix, &v) || __builtin_add_overflow(v, d, &v)) return false;
    any = true;
  }
  value = v;
  return any;
}

bool readFloatLiteral(std::string_view s, double& value, LitSuffix& suffix) {
  static const std::pair<std::string_view, LitSuffix> suffixes[] = {
      {"bf16", LitSuffix::Bf16}, {"f16", LitSuffix::F16}, {"f32", LitSuffix::F32}, {"f64", LitSuffix::F64}};
  stripSuffix(s, suffixes, suffix);
  std::string digits;
  digits.reserve(s.size());
  for (char c : s)
    if (c != '_') digits += c;
  errno = 0;
  value = std::strtod(digits.c_str(), nullptr);
  return !(errno == ERANGE && (value > 1.0 || value < -1.0));
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
