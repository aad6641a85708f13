// Checking documents for the language server (docs/lsp.md, "Checking").
//
// A check runs the front end of `vxc check` (driver::checkFile) with the
// document's ownership cache, so only the functions whose text or callees
// changed are analysed again, and with the target's legality deferred: the
// diagnostics up to the ownership checker are published first, together
// with the previous legality findings of functions whose text is unchanged,
// and the full set once legality has run. A set replaces the previous one
// whole, so an unchanged function's diagnostics never flicker.
//
// In an editor session the checks run on one worker thread (Checker); a
// newer text of the document being checked cancels its check, and the
// messages are read and answered meanwhile. Transcript and unit tests check
// on the message thread, one message at a time (checkDocument).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "check/Ownership.h"
#include "diag/Diagnostic.h"

namespace vx::base {
class Thread;
}

namespace vx::lsp {

struct State;

// The last legality findings of a document, and the text and place of
// every function and const when they were found (shared by the threads).
struct Legality {
  struct Item {
    std::string text;
    uint32_t begin = 0, end = 0;
  };
  std::mutex m;
  std::map<std::string, Item> items;
  std::vector<diag::Diagnostic> diags;
};

// What the checks of one document keep between versions.
struct DocCheck {
  check::OwnershipCache ownership;
  std::shared_ptr<Legality> legality = std::make_shared<Legality>();
  std::map<std::string, double> seconds;  // per function, its last analysis (progress, slow ones)
  // The diagnostics before legality last published in full, and where the
  // functions were then ("fn NAME" -> place).
  std::vector<diag::Diagnostic> lastDiags;
  std::map<std::string, Legality::Item> lastItems;
};

struct CheckRequest {
  std::string uri, text;
  int64_t version = 0;
  uint64_t submission = 0;  // the Checker's count of texts submitted: which text this is
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const std::string& fn)> analysing;  // told each function analysed
};

struct LegalityJob;
// Where a check hands its legality over (the Checker's second thread);
// none: it runs in place.
using LegalityQueue = std::function<void(std::unique_ptr<LegalityJob>)>;

// Checks one version and publishes its diagnostics. With a queue, the
// diagnostics before legality are published at once (with the carried
// legality findings) and legality is handed over. Returns false when the
// check was cancelled (nothing is published for it).
bool checkDocument(State& s, DocCheck& dc, const CheckRequest& r, const LegalityQueue& queue = {});

// The tokens of the work-done progress of long checks (and the ids of the
// `window/workDoneProgress/create` requests that make them) start so.
inline constexpr const char* kProgressTokenPrefix = "vxc-check-";

// How many documents keep a Z3 context between checks (Checker::warm_).
inline constexpr size_t kWarmDocuments = 4;

// The worker thread of an editor session.
class Checker {
 public:
  explicit Checker(State& s);
  ~Checker();  // cancels what runs and joins
  // The latest text of `uri`: queued, and the check of an older text of it
  // cancelled.
  void submit(const std::string& uri, const std::string& text, int64_t version);
  // The document was closed: its diagnostics are cleared, its cache dropped.
  void close(const std::string& uri);
  // Waits until every queued check has run and published (`shutdown`).
  void drain();

 private:
  struct Job {
    std::string text;
    int64_t version = 0;
    bool closed = false;
    uint64_t submission = 0;
    uint64_t order = 0;  // its turn: closes 0, then in the order submitted (or put back: preemptIfDue)
    bool putBack = false;  // a check preempted once: it waits its turn, and preempts none
  };
  // A new text of another document waits while the running check has run
  // kPreemptAfter: the check is cancelled and its job put back behind the
  // others (what it finished stays in the cache). A job put back never
  // preempts (two long checks would cancel each other for ever). Under m_.
  void preemptIfDue();
  void loop();
  void legalityLoop();
  void progressLoop();
  // The threads' bodies, restarted by the above after an exception that
  // escaped them (out of memory: a thread that died would hang the server).
  void loopBody();
  void legalityLoopBody();
  void progressLoopBody();
  void restartAfter(const char* thread, const std::exception& e);
  void restarting(const char* thread, void (Checker::*body)());
  State& s_;
  std::mutex m_;
  std::condition_variable cv_, idle_;
  std::map<std::string, Job> pending_;
  std::map<std::string, uint64_t> latest_;  // the submission last made, per open document
  uint64_t submissions_ = 0;
  std::string running_;
  std::chrono::steady_clock::time_point runningSince_;
  std::string analysing_;     // the function the running check analyses
  uint64_t checkCount_ = 0;   // checks started: a new one ends the progress of the last
  std::atomic<bool> cancel_{false};
  bool preempted_ = false;  // the running check was cancelled for another document's
  uint64_t orders_ = 0;     // Job::order handed out
  bool stop_ = false;
  // The legality to run next, per document (only its latest text's).
  std::map<std::string, std::unique_ptr<LegalityJob>> legal_;
  bool legalRunning_ = false;
  std::map<std::string, DocCheck> docs_;  // the first thread's own
  // The documents checked last, latest first: only these keep their Z3
  // contexts (kWarmDocuments); the others keep their results.
  std::vector<std::string> warm_;
  std::unique_ptr<base::Thread> thread_, legalThread_, progressThread_;
};

}  // namespace vx::lsp
