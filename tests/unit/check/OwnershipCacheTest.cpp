// The language server's ownership cache (check::OwnershipCache) changes
// no verdict: after the text moves or one function is edited, a check that
// reuses cached results reports what a fresh check of the same text reports
// -- the same codes, messages, labels and their spans (and the line numbers
// inside messages), help and fixes -- on every UI test and shared example.
// Notes are left out of the comparison: a counterexample's values are
// whichever model Z3 finds, which depends on the queries asked before.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/Thread.h"
#include "check/Ownership.h"
#include "driver/Pipeline.h"

namespace fs = std::filesystem;
using namespace vx;

namespace {

struct Checked {
  std::string rendered;
  check::OwnershipStats stats;
};

Checked checkOn(const std::string& text, check::OwnershipCache* cache) {
  base::SourceMap sources;
  base::FileId file = sources.add("cache_test.vx", text);
  diag::Sink sink;
  driver::CheckOptions o;
  o.ownershipCache = cache;
  Checked c;
  o.ownershipStats = &c.stats;
  driver::checkFile(sources, file, sink, o);
  sink.sort(sources);
  for (const diag::Diagnostic& d : sink.diagnostics()) {
    auto at = [&](base::Span sp) {
      if (!sp.valid()) return std::string("-");
      base::LineCol a = sources.file(sp.file).lineCol(sp.begin), b = sources.file(sp.file).lineCol(sp.end);
      return std::to_string(a.line) + ":" + std::to_string(a.col) + "-" + std::to_string(b.line) + ":" +
             std::to_string(b.col);
    };
    c.rendered += std::string(d.code()) + " " + d.message + "\n";
    for (const diag::Label& l : d.labels) c.rendered += "  label " + at(l.span) + " " + l.text + "\n";
    for (const std::string& h : d.helps) c.rendered += "  help " + h + "\n";
    for (const diag::Suggestion& sg : d.suggestions) {
      c.rendered += "  fix " + sg.message + " = " + sg.replacement + "\n";
      for (const diag::SuggestionPart& p : sg.parts()) c.rendered += "    at " + at(p.span) + " " + p.replacement + "\n";
    }
  }
  return c;
}

// On a thread with the phases' stack, as vxc runs them (base/Thread.h):
// some inputs nest 1,024 deep.
Checked checkText(const std::string& text, check::OwnershipCache* cache) {
  Checked c;
  base::Thread t([&] { c = checkOn(text, cache); });
  t.join();
  return c;
}

std::string readFile(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<fs::path> corpus() {
  std::vector<fs::path> out;
  for (const char* dir : {"/tests/ui", "/tests/examples"})
    for (const auto& e : fs::recursive_directory_iterator(std::string(VX_SOURCE_DIR) + dir))
      if (e.path().extension() == ".vx" &&
          // Two seconds each of solver work, three times over: the other
          // solver tests cover the same paths.
          e.path().filename() != "tokens_carried_through_three_nested_loops_are_decided.vx")
        out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("reused results equal a fresh check after the text moves and a function changes") {
  size_t files = 0, reused = 0;
  for (const fs::path& p : corpus()) {
    std::string text = readFile(p);
    if (text.find("fn ") == std::string::npos) continue;
    INFO(p.string());
    check::OwnershipCache cache;
    Checked cold = checkText(text, &cache);
    CHECK(cold.rendered == checkText(text, nullptr).rendered);
    // Every function two lines further down: reused, moved.
    std::string moved = "// moved\n\n" + text;
    Checked warm = checkText(moved, &cache);
    CHECK(warm.rendered == checkText(moved, nullptr).rendered);
    // Only recursive cycles and their callers are analysed again.
    CHECK((warm.stats.analysed < cold.stats.analysed || cold.stats.analysed == 0));
    reused += warm.stats.reused;
    // The first function edited (a blank line in its body): it and its
    // callers are analysed again, everything after it moves.
    size_t body = moved.find("{\n", moved.find("fn "));
    if (body != std::string::npos) {
      std::string edited = moved.substr(0, body + 2) + "\n" + moved.substr(body + 2);
      Checked after = checkText(edited, &cache);
      CHECK(after.rendered == checkText(edited, nullptr).rendered);
    }
    ++files;
  }
  CHECK(files > 60);
  CHECK(reused > 100);
}

TEST_CASE("a changed callee makes its callers be analysed again") {
  const std::string callee = "fn start(x: &Vec<Tensor<f32, [128, 128]>>) -> Token<Tensor<f32, [128, 128]>, Memory::VMEM> on Topology::TensorCore {\n"
                             "  transfer_async(x[0], Memory::VMEM)\n}\n";
  const std::string waits = "fn start(x: &Vec<Tensor<f32, [128, 128]>>) -> Token<Tensor<f32, [128, 128]>, Memory::VMEM> on Topology::TensorCore {\n"
                            "  let t = transfer_async(x[0], Memory::VMEM);\n  t\n}\n";
  const std::string caller = "fn k(x: &Vec<Tensor<f32, [128, 128]>>) on Topology::TensorCore {\n"
                             "  let t = start(x);\n}\n";
  check::OwnershipCache cache;
  Checked a = checkText(callee + caller, &cache);
  CHECK(a.rendered.find("E6003") != std::string::npos);
  Checked b = checkText(waits + caller, &cache);
  CHECK(b.stats.analysed == 2);
  CHECK(b.rendered == checkText(waits + caller, nullptr).rendered);
  CHECK(b.rendered.find("E6003") != std::string::npos);
  // Unchanged: nothing analysed.
  Checked c = checkText(waits + caller, &cache);
  CHECK(c.stats.analysed == 0);
  CHECK(c.stats.reused == 2);
}

TEST_CASE("a changed const empties the cache") {
  const std::string f = "fn k(x: &Vec<Tensor<f32, [128, 128]>>) on Topology::TensorCore {\n"
                        "  let t = transfer_async(x[N], Memory::VMEM);\n  wait(t);\n}\n";
  check::OwnershipCache cache;
  checkText("const N: usize = 1;\n" + f, &cache);
  Checked b = checkText("const N: usize = 2;\n" + f, &cache);
  CHECK(b.stats.analysed == 1);
  CHECK(b.stats.reused == 0);
}

TEST_CASE("a cancelled check leaves the cache usable") {
  std::string text = readFile(std::string(VX_SOURCE_DIR) + "/tests/examples/ok/stream.vx");
  check::OwnershipCache cache;
  std::atomic<bool> cancel{true};
  base::SourceMap sources;
  base::FileId file = sources.add("cancel.vx", text);
  diag::Sink sink;
  driver::CheckOptions o;
  o.ownershipCache = &cache;
  o.cancel = &cancel;
  CHECK_THROWS_AS(driver::checkFile(sources, file, sink, o), check::Cancelled);
  CHECK(checkText(text, &cache).rendered == checkText(text, nullptr).rendered);
}
