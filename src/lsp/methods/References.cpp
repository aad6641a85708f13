// `textDocument/references`: every use of the name under the cursor as the
// type checker resolved it (a local is not confused with another of the
// same name), and its declaration when `context.includeDeclaration`.
#include "lsp/Methods.h"
#include "lsp/Outline.h"
#include "lsp/Position.h"

namespace vx::lsp {

json references(State& s, const json& params) {
  WordAt w;
  if (!wordAt(s, params, w)) return nullptr;
  bool withDecl = false;
  if (params.contains("context") && params["context"].is_object() &&
      params["context"].contains("includeDeclaration") && params["context"]["includeDeclaration"].is_boolean())
    withDecl = params["context"]["includeDeclaration"].get<bool>();
  auto idx = currentIndex(s, w.uri);
  if (!idx) return nullptr;
  const Symbol* sym = symbolAt(*idx, w.begin);
  if (!sym) return json::array();
  LineIndex index(idx->text);
  json out = json::array();
  std::vector<std::pair<uint32_t, uint32_t>> spans = sym->uses;
  if (withDecl && sym->hasDecl) spans.emplace_back(sym->declBegin, sym->declEnd);
  std::sort(spans.begin(), spans.end());
  for (const auto& [b, e] : spans) out.push_back({{"uri", w.uri}, {"range", rangeJson(index, b, e)}});
  return out;
}

}  // namespace vx::lsp
