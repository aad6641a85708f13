#include "driver/Args.h"

#include <cstdio>

#include "base/Text.h"
#include "target/Target.h"

namespace vx::driver {

ParsedArgs parseArgs(const std::string& command, const std::vector<std::string>& args,
                     const std::vector<FlagSpec>& specs) {
  ParsedArgs r;
  bool onlyPositional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (onlyPositional || a.size() < 2 || a[0] != '-') {
      r.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      onlyPositional = true;
      continue;
    }
    std::string name = a, value;
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
    }
    // Lint levels glued to their flag, as rustc takes them: `-Dwarnings`.
    if (a.size() > 2 && a[0] == '-' && (a[1] == 'D' || a[1] == 'W' || a[1] == 'A') && a[2] != '=') {
      name = a.substr(0, 2);
      value = a.substr(2);
      eq = 2;
    }
    const FlagSpec* spec = nullptr;
    for (const auto& s : specs)
      if (s.name == name) spec = &s;
    if (!spec) {
      std::vector<std::string> names;
      for (const auto& s : specs) names.push_back(s.name);
      std::string close = base::closestMatch(name, names);
      r.error = "unknown option `" + name + "` for `vxc " + command + "`" +
                (close.empty() ? "" : "; did you mean `" + close + "`?") +
                "\n  (see `vxc " + command + " --help`)";
      return r;
    }
    if (spec->takesValue && eq == std::string::npos) {
      if (i + 1 >= args.size()) {
        r.error = "option `" + name + "` needs a value";
        return r;
      }
      value = args[++i];
    } else if (!spec->takesValue && eq != std::string::npos) {
      r.error = "option `" + name + "` takes no value";
      return r;
    }
    if (!spec->values.empty()) {
      bool ok = false;
      std::string list;
      for (const auto& v : spec->values) {
        ok = ok || v == value;
        list += (list.empty() ? "`" : ", `") + v + "`";
      }
      if (!ok) {
        r.error = "invalid value `" + value + "` for `" + name + "`; expected one of " + list;
        return r;
      }
    }
    // A flag that takes one value, given twice, is a mistake the last one
    // would hide (`--target tpu ... --target cpu`); the repeatable ones
    // collect their values (`--const`, `--arg`, `--input`, lint levels).
    static const char* const kRepeatable[] = {"--const", "--arg", "--input", "-D", "-W", "-A"};
    bool repeatable = false;
    for (const char* f : kRepeatable) repeatable = repeatable || name == f;
    if (spec->takesValue && !repeatable && r.flags.count(name)) {
      r.error = "option `" + name + "` is given twice (`" + r.flags[name] + "` and `" + value + "`)";
      return r;
    }
    r.flags[name] = value;
    r.ordered.emplace_back(name, value);
  }
  return r;
}

bool parseSolverRlimit(const std::string& value, unsigned& out) {
  if (value.empty() || value.size() > 9 || value.find_first_not_of("0123456789") != std::string::npos) return false;
  auto v = static_cast<unsigned>(std::stoul(value));
  if (v == 0) return false;
  out = v;
  return true;
}

int usageError(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 2;
}

std::vector<std::string> targetNames() {
  std::vector<std::string> out;
  for (target::TargetKind t : target::allTargets()) out.push_back(target::info(t).name);
  return out;
}

}  // namespace vx::driver
