// The hand-written lexer must produce exactly the tokens of the
// ANTLR-generated reference lexer (grammar/VxLexer.g4).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "parse/Parse.h"

namespace fs = std::filesystem;
using vx::parse::lexForTesting;

namespace {
// Unterminated block comments never reach the lexers: the pre-scan reports
// them (E0002) and stops.
bool balancedComments(const std::string& text) {
  int depth = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '/' && text[i + 1] == '/' && depth == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (text[i] == '/' && text[i + 1] == '*') {
      ++depth;
      ++i;
    } else if (text[i] == '*' && text[i + 1] == '/' && depth > 0) {
      --depth;
      ++i;
    }
  }
  return depth == 0;
}
// The lexers see pre-scanned ASCII: bytes >= 0x80 become 0x01.
std::string ascii(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) >= 0x80) c = '\x01';
  return s;
}
void same(const std::string& text) {
  auto fast = lexForTesting(text, false);
  auto ref = lexForTesting(text, true);
  INFO("fast " << fast.size() << " tokens, reference " << ref.size());
  for (size_t i = 0; i < std::min(fast.size(), ref.size()); ++i)
    if (!(fast[i] == ref[i])) {
      INFO("first difference at token " << i << ": fast type " << fast[i].type << " @" << fast[i].start << ".."
                                        << fast[i].stop << ", reference type " << ref[i].type << " @" << ref[i].start
                                        << ".." << ref[i].stop);
      CHECK(false);
      return;
    }
  REQUIRE(fast.size() == ref.size());
  for (size_t i = 0; i < fast.size(); ++i) {
    INFO("token " << i << " of " << text.substr(0, 80));
    CHECK(fast[i] == ref[i]);
  }
}
}  // namespace

TEST_CASE("both lexers agree on every test and example file") {
  int files = 0;
  for (const char* dir : {"tests", "examples", "docs/errors"})
    for (auto& e : fs::recursive_directory_iterator(fs::path(VX_SOURCE_DIR) / dir)) {
      if (!e.is_regular_file() || (e.path().extension() != ".vx" && e.path().extension() != ".md")) continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      std::string text = ascii(ss.str());
      if (!balancedComments(text)) continue;
      INFO("file " << e.path().string());
      same(text);
      ++files;
    }
  CHECK(files > 50);
}

TEST_CASE("both lexers agree on numbers, operators and edge cases") {
  for (const char* s : {"1..n", "1.5e3f32", "1e", "1e+", "1e_", "0x1F_u32", "0x", "0b102", "1usizex", "1f32x",
                        "2.x", "1bf16", "a->b::c..d.e", "&&&||!=<=>=", "x|y", "/* a /* b */ c */ d", "// c\nx",
                        "\t\f\r\n  y", "$#@`", "fnx fn in_ iff", "0x1f32 0b1i32 7u64 8i64 9u32", "1.0.0"})
    same(s);
}

TEST_CASE("both lexers agree on strings, terminated or not") {
  for (const char* s : {"\"b200\"", "\"\"", "x = \"a\\\"b\" y", "\"a\\\\\"", "\"a\\q\"", "\"open", "\"a\nb\"",
                        "\"a\\", "\"a\\\"", "\"\x01\x01\"", "\"one\" \"two\"", "\"\\\"\\\\\\\"\"", "\"\r\""})
    same(s);
  // STRING is one token with its quotes.
  auto t = lexForTesting("#[cfg(target = \"b200\")]", false);
  bool found = false;
  for (const auto& x : t) found = found || (x.start == 15 && x.stop == 20);
  CHECK(found);
}

TEST_CASE("both lexers agree on random input") {
  uint32_t state = 7;
  const std::string alphabet = "abfnix019_.:;,(){}[]<>=!&|+-*/%ex \n\t/*\"\\";
  int compared = 0;
  for (int n = 0; n < 600; ++n) {
    std::string text;
    for (int i = 0; i < 120; ++i) {
      state = state * 1664525u + 1013904223u;
      text += alphabet[(state >> 8) % alphabet.size()];
    }
    if (!balancedComments(text)) continue;
    same(text);
    ++compared;
  }
  CHECK(compared > 100);
}
