// Lexing helpers shared by the assembler's directive and instruction parsers:
// a cursor over one line that knows its column, and number/name scanners
// that report overflow instead of wrapping.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vx::tpu::asmlex {

inline bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }
inline bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// [+-]?(0x[0-9a-fA-F]+|[0-9]+), the whole text; nullopt when malformed or out of range.
std::optional<int64_t> parseInt(std::string_view s);
// r0..r31.
std::optional<uint8_t> parseReg(std::string_view s);
// sem0..sem31.
std::optional<uint8_t> parseSem(std::string_view s);
// A name that looks like a register or semaphore cannot name anything else.
bool isReservedName(std::string_view s);
// A token for messages: printable ASCII kept, other bytes as \xNN, at most 24 chars.
std::string quoteToken(std::string_view s);

class Cursor {
 public:
  explicit Cursor(std::string_view line, size_t pos = 0) : s_(line), p_(pos) {}
  size_t pos() const { return p_; }
  uint32_t col() const { return static_cast<uint32_t>(p_ + 1); }
  void skipSpace() {
    while (p_ < s_.size() && isSpace(s_[p_])) ++p_;
  }
  bool atEnd() {
    skipSpace();
    return p_ >= s_.size();
  }
  char peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }
  bool accept(char c) {
    skipSpace();
    if (peek() != c || p_ >= s_.size()) return false;
    ++p_;
    return true;
  }
  // An identifier, or empty (cursor unmoved) when none starts here.
  std::string_view ident() {
    skipSpace();
    size_t b = p_;
    if (p_ < s_.size() && isIdentStart(s_[p_]))
      while (p_ < s_.size() && isIdentChar(s_[p_])) ++p_;
    return s_.substr(b, p_ - b);
  }
  // A run of characters up to whitespace, ',', '[', ']', ':' or end: the
  // text of a number, register or float.
  std::string_view word() {
    skipSpace();
    size_t b = p_;
    while (p_ < s_.size() && !isSpace(s_[p_]) && s_[p_] != ',' && s_[p_] != '[' &&
           s_[p_] != ']' && s_[p_] != ':')
      ++p_;
    return s_.substr(b, p_ - b);
  }
  // What is at the cursor, for "found ..." in messages.
  std::string found() {
    skipSpace();
    if (p_ >= s_.size()) return "end of line";
    size_t e = p_;
    while (e < s_.size() && !isSpace(s_[e]) && s_[e] != ',') ++e;
    if (e == p_) e = p_ + 1;
    return "`" + quoteToken(s_.substr(p_, e - p_)) + "`";
  }
  std::string_view rest() const { return p_ < s_.size() ? s_.substr(p_) : std::string_view{}; }
  void seek(size_t p) { p_ = p; }

 private:
  std::string_view s_;
  size_t p_;
};

}  // namespace vx::tpu::asmlex
