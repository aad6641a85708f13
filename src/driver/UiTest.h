// The UI (golden) test runner behind `vxc test-ui`: a test is a `.vx` file
// with inline expectations (`//~ ERROR E6003`, `//~^ ERROR` for the line
// above, `//~| ERROR` for the same line as the previous expectation, `WARN`
// for warnings) plus, beside it, the blessed full output in `<name>.stderr`
// (absent when the output is empty). `//@ target: NAME` selects the target
// (default cpu). Fenced ```vx blocks in `.md` files are
// tests too, with expectations only (docs/errors pages are tested this way).
#pragma once

#include <string>
#include <vector>

namespace vx::driver {

struct Expectation {
  uint32_t line;
  std::string code;
  bool error = true;  // `ERROR` (E-codes, and lints at `deny`) or `WARN` (lints)
  friend bool operator==(const Expectation& a, const Expectation& b) {
    return a.line == b.line && a.code == b.code && a.error == b.error;
  }
};

// Parses the `//~` annotations of a source text. Malformed annotations are
// returned in `errors` ("line N: ...").
std::vector<Expectation> parseExpectations(const std::string& text, std::vector<std::string>& errors);

struct UiCase {
  std::string displayPath;  // path shown in diagnostics, relative to the test root
  std::string source;
  std::string stderrPath;   // empty: no golden output (markdown blocks)
  uint32_t lineOffset = 0;  // for markdown blocks: line of the block in the .md
  std::string origin;       // where the case comes from, for messages
  std::string filePath;     // the .vx file on disk (empty for markdown blocks)
};

struct UiResult {
  bool passed = true;
  std::vector<std::string> problems;
  std::string actualOutput;
  // Run-pass tests: each `//@ run: ARGS` header (`vxc run` arguments), the
  // target, and `//@ run-tolerance: X` (outputs compared as .npy within X
  // instead of by checksum; negative when absent). The caller runs them
  // (CmdTestUi.cpp) once the check passed.
  std::vector<std::string> runs;
  std::string target = "cpu";
  double runTolerance = -1;
};

// Runs one case. With `bless`, writes the .stderr instead of comparing it.
UiResult runUiCase(const UiCase& c, bool bless);

// Collects the cases under `root` (a directory or a single file), sorted.
std::vector<UiCase> collectUiCases(const std::string& root, std::string& error);

}  // namespace vx::driver
