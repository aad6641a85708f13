// Reading messages and dispatching them to the method handlers.
#include "lsp/Server.h"

#include <algorithm>
#include <new>
#include <cctype>
#include <istream>

#include "lsp/Methods.h"
#include "lsp/State.h"

namespace vx::lsp {

namespace {

// Larger bodies are read and dropped: no editor sends a 256 MiB message.
constexpr uint64_t kMaxBody = 256ull << 20;

// One body of a delimited transcript; false at the end of the input.
bool readDelimited(std::istream& in, std::string& body) {
  body.clear();
  std::string line;
  bool any = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "---") {
      if (any) return true;
      continue;
    }
    if (!line.empty() && line[0] == '#') continue;
    if (line.find_first_not_of(" \t") == std::string::npos && !any) continue;
    body += line;
    body += '\n';
    any = true;
  }
  return any;
}

using Request = json (*)(State&, const json&);
using Notification = void (*)(State&, const json&);

Request requestHandler(const std::string& method) {
  if (method == "shutdown") return shutdown;
  if (method == "textDocument/codeAction") return codeAction;
  if (method == "textDocument/documentSymbol") return documentSymbol;
  if (method == "textDocument/definition") return definition;
  if (method == "textDocument/hover") return hover;
  if (method == "textDocument/completion") return completion;
  if (method == "textDocument/signatureHelp") return signatureHelp;
  if (method == "workspace/symbol") return workspaceSymbol;
  if (method == "textDocument/references") return references;
  if (method == "textDocument/semanticTokens/full") return semanticTokens;
  if (method == "textDocument/inlayHint") return inlayHint;
  return nullptr;
}

Notification notificationHandler(const std::string& method) {
  if (method == "textDocument/didOpen") return didOpen;
  if (method == "textDocument/didChange") return didChange;
  if (method == "textDocument/didClose") return didClose;
  return nullptr;
}

// Reads a header line of at most kMaxHeaderLine bytes; a longer one is read
// to its end and dropped (`tooLong`). False at the end of the input.
constexpr size_t kMaxHeaderLine = 8192;
bool readHeaderLine(std::istream& in, std::string& line, bool& tooLong) {
  line.clear();
  tooLong = false;
  std::streambuf* buf = in.rdbuf();
  for (;;) {
    int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return !line.empty() || tooLong;
    }
    if (c == '\n') return true;
    if (line.size() < kMaxHeaderLine)
      line += static_cast<char>(c);
    else
      tooLong = true;
  }
}

}  // namespace

ReadStatus readMessage(std::istream& in, std::string& body, std::string& error) {
  std::string line;
  // badLine: a line that is no header (no `:`, or over 8 KiB); with a
  // valid `Content-Length` beside it the message is still delimited, so it
  // is read (and the line logged), never left to be misread as headers.
  bool any = false, haveLength = false, badLength = false, badLine = false, tooLong = false;
  uint64_t length = 0;
  for (;;) {
    if (!readHeaderLine(in, line, tooLong)) {
      if (!any) return ReadStatus::Eof;
      error = "the stream ended inside a header";
      return ReadStatus::Eof;
    }
    if (tooLong) {
      any = badLine = true;
      error = "a header line of more than 8 KiB";
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (!any) continue;  // stray blank lines between messages
      break;
    }
    // The body of a message that could not be delimited (a `Content-Length`
    // that is no number) runs on into the next message's first header line,
    // which has no line end of its own: `{...}Content-Length: 52`. The next
    // message starts at that header; what came before it is dropped, so one
    // bad message never costs the ones after it.
    {
      std::string lower = line;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      size_t at = lower.find("content-length:");
      if (at != std::string::npos && at > 0) {
        line.erase(0, at);
        haveLength = badLength = false;
        badLine = true;
        error = "bytes before a `Content-Length` header (the rest of a message that could not be read)";
      }
    }
    any = true;
    size_t colon = line.find(':');
    if (colon == std::string::npos) {
      badLine = true;
      error = "a header line without `:`";
      continue;
    }
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    if (name != "content-length") continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
    if (value.empty() || value.size() > 19 ||
        !std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); })) {
      badLength = true;
      error = "`Content-Length` is not a number";
      continue;
    }
    uint64_t given = std::stoull(value);
    // Two lengths that disagree: the message cannot be delimited (the
    // last one won, and the next message was read as this one's tail).
    if (haveLength && given != length) {
      badLength = true;
      error = "two `Content-Length` headers that disagree (" + std::to_string(length) + " and " + value + ")";
      continue;
    }
    length = given;
    // A length past any message a client could send (1 TiB) is treated as
    // one that is no number: the stream resynchronises at the next
    // `Content-Length`, instead of the rest of the session being read as
    // the body to drop (2^63 swallowed every later message; 2^64 did not).
    if (length > (uint64_t{1} << 40)) {
      badLength = true;
      error = "`Content-Length` is not a number a message could have";
      continue;
    }
    haveLength = true;
  }
  if (badLength) return ReadStatus::Malformed;
  if (!haveLength) {
    error = badLine ? error + ", in a message without `Content-Length`" : "a message without `Content-Length`";
    return ReadStatus::Malformed;
  }
  if (!badLine) error.clear();
  if (length > kMaxBody) {
    // Drop the body to stay in step with the stream.
    char buf[65536];
    for (uint64_t left = length; left > 0 && in;) {
      in.read(buf, static_cast<std::streamsize>(std::min<uint64_t>(left, sizeof buf)));
      left -= static_cast<uint64_t>(in.gcount());
    }
    error = "a message of " + std::to_string(length) + " bytes, more than the 256 MiB accepted";
    return in ? ReadStatus::Malformed : ReadStatus::Eof;
  }
  body.assign(length, '\0');
  in.read(body.data(), static_cast<std::streamsize>(length));
  if (static_cast<uint64_t>(in.gcount()) != length) {
    error = "the stream ended inside a message body";
    return ReadStatus::Eof;
  }
  return ReadStatus::Ok;
}

