// `initialize`: the target (initializationOptions.target, else `--target`)
// and the capabilities: UTF-16 positions, incremental sync, quick fixes,
// document symbols, definitions and hover.
#include <algorithm>

#include "target/Target.h"
#include "driver/Pipeline.h"
#include "lsp/Methods.h"

namespace vx::lsp {

json initialize(State& s, const json& params) {
  if (params.is_object() && params.contains("initializationOptions")) {
    const json& o = params["initializationOptions"];
    // A target the server does not know keeps the session, on the default
    // target, with a log line: refusing `initialize` would leave the
    // editor with no server at all. `null` is the option left unset.
    if (o.is_object() && o.contains("target") && !o["target"].is_null()) {
      if (!o["target"].is_string()) {
        logLine(s, "ignored `initializationOptions.target`, which is not a string; the target is `" +
                       s.options.target + "`");
      } else if (std::string t = o["target"].get<std::string>(); !target::targetByName(t)) {
        logLine(s, "ignored the unknown target `" + t + "` of `initializationOptions.target`; the target is `" +
                       s.options.target + "`");
      } else {
        s.options.target = t;
      }
    }
  }
  // Builtins complete to a snippet of their parameters where the client
  // takes snippets.
  if (params.is_object() && params.contains("capabilities")) {
    const json& c = params["capabilities"];
    if (c.is_object() && c.contains("textDocument") && c["textDocument"].is_object() &&
        c["textDocument"].contains("completion") && c["textDocument"]["completion"].is_object() &&
        c["textDocument"]["completion"].contains("completionItem") &&
        c["textDocument"]["completion"]["completionItem"].is_object()) {
      const json& item = c["textDocument"]["completion"]["completionItem"];
      s.snippets = item.contains("snippetSupport") && item["snippetSupport"].is_boolean() && item["snippetSupport"].get<bool>();
    }
    // Long checks report work-done progress where the client takes it.
    if (c.is_object() && c.contains("window") && c["window"].is_object() &&
        c["window"].contains("workDoneProgress") && c["window"]["workDoneProgress"].is_boolean())
      s.progress = c["window"]["workDoneProgress"].get<bool>();
    auto refresh = [&](const char* what) {
      return c.is_object() && c.contains("workspace") && c["workspace"].is_object() &&
             c["workspace"].contains(what) && c["workspace"][what].is_object() &&
             c["workspace"][what].contains("refreshSupport") && c["workspace"][what]["refreshSupport"].is_boolean() &&
             c["workspace"][what]["refreshSupport"].get<bool>();
    };
    s.refreshHints = refresh("inlayHint");
    s.refreshTokens = refresh("semanticTokens");
  }
  s.initialized = true;
  return json{{"capabilities",
               {{"positionEncoding", "utf-16"},
                {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", false}}},
                {"codeActionProvider", {{"codeActionKinds", json::array({"quickfix"})}}},
                {"documentSymbolProvider", true},
                {"definitionProvider", true},
                {"hoverProvider", true},
                {"completionProvider", {{"triggerCharacters", json::array({":"})}}},
                {"signatureHelpProvider", {{"triggerCharacters", json::array({"(", ","})}}},
                {"workspaceSymbolProvider", true},
                {"referencesProvider", true},
                {"semanticTokensProvider", {{"legend", semanticTokensLegend()}, {"full", true}, {"range", false}}},
                {"inlayHintProvider", true}}},
              {"serverInfo", {{"name", "vxc"}, {"version", driver::version()}}}};
}

}  // namespace vx::lsp
