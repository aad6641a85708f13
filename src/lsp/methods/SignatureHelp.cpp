// `textDocument/signatureHelp`: inside the parentheses of a call, the
// callee's signature (a function of the document or a builtin) and which
// parameter the cursor is in (commas at the call's own level before it).
#include "lsp/Methods.h"
#include "lsp/Outline.h"
#include "lsp/Position.h"
#include "target/Target.h"

namespace vx::lsp {

json signatureHelp(State& s, const json& params) {
  std::string uri = stringField(field(params, "textDocument"), "uri");
  const json& pos = field(params, "position");
  Position p{uintField(pos, "line"), uintField(pos, "character")};
  auto doc = s.docs.find(uri);
  if (doc == s.docs.end()) return nullptr;
  const std::string& text = doc->second.text;
  uint32_t offset = LineIndex(text).offset(p);
  // Back to the `(` this position is inside, counting commas on the way.
  int depth = 0;
  uint32_t active = 0;
  uint32_t at = offset;
  bool found = false;
  for (uint32_t steps = 0; at > 0 && steps < 20000; ++steps) {
    char c = text[--at];
    if (c == ')' || c == ']') ++depth;
    else if (c == '[') --depth;
    else if (c == '(') {
      if (depth == 0) {
        found = true;
        break;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      ++active;
    } else if (c == ';' || c == '{' || c == '}') {
      break;
    }
  }
  if (!found) return nullptr;
  // The callee: the identifier before the `(` (past a turbofish `::<...>`).
  uint32_t end = at;
  if (end > 0 && text[end - 1] == '>') {
    int angle = 0;
    while (end > 0) {
      char c = text[--end];
      if (c == '>') ++angle;
      if (c == '<' && --angle == 0) break;
    }
    if (end >= 2 && text.compare(end - 2, 2, "::") == 0) end -= 2;
  }
  uint32_t b = 0, e = 0;
  std::string name(identifierAt(text, end > 0 ? end - 1 : 0, b, e));
  if (name.empty() || e != end) return nullptr;
  std::string label;
  for (const OutlineItem& it : outline(pathOf(uri), text))
    if (it.kind == OutlineItem::Kind::Fn && it.name == name) label = it.header;
  std::string doc_;
  if (label.empty()) {
    target::Builtin bi = target::builtinByName(name);
    if (bi == target::Builtin::None) return nullptr;
    label = builtinSignature(name);
    doc_ = "builtin; targets: " + target::targetsWith(bi);
  }
  json paramsJson = json::array();
  std::vector<std::string> ps = signatureParams(label);
  for (const std::string& p : ps) paramsJson.push_back({{"label", p}});
  json sig{{"label", label}, {"parameters", paramsJson}};
  if (!doc_.empty()) sig["documentation"] = doc_;
  uint32_t activeParam = ps.empty() ? 0 : std::min<uint32_t>(active, static_cast<uint32_t>(ps.size() - 1));
  return json{{"signatures", json::array({sig})}, {"activeSignature", 0}, {"activeParameter", activeParam}};
}

}  // namespace vx::lsp
