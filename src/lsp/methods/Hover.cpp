// `textDocument/hover`: for a builtin, its signature, its effects on each
// argument, what it returns and the targets that have it, from the builtin
// table (src/target/Builtins.def) and the prelude; for a function or const
// of the document, its header. Token states at a point come with
// per-function checking (not yet).
#include "lsp/Methods.h"
#include "lsp/Outline.h"
#include "lsp/Position.h"
#include "target/Target.h"

namespace vx::lsp {

namespace {

const char* resultText(target::ResultKind r) {
  switch (r) {
    case target::ResultKind::Void: return "nothing";
    case target::ResultKind::Buffer: return "a new buffer";
    case target::ResultKind::Token: return "a token: the copy it starts, until waited";
    case target::ResultKind::Payload: return "the buffer of the token it consumes";
    case target::ResultKind::Same: return "its first argument";
  }
  return "";
}

std::string builtinMarkdown(target::Builtin b) {
  const target::BuiltinInfo& info = target::info(b);
  std::string md = "```vx\n" + builtinSignature(info.name) + "\n```\n\nbuiltin";
  for (unsigned i = 0; i < info.arity(); ++i)
    md += std::string(i ? ", " : ": ") + "argument " + std::to_string(i + 1) + " " + target::effectName(info.args[i]);
  md += std::string("; returns ") + resultText(info.result) + ".\n\ntargets: " + target::targetsWith(b) +
        ". See docs/language/builtins.md#" + info.name + ".";
  return md;
}

}  // namespace

json hover(State& s, const json& params) {
  WordAt w;
  if (!wordAt(s, params, w)) return nullptr;
  std::string md;
  for (const OutlineItem& it : outline(pathOf(w.uri), *w.text))
    if (it.name == w.word) md = "```vx\n" + it.header + "\n```";
  if (md.empty()) {
    target::Builtin b = target::builtinByName(w.word);
    if (b == target::Builtin::None) return nullptr;
    md = builtinMarkdown(b);
  }
  return json{{"contents", {{"kind", "markdown"}, {"value", md}}}, {"range", rangeJson(LineIndex(*w.text), w.begin, w.end)}};
}

}  // namespace vx::lsp
