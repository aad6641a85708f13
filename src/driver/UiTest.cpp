#include "driver/UiTest.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "base/Source.h"
#include "diag/Sink.h"
#include "driver/Args.h"
#include "driver/Pipeline.h"

namespace vx::driver {

namespace fs = std::filesystem;

std::vector<Expectation> parseExpectations(const std::string& text, std::vector<std::string>& errors) {
  static const std::regex re(R"(//~(\^*|\|)?\s*(ERROR|WARN)\s+([EW][0-9]{4})\b)");
  std::vector<Expectation> out;
  std::istringstream in(text);
  std::string line;
  uint32_t lineNo = 0;
  uint32_t previous = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    size_t pos = line.find("//~");
    if (pos == std::string::npos) continue;
    std::smatch m;
    std::string rest = line.substr(pos);
    if (!std::regex_search(rest, m, re) || m.position(0) != 0) {
      errors.push_back("line " + std::to_string(lineNo) +
                       ": malformed expectation; write `//~ ERROR E0001` or `//~^ WARN W0001`");
      continue;
    }
    std::string carets = m[1].str();
    uint32_t target = lineNo;
    if (carets == "|") {
      target = previous ? previous : lineNo;
    } else if (!carets.empty()) {
      if (carets.size() >= lineNo) {
        errors.push_back("line " + std::to_string(lineNo) + ": `//~" + carets +
                         "` points above the first line");
        continue;
      }
      target = lineNo - static_cast<uint32_t>(carets.size());
    }
    std::string code = m[3].str();
    bool warn = m[2].str() == "WARN";
    // E-codes are errors; W-codes are lints, warnings or (denied) errors.
    if (code[0] == 'E' && warn) {
      errors.push_back("line " + std::to_string(lineNo) + ": `WARN` with code " + code +
                       " (E-codes are always errors)");
      continue;
    }
    out.push_back(Expectation{target, code, !warn});
    previous = target;
  }
  return out;
}

namespace {

std::string readAll(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = static_cast<bool>(in);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string describe(const Expectation& e) {
  return std::string(e.error ? "error " : "warning ") + e.code + " on line " + std::to_string(e.line);
}

// First differing line of two texts, for a readable failure.
std::string firstDifference(const std::string& expected, const std::string& actual) {
  std::istringstream a(expected), b(actual);
  std::string la, lb;
  for (int n = 1;; ++n) {
    bool ha = static_cast<bool>(std::getline(a, la));
    bool hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "";
    if (!ha || !hb || la != lb)
      return "line " + std::to_string(n) + " of the output:\n      expected: " +
             (ha ? la : "<end>") + "\n      actual:   " + (hb ? lb : "<end>");
  }
}

}  // namespace

UiResult runUiCase(const UiCase& c, bool bless) {
  UiResult r;
  base::SourceMap sources;
  base::FileId id = sources.add(c.displayPath, c.source);
  diag::Sink sink;
  CheckOptions options;
  // Headers: `//@ target: tpu`, `//@ solver-rlimit: N` and
  // `//@ compile-flags: -A unproved ...` (lint flags); any other `//@` is an
  // error, so a misspelt header never silently does nothing.
  std::vector<std::string> headerErrors;
  {
    std::istringstream lines(c.source);
    std::string line;
    uint32_t lineNo = 0;
    bool sawTarget = false;
    while (std::getline(lines, line)) {
      ++lineNo;
      size_t at = line.find("//@");
      if (at == std::string::npos) continue;
      std::string rest = line.substr(at + 3);
      size_t colon = rest.find(':');
      std::string key = colon == std::string::npos ? rest : rest.substr(0, colon);
      std::string value = colon == std::string::npos ? "" : rest.substr(colon + 1);
      auto trim = [](std::string x) {
        size_t b = x.find_first_not_of(" \t\r"), e = x.find_last_not_of(" \t\r");
        return b == std::string::npos ? std::string() : x.substr(b, e - b + 1);
      };
      key = trim(key);
      value = trim(value);
      std::string where = "line " + std::to_string(lineNo + c.lineOffset);
      if (key == "target") {
        std::vector<std::string> names = targetNames();
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "`" : ", `") + n + "`";
        if (std::find(names.begin(), names.end(), value) == names.end())
          headerErrors.push_back(where + ": `//@ target:` takes one of " + list + ", not `" + value + "`");
        else if (sawTarget)
          headerErrors.push_back(where + ": a second `//@ target:` header (one target per test file)");
        else
          options.target = value;
        sawTarget = true;
      } else if (key == "solver-rlimit") {
        if (!parseSolverRlimit(value, options.solverRlimit))
          headerErrors.push_back(where + ": `//@ solver-rlimit:` takes a number from 1 to 999999999, not `" + value +
                                 "`");
      } else if (key == "compile-flags") {
        std::istringstream words(value);
        std::vector<std::string> argv;
        for (std::string w; words >> w;) argv.push_back(w);
        ParsedArgs pa = parseArgs("test-ui", argv, lintFlagSpecs());
        std::string lintError;
        if (pa.error.empty()) options.lints = lintOptions(pa, lintError);
        if (!pa.error.empty() || !lintError.empty() || !pa.positional.empty())
          headerErrors.push_back(where + ": `//@ compile-flags:` takes lint flags (`-D NAME`, `-W NAME`, `-A NAME`): " +
                                 (pa.error.empty() ? lintError : pa.error));
      } else if (key == "run" && !c.filePath.empty()) {
        r.runs.push_back(value);
      } else if (key == "run-tolerance" && !c.filePath.empty()) {
        char* end = nullptr;
        double tol = std::strtod(value.c_str(), &end);
        if (value.empty() || *end || !(tol >= 0) || tol > 1)
          headerErrors.push_back(where + ": `//@ run-tolerance:` takes a number from 0 to 1, not `" + value + "`");
        else
          r.runTolerance = tol;
      } else if ((key == "run" || key == "run-tolerance") && c.filePath.empty()) {
        headerErrors.push_back(where + ": `//@ " + key + "` is for .vx test files, not for blocks in Markdown");
      } else {
        headerErrors.push_back(where + ": unknown header `//@ " + key +
                               "`; the headers are `//@ target: T`, `//@ solver-rlimit: N`, "
                               "`//@ compile-flags: FLAGS`, `//@ run: ARGS` and `//@ run-tolerance: X`");
      }
    }
  }
  checkFile(sources, id, sink, options);
  r.actualOutput = renderAll(sink, sources, Format::Human, false);
  r.target = options.target;
  if (r.runTolerance >= 0 && r.runs.empty())
    headerErrors.push_back("`//@ run-tolerance:` without a `//@ run:` header");
  if (!r.runs.empty() && sink.hasErrors())
    headerErrors.push_back("a run-pass test (`//@ run:`) must check without errors");

