// E6004 (stale read), E6005 (write to a copy's destination or source) and
// E6006 (a copy's buffer moved or freed): accesses to memory a copy in
// flight still reads or writes.
#include <cctype>

#include "check/own/Report.h"

namespace vx::check::own {

namespace {

const char* howWord(AccessHow h) {
  switch (h) {
    case AccessHow::Move: return "moved";
    case AccessHow::Free: return "dropped";
    case AccessHow::Write: return "written";
    case AccessHow::CopyWrite: return "written by a copy";
    case AccessHow::Read:
    case AccessHow::CopyRead: return "read";
  }
  return "used";
}

// `x.copy2`: a token the pipeline form holds (no name a user can write).
bool pipelinedCopy(const std::string& name) {
  size_t dot = name.rfind(".copy");
  if (dot == std::string::npos || dot + 5 >= name.size()) return false;
  for (size_t i = dot + 5; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return false;
  return true;
}

// Where the copy that touches `f.other` started, and whether in an earlier
// iteration: a merged copy (Loops.cpp, mergeCopies) stands for several,
// each with its own line; the first whose place is `f.other` is named.
std::pair<base::Span, bool> copyStart(const Transfer& tr, const Finding& f) {
  std::string want = (f.viaDst ? "into `" : "from `") + f.other + "`";
  for (const Transfer::Member& m : tr.members)
    if (m.span.valid() && m.what.rfind(want, 0) == 0) return {m.span, m.earlier};
  return {tr.span, tr.origin == Origin::Havoc};
}

// The execution in source terms: the values of the source variables, which
// slot is read and which is still being written.
std::string execution(const ReportContext& a, const Decided& d) {
  const Finding& f = d.f;
  std::string vars;
  for (const auto& s : f.show) {
    std::string v = modelValue(d.model, s.name);
    if (v.empty() || s.name.find(".len()") != std::string::npos) continue;
    vars += (vars.empty() ? "" : ", ") + std::string("`") + s.name + " = " + v + "`";
  }
  const Transfer& tr = a.transfers[f.transfer];
  auto [span, earlier] = copyStart(tr, f);
  std::string copy = "the copy " + std::string(f.viaDst ? "into" : "from") + " `" + f.other + "`" +
                     (span.valid() ? " started at line " + lineOf(span) : "");
  if (earlier) copy += " in an earlier iteration";
  std::string slot = modelValue(d.model, "slot_read");
  std::string what = f.rule == Rule::StaleRead ? "read" : "accessed";
  std::string out = vars.empty() ? "in this execution" : "when " + vars;
  if (!slot.empty())
    return out + ", `" + f.subject + "` is slot " + slot + ", and " + copy + " is still " +
           (f.viaDst ? "writing" : "reading") + " slot " + slot + " when it is " + what;
  return out + ", " + copy + " is still in flight when `" + f.subject + "` is " + what;
}

bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `text` mentions the identifier `name`.
bool mentions(std::string_view text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    bool before = at > 0 && identChar(text[at - 1]);
    bool after = at + name.size() < text.size() && identChar(text[at + name.size()]);
    if (!before && !after) return true;
  }
  return false;
}

// `s` is the statement `wait(name);`.
bool isWaitOf(const hir::Program& p, const hir::Stmt& s, const std::string& name) {
  if (s.kind != hir::StmtKind::Expr || !s.a.valid()) return false;
  const hir::Expr& call = p.expr(s.a);
  if (call.kind != hir::ExprKind::Call || !call.fn.valid() || p.fn(call.fn).builtin != target::Builtin::Wait ||
      call.args.count != 1)
    return false;
  const hir::Expr& arg = p.expr(p.arg(call, 0));
  return arg.kind == hir::ExprKind::Local && p.local(arg.local).name == name;
}

// Whether only blanks precede `span` on its line: its line's start and
// indent.
bool startsLine(std::string_view text, base::Span span, uint32_t& from, std::string& indent) {
  from = span.begin;
  while (from > 0 && text[from - 1] != '\n') --from;
  for (uint32_t i = from; i < span.begin; ++i)
    if (text[i] != ' ' && text[i] != '\t') return false;
  indent = std::string(text.substr(from, span.begin - from));
  return true;
}

// The whole line of `span` when the span is all there is on it (besides
// blanks and a `;`): its start, the start of the next line, its indent.
bool ownLine(std::string_view text, base::Span span, uint32_t& from, uint32_t& to, std::string& indent) {
  if (!startsLine(text, span, from, indent)) return false;
  to = span.end;
  while (to < text.size() && (text[to] == ' ' || text[to] == '\t' || text[to] == ';')) ++to;
  if (to + 1 < text.size() && text[to] == '\r' && text[to + 1] == '\n') ++to;  // a CRLF line end
  if (to < text.size() && text[to] != '\n') return false;
  if (to < text.size()) ++to;
  return true;
}

// The mechanical fix of a stale read or a write under a copy, where it is
// unambiguous: the token's own `wait(t);`, a statement later in the block of
// the access, moved up to just before the access's statement. Nothing from
// the access's statement to that wait may mention `t` (no other use, no
// reassignment), and both statements must stand on lines of their own.
void suggestMovedWait(const ReportContext& a, const Finding& f, const std::string& token, diag::Diagnostic& out) {
  if (token.empty() || !f.at.valid()) return;
  for (char c : token)
    if (!identChar(c)) return;
  const hir::Program& p = a.prog;
  // The innermost statement that contains the access, and its block.
  const hir::Block* block = nullptr;
  uint32_t at = 0;
  uint32_t best = UINT32_MAX;
  for (const hir::Block& b : p.blocks) {
    if (!(b.span.file == f.at.file) || b.span.begin > f.at.begin || b.span.end < f.at.end) continue;
    if (b.span.begin < a.fn.span.begin || b.span.end > a.fn.span.end) continue;
    for (uint32_t i = 0; i < b.stmts.count; ++i) {
      const hir::Stmt& s = p.stmt(hir::StmtId{p.listAt(b.stmts, i)});
      if (s.span.begin <= f.at.begin && f.at.end <= s.span.end && s.span.end - s.span.begin < best) {
        best = s.span.end - s.span.begin;
        block = &b;
        at = i;
      }
    }
  }
  if (!block) return;
  std::string_view text = a.sources.file(f.at.file).text();
  const hir::Stmt& access = p.stmt(hir::StmtId{p.listAt(block->stmts, at)});
  if (mentions(text.substr(access.span.begin, access.span.end - access.span.begin), token)) return;
  for (uint32_t j = at + 1; j < block->stmts.count; ++j) {
    const hir::Stmt& s = p.stmt(hir::StmtId{p.listAt(block->stmts, j)});
    if (!isWaitOf(p, s, token)) {
      if (mentions(text.substr(s.span.begin, s.span.end - s.span.begin), token)) return;
      continue;
    }
    // The access's line may go on after it (a comment); the wait's line is
    // deleted whole, so it must hold the wait alone.
    uint32_t accessFrom, waitFrom, waitTo;
    std::string indent, waitIndent;
    if (!ownLine(text, s.span, waitFrom, waitTo, waitIndent)) return;
    if (!startsLine(text, access.span, accessFrom, indent)) return;
    std::string wait = "wait(" + token + ");";
    out.suggestParts("wait first: move `" + wait + "` up to before the access",
                     {{base::Span{f.at.file, accessFrom, accessFrom}, indent + wait + "\n"},
                      {base::Span{f.at.file, waitFrom, waitTo}, ""}});
    return;
  }
}

}  // namespace

diag::Diagnostic renderHazard(const ReportContext& a, const Decided& d) {
  const Finding& f = d.f;
  const Transfer& tr = a.transfers[f.transfer];
  diag::Diagnostic out;
  auto [startSpan, earlier] = copyStart(tr, f);
  std::string started = (f.viaDst ? "transfer into `" : "transfer from `") + f.other + "` started here";
  if (earlier) started += " in an earlier iteration";
  std::string token = !f.holder.empty() ? f.holder : tr.name;
  switch (f.rule) {
    case Rule::StaleRead:
      out = diag::StaleRead(f.subject);
      out.primary(f.at, f.related.valid() ? "passed here to a function that reads it while the transfer may be in flight"
                                          : "read here while the transfer may be in flight");
      break;
    case Rule::HazardWrite:
      out = diag::HazardWrite(f.subject, f.viaDst ? "into" : "reading");
      out.primary(f.at, std::string(f.related.valid() ? "passed here to a function that writes it" : "written here") +
                            (f.viaDst ? " while a transfer writes it" : " while a transfer reads it"));
      break;
    case Rule::SourcePinned:
      out = f.viaDst ? diag::DestinationMoved(f.subject, howWord(f.access)) : diag::SourceMoved(f.subject, howWord(f.access));
      out.primary(f.at, std::string(howWord(f.access)) + " here while the transfer is in flight");
      break;
    case Rule::UseAfterMove:
    case Rule::ConsumedTwice:
    case Rule::BehindRef:
    case Rule::Dropped:
    case Rule::Conflict:
    case Rule::Footprint:
    case Rule::BlockBounds:
    case Rule::GridRace:
    case Rule::MoveOut: break;
  }
  if (startSpan.valid()) out.secondary(startSpan, started);
  if (f.related.valid()) out.secondary(f.related, f.relatedLabel);
  if (!d.counterexample.empty()) out.note("z3 counterexample: " + d.counterexample);
  if (f.slotRead.valid() && f.slotInFlight.valid())
    out.note("the slot " + std::string(f.rule == Rule::StaleRead ? "read" : "accessed") + ", `" + f.subject +
             "`, may be the slot still being " + (f.viaDst ? "written" : "read") + ", `" + f.other + "`");
  if (!f.show.empty() || f.slotRead.valid()) out.note(execution(a, d));
  for (const std::string& n : d.alsoNotes) out.note(n);
  // A copy of a pipelined loop (its token a hidden `x.copyN` local,
  // src/check/SemaPipeline.cpp): the user has no variable to wait.
  if (pipelinedCopy(token)) {
    out.help("the pipelined loop starts each copy trips ahead of the trip that uses it: access only what no later "
             "trip copies from or into, or lower the loop's `depth`");
    return out;
  }
  size_t fixes = out.suggestions.size();
  // Only where the analysis knows the variable that holds the copy here.
  if ((f.rule == Rule::StaleRead || f.rule == Rule::HazardWrite) && !f.holder.empty())
    suggestMovedWait(a, f, f.holder, out);
  if (out.suggestions.size() > fixes) return out;
  if (token.empty())
    out.help("wait for the transfer first");
  else if (f.rule == Rule::StaleRead)
    out.help("wait first: `wait(" + token + ");`");
  else if (f.rule == Rule::HazardWrite)
    out.help("wait for `" + token + "` before writing");
  else
    out.help("wait for `" + token + "` first");
  return out;
}

}  // namespace vx::check::own
