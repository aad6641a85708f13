// Typed constructors, one per row of DiagKinds.def:
//   diag::SyntaxExpectedFound(std::string expected, std::string found)
// The number of `{}` placeholders is checked against the argument types at
// compile time.
#pragma once

#include <string>

#include "diag/Diagnostic.h"

namespace vx::diag {

namespace detail {
constexpr unsigned countPlaceholders(const char* s) {
  unsigned n = 0;
  for (; *s; ++s)
    if (s[0] == '{' && s[1] == '}') ++n;
  return n;
}
std::string formatMessage(DiagId id, const std::vector<std::string>& args);
inline std::string toArg(const std::string& s) { return s; }
inline std::string toArg(unsigned v) { return std::to_string(v); }
}  // namespace detail

template <typename... Args>
struct Kind {
  DiagId id;
  Diagnostic operator()(Args... args) const {
    Diagnostic d;
    d.id = id;
    d.message = detail::formatMessage(id, {detail::toArg(args)...});
    return d;
  }
};

#define DIAG(Name, Code, Sev, Fmt, ...)                                      \
  inline constexpr Kind<__VA_ARGS__> Name{DiagId::Name};                      \
  static_assert(detail::countPlaceholders(Fmt) ==                             \
                    std::tuple_size_v<std::tuple<__VA_ARGS__>>,               \
                "placeholder count of " #Name " does not match its arguments");
#include "diag/DiagKinds.def"
#undef DIAG

}  // namespace vx::diag