  std::vector<std::string> annotationErrors = headerErrors;
  std::vector<Expectation> expected = parseExpectations(c.source, annotationErrors);
  for (const auto& e : annotationErrors) r.problems.push_back(c.origin + ": " + e);

  std::vector<Expectation> actual;
  for (const auto& d : sink.diagnostics()) {
    base::Span s = d.primarySpan();
    uint32_t line = s.valid() ? sources.file(s.file).lineCol(s.begin).line : 0;
    actual.push_back(Expectation{line, d.code(), d.severity() == diag::Severity::Error});
  }
  std::vector<Expectation> unmatched = actual;
  for (const auto& e : expected) {
    auto it = std::find(unmatched.begin(), unmatched.end(), e);
    if (it != unmatched.end()) {
      unmatched.erase(it);
    } else {
      r.problems.push_back(c.origin + ": missing diagnostic " +
                           describe(Expectation{e.line + c.lineOffset, e.code, e.error}));
    }
  }
  for (const auto& u : unmatched)
    r.problems.push_back(c.origin + ": unexpected diagnostic " +
                         describe(Expectation{u.line + c.lineOffset, u.code, u.error}));

  if (!c.stderrPath.empty()) {
    if (bless) {
      if (r.actualOutput.empty()) {
        std::error_code ec;
        fs::remove(c.stderrPath, ec);
      } else {
        std::ofstream(c.stderrPath, std::ios::binary) << r.actualOutput;
      }
    } else {
      bool ok = false;
      std::string golden = readAll(c.stderrPath, ok);
      if (!ok) golden.clear();
      if (golden != r.actualOutput) {
        if (!ok)
          r.problems.push_back(c.origin + ": no " + fs::path(c.stderrPath).filename().string() +
                               " but the output is not empty (run with --bless)");
        else
          r.problems.push_back(c.origin + ": output differs from " +
                               fs::path(c.stderrPath).filename().string() + " at " +
                               firstDifference(golden, r.actualOutput) + "\n    (run with --bless to update)");
      }
    }
  }
  r.passed = r.problems.empty();
  return r;
}

namespace {

void addMarkdownCases(const fs::path& file, const std::string& display, std::vector<UiCase>& out) {
  bool ok = false;
  std::string text = readAll(file.string(), ok);
  std::istringstream in(text);
  std::string line;
  uint32_t lineNo = 0, blockStart = 0;
  bool inBlock = false;
  std::string block;
  int index = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!inBlock && line.rfind("```vx", 0) == 0) {
      inBlock = true;
      block.clear();
      blockStart = lineNo;
    } else if (inBlock && line.rfind("```", 0) == 0) {
      inBlock = false;
      UiCase c;
      c.displayPath = display + "#" + std::to_string(++index) + ".vx";
      c.source = block;
      c.lineOffset = blockStart;
      c.origin = display + " (block at line " + std::to_string(blockStart) + ")";
      out.push_back(std::move(c));
    } else if (inBlock) {
      block += line + "\n";
    }
  }
}

}  // namespace

std::vector<UiCase> collectUiCases(const std::string& root, std::string& error) {
  std::vector<UiCase> cases;
  std::error_code ec;
  fs::path rootPath(root);
  std::vector<fs::path> files;
  if (fs::is_regular_file(rootPath, ec)) {
    files.push_back(rootPath);
    rootPath = rootPath.parent_path();
  } else if (fs::is_directory(rootPath, ec)) {
    for (auto it = fs::recursive_directory_iterator(rootPath, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file()) files.push_back(it->path());
  } else {
    error = "`" + root + "` is neither a file nor a directory";
    return cases;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    // Diagnostics name the file as `$DIR/name.vx` (rustc's convention), so
    // golden output does not depend on where the tests were run from.
    std::string display = "$DIR/" + f.filename().string();
    std::string origin = fs::relative(f, rootPath.empty() ? fs::path(".") : rootPath, ec).generic_string();
    if (ec || origin.empty()) origin = f.filename().string();
    if (f.extension() == ".vx") {
      UiCase c;
      bool ok = false;
      c.source = readAll(f.string(), ok);
      c.displayPath = display;
      c.origin = origin;
      c.stderrPath = fs::path(f).replace_extension(".stderr").string();
      c.filePath = fs::path(f).string();
      cases.push_back(std::move(c));
    } else if (f.extension() == ".md") {
      addMarkdownCases(f, origin, cases);
    }
  }
  return cases;
}

}  // namespace vx::driver
