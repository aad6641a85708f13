// Checking documents: the two publications of a check, the cancellation
// and the worker thread of an editor session (Checker.h).
#include "lsp/Checker.h"

#include <new>
#include <optional>
#include <algorithm>
#include <chrono>

#include "base/Thread.h"
#include "diag/Sink.h"
#include "driver/Pipeline.h"
#include "lsp/State.h"

namespace vx::lsp {

// A legality to run: the program and everything its diagnostics need.
struct LegalityJob {
  std::string uri, text;
  int64_t version = 0;
  uint64_t submission = 0;  // which text it is (CheckRequest::submission)
  std::unique_ptr<base::SourceMap> sources;
  base::FileId file;
  driver::CheckOutput out;
  std::vector<diag::Diagnostic> before;  // the diagnostics up to the ownership checker
  std::map<std::string, Legality::Item> items;
  std::shared_ptr<Legality> legality;
  json published;  // what was published for this version already
};

namespace {

using Clock = std::chrono::steady_clock;

// Every user function and const of the checked program: its text and place.
std::map<std::string, Legality::Item> itemsOf(const hir::Program& prog, const std::string& text, base::FileId file) {
  std::map<std::string, Legality::Item> out;
  auto add = [&](const std::string& name, base::Span sp) {
    if (sp.file != file || sp.end > text.size() || sp.begin > sp.end) return;
    out[name] = Legality::Item{text.substr(sp.begin, sp.end - sp.begin), sp.begin, sp.end};
  };
  for (const hir::Function& f : prog.fns)
    if (!f.fromPrelude) add("fn " + f.name, f.span);
  for (const hir::Const& c : prog.consts) {
    base::Span whole = c.span;  // the name's: to the end of the value
    if (c.value.valid() && prog.expr(c.value).span.file == whole.file)
      whole.end = std::max(whole.end, prog.expr(c.value).span.end);
    add("const " + c.name, whole);
  }
  return out;
}

// The previous legality findings whose every span lies in a function or
// const whose text is unchanged, moved with it; the others are left out
// until legality has run on the new text.
std::vector<diag::Diagnostic> carried(Legality& l, const std::map<std::string, Legality::Item>& now) {
  std::lock_guard<std::mutex> lock(l.m);
  std::vector<diag::Diagnostic> out;
  for (diag::Diagnostic d : l.diags) {
    bool ok = true;
    auto move = [&](base::Span& sp) {
      if (!sp.valid()) return;
      for (const auto& [name, old] : l.items) {
        if (sp.begin < old.begin || sp.end > old.end) continue;
        auto n = now.find(name);
        if (n == now.end() || n->second.text != old.text) break;
        int64_t delta = static_cast<int64_t>(n->second.begin) - static_cast<int64_t>(old.begin);
        sp.begin = static_cast<uint32_t>(sp.begin + delta);
        sp.end = static_cast<uint32_t>(sp.end + delta);
        return;
      }
      ok = false;
    };
    for (diag::Label& lb : d.labels) move(lb.span);
    for (diag::Suggestion& sg : d.suggestions) {
      move(sg.span);
      for (diag::SuggestionPart& p : sg.more) move(p.span);
    }
    if (ok) out.push_back(std::move(d));
  }
  return out;
}

void publish(State& s, const std::string& uri, int64_t version, const json& diags) {
  notify(s, "textDocument/publishDiagnostics", {{"uri", uri}, {"version", version}, {"diagnostics", diags}});
}

bool cancelled(const CheckRequest& r) { return r.cancel && r.cancel->load(); }

// Runs the legality of `job` and records it; the full set, when it differs
// from what was published. `current`: whether the version is still the
// document's latest (else nothing is published).
void runLegality(State& s, LegalityJob& job, const std::function<bool()>& current) {
  diag::Sink legal;
  try {
    driver::runLegality(job.out, *job.sources, job.file, legal);
  } catch (const std::exception& e) {
    logLine(s, std::string("internal compiler error while checking ") + job.uri + ": " + e.what());
  }
  {
    std::lock_guard<std::mutex> lock(job.legality->m);
    job.legality->diags = legal.diagnostics();
    job.legality->items = std::move(job.items);
  }
  if (!current()) return;
  std::vector<diag::Diagnostic> all = std::move(job.before);
  for (const diag::Diagnostic& d : legal.diagnostics()) all.push_back(d);
  json full = diagnosticsJson(job.uri, job.text, job.file, all);
  if (full != job.published) publish(s, job.uri, job.version, full);
}

// Each analysed function's time (the slow ones are left for a second run),
// and the function being analysed, for the progress reports.
struct Progress {
  Progress(std::map<std::string, double>& times, const std::function<void(const std::string&)>& tell)
      : seconds(times), report(tell) {}
  std::map<std::string, double>& seconds;  // per function, its last analysis
  const std::function<void(const std::string&)>& report;
  Clock::time_point fnStart{};
  std::string current;
  void finished() {
    if (!current.empty())
      seconds[current] = std::chrono::duration<double>(Clock::now() - fnStart).count();
    current.clear();
  }
  // A function interrupted by a newer text: its analysis took at least
  // this long, and a slow one stays slow (else the next check, finding it
  // fast, would analyse it before publishing the others).
  void interrupted() {
    if (!current.empty()) {
      double took = std::chrono::duration<double>(Clock::now() - fnStart).count();
      double& was = seconds[current];
      was = std::max(was, took);
    }
    current.clear();
  }
  void analysing(const std::string& fn) {
    finished();
    current = fn;
    fnStart = Clock::now();
    if (report) report(fn);
  }
};

}  // namespace

namespace {

// One run of the front end on `r.text`: the diagnostics, the index, and
// the functions it left for later (`defer`).
struct FrontRun {
  std::unique_ptr<base::SourceMap> sources = std::make_unique<base::SourceMap>();
  base::FileId file;
  diag::Sink sink;
  driver::CheckOutput out;
  std::shared_ptr<DocIndex> index = std::make_shared<DocIndex>();
  std::map<std::string, Legality::Item> items;  // the functions and consts, from the typed program
  std::vector<std::string> deferred;
};

// False when cancelled.
bool runFront(State& s, DocCheck& dc, const CheckRequest& r, FrontRun& run,
              const std::function<bool(const std::string&)>& defer) {
  run.file = run.sources->add(pathOf(r.uri), r.text);
  driver::CheckOptions o;
  o.target = s.options.target;
  o.ownershipCache = &dc.ownership;
  o.cancel = r.cancel;
  o.deferLegality = true;
  Progress progress(dc.seconds, r.analysing);
  o.onAnalyse = [&](const std::string& fn) { progress.analysing(fn); };
  run.index->version = r.version;
  run.index->text = r.text;
  o.onTyped = [&](const hir::Program& prog) {
    run.index->symbols = indexNames(prog, run.file, r.text);
    run.items = itemsOf(prog, r.text, run.file);
  };
  o.tokenStates = &run.index->states;
  o.deferFunction = defer;
  o.deferredFunctions = &run.deferred;
  try {
    run.out = driver::checkFile(*run.sources, run.file, run.sink, o);
    progress.finished();
  } catch (const check::Cancelled&) {
    // What the interrupted function took so far is a lower bound: past
    // 300 ms (now or before) it is left for a second run next time, so that
    // a function that never finishes between keystrokes holds up no other.
    progress.interrupted();
    return false;
  } catch (const std::exception& e) {
    logLine(s, std::string("internal compiler error while checking ") + r.uri + ": " + e.what());
  }
  if (cancelled(r)) return false;
  {
    std::lock_guard<std::mutex> lock(s.indexMutex);
    s.indexes[r.uri] = run.index;
  }
  s.indexReady.notify_all();
  return true;
}

// The diagnostics last published inside function `name`, moved with the
// function's start (its text changed: a best effort until its new result).
void previousInside(const DocCheck& dc, const std::string& name, const std::map<std::string, Legality::Item>& now,
                    size_t textSize, std::vector<diag::Diagnostic>& out) {
  auto old = dc.lastItems.find(name);
  auto cur = now.find(name);
  if (old == dc.lastItems.end() || cur == now.end()) return;
  int64_t delta = static_cast<int64_t>(cur->second.begin) - static_cast<int64_t>(old->second.begin);
  for (diag::Diagnostic d : dc.lastDiags) {
    base::Span p = d.primarySpan();
    if (!p.valid() || p.begin < old->second.begin || p.end > old->second.end) continue;
    bool ok = true;
    auto move = [&](base::Span& sp) {
      if (!sp.valid()) return;
      int64_t b = sp.begin + delta, e = sp.end + delta;
      if (b < cur->second.begin || e > cur->second.end || static_cast<size_t>(e) > textSize) ok = false;
      sp.begin = static_cast<uint32_t>(std::max<int64_t>(b, 0));
      sp.end = static_cast<uint32_t>(std::max<int64_t>(e, 0));
    };
    for (diag::Label& l : d.labels) move(l.span);
    d.suggestions.clear();  // an edit of the old text
    if (ok) out.push_back(std::move(d));
  }
}

// The diagnostics of a full run (no function left for later): published
// with the carried legality findings, and legality handed over or run.
bool finish(State& s, DocCheck& dc, const CheckRequest& r, const LegalityQueue& queue, FrontRun run) {
  dc.lastDiags = run.sink.diagnostics();
  dc.lastItems = run.items;
  driver::CheckOutput& out = run.out;
  base::FileId file = run.file;
  diag::Sink& sink = run.sink;
  auto& sources = run.sources;
  if (!out.legalityPending) {
    {
      std::lock_guard<std::mutex> lock(dc.legality->m);
      dc.legality->diags.clear();
      dc.legality->items.clear();
    }
    publish(s, r.uri, r.version, diagnosticsJson(r.uri, r.text, file, sink.diagnostics()));
    return true;
  }
  auto job = std::make_unique<LegalityJob>();
  job->uri = r.uri;
  job->text = r.text;
  job->version = r.version;
  job->submission = r.submission;
  job->file = file;
  job->before = sink.diagnostics();
  job->items = run.items;
  job->legality = dc.legality;
  job->out = std::move(out);
  job->sources = std::move(sources);
  if (!queue) {
    runLegality(s, *job, [] { return true; });
    return true;
  }
  std::vector<diag::Diagnostic> shown = job->before;
  for (diag::Diagnostic& d : carried(*dc.legality, job->items)) shown.push_back(std::move(d));
  job->published = diagnosticsJson(r.uri, r.text, file, shown);
  publish(s, r.uri, r.version, job->published);
  queue(std::move(job));
  return true;
}


}  // namespace

bool checkDocument(State& s, DocCheck& dc, const CheckRequest& r, const LegalityQueue& queue) {
  // In an editor session, a changed function whose last analysis took
  // long is left for a second run: the first publishes everything else at
  // once, with that function's previous diagnostics.
  if (queue) {
    auto slow = [&](const std::string& fn) {
      auto it = dc.seconds.find(fn);
      return it != dc.seconds.end() && it->second > 0.3;
    };
    bool any = false;
    for (const auto& [fn, secs] : dc.seconds) any = any || secs > 0.3;
    if (any) {
      FrontRun first;
      if (!runFront(s, dc, r, first, slow)) return false;
      if (!first.deferred.empty()) {
        std::vector<diag::Diagnostic> shown = first.sink.diagnostics();
        for (const std::string& fn : first.deferred) previousInside(dc, "fn " + fn, first.items, r.text.size(), shown);
        for (diag::Diagnostic& d : carried(*dc.legality, first.items)) shown.push_back(std::move(d));
        publish(s, r.uri, r.version, diagnosticsJson(r.uri, r.text, first.file, shown));
      } else {
        return finish(s, dc, r, queue, std::move(first));
      }
    }
  }
  FrontRun run;
  if (!runFront(s, dc, r, run, {})) return false;
  return finish(s, dc, r, queue, std::move(run));
}

void Checker::restartAfter(const char* thread, const std::exception& e) {
  try {
    logLine(s_, std::string("the ") + thread + " thread restarts after: " + e.what());
  } catch (const std::exception&) {
  }
  std::lock_guard<std::mutex> lock(m_);
  running_.clear();
  legalRunning_ = false;
  idle_.notify_all();
}

void Checker::restarting(const char* thread, void (Checker::*body)()) {
  for (;;) try {
      (this->*body)();
      return;
    } catch (const std::exception& e) {
      restartAfter(thread, e);
    }
}

void Checker::loop() { restarting("checking", &Checker::loopBody); }
void Checker::legalityLoop() { restarting("legality", &Checker::legalityLoopBody); }
void Checker::progressLoop() { restarting("progress", &Checker::progressLoopBody); }

Checker::Checker(State& s) : s_(s) {
  thread_ = std::make_unique<base::Thread>([this] { loop(); });
  legalThread_ = std::make_unique<base::Thread>([this] { legalityLoop(); });
  progressThread_ = std::make_unique<base::Thread>([this] { progressLoop(); }, 1 << 20);
}

// A work-done progress ($/progress), where the client takes them, for a
// check still running after 300 ms: begun then, a report when the function
// being analysed changes (at most every 100 ms), ended when it finishes.
void Checker::progressLoopBody() {
  std::string token, shown;
  uint64_t tokenCheck = 0;
  bool begun = false;  // the client accepted the token, and the progress began
  auto answer = [&]() -> std::optional<bool> {
    std::lock_guard<std::mutex> lock(s_.progressMutex);
    auto it = s_.progressAnswers.find(token);
    if (it == s_.progressAnswers.end()) return std::nullopt;
    return it->second;
  };
  auto forget = [&] {
    std::lock_guard<std::mutex> lock(s_.progressMutex);
    s_.progressAsked.erase(token);
    s_.progressAnswers.erase(token);
  };
  for (;;) {
    bool running, stop;
    std::string fn, uri;
    Clock::time_point since;
    uint64_t check;
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait_for(lock, std::chrono::milliseconds(100), [&] { return stop_; });
      preemptIfDue();  // a text that came while the check was young
      stop = stop_;
      running = !running_.empty();
      uri = running_;
      fn = analysing_;
      since = runningSince_;
      check = checkCount_;
    }
    if (!s_.progress) {
      if (stop) return;
      continue;
    }
    if (stop || !running || (!token.empty() && check != tokenCheck)) {
      if (begun) notify(s_, "$/progress", {{"token", token}, {"value", {{"kind", "end"}}}});
      if (!token.empty()) forget();
      token.clear();
      shown.clear();
      begun = false;
      if (stop) return;
      if (!running) continue;
    }
    if (Clock::now() - since < std::chrono::milliseconds(300)) continue;
    std::string message = "checking " + pathOf(uri).substr(pathOf(uri).find_last_of('/') + 1) +
                          (fn.empty() ? "" : ": `" + fn + "`");
    if (token.empty()) {
      // The progress begins once the client has accepted the token (the
      // protocol: a token is usable after the create request's response);
      // a client that answers an error, or never answers, sees none.
      static std::atomic<uint64_t> next{1};
      token = kProgressTokenPrefix + std::to_string(next++);
      tokenCheck = check;
      {
        std::lock_guard<std::mutex> lock(s_.progressMutex);
        s_.progressAsked.insert(token);
      }
      send(s_, json{{"jsonrpc", "2.0"},
                    {"id", token},
                    {"method", "window/workDoneProgress/create"},
                    {"params", {{"token", token}}}});
      continue;
    }
    if (!begun) {
      std::optional<bool> accepted = answer();
      if (!accepted || !*accepted) continue;
      notify(s_, "$/progress",
             {{"token", token}, {"value", {{"kind", "begin"}, {"title", "vxc"}, {"message", message}}}});
      begun = true;
      shown = message;
    } else if (message != shown) {
      notify(s_, "$/progress", {{"token", token}, {"value", {{"kind", "report"}, {"message", message}}}});
      shown = message;
    }
  }
}

