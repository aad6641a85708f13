// The resolved names of a document (Index.h), read off the typed HIR.
#include "lsp/Index.h"

#include "lsp/Position.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace vx::lsp {

namespace {

bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The first whole-word occurrence of `name` in [begin, end) of `text`.
bool findName(const std::string& text, const std::string& name, uint32_t begin, uint32_t end, uint32_t& at) {
  end = std::min<uint32_t>(end, static_cast<uint32_t>(text.size()));
  for (size_t p = text.find(name, begin); p != std::string::npos && p + name.size() <= end;
       p = text.find(name, p + 1)) {
    bool before = p == 0 || !identChar(text[p - 1]);
    bool after = p + name.size() >= text.size() || !identChar(text[p + name.size()]);
    if (before && after) {
      at = static_cast<uint32_t>(p);
      return true;
    }
  }
  return false;
}

bool holdsToken(const hir::TypeTable& tt, hir::TypeId t, int depth = 0) {
  hir::TypeId x = tt.resolve(t);
  if (tt.kind(x) == hir::TyKind::Token) return true;
  if (tt.kind(x) != hir::TyKind::Tuple || depth > 16) return false;
  for (uint32_t i = 0; i < tt.count(x); ++i)
    if (holdsToken(tt, tt.elem(x, i), depth + 1)) return true;
  return false;
}

}  // namespace

std::vector<Symbol> indexNames(const hir::Program& prog, base::FileId file, const std::string& text) {
  std::vector<Symbol> out;
  auto here = [&](base::Span sp) { return sp.valid() && sp.file == file && sp.end <= text.size(); };
  std::map<uint32_t, size_t> fnSym, constSym, localSym;  // HIR index -> symbol
  for (uint32_t i = 0; i < prog.fns.size(); ++i) {
    const hir::Function& f = prog.fns[i];
    Symbol s;
    s.name = f.name;
    if (f.fromPrelude || f.builtin != hir::Builtin::None) {
      s.kind = Symbol::Kind::Builtin;
    } else {
      if (!here(f.nameSpan)) continue;
      s.kind = Symbol::Kind::Function;
      s.hasDecl = true;
      s.declBegin = f.nameSpan.begin;
      s.declEnd = f.nameSpan.end;
    }
    fnSym[i] = out.size();
    out.push_back(std::move(s));
  }
  for (uint32_t i = 0; i < prog.consts.size(); ++i) {
    const hir::Const& c = prog.consts[i];
    if (!here(c.span)) continue;
    Symbol s;
    s.kind = Symbol::Kind::Const;
    s.name = c.name;
    s.type = prog.types.print(c.type);
    s.hasDecl = true;
    s.declBegin = c.span.begin;
    s.declEnd = c.span.end;
    constSym[i] = out.size();
    out.push_back(std::move(s));
  }
  // Parameters and locals, with the function they belong to (found by
  // where they are declared).
  std::vector<std::pair<uint32_t, uint32_t>> fnSpans;
  for (const hir::Function& f : prog.fns)
    if (!f.fromPrelude && here(f.span)) fnSpans.emplace_back(f.span.begin, f.span.end);
  std::sort(fnSpans.begin(), fnSpans.end());
  for (uint32_t i = 0; i < prog.locals.size(); ++i) {
    const hir::Local& l = prog.locals[i];
    uint32_t at;
    if (!here(l.span) || !findName(text, l.name, l.span.begin, l.span.end, at)) continue;
    Symbol s;
    s.kind = l.param ? Symbol::Kind::Param : Symbol::Kind::Local;
    s.name = l.name;
    // A pipelined copy's name is a slot of its ring in the loop's body.
    s.type = l.slot.valid() ? prog.types.print(l.slot) + " (a slot of its pipeline's ring, " + prog.types.print(l.type) + ")"
                            : prog.types.print(l.type);
    s.linear = holdsToken(prog.types, l.type);
    s.mut = l.mut;
    s.hasDecl = true;
    s.declBegin = at;
    s.declEnd = at + static_cast<uint32_t>(l.name.size());
    auto f = std::upper_bound(fnSpans.begin(), fnSpans.end(), std::make_pair(at, UINT32_MAX));
    if (f != fnSpans.begin() && (f - 1)->first <= at && at < (f - 1)->second) {
      s.fnBegin = (f - 1)->first;
      s.fnEnd = (f - 1)->second;
    }
    localSym[i] = out.size();
    out.push_back(std::move(s));
  }
  for (const hir::Expr& x : prog.exprs) {
    if (!here(x.span)) continue;
    auto use = [&](const std::map<uint32_t, size_t>& table, uint32_t key, const std::string& name) {
      auto it = table.find(key);
      if (it == table.end()) return;
      uint32_t at;
      // The name where the expression starts (`f(...)`, `f::<T>(...)`, `x`).
      if (!findName(text, name, x.span.begin, x.span.begin + static_cast<uint32_t>(name.size()), at)) return;
      out[it->second].uses.emplace_back(at, at + static_cast<uint32_t>(name.size()));
    };
    if (x.kind == hir::ExprKind::Local && x.local.valid())
      use(localSym, x.local.index, prog.local(x.local).name);
    else if (x.kind == hir::ExprKind::Call && x.fn.valid())
      use(fnSym, x.fn.index, prog.fn(x.fn).name);
    else if (x.kind == hir::ExprKind::Const && x.constant.valid())
      use(constSym, x.constant.index, prog.consts[x.constant.index].name);
  }
  for (Symbol& s : out) {
    std::sort(s.uses.begin(), s.uses.end());
    s.uses.erase(std::unique(s.uses.begin(), s.uses.end()), s.uses.end());
  }
  // Builtins never used here are left out.
  out.erase(std::remove_if(out.begin(), out.end(),
                           [](const Symbol& s) { return s.kind == Symbol::Kind::Builtin && s.uses.empty(); }),
            out.end());
  return out;
}

std::vector<check::TokenState> resolvedStates(const DocIndex& index, const check::FunctionStates& f) {
  if (!f.states || f.states->empty()) return {};
  return resolvedStates(index, f, LineIndex(index.text));
}

std::vector<check::TokenState> resolvedStates(const DocIndex& index, const check::FunctionStates& f,
                                              const LineIndex& lines) {
  std::vector<check::TokenState> out;
  if (!f.states) return out;
  int64_t delta = f.delta();
  auto line = [&](uint32_t, uint32_t offset) {
    return lines.position(static_cast<uint32_t>(std::max<int64_t>(offset + delta, 0))).line + 1;
  };
  auto move = [&](base::Span& sp) {
    sp.begin = static_cast<uint32_t>(sp.begin + delta);
    sp.end = static_cast<uint32_t>(sp.end + delta);
  };
  for (check::TokenState ts : *f.states) {
    move(ts.fn);
    move(ts.stmt);
    ts.brief = check::resolveLineMarkers(std::move(ts.brief), line);
    ts.state = check::resolveLineMarkers(std::move(ts.state), line);
    out.push_back(std::move(ts));
  }
  return out;
}

const Symbol* symbolAt(const DocIndex& index, uint32_t offset) {
  for (const Symbol& s : index.symbols) {
    if (s.hasDecl && s.declBegin <= offset && offset <= s.declEnd) return &s;
    for (const auto& [b, e] : s.uses)
      if (b <= offset && offset <= e) return &s;
  }
  return nullptr;
}

}  // namespace vx::lsp
