// `textDocument/inlayHint`: the token states where they change, at the end
// of the statement's line -- `⟵ t in flight: slots[1]`, `⟵ t waited` --
// from the ownership checker's states of the checked version (Index.h).
// A loop's statement shows the state after the whole loop, on the line of
// its closing brace.
#include <algorithm>
#include <map>

#include "lsp/Methods.h"
#include "lsp/Position.h"

namespace vx::lsp {

json inlayHint(State& s, const json& params) {
  std::string uri = stringField(field(params, "textDocument"), "uri");
  const json& range = field(params, "range");
  auto idx = currentIndex(s, uri);
  if (!idx) return nullptr;
  LineIndex index(idx->text);
  uint32_t from = index.offset(Position{uintField(field(range, "start"), "line"),
                                        uintField(field(range, "start"), "character")});
  uint32_t to = index.offset(Position{uintField(field(range, "end"), "line"),
                                      uintField(field(range, "end"), "character")});
  // Per function and token, in the order the statements end.
  std::map<std::pair<uint32_t, std::string>, std::vector<const check::TokenState*>> runs;
  std::vector<std::vector<check::TokenState>> resolved;  // the functions the range meets
  for (const check::FunctionStates& f : idx->states)
    if (f.fn.begin <= to && from <= f.fn.end && f.states && !f.states->empty())
      resolved.push_back(resolvedStates(*idx, f, index));
  for (const std::vector<check::TokenState>& states : resolved)
    for (const check::TokenState& ts : states)
      if (!ts.buffer) runs[{ts.fn.begin, ts.name}].push_back(&ts);
  struct Hint {
    uint32_t at;
    std::string label;
  };
  std::vector<Hint> hints;
  for (auto& [key, run] : runs) {
    std::sort(run.begin(), run.end(), [](const check::TokenState* a, const check::TokenState* b) {
      return a->stmt.end != b->stmt.end ? a->stmt.end < b->stmt.end : a->stmt.begin > b->stmt.begin;
    });
    std::string last;
    for (const check::TokenState* ts : run) {
      // A location moved out of stays "moved": what becomes of its copy
      // shows where it went.
      if (ts->brief == last || (last == "moved" && ts->brief == "waited")) continue;
      bool first = last.empty();
      last = ts->brief;
      if (first && ts->brief == "moved") continue;
      // The end of the line the statement ends on (before `\r\n`, `\n` or
      // `\r`: the protocol's line ends).
      uint32_t end = ts->stmt.end;
      while (end < idx->text.size() && idx->text[end] != '\n' && idx->text[end] != '\r') ++end;
      hints.push_back(Hint{end, "⟵ " + ts->name + " " + ts->brief});
    }
  }
  std::sort(hints.begin(), hints.end(), [](const Hint& a, const Hint& b) { return a.at < b.at; });
  json out = json::array();
  for (const Hint& h : hints) {
    if (h.at < from || h.at > to) continue;
    Position p = index.position(h.at);
    out.push_back({{"position", {{"line", p.line}, {"character", p.character}}},
                   {"label", h.label},
                   {"paddingLeft", true}});
  }
  return out;
}

}  // namespace vx::lsp
