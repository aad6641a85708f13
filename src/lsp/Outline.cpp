#include "lsp/Outline.h"

#include <algorithm>
#include <cctype>

#include "ast/Ast.h"
#include "base/Source.h"
#include "diag/Sink.h"
#include "check/StdlibEmbed.h"
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

std::string builtinSignature(const std::string& name) {
  for (unsigned i = 0; i < check::kStdlibCount; ++i) {
    std::string_view text = check::kStdlib[i].text;
    std::string needle = "extern fn " + name;
    for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) {
      size_t after = at + needle.size();
      if (after < text.size() && text[after] != '(' && text[after] != '<') continue;
      size_t end = text.find(';', at);
      if (end == std::string_view::npos) end = text.size();
      std::string one;
      bool space = false;
      for (char c : text.substr(at + 7, end - at - 7)) {  // without `extern `
        if (std::isspace(static_cast<unsigned char>(c))) {
          space = !one.empty();
          continue;
        }
        if (space && one.back() != '(') one += ' ';
        space = false;
        one += c;
      }
      return one;
    }
  }
  return "fn " + name;
}

std::vector<std::string> signatureParams(const std::string& header) {
  std::vector<std::string> out;
  // The parameter list: the first `(` after the generics, to its match.
  size_t open = std::string::npos;
  int angle = 0;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == '<') ++angle;
    if (header[i] == '>' && angle > 0 && (i == 0 || header[i - 1] != '-')) --angle;
    if (header[i] == '(' && angle == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos) return out;
  int depth = 0;
  std::string cur;
  for (size_t i = open + 1; i < header.size(); ++i) {
    char c = header[i];
    if (c == '(' || c == '<' || c == '[') ++depth;
    if ((c == ')' || c == '>' || c == ']') && !(c == '>' && i > 0 && header[i - 1] == '-')) {
      if (depth == 0 && c == ')') break;
      --depth;
    }
    if (c == ',' && depth == 0) {
      size_t b = cur.find_first_not_of(' '), e = cur.find_last_not_of(' ');
      if (b != std::string::npos) out.push_back(cur.substr(b, e - b + 1));
      cur.clear();
      continue;
    }
    cur += c;
  }
  size_t b = cur.find_first_not_of(' '), e = cur.find_last_not_of(' ');
  if (b != std::string::npos) out.push_back(cur.substr(b, e - b + 1));
  return out;
}

std::vector<std::string> localsAt(const std::vector<OutlineItem>& items, std::string_view text, uint32_t offset) {
  std::vector<std::string> out;
  const OutlineItem* fn = nullptr;
  for (const OutlineItem& it : items)
    if (it.kind == OutlineItem::Kind::Fn && it.begin <= offset && offset <= it.end) fn = &it;
  if (!fn) return out;
  auto add = [&](std::string name) {
    if (!name.empty() && name != "_" && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  // Bindings before the offset, nearest first.
  std::vector<std::string> found;
  uint32_t end = std::min<uint32_t>(offset, static_cast<uint32_t>(text.size()));
  auto word = [&](uint32_t& i) {
    while (i < end && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
    uint32_t b = i;
    while (i < end && identChar(text[i])) ++i;
    return std::string(text.substr(b, i - b));
  };
  for (uint32_t i = fn->begin; i < end; ++i) {
    if (!identChar(text[i]) || (i > 0 && identChar(text[i - 1]))) continue;
    uint32_t j = i;
    std::string w = word(j);
    if (w == "let") {
      std::string n = word(j);
      if (n == "mut") n = word(j);
      found.push_back(n);
    } else if (w == "for") {
      found.push_back(word(j));
    }
    if (j > i) i = j - 1;
  }
  for (auto it = found.rbegin(); it != found.rend(); ++it) add(*it);
  for (const std::string& p : signatureParams(fn->header)) add(p.substr(0, p.find(':')));
  for (std::string& n : out) {
    size_t e = n.find_last_not_of(' ');
    n = n.substr(0, e + 1);
  }
  return out;
}

}  // namespace vx::lsp
