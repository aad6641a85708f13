#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "diag/DiagKinds.h"
#include "diag/Render.h"
#include "diag/Sink.h"

using namespace vx;

namespace {
struct Fixture {
  base::SourceMap sources;
  base::FileId file;
  Fixture() {
    file = sources.add("k.vx",
                       "fn f() {\n"
                       "  let t = transfer_async(tiles[0], Memory::VMEM);\n"
                       "  mma(&mut acc, &acc, w);\n"
                       "}\n");
  }
  base::Span span(uint32_t b, uint32_t e) { return base::Span{file, b, e}; }
};
}  // namespace

TEST_CASE("human output follows rustc's layout") {
  Fixture f;
  diag::Diagnostic d = diag::SyntaxExpectedFound("`,`", "`Memory`");
  d.primary(f.span(44, 50), "expected `,`").help("separate the arguments");
  std::string out = diag::renderHuman(d, f.sources, false);
  CHECK(out ==
        "error[E0001]: expected `,`, found `Memory`\n"
        " --> k.vx:2:36\n"
        "  |\n"
        "2 |   let t = transfer_async(tiles[0], Memory::VMEM);\n"
        "  |                                    ^^^^^^ expected `,`\n"
        "  |\n"
        "  = help: separate the arguments\n");
}

TEST_CASE("secondary labels on another line get dashes and their own text") {
  Fixture f;
  diag::Diagnostic d = diag::SyntaxExpectedFound("x", "y");
  d.primary(f.span(61, 64), "primary here").secondary(f.span(19, 33), "created here");
  std::string out = diag::renderHuman(d, f.sources, false);
  CAPTURE(out);
  CHECK(out.find("2 |   let t = transfer_async(tiles[0], Memory::VMEM);\n"
                 "  |           -------------- created here\n"
                 "3 |   mma(&mut acc, &acc, w);\n"
                 "  |   ^^^ primary here\n") != std::string::npos);
}

TEST_CASE("two labels on one line stack their texts with connectors") {
  Fixture f;
  diag::Diagnostic d = diag::SyntaxExpectedFound("x", "y");
  // `&mut acc` and `&acc` on line 3.
  d.primary(f.span(75, 79), "immutable borrow").secondary(f.span(65, 73), "mutable borrow");
  std::string out = diag::renderHuman(d, f.sources, false);
  CHECK(out.find("3 |   mma(&mut acc, &acc, w);\n"
                 "  |       --------  ^^^^ immutable borrow\n"
                 "  |       |\n"
                 "  |       mutable borrow\n") != std::string::npos);
}

TEST_CASE("colour codes appear only when asked for") {
  Fixture f;
  diag::Diagnostic d = diag::SyntaxExpectedFound("x", "y");
  d.primary(f.span(0, 2), "");
  CHECK(diag::renderHuman(d, f.sources, false).find("\x1b[") == std::string::npos);
  CHECK(diag::renderHuman(d, f.sources, true).find("\x1b[1;31m") != std::string::npos);
}

TEST_CASE("summary line counts errors and warnings") {
  CHECK(diag::renderSummary(1, 0, false) == "error: aborting due to 1 previous error\n");
  CHECK(diag::renderSummary(2, 1, false) ==
        "error: aborting due to 2 previous errors; 1 warning emitted\n");
  CHECK(diag::renderSummary(0, 3, false) == "warning: 3 warnings emitted\n");
  CHECK(diag::renderSummary(0, 0, false).empty());
}

TEST_CASE("JSON output uses rustc's field names") {
  Fixture f;
  diag::Diagnostic d = diag::SyntaxExpectedFound("`;`", "`let`");
  d.primary(f.span(44, 50), "here").suggest("add `;`", f.span(43, 43), ";");
  auto j = nlohmann::json::parse(diag::renderJson(d, f.sources));
  CHECK(j["message"] == "expected `;`, found `let`");
  CHECK(j["code"]["code"] == "E0001");
  CHECK(j["code"]["explanation"].is_string());
  CHECK(j["level"] == "error");
  auto s = j["spans"][0];
  CHECK(s["file_name"] == "k.vx");
  CHECK(s["byte_start"] == 44);
  CHECK(s["byte_end"] == 50);
  CHECK(s["line_start"] == 2);
  CHECK(s["column_start"] == 36);
  CHECK(s["column_end"] == 42);
  CHECK(s["is_primary"] == true);
  CHECK(s["label"] == "here");
  auto c = j["children"][0];
  CHECK(c["level"] == "help");
  CHECK(c["spans"][0]["suggested_replacement"] == ";");
  CHECK(c["spans"][0]["suggestion_applicability"] == "MachineApplicable");
  CHECK(j["rendered"].get<std::string>().rfind("error[E0001]", 0) == 0);
}

TEST_CASE("SARIF output is a 2.1.0 log with rules, results and fixes") {
  Fixture f;
  diag::Diagnostic d = diag::SyntaxExpectedFound("`;`", "`let`");
  d.primary(f.span(44, 50), "here").secondary(f.span(19, 33), "there").suggest("add `;`", f.span(43, 43), ";");
  auto j = nlohmann::json::parse(diag::renderSarif({d}, f.sources, "0.1.0"));
  CHECK(j["version"] == "2.1.0");
  auto run = j["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "vxc");
  CHECK(run["tool"]["driver"]["rules"].size() >= 3);
  auto r = run["results"][0];
  CHECK(r["ruleId"] == "E0001");
  CHECK(r["level"] == "error");
  CHECK(r["locations"][0]["physicalLocation"]["region"]["startLine"] == 2);
  CHECK(r["relatedLocations"][0]["message"]["text"] == "there");
  CHECK(r["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] == ";");
}

TEST_CASE("the sink orders diagnostics by file, position and code") {
  Fixture f;
  base::FileId other = f.sources.add("a.vx", "x\n");
  diag::Sink sink;
  sink.emit(diag::LexUnterminatedComment().primary(f.span(30, 31)));
  sink.emit(diag::SyntaxExpectedFound("a", "b").primary(f.span(30, 31)));
  sink.emit(diag::SyntaxExpectedFound("a", "b").primary(f.span(5, 6)));
  sink.emit(diag::SyntaxExpectedFound("a", "b").primary(base::Span{other, 0, 1}));
  sink.sort(f.sources);
  auto& d = sink.diagnostics();
  CHECK(f.sources.file(d[0].primarySpan().file).path() == "a.vx");
  CHECK(d[1].primarySpan().begin == 5);
  CHECK(std::string(d[2].code()) == "E0001");
  CHECK(std::string(d[3].code()) == "E0002");
  CHECK(sink.errorCount() == 4);
}

TEST_CASE("labels that start in one column render without running away") {
  Fixture f;
  diag::Diagnostic d = diag::SyntaxExpectedFound("x", "y");
  d.primary(f.span(65, 73), "first").secondary(f.span(65, 69), "second").secondary(f.span(65, 67), "third");
  std::string out = diag::renderHuman(d, f.sources, false);
  CHECK(out.size() < 1000);
  CHECK(out.find("first") != std::string::npos);
  CHECK(out.find("third") != std::string::npos);
}

TEST_CASE("a secondary label on the primary span is dropped") {
  Fixture f;
  diag::Diagnostic d = diag::SyntaxExpectedFound("x", "y");
  d.primary(f.span(65, 73), "here").secondary(f.span(65, 73), "also here");
  CHECK(d.labels.size() == 1);
}
