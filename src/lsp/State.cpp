#include "lsp/State.h"

#include <cctype>
#include <chrono>

namespace vx::lsp {

void send(State& s, const json& message) {
  // Replace, rather than throw on, bytes that are not UTF-8.
  std::string body = message.dump(s.pretty ? 2 : -1, ' ', false, json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(s.outMutex);
  s.out << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  if (s.pretty) s.out << '\n';
  s.out.flush();
}

void reply(State& s, const json& id, json result) {
  send(s, json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void replyError(State& s, const json& id, int code, const std::string& message) {
  send(s, json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void notify(State& s, const std::string& method, json params) {
  send(s, json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void documentChanged(State& s, const std::string& uri) {
  if (s.checker) {
    const Document& d = s.docs.at(uri);
    s.checker->submit(uri, d.text, d.version);
  } else if (s.options.coalesce)
    s.stale.insert(uri);
  else
    publishDiagnostics(s, uri);
}

std::shared_ptr<const DocIndex> currentIndex(State& s, const std::string& uri, int waitMs) {
  auto doc = s.docs.find(uri);
  if (doc == s.docs.end()) return nullptr;
  int64_t version = doc->second.version;
  std::unique_lock<std::mutex> lock(s.indexMutex);
  auto ready = [&] {
    auto it = s.indexes.find(uri);
    return it != s.indexes.end() && it->second->version == version && it->second->text == doc->second.text;
  };
  if (!ready() && s.checker) s.indexReady.wait_for(lock, std::chrono::milliseconds(waitMs), ready);
  return ready() ? s.indexes[uri] : nullptr;
}

void logLine(State& s, const std::string& line) {
  std::lock_guard<std::mutex> lock(s.outMutex);
  s.log << "vxc lsp: " << line << '\n' << std::flush;
}

const json& field(const json& obj, const char* name) {
  if (!obj.is_object() || !obj.contains(name)) throw BadParams{std::string("missing `") + name + "`"};
  return obj.at(name);
}

std::string stringField(const json& obj, const char* name) {
  const json& v = field(obj, name);
  if (!v.is_string()) throw BadParams{std::string("`") + name + "` is not a string"};
  return v.get<std::string>();
}

uint32_t uintField(const json& obj, const char* name) {
  const json& v = field(obj, name);
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > UINT32_MAX)
    throw BadParams{std::string("`") + name + "` is not a non-negative integer"};
  return static_cast<uint32_t>(v.get<int64_t>());
}

std::string pathOf(const std::string& uri) {
  if (uri.rfind("file://", 0) != 0) return uri;
  auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  std::string out;
  for (size_t i = 7; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hex(uri[i + 1]) && hex(uri[i + 2])) {
      out += static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

}  // namespace vx::lsp
