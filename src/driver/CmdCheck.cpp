#include <chrono>
#include <cstdio>
#include <unistd.h>

#include "driver/Args.h"
#include "driver/Commands.h"
#include "driver/Pipeline.h"

namespace vx::driver {

namespace {
const char* kCheckHelp =
    "Usage: vxc check [options] FILE...\n"
    "\n"
    "Parses and checks Vx files; diagnostics go to stderr.\n"
    "Exit status: 0 clean or warnings only, 1 errors, 2 usage or internal error.\n"
    "\n"
    "Options:\n"
    "  --emit=ast|hir|checker-ir       print the AST, the typed HIR or the checker's core IR to stdout\n"
    "  --target=cpu|tpu|b200|h100      target whose builtins and memories apply (default cpu)\n"
    "  --error-format=human|json|sarif diagnostics format (default human)\n"
    "  --color=auto|always|never       colours in human output (default auto: on a tty)\n"
    "  -D NAME, -W NAME, -A NAME        deny, warn about or allow a lint (`unproved`, `unused_variables`);\n"
    "                                  `-D warnings` makes every warning an error, `-A warnings`\n"
    "                                  silences them, `-W warnings` undoes either (the last counts)\n"
    "  --explain-proof                 print every solver query (SMT-LIB) and its verdict\n"
    "  --solver-rlimit=N               Z3 resource limit per query, 1 to 999999999 (default 2000000)\n"
    "  --const NAME=VALUE              set `const NAME` (integer, float or bool) for this build; repeatable\n"
    "  --stats                         print phase times and solver statistics to stderr\n";
}  // namespace

namespace {
std::vector<std::unique_ptr<hir::Program>>& keptUntilExit() {
  static auto* kept = new std::vector<std::unique_ptr<hir::Program>>();
  return *kept;
}
}  // namespace

int cmdCheck(const std::vector<std::string>& args) {
  ParsedArgs a = parseArgs("check", args,
                           {{"--help", false, {}},
                            {"--emit", true, {"ast", "hir", "checker-ir"}},
                            {"--target", true, targetNames()},
                            {"--error-format", true, {"human", "json", "sarif"}},
                            {"--color", true, {"auto", "always", "never"}},
                            {"--explain-proof", false, {}},
                            {"--solver-rlimit", true, {}},
                            {"--stats", false, {}},
                            {"--const", true, {}},
                            {"-D", true, {}},
                            {"-W", true, {}},
                            {"-A", true, {}}});
  if (!a.error.empty()) return usageError(a.error);
  std::string lintError;
  diag::LintOptions lints = lintOptions(a, lintError);
  if (!lintError.empty()) return usageError(lintError);
  if (a.has("--help")) {
    std::fputs(kCheckHelp, stdout);
    return 0;
  }
  if (a.positional.empty()) return usageError("`vxc check` needs at least one file");

  CheckOptions opts;
  opts.lints = lints;
  for (const auto& [flag, value] : a.ordered)
    if (flag == "--const") opts.consts.push_back(value);
  if (a.get("--emit", "") == "ast") opts.emit = Emit::Ast;
  if (a.get("--emit", "") == "hir") opts.emit = Emit::Hir;
  if (a.get("--emit", "") == "checker-ir") opts.emit = Emit::CheckerIr;
  opts.target = a.get("--target", "cpu");
  std::vector<std::string> proofLog;
  if (a.has("--explain-proof")) opts.proofLog = &proofLog;
  if (a.has("--solver-rlimit")) {
    std::string v = a.get("--solver-rlimit", "");
    if (!parseSolverRlimit(v, opts.solverRlimit))
      return usageError("`--solver-rlimit` takes a whole number from 1 to 999999999 (Z3's resources per query; "
                        "the default is 2000000), not `" + v + "`");
  }
  std::string fmt = a.get("--error-format", "human");
  Format format = fmt == "json" ? Format::Json : fmt == "sarif" ? Format::Sarif : Format::Human;
  std::string color = a.get("--color", "auto");
  bool useColor = color == "always" || (color == "auto" && isatty(STDERR_FILENO));

  base::SourceMap sources;
  diag::Sink sink;
  check::OwnershipStats ownStats;
  opts.ownershipStats = &ownStats;
  double parseS = 0, typeS = 0, ownS = 0, legalS = 0, firstS = 0, secondS = 0;
  uint64_t lines = 0;
  auto wallStart = std::chrono::steady_clock::now();
  // A file that cannot be read is reported (exit 2) after the others are
  // checked, as a C compiler goes on past a missing file.
  bool unreadable = false;
  for (const auto& path : a.positional) {
    base::ReadResult r = base::readFile(path);
    if (!r.error.empty()) {
      usageError(r.error);
      unreadable = true;
      continue;
    }
    base::FileId id = sources.add(path, std::move(r.text));
    lines += sources.file(id).lineCount();
    CheckOutput out = checkFile(sources, id, sink, opts);
    if (!out.usageError.empty()) return usageError(path + ": " + out.usageError);
    parseS += out.parseSeconds;
    typeS += out.typeSeconds;
    ownS += out.ownershipSeconds;
    legalS += out.legalitySeconds;
    firstS += out.firstPartSeconds;
    secondS += out.secondPartSeconds;
    // The checked program is not needed any more, and the process ends
    // soon: it stays allocated (reachable) instead of being freed piece by
    // piece, as compilers skip freeing before exit.
    if (out.program) keptUntilExit().push_back(std::move(out.program));
    std::fputs(out.emitted.c_str(), stdout);
    for (size_t q = 0; q < proofLog.size(); ++q)
      std::printf("; query %zu (%s)\n%s\n\n", q + 1, path.c_str(), proofLog[q].c_str());
    proofLog.clear();
  }
  if (a.has("--stats")) {
    double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    std::fprintf(stderr,
                 "stats: %llu lines; parse %.3f s, types %.3f s, ownership %.3f s (solver %.3f s, %.0f%% of all), "
                 "target legality %.3f s (on a second thread, during ownership); %.3f s in all, %.0f lines/s\n"
                 "stats: %llu queries: %llu folded, %llu cache hits, %llu to z3, %llu unknown; hit rate %.1f%%\n",
                 static_cast<unsigned long long>(lines), parseS, typeS, ownS, ownStats.solverSeconds,
                 total > 0 ? 100.0 * ownStats.solverSeconds / total : 0.0, legalS, total, total > 0 ? lines / total : 0.0,
                 static_cast<unsigned long long>(ownStats.queries), static_cast<unsigned long long>(ownStats.trivial),
                 static_cast<unsigned long long>(ownStats.cacheHits),
                 static_cast<unsigned long long>(ownStats.solverCalls),
                 static_cast<unsigned long long>(ownStats.unknowns),
                 ownStats.queries > ownStats.trivial
                     ? 100.0 * ownStats.cacheHits / static_cast<double>(ownStats.queries - ownStats.trivial)
                     : 0.0);
    if (firstS > 0 || secondS > 0)
      std::fprintf(stderr,
                   "stats: ownership split in two parts: %.3f s on the first thread, %.3f s on the second "
                   "(after legality there)\n",
                   firstS, secondS);
  }
  std::string rendered = renderAll(sink, sources, format, useColor);
  if (format == Format::Sarif)
    std::fputs(rendered.c_str(), stdout);
  else
    std::fputs(rendered.c_str(), stderr);
  return unreadable ? 2 : sink.hasErrors() ? 1 : 0;
}

}  // namespace vx::driver
