#include "diag/Lint.h"

#include <map>

namespace vx::diag {

const char* lintName(Lint l) {
  switch (l) {
#define LINT(K, N, C, L) \
  case Lint::K: return N;
#include "diag/Lints.def"
#undef LINT
  }
  return "";
}

const char* lintCode(Lint l) {
  switch (l) {
#define LINT(K, N, C, L) \
  case Lint::K: return C;
#include "diag/Lints.def"
#undef LINT
  }
  return "";
}

LintLevel defaultLevel(Lint l) {
  switch (l) {
#define LINT(K, N, C, L) \
  case Lint::K: return LintLevel::L;
#include "diag/Lints.def"
#undef LINT
  }
  return LintLevel::Warn;
}

const char* levelName(LintLevel l) {
  switch (l) {
    case LintLevel::Allow: return "allow";
    case LintLevel::Warn: return "warn";
    case LintLevel::Deny: return "deny";
  }
  return "";
}

std::optional<Lint> lintByName(std::string_view name) {
#define LINT(K, N, C, L) \
  if (name == N) return Lint::K;
#include "diag/Lints.def"
#undef LINT
  return std::nullopt;
}

std::optional<Lint> lintOfCode(std::string_view code) {
#define LINT(K, N, C, L) \
  if (code == C) return Lint::K;
#include "diag/Lints.def"
#undef LINT
  return std::nullopt;
}

std::optional<LintLevel> levelByName(std::string_view name) {
  if (name == "allow") return LintLevel::Allow;
  if (name == "warn") return LintLevel::Warn;
  if (name == "deny") return LintLevel::Deny;
  return std::nullopt;
}

std::vector<std::string> lintNames() {
  return {
#define LINT(K, N, C, L) N,
#include "diag/Lints.def"
#undef LINT
  };
}

std::string LintOptions::validate() const {
  for (const auto& [name, level] : flags)
    if (name != "warnings" && !lintByName(name)) {
      std::string all;
      for (const std::string& n : lintNames()) all += ", `" + n + "`";
      return "unknown lint `" + name + "`; the lints are `warnings`" + all;
    }
  return {};
}

namespace {

const char* flagOf(LintLevel l) {
  switch (l) {
    case LintLevel::Allow: return "-A";
    case LintLevel::Warn: return "-W";
    case LintLevel::Deny: return "-D";
  }
  return "";
}

}  // namespace

void applyLintLevels(Sink& sink, const base::SourceMap& sources, const LintOptions& options) {
  sink.sort(sources);
  // `-D warnings` makes every warning an error, `-A warnings` silences
  // every warning, `-W warnings` undoes either (the last one given counts),
  // as rustc's `warnings` group.
  bool denyWarnings = false, allowWarnings = false;
  std::map<Lint, LintLevel> fromFlags;
  for (const auto& [name, level] : options.flags) {
    if (name == "warnings") {
      denyWarnings = level == LintLevel::Deny;
      allowWarnings = level == LintLevel::Allow;
      continue;
    }
    if (auto l = lintByName(name)) fromFlags[*l] = level;
  }
  // What set a lint's level is said once per lint and origin (the default,
  // the command line, each attribute).
  std::map<std::pair<Lint, std::string>, bool> noted;
  sink.rewrite([&](Diagnostic& d) {
    std::optional<Lint> lint = lintOfCode(d.code());
    if (!lint) {
      if (allowWarnings && d.severity() == Severity::Warning) return false;
      if (denyWarnings && d.severity() == Severity::Warning) d.levelOverride = Severity::Error;
      return true;
    }
    LintLevel level = defaultLevel(*lint);
    std::string why = std::string("`#[") + levelName(level) + "(" + lintName(*lint) + ")]` on by default";
    auto flag = fromFlags.find(*lint);
    if (flag != fromFlags.end()) {
      level = flag->second;
      why = std::string("`") + flagOf(level) + " " + lintName(*lint) + "` set on the command line";
    }
    bool fromAttr = false;
    if (d.attrLevel) {
      level = *d.attrLevel;
      fromAttr = true;
    }
    if (level == LintLevel::Allow) return false;
    // `#[deny(warnings)]` (or allow, warn) on the function: over the
    // command line's `warnings`, as a lint's own attribute is over its flag.
    if (level == LintLevel::Warn && d.attrWarnings) {
      if (*d.attrWarnings == LintLevel::Allow) return false;
      if (*d.attrWarnings == LintLevel::Deny) {
        d.levelOverride = Severity::Error;
        std::string origin = "warnings" + std::to_string(d.attrWarningsSpan.file.index) + ":" +
                             std::to_string(d.attrWarningsSpan.begin);
        if (!noted[{*lint, origin}]) {
          noted[{*lint, origin}] = true;
          if (d.attrWarningsSpan.valid()) d.secondary(d.attrWarningsSpan, "the lint level is defined here");
          d.note(std::string("`#[deny(") + lintName(*lint) + ")]` implied by `#[deny(warnings)]`");
        }
        return true;
      }
    }
    // `#[warn(warnings)]` keeps a warning a warning, whatever the command
    // line's `warnings` says.
    bool groupFlag = !(d.attrWarnings && *d.attrWarnings == LintLevel::Warn);
    if (level == LintLevel::Warn && allowWarnings && groupFlag) return false;
    if (level == LintLevel::Warn && denyWarnings && groupFlag) {
      level = LintLevel::Deny;
      why = std::string("`-D warnings` set on the command line (implies `-D ") + lintName(*lint) + "`)";
      fromAttr = false;
    }
    d.levelOverride = level == LintLevel::Deny ? Severity::Error : Severity::Warning;
    std::string origin = fromAttr ? "attr" + std::to_string(d.attrSpan.file.index) + ":" + std::to_string(d.attrSpan.begin)
                                  : why;
    if (!noted[{*lint, origin}]) {
      noted[{*lint, origin}] = true;
      if (fromAttr && d.attrSpan.valid())
        d.secondary(d.attrSpan, "the lint level is defined here");
      else if (!fromAttr)
        d.note(why);
    }
    return true;
  });
}

}  // namespace vx::diag
