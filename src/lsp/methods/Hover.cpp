// `textDocument/hover`: for a parameter or local, its type, and for a token
// its state at that point (in flight since which line, into which place;
// waited) before and after the statement under the cursor, for a buffer the
// copies that may be in flight into or out of it -- from the index of the
// checked version (Index.h); for a builtin, its signature, its effects on
// each argument, what it returns and the targets that have it, from the
// builtin table (src/target/Builtins.def) and the prelude; for a function
// or const of the document, its header (from the parser alone).
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
    case target::ResultKind::View: return "a view of a block of its first argument";
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

// The states of `name` (a token, or a buffer when `buffer`) around byte
// `at` of its function: before and after the innermost statement with a
// state that contains `at`, or the last one before it.
std::string statesAt(const DocIndex& index, const std::string& name, bool buffer, uint32_t at) {
  struct {
    std::vector<check::TokenState> states;
  } idx;
  for (const check::FunctionStates& f : index.states)
    if (f.fn.begin <= at && at < f.fn.end) idx.states = resolvedStates(index, f);
  const check::TokenState *inner = nullptr, *before = nullptr;
  auto mine = [&](const check::TokenState& ts) {
    return ts.buffer == buffer && ts.fn.begin <= at && at < ts.fn.end &&
           (ts.name == name || ts.name.rfind(name + ".", 0) == 0);
  };
  for (const check::TokenState& ts : idx.states) {
    if (!mine(ts)) continue;
    if (ts.stmt.begin <= at && at < ts.stmt.end &&
        (!inner || ts.stmt.end - ts.stmt.begin < inner->stmt.end - inner->stmt.begin))
      inner = &ts;
  }
  uint32_t limit = inner ? inner->stmt.begin : at;
  for (const check::TokenState& ts : idx.states)
    if (mine(ts) && ts.stmt.end <= limit && (!before || ts.stmt.end > before->stmt.end)) before = &ts;
  std::string out;
  auto line = [&](const char* when, const check::TokenState* ts) {
    std::string who = ts->name == name ? "" : "`" + ts->name + "` ";
    out += std::string("\n\n") + when + who + ts->state;
  };
  // Tuple components: one line each.
  for (const check::TokenState& ts : idx.states)
    if (before && mine(ts) && ts.stmt.end == before->stmt.end && ts.stmt.begin == before->stmt.begin)
      line(inner ? "before this statement: " : "here: ", &ts);
  for (const check::TokenState& ts : idx.states)
    if (inner && mine(ts) && ts.stmt.end == inner->stmt.end && ts.stmt.begin == inner->stmt.begin)
      line("after it: ", &ts);
  return out;
}

}  // namespace

json hover(State& s, const json& params) {
  WordAt w;
  if (!wordAt(s, params, w)) return nullptr;
  std::string md;
  const Symbol* sym = nullptr;
  auto idx = currentIndex(s, w.uri);
  if (idx) sym = symbolAt(*idx, w.begin);
  if (sym && sym->kind == Symbol::Kind::Builtin) {
    target::Builtin b = target::builtinByName(sym->name);
    if (b != target::Builtin::None) md = builtinMarkdown(b);
  }
  if (sym && (sym->kind == Symbol::Kind::Param || sym->kind == Symbol::Kind::Local ||
              sym->kind == Symbol::Kind::Const)) {
    md = "```vx\n" + std::string(sym->kind == Symbol::Kind::Const ? "const " : sym->mut ? "mut " : "") +
         sym->name + ": " + sym->type + "\n```";
    if (sym->kind != Symbol::Kind::Const) md += statesAt(*idx, sym->name, !sym->linear, w.begin);
  }
  if (!md.empty())
    return json{{"contents", {{"kind", "markdown"}, {"value", md}}},
                {"range", rangeJson(LineIndex(*w.text), w.begin, w.end)}};
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
