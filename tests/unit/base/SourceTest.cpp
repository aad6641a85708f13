#include <doctest/doctest.h>

#include "base/Source.h"
#include "base/Text.h"

using namespace vx::base;

TEST_CASE("line and column are 1-based and count characters, not bytes") {
  SourceFile f("a.vx", "ab\n\xC3\xA9x\n");
  CHECK(f.lineCol(0).line == 1);
  CHECK(f.lineCol(1).col == 2);
  CHECK(f.lineCol(3).line == 2);
  // `x` follows a two-byte character: byte 5, column 2.
  CHECK(f.lineCol(5).col == 2);
  CHECK(f.lineText(2) == "\xC3\xA9x");
  CHECK(f.lineCount() == 3);
}

TEST_CASE("an offset past the end clamps to the end") {
  SourceFile f("a.vx", "abc");
  CHECK(f.lineCol(100).col == 4);
}

TEST_CASE("line text drops a carriage return") {
  SourceFile f("a.vx", "ab\r\ncd");
  CHECK(f.lineText(1) == "ab");
  CHECK(f.lineText(2) == "cd");
}

TEST_CASE("reading a missing file or a directory gives one-line errors") {
  CHECK(readFile("/nonexistent/x.vx").error.find("cannot read") == 0);
  CHECK(readFile("/tmp").error.find("is a directory") != std::string::npos);
}

TEST_CASE("closest match suggests near names only") {
  CHECK(closestMatch("transfer_asyn", {"transfer_async", "wait"}) == "transfer_async");
  CHECK(closestMatch("zzz", {"transfer_async", "wait"}).empty());
  CHECK(editDistance("kitten", "sitting") == 3);
}

TEST_CASE("two adjacent letters swapped are one edit") {
  CHECK(editDistance("wiat", "wait") == 1);
  CHECK(editDistance("ab", "ba") == 1);
  CHECK(editDistance("abc", "ca") == 3);  // optimal string alignment, not full Damerau
  CHECK(closestMatch("wiat", {"wait", "mma"}) == "wait");
  CHECK(closestMatch("hots", {"host", "stream"}) == "host");
}
