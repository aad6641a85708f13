// `textDocument/codeAction`: one quick fix per suggestion of the diagnostics
// the editor sends back (Publish.cpp put them in each diagnostic's `data`);
// machine-applicable ones are preferred.
#include "lsp/Methods.h"

namespace vx::lsp {

json codeAction(State&, const json& params) {
  std::string uri = stringField(field(params, "textDocument"), "uri");
  const json& diags = field(field(params, "context"), "diagnostics");
  if (!diags.is_array()) throw BadParams{"`context.diagnostics` is not an array"};
  json actions = json::array();
  for (const json& d : diags) {
    if (!d.is_object() || !d.contains("data") || !d["data"].is_object() || !d["data"].contains("fixes")) continue;
    const json& fixes = d["data"]["fixes"];
    if (!fixes.is_array()) continue;
    for (const json& f : fixes) {
      if (!f.is_object() || !f.contains("range") || !f.contains("newText") || !f["newText"].is_string()) continue;
      json title = f.contains("title") && f["title"].is_string() ? f["title"] : json("apply the suggestion");
      bool preferred = f.contains("preferred") && f["preferred"].is_boolean() && f["preferred"].get<bool>();
      json edits = json::array({{{"range", f["range"]}, {"newText", f["newText"]}}});
      // A multipart suggestion's other edits (Publish.cpp): all or none.
      bool whole = true;
      if (f.contains("more")) {
        whole = f["more"].is_array();
        for (const json& m : whole ? f["more"] : json::array()) {
          if (!m.is_object() || !m.contains("range") || !m.contains("newText") || !m["newText"].is_string()) {
            whole = false;
            break;
          }
          edits.push_back({{"range", m["range"]}, {"newText", m["newText"]}});
        }
      }
      if (!whole) continue;
      actions.push_back({{"title", title},
                         {"kind", "quickfix"},
                         {"diagnostics", json::array({d})},
                         {"isPreferred", preferred},
                         {"edit", {{"changes", {{uri, edits}}}}}});
    }
  }
  return actions;
}

}  // namespace vx::lsp
