// `textDocument/definition`: where the name under the cursor is declared:
// a parameter or local (as the type checker resolved it, from the index of
// the checked version), or a function or const (from the parser alone, so
// it answers while the document has errors). Builtins have no definition
// in the document.
#include "lsp/Methods.h"
#include "lsp/Outline.h"
#include "lsp/Position.h"

namespace vx::lsp {

json definition(State& s, const json& params) {
  WordAt w;
  if (!wordAt(s, params, w)) return nullptr;
  LineIndex index(*w.text);
  if (auto idx = currentIndex(s, w.uri))
    if (const Symbol* sym = symbolAt(*idx, w.begin); sym && sym->hasDecl)
      return json{{"uri", w.uri}, {"range", rangeJson(index, sym->declBegin, sym->declEnd)}};
  for (const OutlineItem& it : outline(pathOf(w.uri), *w.text))
    if (it.name == w.word) return json{{"uri", w.uri}, {"range", rangeJson(index, it.nameBegin, it.nameEnd)}};
  return nullptr;
}

}  // namespace vx::lsp