Server::Server(std::ostream& out, std::ostream& log, ServerOptions options)
    : state_(std::make_unique<State>(out, log, std::move(options))) {
  if (state_->options.background) state_->checker = std::make_unique<Checker>(*state_);
}

Server::~Server() = default;

int Server::exitStatus() const { return state_->shutdown ? 0 : 1; }

int Server::run(std::istream& in, InputStyle style) {
  // Reading must not flush a stream tied to `in` (std::cin is tied to
  // std::cout): the checker's threads write under the server's lock.
  in.tie(nullptr);
  for (;;) {
    // Out of memory (a huge edit under a memory limit): the message that
    // needed it is dropped and logged; the session goes on.
    try {
      std::string body, error;
      if (style == InputStyle::Delimited) {
        if (!readDelimited(in, body)) return exitStatus();
      } else {
        ReadStatus st = readMessage(in, body, error);
        if (st == ReadStatus::Eof) {
          if (!error.empty()) logLine(*state_, error);
          return exitStatus();
        }
        if (st == ReadStatus::Malformed) {
          logLine(*state_, "skipped " + error);
          continue;
        }
        if (!error.empty()) logLine(*state_, "ignored " + error + " in a message's headers");
      }
      if (!handle(body)) return exitStatus();
      if (!state_->out) {
        logLine(*state_, "the client stopped reading the server's output: exiting");
        return 1;
      }
      // Check what changed once the client has nothing more queued.
      if (!state_->stale.empty() && in.rdbuf()->in_avail() <= 0) flush();
    } catch (const std::bad_alloc&) {
      logLine(*state_, "out of memory: a message was dropped");
    }
  }
}

void Server::flush() {
  State& s = *state_;
  std::set<std::string> stale;
  stale.swap(s.stale);
  for (const std::string& uri : stale) publishDiagnostics(s, uri);
}

bool Server::handle(const std::string& body) {
  State& s = *state_;
  json msg;
  try {
    msg = json::parse(body);
  } catch (const json::exception& e) {
    replyError(s, nullptr, kParseError, std::string("the message is not JSON: ") + e.what());
    return true;
  }
  if (!msg.is_object() || !msg.contains("method") || !msg["method"].is_string()) {
    // A response from the client: to `window/workDoneProgress/create`, it
    // says whether the progress may begin; others are dropped silently.
    if (msg.is_object() && msg.contains("id") && (msg.contains("result") || msg.contains("error"))) {
      const json& rid = msg["id"];
      if (rid.is_string() && rid.get<std::string>().rfind(kProgressTokenPrefix, 0) == 0) {
        std::lock_guard<std::mutex> lock(s.progressMutex);
        // Only for a token asked about and not yet forgotten: a late
        // answer, or one to nothing asked, keeps nothing.
        if (s.progressAsked.count(rid.get<std::string>()))
          s.progressAnswers[rid.get<std::string>()] = !msg.contains("error");
      }
      return true;
    }
    json id = msg.is_object() && msg.contains("id") ? msg["id"] : json(nullptr);
    replyError(s, id, kInvalidRequest, "a request needs a string `method`");
    return true;
  }
  const std::string method = msg["method"].get<std::string>();
  const bool isRequest = msg.contains("id");
  const json id = isRequest ? msg["id"] : json(nullptr);
  if (isRequest && !(id.is_number_integer() || id.is_string())) {
    replyError(s, nullptr, kInvalidRequest, "a request `id` must be a number or a string");
    return true;
  }
  const json params = msg.contains("params") ? msg["params"] : json::object();
  if (method == "exit") return false;
  // A request is answered after the diagnostics of what came before it
  // (when checks run on this thread).
  if (isRequest) flush();
  try {
    if (isRequest) {
      if (method == "initialize") {
        if (s.initialized)
          replyError(s, id, kInvalidRequest, "the server is already initialized");
        else
          reply(s, id, initialize(s, params));
      } else if (!s.initialized) {
        replyError(s, id, kServerNotInitialized, "`initialize` must come first");
      } else if (s.shutdown) {
        replyError(s, id, kInvalidRequest, "the server is shutting down");
      } else if (Request h = requestHandler(method)) {
        reply(s, id, h(s, params));
      } else {
        replyError(s, id, kMethodNotFound, "`" + method + "` is not supported");
      }
      return true;
    }
    // Notifications are never answered. `initialized`, `$/cancelRequest`,
    // `textDocument/didSave`, settings and the rest need nothing from a
    // server that checks on every change.
    if (!s.initialized || s.shutdown) return true;
    if (Notification h = notificationHandler(method)) h(s, params);
  } catch (const BadParams& e) {
    if (isRequest)
      replyError(s, id, kInvalidParams, "`" + method + "`: " + e.what);
    else
      logLine(s, "ignored `" + method + "`: " + e.what);
  } catch (const std::exception& e) {
    if (isRequest)
      replyError(s, id, kInternalError, "`" + method + "`: internal error: " + e.what());
    else
      logLine(s, "`" + method + "` failed: " + e.what());
  }
  return true;
}

}  // namespace vx::lsp
