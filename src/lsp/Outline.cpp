#include "lsp/Outline.h"

#include <cctype>

#include "ast/Ast.h"
#include "base/Source.h"
#include "diag/Sink.h"
#include "lsp/Position.h"
#include "parse/Parse.h"

namespace vx::lsp {

namespace {

bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The item's text up to its body (or `;`/`=`), whitespace runs as one space.
std::string headerOf(std::string_view text, uint32_t begin, uint32_t end, bool isConst) {
  std::string out;
  bool space = false;
  for (uint32_t i = begin; i < end && i < text.size(); ++i) {
    char c = text[i];
    if (c == '{' || c == ';' || (isConst && c == '=')) break;
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
    if (out.size() > 400) {
      out += "...";
      break;
    }
  }
  return out;
}

}  // namespace

std::vector<OutlineItem> outline(const std::string& path, const std::string& text) {
  base::SourceMap sources;
  base::FileId file = sources.add(path, text);
  ast::Interner names;
  diag::Sink sink;  // the diagnostics are published by the check, not here
  ast::Module m = parse::parseFile(sources, file, names, sink);
  std::vector<OutlineItem> out;
  for (const ast::Item& it : m.items) {
    OutlineItem o;
    o.kind = it.kind == ast::ItemKind::Const ? OutlineItem::Kind::Const : OutlineItem::Kind::Fn;
    o.name = std::string(names.str(it.name));
    o.begin = it.range.begin;
    o.end = it.range.end;
    o.nameBegin = it.nameRange.begin;
    o.nameEnd = it.nameRange.end;
    o.header = headerOf(text, it.range.begin, it.range.end, o.kind == OutlineItem::Kind::Const);
    out.push_back(std::move(o));
  }
  return out;
}

std::string_view identifierAt(std::string_view text, uint32_t offset, uint32_t& begin, uint32_t& end) {
  if (offset > text.size()) offset = static_cast<uint32_t>(text.size());
  begin = end = offset;
  while (begin > 0 && identChar(text[begin - 1])) --begin;
  while (end < text.size() && identChar(text[end])) ++end;
  if (begin == end || std::isdigit(static_cast<unsigned char>(text[begin]))) return {};
  return text.substr(begin, end - begin);
}

bool wordAt(State& s, const json& params, WordAt& out) {
  out.uri = stringField(field(params, "textDocument"), "uri");
  const json& pos = field(params, "position");
  Position p{uintField(pos, "line"), uintField(pos, "character")};
  auto doc = s.docs.find(out.uri);
  if (doc == s.docs.end()) return false;
  out.text = &doc->second.text;
  out.word = identifierAt(*out.text, LineIndex(*out.text).offset(p), out.begin, out.end);
  return !out.word.empty();
}

}  // namespace vx::lsp
