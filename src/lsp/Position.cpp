#include "lsp/Position.h"

#include <algorithm>

namespace vx::lsp {

namespace {

// Length in bytes and in UTF-16 code units of the character at `p` (one of
// each for a byte that does not start a valid UTF-8 sequence).
void charAt(std::string_view s, size_t p, uint32_t& bytes, uint32_t& units) {
  auto c = static_cast<unsigned char>(s[p]);
  uint32_t len = c < 0x80 ? 1 : c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (len == 0 || len == 1 || p + len > s.size()) {
    bytes = units = 1;
    return;
  }
  for (uint32_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[p + k]) & 0xC0) != 0x80) {
      bytes = units = 1;
      return;
    }
  bytes = len;
  units = len == 4 ? 2 : 1;
}

}  // namespace

// Lines end at `\n`, `\r\n` and a lone `\r`, as the LSP counts them (a
// client that sends a lone `\r` counts a line after it).
LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')))
      starts_.push_back(static_cast<uint32_t>(i + 1));
}

Position LineIndex::position(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  auto line = static_cast<uint32_t>(it - starts_.begin() - 1);
  uint32_t units = 0;
  for (size_t p = starts_[line]; p < offset;) {
    uint32_t b, u;
    charAt(text_, p, b, u);
    p += b;
    units += u;
  }
  return Position{line, units};
}

uint32_t LineIndex::offset(Position pos) const {
  if (pos.line >= starts_.size()) return static_cast<uint32_t>(text_.size());
  size_t p = starts_[pos.line];
  bool last = pos.line + 1 == starts_.size();
  size_t end = last ? text_.size() : starts_[pos.line + 1] - 1;  // at the `\n` or lone `\r`
  // A line ends before its `\r\n` as well as before its `\n` or `\r`.
  if (!last && text_[end] == '\n' && end > p && text_[end - 1] == '\r') --end;
  uint32_t units = 0;
  while (p < end && units < pos.character) {
    uint32_t b, u;
    charAt(text_, p, b, u);
    if (units + u > pos.character) break;  // inside a surrogate pair
    p += b;
    units += u;
  }
  return static_cast<uint32_t>(p);
}

bool applyChange(std::string& text, Position start, Position end, std::string_view replacement) {
  LineIndex index(text);
  uint32_t a = index.offset(start), b = index.offset(end);
  if (b < a) return false;  // a range that ends before it starts: no edit
  text.replace(a, b - a, replacement);
  return true;
}

namespace {
bool before(Position a, Position b) { return a.line < b.line || (a.line == b.line && a.character <= b.character); }
bool strictlyBefore(Position a, Position b) { return a.line < b.line || (a.line == b.line && a.character < b.character); }
}  // namespace

bool applyChanges(std::string& text, const std::vector<TextChange>& changes) {
  bool descending = changes.size() > 1;
  for (size_t i = 0; i < changes.size() && descending; ++i) {
    const TextChange& c = changes[i];
    // Strictly before the last change: one that ends where the last began
    // may mean another place after it (a `\n` inserted after a lone `\r`
    // moves the start of the next line).
    if (c.whole || !before(c.start, c.end) || (i > 0 && !strictlyBefore(c.end, changes[i - 1].start)))
      descending = false;
  }
  if (descending) {
    // Every range is in the original text's coordinates: the changes after
    // it only touched text after it.
    LineIndex index(text);
    std::vector<std::pair<uint32_t, uint32_t>> at(changes.size());
    for (size_t i = 0; i < changes.size(); ++i) {
      at[i] = {index.offset(changes[i].start), index.offset(changes[i].end)};
      // (A position the protocol clamps, past its line's end or inside a
      // surrogate pair, may mean another place once an earlier change
      // grew its line: those go one at a time.)
      Position s = index.position(at[i].first), e = index.position(at[i].second);
      bool exact = s.line == changes[i].start.line && s.character == changes[i].start.character &&
                   e.line == changes[i].end.line && e.character == changes[i].end.character;
      if (!exact || at[i].second < at[i].first || (i > 0 && at[i].second > at[i - 1].first)) {
        descending = false;
        break;
      }
    }
    if (descending) {
      std::string out;
      size_t size = text.size();
      for (size_t i = 0; i < changes.size(); ++i) size += changes[i].text.size();
      out.reserve(size);
      size_t from = 0;
      for (size_t i = changes.size(); i-- > 0;) {
        out.append(text, from, at[i].first - from);
        out += changes[i].text;
        from = at[i].second;
      }
      out.append(text, from, std::string::npos);
      text = std::move(out);
      return true;
    }
  }
  std::string result = text;
  for (const TextChange& c : changes) {
    if (c.whole)
      result = c.text;
    else if (!applyChange(result, c.start, c.end, c.text))
      return false;
  }
  text = std::move(result);
  return true;
}

}  // namespace vx::lsp
