// Byte-level pass before the lexers see a file: validates UTF-8, finds
// unterminated block comments, and cuts the file into top-level chunks (one
// item each), the unit the fast parser takes or gives back, and so that
// ANTLR's tokens and trees never hold more than one item.
#pragma once

#include <string>
#include <vector>

#include "base/Source.h"
#include "diag/Sink.h"

namespace vx::parse {

// The byte the lexer sees for a byte of a valid non-ASCII character, and for
// an invalid UTF-8 byte (already reported). Both are ERROR_CHAR to the lexer
// and harmless inside comments; offsets stay byte offsets.
inline constexpr char kNonAsciiByte = '\x01';
inline constexpr char kInvalidByte = '\x02';

struct Chunk {
  uint32_t begin, end;
};

struct PrescanResult {
  // The text with every byte >= 0x80 replaced, same length: a view of the
  // original when it is pure ASCII (the common case: no copy), else of `copy`.
  std::string_view ascii() const { return copy.empty() ? original : std::string_view(copy); }
  std::string_view original;
  std::string copy;
  std::vector<Chunk> chunks;
  bool fatal = false;  // an unterminated comment: nothing after it can be lexed
};

PrescanResult prescan(std::string_view text, base::FileId file, diag::Sink& sink);

}  // namespace vx::parse
