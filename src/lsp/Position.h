// LSP positions: 0-based lines and, within a line, UTF-16 code units (the
// protocol's default encoding). Byte offsets are what vxc's spans hold; these
// helpers convert between the two on a document's text. Bytes that are not
// valid UTF-8 count as one code unit each, so every offset has a position.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vx::lsp {

struct Position {
  uint32_t line = 0;
  uint32_t character = 0;  // UTF-16 code units from the start of the line
  friend bool operator==(Position a, Position b) {
    return a.line == b.line && a.character == b.character;
  }
};

// Line starts of one text, for repeated conversions.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  Position position(uint32_t offset) const;
  // The byte offset of a position. A character past the end of its line
  // means the end of the line, a line past the last means the end of the
  // text (as the protocol says); a position inside a character that takes
  // two code units means the character's start.
  uint32_t offset(Position p) const;

 private:
  std::string_view text_;
  std::vector<uint32_t> starts_;
};

// Replaces the range [start, end) of `text` (positions as in LineIndex) by
// `replacement`: one incremental change of `textDocument/didChange`. False,
// with `text` as it was, when the range ends before it starts.
bool applyChange(std::string& text, Position start, Position end, std::string_view replacement);

}  // namespace vx::lsp
