// Lint levels (rustc's model): each lint of Lints.def has a default level;
// `-D/-W/-A NAME` on the command line and `#[deny/warn/allow(NAME)]` on a
// function override it (the attribute wins), and `-D warnings` makes every
// warning an error. Levels are applied once, to everything a run reported.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diag/Sink.h"

namespace vx::diag {

enum class Lint : uint8_t {
#define LINT(K, N, C, L) K,
#include "diag/Lints.def"
#undef LINT
};


const char* lintName(Lint l);
const char* lintCode(Lint l);
LintLevel defaultLevel(Lint l);
const char* levelName(LintLevel l);  // "allow", "warn", "deny"
std::optional<Lint> lintByName(std::string_view name);
std::optional<Lint> lintOfCode(std::string_view code);
std::optional<LintLevel> levelByName(std::string_view name);
std::vector<std::string> lintNames();

// The command line's lint flags, in order (the last one for a lint wins).
struct LintOptions {
  std::vector<std::pair<std::string, LintLevel>> flags;  // lint name or "warnings"
  // An error message when a flag names no lint, "" otherwise.
  std::string validate() const;
};

// Gives every lint diagnostic of `sink` its level: an attribute on the
// function (Diagnostic::attrLevel), else the command line, else the
// default; drops the allowed ones; makes denied ones errors; then, for the
// lints left at `warn`, the function's `#[allow/warn/deny(warnings)]`
// (Diagnostic::attrWarnings), else the command line's `-A/-W/-D warnings`. The first report of each lint says
// what set its level.
void applyLintLevels(Sink& sink, const base::SourceMap& sources, const LintOptions& options);

}  // namespace vx::diag
