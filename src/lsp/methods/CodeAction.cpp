// `textDocument/codeAction`: one quick fix per suggestion of the diagnostics
// the editor sends back (Publish.cpp put them in each diagnostic's `data`);
// machine-applicable ones are preferred. A fix is offered only when the
// document checked with it applied alone has that diagnostic gone and no
// new one (driver/Fixes.h), as `vxc fix` applies them. Those checks run on
// the message thread, so a request has kCodeActionBudget for all of them:
// a fix whose check has not finished by then is not offered (a function
// that takes the checker its whole budget had the server answer nothing
// else for minutes).
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "check/Ownership.h"
#include "driver/Fixes.h"
#include "lsp/Methods.h"
#include "lsp/Position.h"

namespace vx::lsp {

namespace {

Position positionOf(const json& p) { return Position{uintField(p, "line"), uintField(p, "character")}; }

constexpr std::chrono::milliseconds kCodeActionBudget{2000};

// Sets `expired` once `budget` has passed, unless destroyed first.
class Deadline {
 public:
  explicit Deadline(std::chrono::milliseconds budget)
      : thread_([this, budget] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!wake_.wait_for(lock, budget, [this] { return done_; })) expired.store(true);
        }) {}
  ~Deadline() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  std::atomic<bool> expired{false};

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace

json codeAction(State& s, const json& params) {
  std::string uri = stringField(field(params, "textDocument"), "uri");
  const json& diags = field(field(params, "context"), "diagnostics");
  if (!diags.is_array()) throw BadParams{"`context.diagnostics` is not an array"};
  auto doc = s.docs.find(uri);
  // What the checker reports on the document as it is, once, if a fix
  // needs checking.
  std::string text = doc == s.docs.end() ? std::string() : doc->second.text;
  LineIndex index(text);
  driver::CheckOptions opts;
  opts.target = s.options.target;
  std::unique_ptr<Deadline> deadline;  // started by the first check
  bool outOfTime = false;
  std::vector<std::pair<std::string, unsigned>> before;
  bool haveBefore = false;
  auto safe = [&](const json& d, const json& edits) {
    if (doc == s.docs.end() || outOfTime) return false;
    if (!deadline) {
      deadline = std::make_unique<Deadline>(kCodeActionBudget);
      opts.cancel = &deadline->expired;
    }
    try {
      if (!haveBefore) {
        base::SourceMap sources;
        diag::Sink sink;
        driver::checkFile(sources, sources.add(pathOf(uri), text), sink, opts);
        before = driver::diagnosticCounts(sink);
        haveBefore = true;
      }
    } catch (const check::Cancelled&) {
      outOfTime = true;
      return false;
    }
    std::vector<driver::FixEdit> fe;
    for (const json& e : edits) {
      const json& r = field(e, "range");
      fe.push_back(driver::FixEdit{index.offset(positionOf(field(r, "start"))), index.offset(positionOf(field(r, "end"))),
                                   e["newText"].get<std::string>()});
    }
    std::string code = d.contains("code") && d["code"].is_string() ? d["code"].get<std::string>() : "";
    try {
      return driver::fixIsSafe(pathOf(uri), text, fe, code, before, opts);
    } catch (const check::Cancelled&) {
      outOfTime = true;
      return false;
    }
  };
  // The request's range: the diagnostics the editor sends should overlap
  // it (LSP), but some send every diagnostic of the file; each fix costs a
  // check of the whole document, on the message thread. So: those that
  // overlap the range only, and at most kMaxChecked fixes a request.
  constexpr unsigned kMaxChecked = 16;
  unsigned checked = 0;
  bool haveRange = params.contains("range") && params["range"].is_object();
  uint32_t lo = 0, hi = UINT32_MAX;
  if (haveRange) {
    lo = index.offset(positionOf(field(params["range"], "start")));
    hi = index.offset(positionOf(field(params["range"], "end")));
  }
  json actions = json::array();
  for (const json& d : diags) {
    if (!d.is_object() || !d.contains("data") || !d["data"].is_object() || !d["data"].contains("fixes")) continue;
    if (haveRange && d.contains("range") && d["range"].is_object()) {
      uint32_t b = index.offset(positionOf(field(d["range"], "start"))),
               e = index.offset(positionOf(field(d["range"], "end")));
      if (e < lo || b > hi) continue;
    }
    const json& fixes = d["data"]["fixes"];
    if (!fixes.is_array()) continue;
    for (const json& f : fixes) {
      if (!f.is_object() || !f.contains("range") || !f.contains("newText") || !f["newText"].is_string()) continue;
      json title = f.contains("title") && f["title"].is_string() ? f["title"] : json("apply the suggestion");
      bool preferred = f.contains("preferred") && f["preferred"].is_boolean() && f["preferred"].get<bool>();
      json edits = json::array({{{"range", f["range"]}, {"newText", f["newText"]}}});
      // A multipart suggestion's other edits (Publish.cpp): all or none.
      bool whole = true;
      if (f.contains("more")) {
        whole = f["more"].is_array();
        for (const json& m : whole ? f["more"] : json::array()) {
          if (!m.is_object() || !m.contains("range") || !m.contains("newText") || !m["newText"].is_string()) {
            whole = false;
            break;
          }
          edits.push_back({{"range", m["range"]}, {"newText", m["newText"]}});
        }
      }
      if (!whole || checked >= kMaxChecked) continue;
      ++checked;
      if (!safe(d, edits)) continue;
      actions.push_back({{"title", title},
                         {"kind", "quickfix"},
                         {"diagnostics", json::array({d})},
                         {"isPreferred", preferred},
                         {"edit", {{"changes", {{uri, edits}}}}}});
    }
  }
  if (outOfTime) logLine(s, "codeAction: fixes not checked within " + std::to_string(kCodeActionBudget.count()) +
                                " ms were not offered");
  return actions;
}

}  // namespace vx::lsp
