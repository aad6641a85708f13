// `textDocument/definition`: the function or const named under the cursor,
// in this document (locals and other files are not resolved yet).
#include "lsp/Methods.h"
#include "lsp/Outline.h"
#include "lsp/Position.h"

namespace vx::lsp {

json definition(State& s, const json& params) {
  std::string uri = stringField(field(params, "textDocument"), "uri");
  const json& pos = field(params, "position");
  Position p{uintField(pos, "line"), uintField(pos, "character")};
  auto doc = s.docs.find(uri);
  if (doc == s.docs.end()) return nullptr;
  const std::string& text = doc->second.text;
  LineIndex index(text);
  uint32_t begin = 0, end = 0;
  std::string_view word = identifierAt(text, index.offset(p), begin, end);
  if (word.empty()) return nullptr;
  for (const OutlineItem& it : outline(pathOf(uri), text))
    if (it.name == word) return json{{"uri", uri}, {"range", rangeJson(index, it.nameBegin, it.nameEnd)}};
  return nullptr;
}

}  // namespace vx::lsp