Checker::~Checker() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
    cancel_ = true;
  }
  cv_.notify_all();
  thread_.reset();  // joins
  legalThread_.reset();
  progressThread_.reset();
}

// How long a check runs before another document's text takes its turn.
// A check that cheap finishes first (most do: parsing, typing and the
// cached functions of 5,000 lines take 30–60 ms); a longer one, the first
// check of a file at the edge of the checker's budget, would hold every
// other document's diagnostics for its whole length.
constexpr std::chrono::milliseconds kPreemptAfter{250};

void Checker::preemptIfDue() {
  if (running_.empty() || preempted_ || Clock::now() - runningSince_ < kPreemptAfter) return;
  for (const auto& [uri, job] : pending_)
    if (uri != running_ && !job.closed && !job.putBack) {
      preempted_ = true;
      cancel_ = true;
      return;
    }
}

void Checker::submit(const std::string& uri, const std::string& text, int64_t version) {
  {
    std::lock_guard<std::mutex> lock(m_);
    ++submissions_;
    pending_[uri] = Job{text, version, false, submissions_, ++orders_};
    latest_[uri] = submissions_;
    if (running_ == uri) cancel_ = true;
    preemptIfDue();
  }
  cv_.notify_all();
}

void Checker::close(const std::string& uri) {
  {
    std::lock_guard<std::mutex> lock(m_);
    pending_[uri] = Job{{}, 0, true, 0, 0};
    latest_.erase(uri);
    legal_.erase(uri);  // its legality would publish over the cleared diagnostics
    if (running_ == uri) cancel_ = true;
  }
  cv_.notify_all();
}

