// `textDocument/didOpen`: keep the text, publish its diagnostics.
#include "lsp/Methods.h"

namespace vx::lsp {

void didOpen(State& s, const json& params) {
  const json& td = field(params, "textDocument");
  std::string uri = stringField(td, "uri");
  Document doc;
  doc.text = stringField(td, "text");
  if (td.contains("version") && td["version"].is_number_integer()) doc.version = td["version"].get<int64_t>();
  s.docs[uri] = std::move(doc);
  documentChanged(s, uri);
}

}  // namespace vx::lsp
