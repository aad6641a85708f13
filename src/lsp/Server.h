// `vxc lsp`: a language server over stdin/stdout (JSON-RPC 2.0 with
// `Content-Length` framing). It keeps the open documents, applies full and
// incremental edits, runs the same front end as `vxc check`
// (driver::checkFile) on every open and change, publishes the diagnostics
// with their codes, error pages, related spans, notes and help, and offers
// their suggestions as quick fixes. One free function per method
// (Methods.h); this file reads, dispatches and answers. See docs/lsp.md.
//
// Bad input never stops it: a malformed header, a body that is not JSON, a
// request with wrong parameters or an unknown method gets a JSON-RPC error
// (or, where no reply is possible, a line on the log stream), and the next
// message is read as usual.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>

namespace vx::lsp {

struct ServerOptions {
  std::string target = "cpu";  // overridden by initializationOptions.target
  bool pretty = false;         // indent the JSON it sends (transcript tests)
  // Check a changed document only once no more input is waiting (or before
  // answering a request): a burst of edits, or edits that come faster than
  // checks, costs one check of the latest text instead of one per edit.
  bool coalesce = false;
  // Check on a worker thread (an editor session): requests are answered
  // while a check runs, and a newer text cancels the check of an older one.
  bool background = false;
};

// Framed: `Content-Length` headers, as editors send. Delimited: bodies
// separated by lines `---`, lines starting with `#` ignored -- the JSON
// transcripts of tests/lit/lsp.
enum class InputStyle { Framed, Delimited };

struct State;

class Server {
 public:
  Server(std::ostream& out, std::ostream& log, ServerOptions options = {});
  ~Server();
  // Serves until `exit` or the end of `in`. Returns the process's exit
  // status: 0 after `shutdown` then `exit`, 1 otherwise (as the protocol says).
  int run(std::istream& in, InputStyle style = InputStyle::Framed);
  // Handles one message body; false once `exit` came. Diagnostics of
  // documents it changed wait for flush() when `coalesce` is set.
  bool handle(const std::string& body);
  // Checks and publishes every document changed since the last flush.
  void flush();
  int exitStatus() const;

 private:
  std::unique_ptr<State> state_;
};

// Reads one framed message. Returns Ok with the body, Eof at the end of the
// stream, or Malformed (with `error` set) after consuming a bad header block.
enum class ReadStatus { Ok, Eof, Malformed };
ReadStatus readMessage(std::istream& in, std::string& body, std::string& error);

}  // namespace vx::lsp