void Checker::drain() {
  std::unique_lock<std::mutex> lock(m_);
  idle_.wait(lock, [&] { return pending_.empty() && running_.empty() && legal_.empty() && !legalRunning_; });
}

void Checker::loopBody() {
  LegalityQueue queue = [this](std::unique_ptr<LegalityJob> job) {
    {
      std::lock_guard<std::mutex> lock(m_);
      // An older one of the same document not yet started is dropped;
      // other documents' wait their turn.
      std::string uri = job->uri;
      legal_[uri] = std::move(job);
    }
    cv_.notify_all();
  };
  for (;;) {
    std::string uri;
    Job job;
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return stop_ || !pending_.empty(); });
      if (stop_) return;
      // The text submitted first (closes first: they only clear): an edit
      // waits for the documents edited before it, not for those whose names
      // sort before its own; a preempted check's text goes behind them.
      auto it = pending_.begin();
      for (auto j = pending_.begin(); j != pending_.end(); ++j)
        if (j->second.order < it->second.order) it = j;
      uri = it->first;
      job = std::move(it->second);
      pending_.erase(it);
      running_ = uri;
      runningSince_ = Clock::now();
      analysing_.clear();
      ++checkCount_;
      cancel_ = false;
      preempted_ = false;
    }
    if (job.closed) {
      docs_.erase(uri);
      warm_.erase(std::remove(warm_.begin(), warm_.end(), uri), warm_.end());
      notify(s_, "textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
    } else {
      CheckRequest r;
      r.uri = uri;
      r.text = std::move(job.text);
      r.version = job.version;
      r.submission = job.submission;
      r.cancel = &cancel_;
      r.analysing = [this](const std::string& fn) {
        std::lock_guard<std::mutex> lock(m_);
        analysing_ = fn;
      };
      // A Z3 context costs about 17 MB: a hundred open documents each
      // holding one took 1.7 GB. The documents edited last keep theirs
      // (making one costs more than checking a function); the others
      // keep their cached results and make a context when next checked.
      warm_.erase(std::remove(warm_.begin(), warm_.end(), uri), warm_.end());
      warm_.insert(warm_.begin(), uri);
      while (warm_.size() > kWarmDocuments) {
        auto cold = docs_.find(warm_.back());
        if (cold != docs_.end()) cold->second.ownership.releaseSolver();
        warm_.pop_back();
      }
      try {
        // The new index serves inlay hints and semantic tokens: clients
        // that ask again when told are told.
        bool done = checkDocument(s_, docs_[uri], r, queue);
        if (!done) {
          // Cancelled for another document's text (not superseded by a
          // newer text of its own, nor closed): its turn comes again after
          // the texts waiting now.
          std::lock_guard<std::mutex> lock(m_);
          if (preempted_ && !pending_.count(uri) && !stop_) {
            Job back{std::move(r.text), r.version, false, r.submission, ++orders_, true};
            pending_[uri] = std::move(back);
          }
        }
        if (done) {
          static std::atomic<uint64_t> next{1};
          if (s_.refreshHints)
            send(s_, json{{"jsonrpc", "2.0"}, {"id", "vxc-refresh-" + std::to_string(next++)},
                          {"method", "workspace/inlayHint/refresh"}});
          if (s_.refreshTokens)
            send(s_, json{{"jsonrpc", "2.0"}, {"id", "vxc-refresh-" + std::to_string(next++)},
                          {"method", "workspace/semanticTokens/refresh"}});
        }
      } catch (const std::exception& e) {
        logLine(s_, std::string("checking ") + uri + " failed: " + e.what());
        // The diagnostics shown are of an older text: replaced by one that
        // says this one was not checked (else the editor keeps the old ones).
        try {
          json d = {{"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                    {"severity", 1},
                    {"source", "vxc"},
                    {"message", std::string("vxc could not check this version of the file: ") +
                                    (dynamic_cast<const std::bad_alloc*>(&e) ? "out of memory" : e.what())}};
          publish(s_, uri, r.version, json::array({d}));
        } catch (const std::exception&) {
        }
      }
    }
    std::lock_guard<std::mutex> lock(m_);
    running_.clear();
    idle_.notify_all();
  }
}

// The second thread: legality, the latest job only, so that a slow
// legality never holds up the first publication of a newer text.
void Checker::legalityLoopBody() {
  for (;;) {
    std::unique_ptr<LegalityJob> job;
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return stop_ || !legal_.empty(); });
      if (stop_) return;
      job = std::move(legal_.begin()->second);
      legal_.erase(legal_.begin());
      legalRunning_ = true;
    }
    std::string uri = job->uri;
    uint64_t submission = job->submission;
    try {
      // Current while no newer text of the document was submitted: told
      // apart by the submission, not by the client's version, which a
      // document closed and opened again starts over.
      runLegality(s_, *job, [&] {
        std::lock_guard<std::mutex> lock(m_);
        auto it = latest_.find(uri);
        return it != latest_.end() && it->second == submission && !pending_.count(uri);
      });
    } catch (const std::exception& e) {
      logLine(s_, std::string("checking ") + uri + " failed: " + e.what());
    }
    std::lock_guard<std::mutex> lock(m_);
    legalRunning_ = false;
    idle_.notify_all();
  }
}

}  // namespace vx::lsp
