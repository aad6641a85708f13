// `textDocument/semanticTokens/full`: every resolved name of the checked
// version -- functions, builtins (`defaultLibrary`), consts (`readonly`),
// parameters and locals, with `mutable` for `mut` bindings and `linear`
// for tokens and tuples holding one, so that an editor can show the values
// that must be consumed apart from plain ones. Keywords, literals and
// comments are the syntax file's (editors/).
#include <algorithm>

#include "lsp/Methods.h"
#include "lsp/Position.h"

namespace vx::lsp {

namespace {

enum TokenType : uint32_t { kFunction, kParameter, kVariable };
enum Modifier : uint32_t { kDeclaration = 1, kReadonly = 2, kDefaultLibrary = 4, kMutable = 8, kLinear = 16 };

}  // namespace

json semanticTokensLegend() {
  return json{{"tokenTypes", json::array({"function", "parameter", "variable"})},
              {"tokenModifiers", json::array({"declaration", "readonly", "defaultLibrary", "mutable", "linear"})}};
}

json semanticTokens(State& s, const json& params) {
  std::string uri = stringField(field(params, "textDocument"), "uri");
  auto idx = currentIndex(s, uri);
  if (!idx) return nullptr;
  struct Tok {
    uint32_t begin, end, type, mods;
  };
  std::vector<Tok> toks;
  for (const Symbol& sym : idx->symbols) {
    uint32_t type = kVariable, mods = 0;
    switch (sym.kind) {
      case Symbol::Kind::Function: type = kFunction; break;
      case Symbol::Kind::Builtin: type = kFunction; mods = kDefaultLibrary; break;
      case Symbol::Kind::Const: type = kVariable; mods = kReadonly; break;
      case Symbol::Kind::Param: type = kParameter; break;
      case Symbol::Kind::Local: type = kVariable; break;
    }
    if (sym.mut) mods |= kMutable;
    if (sym.linear) mods |= kLinear;
    if (sym.hasDecl) toks.push_back(Tok{sym.declBegin, sym.declEnd, type, mods | kDeclaration});
    for (const auto& [b, e] : sym.uses) toks.push_back(Tok{b, e, type, mods});
  }
  std::sort(toks.begin(), toks.end(), [](const Tok& a, const Tok& b) { return a.begin < b.begin; });
  LineIndex index(idx->text);
  json data = json::array();
  uint32_t line = 0, character = 0, lastEnd = 0;
  for (const Tok& t : toks) {
    if (t.begin < lastEnd && !data.empty()) continue;  // never overlapping
    Position a = index.position(t.begin), b = index.position(t.end);
    if (a.line != b.line) continue;
    data.push_back(a.line - line);
    data.push_back(a.line == line ? a.character - character : a.character);
    data.push_back(b.character - a.character);
    data.push_back(t.type);
    data.push_back(t.mods);
    line = a.line;
    character = a.character;
    lastEnd = t.end;
  }
  return json{{"data", data}};
}

}  // namespace vx::lsp
