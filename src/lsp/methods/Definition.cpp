// `textDocument/definition`: the function or const named under the cursor,
// in this document (locals and other files are not resolved yet).
#include "lsp/Methods.h"
#include "lsp/Outline.h"
#include "lsp/Position.h"

namespace vx::lsp {

json definition(State& s, const json& params) {
  WordAt w;
  if (!wordAt(s, params, w)) return nullptr;
  LineIndex index(*w.text);
  for (const OutlineItem& it : outline(pathOf(w.uri), *w.text))
    if (it.name == w.word) return json{{"uri", w.uri}, {"range", rangeJson(index, it.nameBegin, it.nameEnd)}};
  return nullptr;
}

}  // namespace vx::lsp
