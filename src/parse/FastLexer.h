// A hand-written lexer for Vx that produces exactly the tokens of
// grammar/VxLexer.g4 (types, channels, offsets, lines), several times faster
// than ANTLR's generated lexer. The generated lexer stays the reference: a
// differential test (tests/unit/parse/FastLexerTest.cpp) runs both on every
// test file and on random input and requires identical token streams.
#pragma once

#include <string>
#include <string_view>

#include "CharStream.h"
#include "CommonToken.h"
#include "TokenSource.h"

namespace vx::parse {

// A CharStream over bytes (the pre-scanned text is ASCII), without the copy
// to UTF-32 that ANTLRInputStream makes.
class ByteStream : public antlr4::CharStream {
 public:
  void load(std::string_view text) {
    text_ = text;
    pos_ = 0;
  }
  void consume() override { ++pos_; }
  size_t LA(ssize_t i) override;
  ssize_t mark() override { return -1; }
  void release(ssize_t) override {}
  size_t index() override { return pos_; }
  void seek(size_t index) override { pos_ = index; }
  size_t size() override { return text_.size(); }
  std::string getSourceName() const override { return "<vx>"; }
  std::string getText(const antlr4::misc::Interval& interval) override;
  std::string toString() const override { return std::string(text_); }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// A token without ANTLR's allocation: what the hand-written parser reads.
// `end` is one past the last byte; offsets are relative to the lexed text.
struct RawToken {
  static constexpr uint32_t Eof = ~0u;  // ANTLR's EOF, narrowed
  uint32_t type;
  uint32_t start, end;
  uint32_t line, col;
  bool hidden;  // ERROR_CHAR, on ANTLR's hidden channel
};

class FastLexer : public antlr4::TokenSource {
 public:
  explicit FastLexer(ByteStream* input) : input_(input) {}
  // Starts over on `text` (which must stay alive while tokens are used).
  void reset(std::string_view text);

  // The next token; at the end, EOF (start = end = the text's size).
  RawToken nextRaw();
  std::unique_ptr<antlr4::Token> nextToken() override;
  size_t getLine() const override { return line_; }
  size_t getCharPositionInLine() override { return pos_ - lineStart_; }
  antlr4::CharStream* getInputStream() override { return input_; }
  std::string getSourceName() override { return "<vx>"; }
  antlr4::TokenFactory<antlr4::CommonToken>* getTokenFactory() override;

 private:
  size_t number(size_t start);
  void skipTrivia();

  ByteStream* input_;
  std::string_view text_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t lineStart_ = 0;
};

}  // namespace vx::parse
