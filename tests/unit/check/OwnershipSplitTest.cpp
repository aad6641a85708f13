// The ownership check in parts (check::splitOwnership, checkOwnershipPart),
// as `vxc check` runs it on two threads, reports what the whole check
// reports: on every UI test and example, cut at every share tried, the
// parts' findings in part order equal checkOwnership's -- codes, messages,
// labels, help and fixes, in the same order -- and so do the functions left
// unproved and the `block` bounds proved. Notes, and the numbers in labels,
// are left out: a counterexample's values ("instance i = 0 writes here")
// are whichever model Z3 finds, which depends on the queries asked before.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/Thread.h"
#include "check/Ownership.h"
#include "driver/Pipeline.h"

namespace fs = std::filesystem;
using namespace vx;

namespace {

struct Findings {
  std::string rendered;
  std::set<uint32_t> unproved, proved;
  bool operator==(const Findings& o) const {
    return rendered == o.rendered && unproved == o.unproved && proved == o.proved;
  }
};

std::string render(const diag::Sink& sink, const base::SourceMap& sources) {
  std::string out;
  auto at = [&](base::Span sp) {
    if (!sp.valid()) return std::string("-");
    return std::to_string(sp.begin) + "-" + std::to_string(sp.end);
  };
  for (const diag::Diagnostic& d : sink.diagnostics()) {
    out += std::string(d.code()) + " " + d.message + "\n";
    for (const diag::Label& l : d.labels) {
      std::string text;
      for (char ch : l.text) text += std::isdigit(static_cast<unsigned char>(ch)) ? '#' : ch;
      out += "  label " + at(l.span) + " " + text + "\n";
    }
    for (const std::string& h : d.helps) out += "  help " + h + "\n";
    for (const diag::Suggestion& sg : d.suggestions) out += "  fix " + sg.message + " = " + sg.replacement + "\n";
  }
  return out;
}

// The whole check, then the parts for each of `shares`, on one typed program.
struct Compared {
  bool typed = false;
  Findings whole;
  std::vector<Findings> split;
  size_t functions = 0, partsWithFunctions = 0;
};

Compared compare(const std::string& text, const std::vector<std::vector<double>>& shares) {
  Compared c;
  base::Thread t([&] {
    base::SourceMap sources;
    base::FileId file = sources.add("split_test.vx", text);
    diag::Sink sink;
    driver::CheckOptions o;
    o.stopAfterTypes = true;
    o.onTyped = [&](const hir::Program& prog) {
      if (sink.hasErrors()) return;
      c.typed = true;
      auto run = [&](const std::function<void(check::OwnershipOptions&, diag::Sink&)>& check) {
        Findings f;
        std::vector<uint32_t> unproved, proved;
        check::OwnershipOptions own;
        own.unproved = &unproved;
        own.provedBlocks = &proved;
        diag::Sink out;
        check(own, out);
        f.rendered = render(out, sources);
        f.unproved.insert(unproved.begin(), unproved.end());
        f.proved.insert(proved.begin(), proved.end());
        return f;
      };
      c.whole = run([&](check::OwnershipOptions& own, diag::Sink& out) {
        check::checkOwnership(prog, sources, out, target::TargetKind::Cpu, own, nullptr);
      });
      for (const std::vector<double>& s : shares) {
        check::OwnershipSplit split = check::splitOwnership(prog, s);
        REQUIRE(split.bounds.size() == s.size() + 1);
        c.functions = split.comps.size();
        for (size_t p = 0; p < s.size(); ++p) c.partsWithFunctions += split.bounds[p + 1] > split.bounds[p];
        c.split.push_back(run([&](check::OwnershipOptions& own, diag::Sink& out) {
          for (size_t p = 0; p < s.size(); ++p)
            check::checkOwnershipPart(split, p, prog, sources, out, target::TargetKind::Cpu, own, nullptr);
        }));
      }
    };
    driver::checkFile(sources, file, sink, o);
  });
  t.join();
  return c;
}

std::string readFile(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("the parts of a split check report what the whole check reports") {
  std::vector<fs::path> files;
  for (const char* dir : {"/tests/ui/check", "/tests/examples", "/examples"})
    for (const auto& e : fs::recursive_directory_iterator(std::string(VX_SOURCE_DIR) + dir))
      if (e.path().extension() == ".vx" &&
          // Seconds of solver work per check: the other solver tests cover it.
          e.path().filename() != "tokens_carried_through_three_nested_loops_are_decided.vx")
        files.push_back(e.path());
  std::sort(files.begin(), files.end());
  size_t compared = 0, cut = 0;
  for (const fs::path& p : files) {
    std::string text = readFile(p);
    if (text.find("fn ") == std::string::npos) continue;
    INFO(p.string());
    Compared c = compare(text, {{3, 1}, {1, 1}, {1, 3}, {1, 0}, {0, 1}, {1, 1, 1}});
    if (!c.typed) continue;
    for (const Findings& f : c.split) {
      INFO("whole:\n" << c.whole.rendered << "parts:\n" << f.rendered);
      CHECK(f == c.whole);
    }
    ++compared;
    cut += c.partsWithFunctions > c.split.size();  // some split had two non-empty parts
  }
  CHECK(compared > 80);
  CHECK(cut > 50);
}

TEST_CASE("a part computes the summaries of callees another part reports") {
  // `start` is first in callee order; with the cut after it, the second
  // part needs its summary to see that `k` leaves the copy unwaited.
  const std::string text =
      "fn start(x: &Vec<Tensor<f32, [128, 128]>>) -> Token<Tensor<f32, [128, 128]>, Memory::VMEM> on "
      "Topology::TensorCore {\n"
      "  transfer_async(x[0], Memory::VMEM)\n}\n"
      "fn k(x: &Vec<Tensor<f32, [128, 128]>>) on Topology::TensorCore {\n"
      "  let t = start(x);\n}\n";
  Compared c = compare(text, {{1, 1}, {1, 0}, {0, 1}});
  REQUIRE(c.typed);
  CHECK(c.whole.rendered.find("E6003") != std::string::npos);
  for (const Findings& f : c.split) CHECK(f == c.whole);
}

TEST_CASE("a split follows its shares and keeps callees first") {
  std::string text;
  for (int i = 0; i < 8; ++i)
    text += "fn f" + std::to_string(i) + "(n: usize) -> usize on Topology::TensorCore {\n  n + " + std::to_string(i) +
            "\n}\n";
  base::SourceMap sources;
  base::FileId file = sources.add("shares.vx", text);
  diag::Sink sink;
  driver::CheckOptions o;
  o.stopAfterTypes = true;
  std::vector<size_t> bounds31, bounds11;
  o.onTyped = [&](const hir::Program& prog) {
    bounds31 = check::splitOwnership(prog, {3, 1}).bounds;
    bounds11 = check::splitOwnership(prog, {1, 1}).bounds;
  };
  driver::checkFile(sources, file, sink, o);
  REQUIRE(bounds31.size() == 3);
  REQUIRE(bounds11.size() == 3);
  size_t all = bounds11.back();
  CHECK(all >= 8);  // the program's functions and the prelude's
  CHECK(bounds31[0] == 0);
  CHECK(bounds31[1] > bounds11[1]);  // three quarters of the text before the cut
  CHECK(bounds11[1] > 0);
  CHECK(bounds11[1] < all);
}
