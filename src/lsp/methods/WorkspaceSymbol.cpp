// `workspace/symbol`: the functions and consts of every open document whose
// name contains the query (case-insensitively), as SymbolInformation.
#include <algorithm>
#include <cctype>

#include "lsp/Methods.h"
#include "lsp/Outline.h"
#include "lsp/Position.h"

namespace vx::lsp {

json workspaceSymbol(State& s, const json& params) {
  std::string query = params.is_object() && params.contains("query") && params["query"].is_string()
                          ? params["query"].get<std::string>()
                          : std::string();
  auto lower = [](std::string x) {
    std::transform(x.begin(), x.end(), x.begin(), [](unsigned char c) { return std::tolower(c); });
    return x;
  };
  std::string q = lower(query);
  json out = json::array();
  for (const auto& [uri, doc] : s.docs) {
    LineIndex index(doc.text);
    for (const OutlineItem& it : outline(pathOf(uri), doc.text)) {
      if (lower(it.name).find(q) == std::string::npos) continue;
      out.push_back({{"name", it.name},
                     {"kind", it.kind == OutlineItem::Kind::Fn ? 12 : 14},
                     {"location", {{"uri", uri}, {"range", rangeJson(index, it.begin, it.end)}}},
                     {"containerName", pathOf(uri).substr(pathOf(uri).find_last_of('/') + 1)}});
      if (out.size() >= 500) return out;
    }
  }
  return out;
}

}  // namespace vx::lsp
