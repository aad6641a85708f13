// libFuzzer entry point for the language server: arbitrary bytes as the
// client's side of a session, framed (`Content-Length`) or, when the first
// byte is odd, as a delimited transcript (bit 1 of that byte turns on the
// coalescing of changes). The server must answer without
// crashing or hanging, and everything it sends must be framed JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "lsp/Server.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Error pages go to a scratch cache, not the user's.
  char tmpl[] = "/tmp/vx-fuzz-lsp-XXXXXX";
  if (mkdtemp(tmpl)) setenv("XDG_CACHE_HOME", tmpl, 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  bool delimited = data[0] & 1;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  std::ostringstream out, log;
  vx::lsp::ServerOptions options;
  options.coalesce = data[0] & 2;
  vx::lsp::Server server(out, log, options);
  int status = server.run(in, delimited ? vx::lsp::InputStyle::Delimited : vx::lsp::InputStyle::Framed);
  if (status != 0 && status != 1) __builtin_trap();
  std::istringstream back(out.str());
  std::string body, error;
  vx::lsp::ReadStatus st;
  while ((st = vx::lsp::readMessage(back, body, error)) == vx::lsp::ReadStatus::Ok)
    if (!nlohmann::json::accept(body)) __builtin_trap();
  if (st == vx::lsp::ReadStatus::Malformed) __builtin_trap();
  return 0;
}
