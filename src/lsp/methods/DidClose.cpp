// `textDocument/didClose`: forget the text, clear its diagnostics.
#include "lsp/Methods.h"

namespace vx::lsp {

void didClose(State& s, const json& params) {
  std::string uri = stringField(field(params, "textDocument"), "uri");
  s.docs.erase(uri);
  s.stale.erase(uri);
  {
    std::lock_guard<std::mutex> lock(s.indexMutex);
    s.indexes.erase(uri);
  }
  if (s.checker) {
    s.checker->close(uri);  // after any check of it still running
    return;
  }
  s.checks.erase(uri);
  notify(s, "textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
}

}  // namespace vx::lsp
