// --trace writes JSON Perfetto can load (one track per unit); --timeline an
// SVG with one lane per unit.
#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "SimTestUtil.h"

using namespace simtest;
using vx::sim::Options;
using vx::sim::Result;
using vx::sim::Status;

namespace {

struct Run {
  vx::tpu::Program program;
  Result result;
};

Run traced(uint64_t maxEvents = 1000000) {
  Run run;
  run.program = assembleOrFail(streamProgram(128, 3));
  Options opt;
  opt.trace = true;
  opt.args = {{"n", 6}};
  opt.config.traceMaxEvents = maxEvents;
  run.result = vx::sim::run(run.program, opt);
  REQUIRE(run.result.status == Status::Ok);
  return run;
}

size_t count(const std::string& s, const std::string& part) {
  size_t n = 0;
  for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

// Every element opened is closed, in order: the XML well-formedness that a
// generator can get wrong (attribute quoting is checked by the escapes test).
bool tagsBalanced(const std::string& s) {
  std::vector<std::string> stack;
  for (size_t at = s.find('<'); at != std::string::npos; at = s.find('<', at + 1)) {
    const size_t close = s.find('>', at);
    if (close == std::string::npos) return false;
    std::string tag = s.substr(at + 1, close - at - 1);
    if (tag.empty()) return false;
    if (tag.back() == '/') continue;
    const std::string name = tag.substr(tag[0] == '/' ? 1 : 0, tag.find_first_of(" \n") - (tag[0] == '/' ? 1 : 0));
    if (tag[0] == '/') {
      if (stack.empty() || stack.back() != name) return false;
      stack.pop_back();
    } else {
      stack.push_back(tag.substr(0, tag.find(' ')));
    }
  }
  return stack.empty();
}

}  // namespace

TEST_CASE("the trace is valid JSON with one named track per unit") {
  Run run = traced();
  const nlohmann::json j = nlohmann::json::parse(vx::sim::chromeTraceJson(run.program, run.result));
  std::map<int, std::string> names;
  std::map<int, int> slices;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name") names[e.at("tid").get<int>()] = e.at("args").at("name");
    if (e.at("ph") == "X") {
      ++slices[e.at("tid").get<int>()];
      CHECK(e.at("dur").get<double>() >= 0);
      CHECK(e.at("args").at("detail").get<std::string>().find("instruction") == 0);
    }
  }
  const size_t engines = vx::sim::Config{}.dmaEngines;
  REQUIRE(names.size() == 3 + engines);
  CHECK(names[1] == "scalar");
  CHECK(names[2] == "vector");
  CHECK(names[3] == "matrix");
  for (size_t e = 0; e < engines; ++e) CHECK(names[static_cast<int>(4 + e)] == "dma" + std::to_string(e));
  CHECK(slices[1] > 0);
  CHECK(slices[3] == 1 + 6 + 1);  // latch, 6 matmuls, pop
  int dmaSlices = 0;
  for (size_t e = 0; e < engines; ++e) dmaSlices += slices[static_cast<int>(4 + e)];
  CHECK(dmaSlices == 1 + 6 + 1);  // weights, 6 tiles, result
  for (const auto& [tid, n] : slices) CHECK(names.count(tid) == 1);
  CHECK(j.at("otherData").at("cycles").get<uint64_t>() == run.result.cycles);
}

TEST_CASE("trace slices on one track never overlap") {
  Run run = traced();
  std::map<uint16_t, uint64_t> end;
  for (const auto& e : run.result.trace) {
    CHECK(e.start >= end[e.track]);
    end[e.track] = e.start + e.dur;
    CHECK(end[e.track] <= run.result.cycles);
  }
}

TEST_CASE("the timeline is an SVG with one lane per unit and a time axis") {
  Run run = traced();
  const std::string svg = vx::sim::timelineSvg(run.program, run.result);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.find("</svg>") == svg.size() - 7);
  CHECK(count(svg, "<g class=\"lane\"") == run.result.units.size());
  CHECK(count(svg, "<g") == count(svg, "</g>"));
  CHECK(tagsBalanced(svg));
  CHECK(svg.find("id=\"lane-matrix\"") != std::string::npos);
  CHECK(svg.find("<g class=\"axis\">") != std::string::npos);
  CHECK(svg.find(">cycles</text>") != std::string::npos);
  CHECK(svg.find("mxu.matmul") != std::string::npos);
}

TEST_CASE("trace_max_events bounds the trace and says it was truncated") {
  Run run = traced(5);
  CHECK(run.result.trace.size() == 5);
  CHECK(run.result.traceTruncated);
  const nlohmann::json j = nlohmann::json::parse(vx::sim::chromeTraceJson(run.program, run.result));
  CHECK(j.at("otherData").at("truncated") == true);
  CHECK(vx::sim::timelineSvg(run.program, run.result).find("trace truncated") != std::string::npos);
}

TEST_CASE("names with quotes, backslashes and non-ASCII bytes keep JSON and SVG valid") {
  vx::tpu::Program p = assembleOrFail(streamProgram(128, 2));
  p.sourceFile = "we\"ird\\\xff<&>.vx";
  Options opt;
  opt.trace = true;
  Result r = vx::sim::run(p, opt);
  REQUIRE(r.status == Status::Ok);
  CHECK(nlohmann::json::accept(vx::sim::chromeTraceJson(p, r)));
  const std::string svg = vx::sim::timelineSvg(p, r);
  CHECK(svg.find("<&>") == std::string::npos);
  CHECK(svg.find("&lt;&amp;&gt;") != std::string::npos);
}
