#include "parse/Prescan.h"

#include <algorithm>
#include <cstdio>

#include "diag/DiagKinds.h"

namespace vx::parse {

namespace {

// Length of the valid UTF-8 sequence at text[i], or 0 when it is invalid
// (overlong forms, surrogates and values past U+10FFFF are invalid).
size_t utf8Length(std::string_view text, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = at(i);
  size_t len;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((at(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (at(i + k) & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

// Why `text` is binary data rather than source, or "" when it may be source:
// a NUL byte in its first 64 KiB, or, in its first 4 KiB, one byte in ten
// a control character (other than tab, line feed, form feed and carriage
// return) or not part of valid UTF-8. `at` is the first such byte.
std::string binaryReason(std::string_view text, uint32_t& at) {
  size_t scan = std::min<size_t>(text.size(), 64 * 1024);
  size_t nul = text.substr(0, scan).find('\0');
  if (nul != std::string_view::npos) {
    at = static_cast<uint32_t>(nul);
    return "it contains NUL bytes (a binary file?)";
  }
  size_t head = std::min<size_t>(text.size(), 4096), odd = 0;
  bool first = true;
  for (size_t i = 0; i < head;) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : utf8Length(text, i);
    bool bad = c < 0x80 ? (c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r') || c == 0x7F : len == 0;
    if (bad) {
      if (first) at = static_cast<uint32_t>(i);
      first = false;
      ++odd;
    }
    i += len == 0 ? 1 : len;
  }
  if (head >= 16 && odd * 10 >= head)
    return std::to_string(odd) + " of its first " + std::to_string(head) +
           " bytes are control characters or invalid UTF-8 (a binary file?)";
  return "";
}

}  // namespace

PrescanResult prescan(std::string_view text, base::FileId file, diag::Sink& sink) {
  PrescanResult r;
  r.original = text;
  const uint32_t n = static_cast<uint32_t>(text.size());
  // Copied at the first byte >= 0x80 only.
  auto ascii = [&]() -> std::string& {
    if (r.copy.empty()) r.copy.assign(text);
    return r.copy;
  };

  // Binary data: one error, not one per byte.
  uint32_t at = 0;
  if (std::string why = binaryReason(text, at); !why.empty()) {
    sink.emit(diag::LexNotSource(why)
                  .primary(base::Span{file, at, at + 1}, "not text")
                  .note("Vx source files are UTF-8 text; nothing after this is checked"));
    r.fatal = true;
    return r;
  }

  // UTF-8: one diagnostic per run of invalid bytes.
  for (uint32_t i = 0; i < n;) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = utf8Length(text, i);
    if (len > 0) {
      for (size_t k = 0; k < len; ++k) ascii()[i + k] = kNonAsciiByte;
      i += static_cast<uint32_t>(len);
      continue;
    }
    uint32_t start = i;
    while (i < n && static_cast<unsigned char>(text[i]) >= 0x80 && utf8Length(text, i) == 0)
      ascii()[i++] = kInvalidByte;
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02X", c);
    sink.emit(diag::LexInvalidUtf8(hex, start)
                  .primary(base::Span{file, start, i}, "invalid UTF-8")
                  .note("Vx source files must be UTF-8"));
  }

  // A byte-order mark opening the file (some Windows editors write one) is
  // not part of the program: it is read as whitespace, as rustc does.
  if (n >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") ascii().replace(0, 3, "   ");

  // A lone carriage return (classic Mac line endings): lines end in LF or
  // CRLF. Taken as a space it would let a `//` comment run on over the
  // code after it, which would then go unchecked; taken as a line break
  // the editor and the compiler could disagree on lines. Refused.
  {
    uint32_t count = 0, first = 0;
    for (uint32_t i = 0; i < n; ++i)
      if (text[i] == '\r' && (i + 1 >= n || text[i + 1] != '\n')) {
        if (count++ == 0) first = i;
      }
    if (count > 0) {
      sink.emit(diag::LexBareCarriageReturn(count)
                    .primary(base::Span{file, first, first + 1}, "a lone `\\r`")
                    .note("Vx source lines end in LF or CRLF; nothing in this file is checked")
                    .help("convert the file's line endings to LF (`sed -i 's/\\r$//; s/\\r/\\n/g' FILE`)"));
      r.fatal = true;
      return r;
    }
  }

  // Comments and top-level chunks. There are no string literals, so a
  // bracket outside a comment is always a token.
  const std::string_view a = r.ascii();
  int depth = 0;
  uint32_t chunkBegin = 0;
  for (uint32_t i = 0; i < n; ++i) {
    char c = a[i];
    if (c == '/' && i + 1 < n && a[i + 1] == '/') {
      while (i < n && a[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && a[i + 1] == '*') {
      uint32_t start = i;
      int nest = 1;
      i += 2;
      while (i < n && nest > 0) {
        if (a[i] == '/' && i + 1 < n && a[i + 1] == '*') {
          ++nest;
          i += 2;
        } else if (a[i] == '*' && i + 1 < n && a[i + 1] == '/') {
          --nest;
          i += 2;
        } else {
          ++i;
        }
      }
      if (nest > 0) {
        sink.emit(diag::LexUnterminatedComment()
                      .primary(base::Span{file, start, start + 2}, "comment starts here")
                      .note("block comments nest: each `/*` needs its own `*/`"));
        r.fatal = true;
        return r;
      }
      --i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth > 0) --depth;
      if (depth == 0 && c == '}') {
        r.chunks.push_back(Chunk{chunkBegin, i + 1});
        chunkBegin = i + 1;
      }
    } else if (c == ';' && depth == 0) {
      r.chunks.push_back(Chunk{chunkBegin, i + 1});
      chunkBegin = i + 1;
    }
  }
  if (chunkBegin < n || r.chunks.empty()) r.chunks.push_back(Chunk{chunkBegin, n});
  return r;
}

}  // namespace vx::parse
