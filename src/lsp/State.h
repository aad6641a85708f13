// The language server's data: open documents, options and the protocol
// state, plus the few helpers every method handler uses to answer. The
// handlers themselves are free functions, one per LSP method (Methods.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "base/Source.h"
#include "diag/Diagnostic.h"
#include "lsp/Checker.h"
#include "lsp/Index.h"
#include "lsp/Server.h"

namespace vx::lsp {

using nlohmann::json;

struct Document {
  std::string text;
  int64_t version = 0;
};

struct State {
  State(std::ostream& o, std::ostream& l, ServerOptions opts)
      : out(o), log(l), options(std::move(opts)), pretty(options.pretty) {}
  std::ostream& out;
  std::ostream& log;
  ServerOptions options;
  bool pretty = false;  // indented JSON out (transcript tests)
  std::map<std::string, Document> docs;
  std::set<std::string> stale;  // changed, not yet checked (options.coalesce)
  bool initialized = false;
  bool snippets = false;  // the client takes snippet completions
  std::atomic<bool> progress{false};  // the client takes work-done progress (read by the progress thread)
  // The client's answers to `window/workDoneProgress/create`, by token:
  // true where it accepted the token, false where it answered an error.
  // A progress begins only once its token is accepted (the message thread
  // writes, the progress thread reads and forgets).
  std::mutex progressMutex;
  std::set<std::string> progressAsked;  // created, not yet forgotten
  std::map<std::string, bool> progressAnswers;
  // The client re-asks for inlay hints / semantic tokens when told their
  // source changed (`workspace/inlayHint/refresh`, ...): told after each check.
  std::atomic<bool> refreshHints{false}, refreshTokens{false};
  bool shutdown = false;
  std::mutex outMutex;    // one message at a time on `out` (the checker's thread sends too)
  // The index of the last checked version of each document (Index.h),
  // replaced whole by the checker.
  std::mutex indexMutex;
  std::condition_variable indexReady;
  std::map<std::string, std::shared_ptr<const DocIndex>> indexes;
  // Checks on the message thread (transcripts, unit tests): per document.
  std::map<std::string, DocCheck> checks;
  // An editor session's worker thread (options.background); last member,
  // so that it stops before the rest goes.
  std::unique_ptr<Checker> checker;
};

// JSON-RPC and LSP error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kServerNotInitialized = -32002;

// A message to the client, framed.
void send(State& s, const json& message);
void reply(State& s, const json& id, json result);
void replyError(State& s, const json& id, int code, const std::string& message);
void notify(State& s, const std::string& method, json params);
void logLine(State& s, const std::string& line);

// A parameter that is missing or of the wrong type: InvalidParams for a
// request, a log line for a notification.
struct BadParams {
  std::string what;
};
const json& field(const json& obj, const char* name);
std::string stringField(const json& obj, const char* name);
uint32_t uintField(const json& obj, const char* name);

// `file:///a/b%20c.vx` -> `/a/b c.vx`; other URIs are returned as they are.
std::string pathOf(const std::string& uri);

class LineIndex;
// An LSP range of the bytes [begin, end) of the indexed text.
json rangeJson(const LineIndex& index, uint32_t begin, uint32_t end);

// Checks document `uri` as `vxc check` would and publishes its diagnostics
// (an empty list when it is not open), on this thread. Publish.cpp.
void publishDiagnostics(State& s, const std::string& uri);
// The LSP diagnostics of `diagnostics` (in file `file` with text `text`).
json diagnosticsJson(const std::string& uri, const std::string& text, base::FileId file,
                     const std::vector<diag::Diagnostic>& diagnostics);
// The index of the open document `uri` as it is now: when its check is
// still running on the worker thread, waited for up to `waitMs`. Null when
// there is none for this version.
std::shared_ptr<const DocIndex> currentIndex(State& s, const std::string& uri, int waitMs = 500);

// After an open or a change: publish now, or mark the document for the next
// flush when changes are coalesced.
void documentChanged(State& s, const std::string& uri);

}  // namespace vx::lsp
