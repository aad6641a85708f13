// `textDocument/completion`: after `Memory::` the memory spaces of the
// target table, after `Topology::` the topologies; elsewhere the locals in
// scope (by text: parameters and earlier `let`/`for` bindings of the
// function), the document's functions and consts, the builtins (with a
// snippet of their parameters when the client takes snippets) and keywords.
// Only names that start with the word being typed.
#include "lsp/Methods.h"
#include "lsp/Outline.h"
#include "lsp/Position.h"
#include "target/Target.h"

namespace vx::lsp {

namespace {

// LSP CompletionItemKind values.
constexpr int kFunction = 3, kVariable = 6, kKeyword = 14, kEnumMember = 20, kConstant = 21;

const char* const kKeywords[] = {"fn", "let", "mut", "for", "in", "while", "if", "else", "return",
                                 "break", "continue", "parallel", "const", "extern", "on", "as", "true", "false"};

// `name(${1:a}, ${2:b})` from the signature's parameter names.
std::string snippet(const std::string& name, const std::string& signature) {
  std::string s = name + "(";
  std::vector<std::string> params = signatureParams(signature);
  for (size_t i = 0; i < params.size(); ++i) {
    std::string p = params[i].substr(0, params[i].find(':'));
    while (!p.empty() && p.back() == ' ') p.pop_back();
    s += (i ? ", " : "") + std::string("${") + std::to_string(i + 1) + ":" + p + "}";
  }
  return s + ")";
}

}  // namespace

json completion(State& s, const json& params) {
  std::string uri = stringField(field(params, "textDocument"), "uri");
  const json& pos = field(params, "position");
  Position p{uintField(pos, "line"), uintField(pos, "character")};
  json items = json::array();
  auto doc = s.docs.find(uri);
  if (doc == s.docs.end()) return json{{"isIncomplete", false}, {"items", items}};
  const std::string& text = doc->second.text;
  uint32_t offset = LineIndex(text).offset(p);
  uint32_t begin = offset;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '_')) --begin;
  std::string prefix = text.substr(begin, offset - begin);
  auto wanted = [&](const std::string& name) { return name.compare(0, prefix.size(), prefix) == 0; };
  auto add = [&](const std::string& label, int kind, const std::string& detail) {
    if (!wanted(label)) return;
    json item{{"label", label}, {"kind", kind}};
    if (!detail.empty()) item["detail"] = detail;
    items.push_back(std::move(item));
  };
  auto after = [&](const char* qualifier) {
    std::string q(qualifier);
    return begin >= q.size() && text.compare(begin - q.size(), q.size(), q) == 0;
  };
  if (after("Memory::")) {
    for (target::MemSpace m : target::allMemSpaces()) add(target::info(m).name, kEnumMember, "memory space");
    return json{{"isIncomplete", false}, {"items", items}};
  }
  if (after("Topology::")) {
    add("TensorCore", kEnumMember, "runs on the accelerator's core");
    add("Host", kEnumMember, "runs on the host");
    return json{{"isIncomplete", false}, {"items", items}};
  }
  std::vector<OutlineItem> outlineItems = outline(pathOf(uri), text);
  for (const std::string& l : localsAt(outlineItems, text, begin)) add(l, kVariable, "local");
  for (const OutlineItem& it : outlineItems)
    add(it.name, it.kind == OutlineItem::Kind::Fn ? kFunction : kConstant, it.header);
  for (target::Builtin b : target::allBuiltins()) {
    std::string name = target::info(b).name;
    if (!wanted(name)) continue;
    std::string sig = builtinSignature(name);
    json item{{"label", name}, {"kind", kFunction}, {"detail", sig},
              {"documentation", {{"kind", "markdown"}, {"value", "builtin; targets: " + target::targetsWith(b) +
                                                                  ". See docs/language/builtins.md#" + name + "."}}}};
    if (s.snippets) {
      item["insertText"] = snippet(name, sig);
      item["insertTextFormat"] = 2;
    }
    items.push_back(std::move(item));
  }
  for (const char* k : kKeywords) add(k, kKeyword, "");
  return json{{"isIncomplete", false}, {"items", items}};
}

}  // namespace vx::lsp
