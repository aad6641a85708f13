// E6002 (a token consumed twice) and E6003 (a token dropped while its copy
// may be in flight): the linearity of tokens.
#include "check/own/Report.h"

namespace vx::check::own {

diag::Diagnostic renderConsumedTwice(const ReportContext& a, const Decided& d) {
  const Finding& f = d.f;
  diag::Diagnostic out = diag::TokenConsumedTwice(f.subject);
  out.primary(f.at, "consumed again here");
  if (!f.earlier.empty()) out.secondary(f.earlier.front(), "first consumed here");
  labelCreations(a, out, f.holds, "token created here");
  if (f.earlierIteration || (f.earlier.empty() && f.inLoop))
    out.note("`" + f.subject +
             "` is consumed in the loop, without afterwards being reassigned: the next iteration consumes it again");
  if (!d.pathNote.empty()) out.note(d.pathNote);
  out.help("a token is consumed exactly once: by `wait`, by passing it to a function that takes it, or by "
           "returning it");
  return out;
}

diag::Diagnostic renderBehindRef(const ReportContext& a, const Decided& d) {
  (void)a;
  diag::Diagnostic out = diag::TokenBehindReference(d.f.subject);
  out.primary(d.f.at, "consumed through a reference");
  out.note("the token belongs to whoever lent the reference; consuming it here would consume it a second time");
  out.help("take the token by value (`t: Token<...>`) to consume it");
  return out;
}

diag::Diagnostic renderDropped(const ReportContext& a, const Decided& d) {
  const Finding& f = d.f;
  diag::Diagnostic out;
  switch (f.drop) {
    case DropHow::Overwritten:
      out = diag::TokenOverwritten(f.subject);
      out.primary(f.at, "the previous token is overwritten here, never waited");
      break;
    case DropHow::Temporary:
      out = diag::TokenTemporaryDropped();
      out.primary(f.at, "this token is dropped at the end of the statement");
      break;
    case DropHow::EarlyExit:
    case DropHow::Returned:
      out = diag::TokenDropped(f.subject);
      out.primary(f.at, "`" + f.subject + "` is still in flight when control leaves here");
      break;
    case DropHow::ScopeEnd:
      out = diag::TokenDropped(f.subject);
      out.primary(f.at, "`" + f.subject + "` dropped here while still in flight");
      break;
  }
  labelCreations(a, out, f.holds, "token created here");
  if (!d.pathNote.empty()) out.note(d.pathNote);
  for (const std::string& n : d.alsoNotes) out.note(n);
  if (f.drop == DropHow::Temporary) {
    out.help("bind it and wait for it: `let t = ...; wait(t);`");
    return out;
  }
  // The mechanical fix: a `wait` on its own line before the statement that
  // drops the token (or before the `}` that ends its scope).
  base::Span at = f.at;
  std::string name = f.subject;
  if (name == "_" || name.rfind("_.", 0) == 0) {  // bound to `_`, which no expression can name
    out.help("`_` binds the token (Vx has no discarding pattern): give it a name and wait for it, "
             "`let (x, t) = ...; wait(t);`");
    return out;
  }
  if (at.valid() && name.find('.') == std::string::npos && name.find(' ') == std::string::npos) {
    std::string_view text = a.sources.file(at.file).text();
    // The start of the line holding `at`, and whether `at` is the first
    // thing on it (after its indentation).
    auto lineOf = [&](uint32_t offset, std::string& indent) {
      uint32_t lineStart = offset;
      while (lineStart > 0 && text[lineStart - 1] != '\n') --lineStart;
      uint32_t indentEnd = lineStart;
      while (indentEnd < text.size() && (text[indentEnd] == ' ' || text[indentEnd] == '\t')) ++indentEnd;
      indent = std::string(text.substr(lineStart, indentEnd - lineStart));
      return std::make_pair(lineStart, indentEnd == offset);
    };
    // Where the `wait` goes: on its own line before the statement that
    // drops the token, or before the `}` that ends its scope; but before a
    // `let` that shadows the token's name on the way (there the name is
    // still the token's), and before a block's final expression (its
    // value: after it the `wait` would end the block with no value).
    base::Span insertAt = at;
    bool atScopeEnd = f.drop == DropHow::ScopeEnd;
    uint32_t created = UINT32_MAX;
    for (const auto& [k, g] : f.holds)
      if (!a.terms.isFalse(g) && a.transfers[k].span.valid() && a.transfers[k].span.file == at.file)
        created = std::min(created, a.transfers[k].span.begin);
    if (created != UINT32_MAX) {
      uint32_t shadow = UINT32_MAX;
      for (const hir::Local& l : a.prog.locals)
        if (l.name == name && l.span.file == at.file && l.span.begin > created && l.span.begin < at.begin &&
            l.span.begin >= a.fn.span.begin && l.span.end <= a.fn.span.end)
          shadow = std::min(shadow, l.span.begin);
      if (shadow != UINT32_MAX) {
        // The statement binding it: `let` first on its line.
        std::string ind;
        auto [ls, first] = lineOf(shadow, ind);
        (void)first;
        if (text.substr(ls + ind.size(), 4) == "let ") {
          insertAt = base::Span{at.file, static_cast<uint32_t>(ls + ind.size()), static_cast<uint32_t>(ls + ind.size())};
          atScopeEnd = false;
        } else {
          insertAt = base::Span{};
        }
      }
    }
    if (atScopeEnd && insertAt.valid())
      for (const hir::Block& b : a.prog.blocks)
        if (b.closeBrace.file == at.file && b.closeBrace.begin == at.begin && b.tail.valid()) {
          insertAt = a.prog.expr(b.tail).span;
          insertAt.end = insertAt.begin;
          atScopeEnd = false;
          break;
        }
    std::string indent;
    if (insertAt.valid()) {
      auto [lineStart, first] = lineOf(insertAt.begin, indent);
      if (first) {
        // Machine-applicable only when the token is in flight on every path
        // that reaches the drop: where another path consumed it already, a
        // `wait` here would consume it twice (E6002).
        bool everywhere = d.everywhere;
        diag::Applicability how = everywhere ? diag::Applicability::MachineApplicable : diag::Applicability::MaybeIncorrect;
        std::string wait = "wait(" + name + ");";
        std::string message = "wait for it first: `" + wait + "`" +
                              (everywhere ? "" : " (where no other path has waited it already)");
        if (atScopeEnd)
          out.suggest(message, base::Span{at.file, lineStart, lineStart}, indent + "  " + wait + "\n", how);
        else
          out.suggest(message, base::Span{at.file, insertAt.begin, insertAt.begin}, wait + "\n" + indent, how);
        return out;
      }
    }
  }
  out.help("wait for it first: `wait(" + name + ");`");
  return out;
}

}  // namespace vx::check::own
