#include <charconv>
#include <cstdio>

#include "sim/Sim.h"

namespace vx::sim {

namespace {

enum class Ty { U64, F64 };

struct Key {
  const char* key;
  Ty type;
  double min, max;
  const char* doc;
  const char* source;
};

constexpr Key kKeys[] = {
#define CFG(K, Member, Type, Default, Min, Max, Doc, Source) \
  {#K, Ty::Type, static_cast<double>(Min), static_cast<double>(Max), Doc, Source},
#include "sim/Config.def"
#undef CFG
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string number(double v) {
  // Integral values print as integers (to_chars would pick `1e+06`).
  if (v >= 0 && v < 9.2e18 && v == static_cast<double>(static_cast<uint64_t>(v)))
    return std::to_string(static_cast<uint64_t>(v));
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string fmtValue(uint64_t v) { return std::to_string(v); }
std::string fmtValue(double v) { return number(v); }

std::string valueText(const Config& c, std::string_view key) {
#define CFG(K, Member, Type, Default, Min, Max, Doc, Source) \
  if (key == #K) return fmtValue(c.Member);
#include "sim/Config.def"
#undef CFG
  return "";
}

}  // namespace

bool setConfig(Config& c, std::string_view key, std::string_view value, std::string& error) {
  value = trim(value);
  for (const Key& k : kKeys) {
    if (key != k.key) continue;
    double v = 0;
    uint64_t u = 0;
    const char* b = value.data();
    const char* e = value.data() + value.size();
    std::from_chars_result res{};
    if (k.type == Ty::U64) {
      res = std::from_chars(b, e, u);
      v = static_cast<double>(u);
    } else {
      res = std::from_chars(b, e, v);
    }
    if (value.empty() || res.ec != std::errc() || res.ptr != e) {
      error = "`" + std::string(key) + "` takes " + (k.type == Ty::U64 ? "a non-negative integer" : "a number") +
              ", not `" + std::string(value) + "`";
      return false;
    }
    if (!(v >= k.min && v <= k.max)) {
      error = "`" + std::string(key) + "` must be in " + number(k.min) + "..." + number(k.max) + ", not " +
              std::string(value);
      return false;
    }
#define CFG(K, Member, Type, Default, Min, Max, Doc, Source) \
  if (key == #K) c.Member = k.type == Ty::U64 ? static_cast<decltype(c.Member)>(u) : static_cast<decltype(c.Member)>(v);
#include "sim/Config.def"
#undef CFG
    return true;
  }
  error = "unknown machine parameter `" + std::string(key) + "` (see docs/tpu/sim.md or `vxsim --print-config`)";
  return false;
}

std::vector<std::string> parseConfig(std::string_view text, std::string_view file, Config& c) {
  std::vector<std::string> errors;
  size_t start = 0;
  unsigned line = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    ++line;
    std::string_view s = text.substr(start, nl - start);
    start = nl + 1;
    if (size_t hash = s.find('#'); hash != std::string_view::npos) s = s.substr(0, hash);
    s = trim(s);
    if (s.empty()) continue;
    size_t eq = s.find('=');
    std::string err;
    if (eq == std::string_view::npos)
      err = "expected `key = value`";
    else
      setConfig(c, trim(s.substr(0, eq)), s.substr(eq + 1), err);
    if (!err.empty()) errors.push_back(std::string(file) + ":" + std::to_string(line) + ": error: " + err);
  }
  return errors;
}

std::vector<std::string> checkConfig(const Config& c) {
  std::vector<std::string> errors;
#define CFG(K, Member, Type, Default, Min, Max, Doc, Source)                                              \
  if (!(static_cast<double>(c.Member) >= static_cast<double>(Min) &&                                      \
        static_cast<double>(c.Member) <= static_cast<double>(Max)))                                       \
    errors.push_back("error: machine parameter `" #K "` = " + fmtValue(c.Member) + " is outside " +       \
                     number(static_cast<double>(Min)) + "..." + number(static_cast<double>(Max)));
#include "sim/Config.def"
#undef CFG
  return errors;
}

std::string printConfig(const Config& c) {
  std::string out;
  for (const Key& k : kKeys) out += std::string(k.key) + " = " + valueText(c, k.key) + "\n";
  return out;
}

std::string configTableMarkdown() {
  Config d;
  std::string out = "| key | default | meaning | source |\n|---|---|---|---|\n";
  for (const Key& k : kKeys)
    out += "| `" + std::string(k.key) + "` | " + valueText(d, k.key) + " | " + k.doc + " | " + k.source + " |\n";
  return out;
}

}  // namespace vx::sim
