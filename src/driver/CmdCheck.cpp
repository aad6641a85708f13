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
    "  --emit=ast|hir                  print the AST or the typed HIR to stdout\n"
    "  --target=cpu|tpu|b200|h100      target whose builtins and memories apply (default cpu)\n"
    "  --error-format=human|json|sarif diagnostics format (default human)\n"
    "  --color=auto|always|never       colours in human output (default auto: on a tty)\n"
    "  --explain-proof                 print every solver query (SMT-LIB) and its verdict\n"
    "  --solver-rlimit=N               Z3 resource limit per query (default 2000000)\n";
}  // namespace

int cmdCheck(const std::vector<std::string>& args) {
  ParsedArgs a = parseArgs("check", args,
                           {{"--help", false, {}},
                            {"--emit", true, {"ast", "hir"}},
                            {"--target", true, {"cpu", "tpu", "b200", "h100"}},
                            {"--error-format", true, {"human", "json", "sarif"}},
                            {"--color", true, {"auto", "always", "never"}},
                            {"--explain-proof", false, {}},
                            {"--solver-rlimit", true, {}}});
  if (!a.error.empty()) return usageError(a.error);
  if (a.has("--help")) {
    std::fputs(kCheckHelp, stdout);
    return 0;
  }
  if (a.positional.empty()) return usageError("`vxc check` needs at least one file");

  CheckOptions opts;
  if (a.get("--emit", "") == "ast") opts.emit = Emit::Ast;
  if (a.get("--emit", "") == "hir") opts.emit = Emit::Hir;
  opts.target = a.get("--target", "cpu");
  std::vector<std::string> proofLog;
  if (a.has("--explain-proof")) opts.proofLog = &proofLog;
  if (a.has("--solver-rlimit")) {
    std::string v = a.get("--solver-rlimit", "");
    if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9)
      return usageError("`--solver-rlimit` takes a number, e.g. `--solver-rlimit=2000000`");
    opts.solverRlimit = static_cast<unsigned>(std::stoul(v));
  }
  std::string fmt = a.get("--error-format", "human");
  Format format = fmt == "json" ? Format::Json : fmt == "sarif" ? Format::Sarif : Format::Human;
  std::string color = a.get("--color", "auto");
  bool useColor = color == "always" || (color == "auto" && isatty(STDERR_FILENO));

  base::SourceMap sources;
  diag::Sink sink;
  for (const auto& path : a.positional) {
    base::ReadResult r = base::readFile(path);
    if (!r.error.empty()) return usageError(r.error);
    base::FileId id = sources.add(path, std::move(r.text));
    CheckOutput out = checkFile(sources, id, sink, opts);
    std::fputs(out.emitted.c_str(), stdout);
    for (size_t q = 0; q < proofLog.size(); ++q)
      std::printf("; query %zu (%s)\n%s\n\n", q + 1, path.c_str(), proofLog[q].c_str());
    proofLog.clear();
  }
  std::string rendered = renderAll(sink, sources, format, useColor);
  if (format == Format::Sarif)
    std::fputs(rendered.c_str(), stdout);
  else
    std::fputs(rendered.c_str(), stderr);
  return sink.hasErrors() ? 1 : 0;
}

}  // namespace vx::driver
