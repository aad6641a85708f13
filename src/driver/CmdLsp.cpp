#include <csignal>
#include <cstdio>
#include <iostream>

#include "driver/Args.h"
#include "driver/Commands.h"
#include "lsp/Server.h"

namespace vx::driver {

int cmdLsp(const std::vector<std::string>& args) {
  // `--stdio` is what editors' LSP clients pass; stdio is the only transport.
  ParsedArgs a = parseArgs("lsp", args,
                           {{"--help", false, {}}, {"--stdio", false, {}},
                            {"--target", true, targetNames()},
                            // For JSON transcript tests (tests/lit/lsp).
                            {"--input-style", true, {"framed", "delimited"}},
                            {"--pretty", false, {}},
                            // Check on the message thread (benchmarks compare).
                            {"--sync", false, {}}});
  if (!a.error.empty()) return usageError(a.error);
  if (a.has("--help")) {
    std::puts(
        "Usage: vxc lsp [--stdio] [--target=cpu|tpu|b200|h100]\n"
        "       vxc lsp --input-style=delimited [--pretty]   (JSON transcripts, for tests)\n\n"
        "Serves the Language Server Protocol on stdin/stdout: diagnostics of every open\n"
        "document on each change (the checks of `vxc check`, on a worker thread that\n"
        "re-analyses only the functions that changed; `--sync` checks on the message\n"
        "thread instead), quick fixes from their suggestions, and navigation. The\n"
        "target can also come from `initializationOptions.target`.\n"
        "Logs go to stderr. See docs/lsp.md.");
    return 0;
  }
  if (!a.positional.empty()) return usageError("`vxc lsp` takes no files; the editor sends them");
  lsp::ServerOptions o;
  o.target = a.get("--target", "cpu");
  o.pretty = a.has("--pretty");
  // An editor's edits are coalesced; a transcript's messages are checked one
  // by one, so that a test sees every step.
  bool delimited = a.get("--input-style", "framed") == "delimited";
  o.coalesce = !delimited;
  o.background = !delimited && !a.has("--sync");
  std::ios::sync_with_stdio(false);
  // Reading stdin must not flush stdout (cin is tied to cout): the checker's
  // threads write to it under the server's lock, and every message is
  // flushed as it is sent.
  std::cin.tie(nullptr);
  // A client that stops reading: the server notices the failed write and
  // ends with a log line, rather than dying of SIGPIPE in silence.
  std::signal(SIGPIPE, SIG_IGN);
  lsp::Server server(std::cout, std::cerr, o);
  return server.run(std::cin, delimited ? lsp::InputStyle::Delimited : lsp::InputStyle::Framed);
}

}  // namespace vx::driver
