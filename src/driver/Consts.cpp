#include "driver/Consts.h"

#include "check/Check.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "base/Text.h"
#include "parse/Literals.h"
#include "hir/Types.h"

namespace vx::driver {

namespace {

// The magnitude and sign of an integer VALUE within [lo, hi], written as a
// Vx integer literal without a suffix (`64`, `0x40`, `0b100`, `1_024`),
// maybe negative.
bool parseInteger(const std::string& v, int64_t lo, uint64_t hi, uint64_t& magnitude, bool& negative) {
  if (v.empty()) return false;
  negative = v[0] == '-';
  std::string digits = negative ? v.substr(1) : v;
  if (digits.empty() || !(digits[0] >= '0' && digits[0] <= '9')) return false;
  ast::LitSuffix suffix = ast::LitSuffix::None;
  uint64_t x = 0;
  // (readIntLiteral refuses a character that is no digit of the radix.)
  if (!parse::readIntLiteral(digits, x, suffix) || suffix != ast::LitSuffix::None) return false;
  magnitude = x;
  if (negative) return lo < 0 && x <= static_cast<uint64_t>(-(lo + 1)) + 1;
  return x <= hi;
}

// A Vx float or integer literal without a suffix, maybe negative: `2`,
// `0.5`, `1e-3`, `2.5E+4`, `1_000.0` (not strtod's hexadecimal, `inf`,
// blanks or `.5`).
bool floatSyntax(const std::string& v) {
  size_t i = v.size() > 0 && v[0] == '-' ? 1 : 0;
  auto digits = [&]() {
    size_t from = i;
    if (i >= v.size() || !(v[i] >= '0' && v[i] <= '9')) return false;
    while (i < v.size() && ((v[i] >= '0' && v[i] <= '9') || v[i] == '_')) ++i;
    return i > from;
  };
  if (!digits()) return false;
  if (i < v.size() && v[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
    size_t from = i;
    while (i < v.size() && ((v[i] >= '0' && v[i] <= '9') || v[i] == '_')) ++i;
    if (v.find_first_of("0123456789", from) >= i) return false;  // an exponent needs a digit
  }
  return i == v.size();
}

ast::ExprId add(ast::Module& m, ast::Expr e) {
  m.exprs.push_back(e);
  return ast::ExprId{static_cast<uint32_t>(m.exprs.size() - 1)};
}

}  // namespace

std::string applyConstOverrides(ast::Module& m, const ast::Interner& names, const std::vector<std::string>& overrides,
                                target::TargetKind target) {
  std::set<std::string> seen;
  for (const std::string& kv : overrides) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
      return "`--const " + kv + "`: expected NAME=VALUE (`--const BM=64`)";
    std::string name = kv.substr(0, eq), value = kv.substr(eq + 1);
    if (!seen.insert(name).second) return "`--const " + name + "` is given twice";
    // Every item of that name: `#[cfg]` variants of one constant are all set,
    // and the checker keeps the one of the target being built.
    std::vector<ast::Item*> items;
    std::vector<std::string> consts;
    bool configuredOut = false;
    for (ast::Item& it : m.items) {
      std::string n(names.str(it.name));
      if (!check::itemConfigured(it, names, target)) {
        configuredOut = configuredOut || n == name;
        continue;
      }
      if (it.kind == ast::ItemKind::Const) consts.push_back(n);
      if (n == name) items.push_back(&it);
    }
    if (items.empty() && configuredOut)
      return "`--const " + kv + "`: `const " + name + "` is not part of the program for target `" +
             target::info(target).name + "` (its `#[cfg]` leaves it out)";
    if (items.empty()) {
      std::string close = base::closestMatch(name, consts), list;
      for (const std::string& c : consts) list += (list.empty() ? "`" : ", `") + c + "`";
      return "`--const " + kv + "`: there is no `const " + name + "`" +
             (!close.empty() ? "; did you mean `" + close + "`?"
              : list.empty() ? " (the file has no `const` items)"
                             : "; the consts are " + list);
    }
    for (ast::Item* item : items) {
      switch (item->kind) {
        case ast::ItemKind::Fn:
          return "`--const " + kv + "`: `" + name + "` is a function, not a `const`; `--const` sets `const` items";
        case ast::ItemKind::Const: break;
      }
      const ast::Type& t = m.type(item->constType);
      std::string type = t.kind == ast::TypeKind::Path && m.path(t.path).segments.count == 1
                             ? std::string(names.str(ast::NameId{m.listAt(m.path(t.path).segments, 0)}))
                             : "";
      const ast::Range at = m.expr(item->constValue).range;
      ast::Expr lit;
      lit.range = at;
      bool negative = false, ok = true;
      if (type == "bool") {
        ok = value == "true" || value == "false";
        lit.kind = ast::ExprKind::BoolLit;
        lit.payload = value == "true" ? 1 : 0;
      } else if (type == "i32" || type == "i64" || type == "u32" || type == "u64" || type == "usize") {
        int64_t lo = type == "i32" ? INT32_MIN : type == "i64" ? INT64_MIN : 0;
        uint64_t hi = type == "i32" ? INT32_MAX : type == "i64" ? INT64_MAX : type == "u32" ? UINT32_MAX : UINT64_MAX;
        uint64_t magnitude = 0;
        ok = parseInteger(value, lo, hi, magnitude, negative);
        lit.kind = ast::ExprKind::IntLit;
        lit.payload = static_cast<uint32_t>(m.ints.size());
        m.ints.push_back(magnitude);
      } else if (type == "f32" || type == "f64" || type == "bf16" || type == "f16") {
        std::string plain;
        for (char c : value)
          if (c != '_') plain += c;
        char* end = nullptr;
        double d = std::strtod(plain.c_str(), &end);
        ok = floatSyntax(value) && !*end && std::isfinite(d);
        // A value that would be an infinity in the const's type: a usage
        // error here, not E0200 at the source's own literal.
        const hir::FloatKind fk = type == "f16" ? hir::FloatKind::F16 : type == "bf16" ? hir::FloatKind::Bf16
                                  : type == "f32" ? hir::FloatKind::F32 : hir::FloatKind::F64;
        if (ok && std::fabs(d) >= hir::floatRange(fk).limit) {
          char largest[64];
          std::snprintf(largest, sizeof largest, "%g", hir::floatRange(fk).largest);
          return "`--const " + kv + "`: `" + value + "` does not fit in `" + type + "` (the type of `const " + name +
                 "`): it would be an infinity; the largest finite `" + type + "` is " + largest;
        }
        negative = ok && std::signbit(d);
        lit.kind = ast::ExprKind::FloatLit;
        lit.payload = static_cast<uint32_t>(m.floats.size());
        m.floats.push_back(std::fabs(d));
      } else {
        return "`--const " + kv + "`: `const " + name + "` has a type `--const` cannot set (it sets integers, " +
               "floats and `bool`)";
      }
      if (!ok)
        return "`--const " + kv + "`: `" + value + "` is not a valid `" + type + "` (the type of `const " + name +
               "`; written as a Vx literal without a suffix: " +
               (type == "bool" ? "`true` or `false`" : type[0] == 'f' || type == "bf16" ? "`0.5`, `1e-3`, `2`" : "`64`, `0x40`, `1_024`") +
               ")";
      ast::ExprId id = add(m, lit);
      if (negative) {
        ast::Expr neg;
        neg.kind = ast::ExprKind::Unary;
        neg.op = ast::Op::Neg;
        neg.range = at;
        neg.lhs = id;
        id = add(m, neg);
      }
      item->constValue = id;
    }
  }
  return "";
}

}  // namespace vx::driver
