#include <algorithm>
// The language server: sessions over framed JSON-RPC, incremental edits,
// UTF-16 positions, quick fixes, and bad input that gets an error while the
// server keeps serving.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lsp/Position.h"
#include "lsp/Server.h"

using nlohmann::json;
using namespace vx::lsp;

namespace {

std::string frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}
std::string request(int id, const std::string& method, const json& params = json::object()) {
  return frame(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump());
}
std::string notify(const std::string& method, const json& params = json::object()) {
  return frame(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}.dump());
}

struct Session {
  std::vector<json> messages;  // what the server sent, in order
  std::string log;
  int status = -1;

  // Replies to request `id`.
  json reply(int id) const {
    for (const json& m : messages)
      if (m.contains("id") && m["id"] == id) return m;
    return json();
  }
  // The last diagnostics published for `uri`.
  json diagnostics(const std::string& uri) const {
    json last;
    for (const json& m : messages)
      if (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
        last = m["params"]["diagnostics"];
    return last;
  }
  std::vector<std::string> codes(const std::string& uri) const {
    std::vector<std::string> out;
    for (const json& d : diagnostics(uri)) out.push_back(d["code"].get<std::string>());
    return out;
  }
};

// Error pages go to a cache of this test's own, not the user's.
const std::string& cacheDir() {
  // Never destroyed: the exit handler still reads it.
  static const std::string* dir = [] {
    char tmpl[] = "/tmp/vx-lsp-test-XXXXXX";
    auto* d = new std::string(mkdtemp(tmpl) ? tmpl : "/tmp");
    setenv("XDG_CACHE_HOME", d->c_str(), 1);
    if (*d != "/tmp") std::atexit([] { std::filesystem::remove_all(cacheDir()); });
    return d;
  }();
  return *dir;
}

Session serve(const std::string& input, ServerOptions options = {}) {
  cacheDir();
  std::istringstream in(input);
  std::ostringstream out, log;
  Server server(out, log, options);
  Session s;
  s.status = server.run(in);
  s.log = log.str();
  // Split the server's framed output.
  std::istringstream back(out.str());
  std::string body, error;
  while (readMessage(back, body, error) == ReadStatus::Ok) s.messages.push_back(json::parse(body));
  return s;
}

const char* kUri = "file:///work/k%20ernel.vx";
const std::string kInit = request(1, "initialize", {{"capabilities", json::object()}}) + notify("initialized");
const std::string kBye = request(99, "shutdown") + notify("exit");

json open(const std::string& text, int version = 1) {
  return {{"textDocument", {{"uri", kUri}, {"languageId", "vx"}, {"version", version}, {"text", text}}}};
}
json range(uint32_t l0, uint32_t c0, uint32_t l1, uint32_t c1) {
  return {{"start", {{"line", l0}, {"character", c0}}}, {"end", {{"line", l1}, {"character", c1}}}};
}

// A token that is never waited for: E6003 at the closing brace (and W0001:
// `t` is not used).
const std::string kDropped =
    "fn f(x: &Vec<Tensor<f32, [128, 128]>>) on Topology::TensorCore {\n"
    "  let t = transfer_async(x[0], Memory::VMEM);\n"
    "}\n";

}  // namespace

TEST_CASE("a session: open, diagnostics, an incremental fix, no diagnostics, shutdown") {
  std::string fix = "  wait(t);\n";
  Session s = serve(kInit + notify("textDocument/didOpen", open(kDropped)) +
                    notify("textDocument/didChange",
                           {{"textDocument", {{"uri", kUri}, {"version", 2}}},
                            {"contentChanges", json::array({{{"range", range(2, 0, 2, 0)}, {"text", fix}}})}}) +
                    kBye);
  CHECK(s.status == 0);
  json init = s.reply(1);
  CHECK(init["result"]["capabilities"]["textDocumentSync"]["change"] == 2);
  CHECK(init["result"]["serverInfo"]["name"] == "vxc");
  // The first publication has E6003 where `vxc check` puts it.
  json first;
  for (const json& m : s.messages)
    if (m.value("method", "") == "textDocument/publishDiagnostics") {
      first = m["params"];
      break;
    }
  REQUIRE(first.is_object());
  CHECK(first["version"] == 1);
  REQUIRE(first["diagnostics"].size() == 2);
  json d, w;
  for (const json& x : first["diagnostics"]) (x["code"] == "E6003" ? d : w) = x;
  CHECK(d["code"] == "E6003");
  CHECK(w["code"] == "W0001");
  CHECK(w["severity"] == 2);
  CHECK(w["range"] == range(1, 6, 1, 7));
  CHECK(d["severity"] == 1);
  CHECK(d["source"] == "vxc");
  CHECK(d["range"] == range(2, 0, 2, 1));
  CHECK(d["message"].get<std::string>().find("help: wait for it first") != std::string::npos);
  // The code links its error page, written into the cache.
  std::string href = d["codeDescription"]["href"];
  REQUIRE(href.rfind("file://" + cacheDir() + "/vxc/", 0) == 0);
  std::ifstream page(href.substr(7));
  std::string heading;
  std::getline(page, heading);
  CHECK(heading.rfind("# E6003", 0) == 0);
  // The secondary label (where the token was created) is related information.
  REQUIRE(d.contains("relatedInformation"));
  CHECK(d["relatedInformation"][0]["location"]["uri"] == kUri);
  CHECK(d["relatedInformation"][0]["location"]["range"]["start"]["line"] == 1);
  // After the edit: clean, at version 2.
  CHECK(s.diagnostics(kUri).empty());
  CHECK(s.reply(99)["result"].is_null());
}

TEST_CASE("positions count UTF-16 code units; edits apply in order") {
  // U+1F600 is 4 bytes and 2 UTF-16 units, U+00E9 2 bytes and 1 unit.
  std::string text = "ab\xF0\x9F\x98\x80" "c\r\n\xC3\xA9x\n";
  LineIndex index(text);
  CHECK(index.position(0) == Position{0, 0});
  CHECK(index.position(6) == Position{0, 4});   // `c` after the emoji
  CHECK(index.position(7) == Position{0, 5});   // the `\r`
  CHECK(index.position(9) == Position{1, 0});
  CHECK(index.position(11) == Position{1, 1});  // `x` after é
  CHECK(index.offset(Position{0, 4}) == 6);
  CHECK(index.offset(Position{0, 3}) == 2);     // inside the pair: its start
  CHECK(index.offset(Position{0, 99}) == 7);    // past the line: before `\r\n`
  CHECK(index.offset(Position{7, 0}) == text.size());
  std::string t = "let a = 1;\nlet b = 2;\n";
  applyChange(t, Position{0, 4}, Position{0, 5}, "alpha");
  applyChange(t, Position{1, 0}, Position{1, 0}, "// x\n");
  applyChange(t, Position{0, 14}, Position{2, 0}, "");  // join the lines
  CHECK(t == "let alpha = 1;let b = 2;\n");
}

TEST_CASE("changes of one message apply as one at a time would, bottom-to-top ones in one pass") {
  // Against applying each in turn (applyChange), on random texts with CRLF,
  // lone CR, two-unit characters and positions past line ends: ranges made
  // bottom to top (one pass), in any order, and past their lines (which
  // must go one at a time).
  uint64_t seed = 12345;
  auto rnd = [&](uint32_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>((seed >> 33) % n);
  };
  const char* pieces[] = {"a", "bc", "\n", "\r\n", "\r", "\xC3\xA9", "\xF0\x9F\x98\x80", "  ", "x;"};
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    for (uint32_t k = rnd(40); k-- > 0;) text += pieces[rnd(9)];
    const uint32_t lines = 1 + static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n')) + 2;
    std::vector<TextChange> changes(1 + rnd(6));
    bool bottomUp = rnd(2) == 0;
    Position last{lines, 0};
    for (TextChange& c : changes) {
      Position a{rnd(lines), rnd(bottomUp ? 3 : 12)}, b{rnd(lines), rnd(12)};
      if (b.line < a.line || (b.line == a.line && b.character < a.character)) std::swap(a, b);
      if (bottomUp) {
        b = a;  // an insertion above the last one
        if (last.line == 0 && last.character == 0) break;
        a = b = Position{std::min(a.line, last.line), a.line < last.line ? a.character : std::min(a.character, last.character)};
        if (rnd(2) == 0 && a.line > 0) a = Position{a.line - 1, rnd(4)};  // a range, not an insertion
        last = a;
      }
      c.start = a;
      c.end = b;
      c.text = pieces[rnd(9)];
    }
    std::string sequential = text, batched = text;
    bool ok = true;
    for (const TextChange& c : changes) ok = ok && applyChange(sequential, c.start, c.end, c.text);
    CHECK(applyChanges(batched, changes) == ok);
    if (ok) CHECK(batched == sequential);
  }
  // A reversed range: nothing applied.
  std::string t = "abc\ndef\n";
  CHECK_FALSE(applyChanges(t, {TextChange{false, {1, 2}, {1, 3}, "X"}, TextChange{false, {0, 2}, {0, 1}, "Y"}}));
  CHECK(t == "abc\ndef\n");
}

TEST_CASE("a lone carriage return ends a line, as the protocol counts lines") {
  // Lines: "a", "b" (after a lone `\r`), "c" (after `\r\n`), "d" (after `\n`).
  std::string text = "a\rb\r\nc\nd";
  LineIndex index(text);
  CHECK(index.position(2) == Position{1, 0});
  CHECK(index.position(5) == Position{2, 0});
  CHECK(index.position(7) == Position{3, 0});
  CHECK(index.offset(Position{1, 0}) == 2);
  CHECK(index.offset(Position{1, 9}) == 3);   // past the line: before its `\r\n`
  CHECK(index.offset(Position{0, 9}) == 1);   // before the lone `\r`
  CHECK(index.offset(Position{3, 1}) == text.size());
  // The editor turns the lone `\r` into `\n`: the server's text follows.
  std::string t = text;
  REQUIRE(applyChange(t, Position{0, 1}, Position{1, 0}, "\n"));
  CHECK(t == "a\nb\r\nc\nd");
}

TEST_CASE("a change whose range ends before it starts is refused, and the text kept") {
  std::string t = "let a = 1;\nlet b = 2;\n";
  CHECK_FALSE(applyChange(t, Position{1, 4}, Position{0, 4}, "x"));
  CHECK(t == "let a = 1;\nlet b = 2;\n");
  Session s = serve(kInit + notify("textDocument/didOpen", open("fn f() -> bool {\n  true\n}\n")) +
                    notify("textDocument/didChange",
                           json{{"textDocument", {{"uri", kUri}, {"version", 2}}},
                                {"contentChanges", json::array({json{{"range", range(1, 0, 0, 0)}, {"text", ""}}})}}) +
                    kBye);
  CHECK(s.codes(kUri).empty());  // `fn f` kept: the change was not applied
  CHECK(s.log.find("ends before it starts") != std::string::npos);
}

TEST_CASE("diagnostic ranges are in UTF-16 units after non-ASCII text") {
  std::string text =
      "fn f() -> bool {\n"
      "  /* \xF0\x9F\x98\x80 */ 1\n"
      "}\n";
  Session s = serve(kInit + notify("textDocument/didOpen", open(text)) + kBye);
  REQUIRE(s.codes(kUri) == std::vector<std::string>{"E0200"});
  // `1` is at byte 13 of its line, after an emoji of 4 bytes and 2 units:
  // character 11.
  CHECK(s.diagnostics(kUri)[0]["range"] == range(1, 11, 1, 12));
}

TEST_CASE("full-text changes replace the document; closing clears its diagnostics") {
  Session s = serve(kInit + notify("textDocument/didOpen", open("fn f() { let x = ; }\n")) +
                    notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", 2}}},
                                                      {"contentChanges", json::array({{{"text", kDropped}}})}}) +
                    notify("textDocument/didClose", {{"textDocument", {{"uri", kUri}}}}) + kBye);
  std::vector<std::vector<std::string>> seen;
  for (const json& m : s.messages)
    if (m.value("method", "") == "textDocument/publishDiagnostics") {
      std::vector<std::string> c;
      for (const json& d : m["params"]["diagnostics"]) c.push_back(d["code"]);
      seen.push_back(c);
    }
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == std::vector<std::string>{"E0001"});
  CHECK(seen[1] == std::vector<std::string>{"W0001", "E6003"});
  CHECK(seen[2].empty());
}

TEST_CASE("quick fixes come from the diagnostics' suggestions") {
  // An immutable binding assigned: E0205 suggests `let mut`.
  std::string text = "fn f() {\n  let x = 1;\n  x = 2;\n  let _y = x;\n}\n";
  Session s1 = serve(kInit + notify("textDocument/didOpen", open(text)) + kBye);
  json diags = s1.diagnostics(kUri);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0]["code"] == "E0205");
  Session s2 = serve(kInit + notify("textDocument/didOpen", open(text)) +
                     request(5, "textDocument/codeAction",
                             {{"textDocument", {{"uri", kUri}}},
                              {"range", diags[0]["range"]},
                              {"context", {{"diagnostics", diags}}}}) +
                     kBye);
  json actions = s2.reply(5)["result"];
  REQUIRE(actions.size() >= 1);
  CHECK(actions[0]["kind"] == "quickfix");
  json edit = actions[0]["edit"]["changes"][kUri][0];
  // Applying the fix makes the file clean.
  std::string fixed = text;
  applyChange(fixed, Position{edit["range"]["start"]["line"], edit["range"]["start"]["character"]},
              Position{edit["range"]["end"]["line"], edit["range"]["end"]["character"]},
              edit["newText"].get<std::string>());
  Session s3 = serve(kInit + notify("textDocument/didOpen", open(fixed)) + kBye);
  CHECK(s3.codes(kUri).empty());
}

TEST_CASE("bad messages get errors and the server keeps serving") {
  std::string input = request(1, "textDocument/codeAction") +  // before initialize
                      kInit +
                      frame("{not json") +                      // parse error
                      "Content-Length: abc\r\n\r\n" +           // bad header: skipped
                      "X-Nothing: 1\r\n\r\n" +                  // no Content-Length: skipped
                      "X-Long: " + std::string(100000, 'a') + "\r\n\r\n" +  // a header line too long
                      frame("[1, 2]") +                         // not an object
                      frame(R"({"jsonrpc":"2.0","id":7,"method":"textDocument/rename","params":{}})") +
                      request(8, "textDocument/codeAction", {{"textDocument", 3}}) +  // wrong params
                      notify("textDocument/didOpen", {{"textDocument", {{"uri", kUri}}}}) +  // no text
                      notify("textDocument/didChange", {{"textDocument", {{"uri", "file:///not-open.vx"}}},
                                                        {"contentChanges", json::array()}}) +
                      frame("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":"
                            "{\"uri\":\"file:///b.vx\",\"text\":\"\\ud800\"}}}") +  // lone surrogate
                      notify("textDocument/didOpen", open(kDropped)) + kBye;
  Session s = serve(input);
  CHECK(s.status == 0);
  CHECK(s.reply(1)["error"]["code"] == -32002);
  CHECK(s.reply(7)["error"]["code"] == -32601);
  CHECK(s.reply(8)["error"]["code"] == -32602);
  int parseErrors = 0, invalid = 0;
  for (const json& m : s.messages)
    if (m.contains("error") && m["id"].is_null()) {
      parseErrors += m["error"]["code"] == -32700;
      invalid += m["error"]["code"] == -32600;
    }
  CHECK(parseErrors == 2);
  CHECK(invalid == 1);
  CHECK(s.log.find("`Content-Length` is not a number") != std::string::npos);
  CHECK(s.log.find("without `Content-Length`") != std::string::npos);
  CHECK(s.log.find("a header line of more than 8 KiB") != std::string::npos);
  CHECK(s.log.find("missing `text`") != std::string::npos);
  CHECK(s.log.find("is not open") != std::string::npos);
  // Still serving: the last document got its diagnostics.
  CHECK(s.codes(kUri) == std::vector<std::string>{"W0001", "E6003"});
}

TEST_CASE("a bad header line beside a valid Content-Length is ignored, and the message is read") {
  std::string body = json{{"jsonrpc", "2.0"}, {"id", 5}, {"method", "shutdown"}}.dump();
  std::string input = kInit +
                      // A line without `:`, then the message it belongs to.
                      "Content-Length: " +
                      std::to_string(json{{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"},
                                          {"params", open(kDropped)}}.dump().size()) +
                      "\r\nno colon here\r\n\r\n" +
                      json{{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"}, {"params", open(kDropped)}}.dump() +
                      // A header line over 8 KiB beside a valid length.
                      "X-Long: " + std::string(100000, 'a') + "\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body + notify("exit");
  Session s = serve(input);
  CHECK(s.status == 0);  // the shutdown after the long line was read
  CHECK(s.reply(5).contains("result"));
  CHECK(s.log.find("ignored a header line without `:`") != std::string::npos);
  CHECK(s.log.find("ignored a header line of more than 8 KiB") != std::string::npos);
  // The document opened by the message with the bad line got its diagnostics.
  CHECK(s.codes(kUri) == std::vector<std::string>{"W0001", "E6003"});
}

TEST_CASE("two Content-Length headers that disagree cost their own message only") {
  std::string body = json{{"jsonrpc", "2.0"}, {"id", 5}, {"method", "shutdown"}}.dump();
  std::string input = kInit + "Content-Length: 17\r\nContent-Length: 3\r\n\r\n{\"jsonrpc\":\"2.0\"}" +
                      "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body + notify("exit");
  Session s = serve(input);
  CHECK(s.status == 0);
  CHECK(s.reply(5).contains("result"));  // the next request is answered
  CHECK(s.log.find("two `Content-Length` headers that disagree (17 and 3)") != std::string::npos);
}

TEST_CASE("a Content-Length that is no number costs its own message only, not the ones after it") {
  // Its body, which cannot be delimited, runs on into the next message's
  // first header line (`{}Content-Length: ...`): the next message starts
  // there.
  std::string body = json{{"jsonrpc", "2.0"}, {"id", 5}, {"method", "shutdown"}}.dump();
  // 2^63 and 2^40 + 1 are numbers no message has: read as a length, the
  // rest of the session was dropped as its body.
  for (std::string bad : {"-5", "abc", "+2", "18446744073709551616", "1e3", "9223372036854775808", "1099511627777"}) {
    std::string input = kInit + "Content-Length: " + bad + "\r\n\r\n{\"jsonrpc\":\"2.0\"}" +
                        notify("textDocument/didOpen", open(kDropped)) + "Content-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + body + notify("exit");
    Session s = serve(input);
    CHECK(s.status == 0);
    CHECK(s.reply(5).contains("result"));
    CHECK(s.log.find("`Content-Length` is not a number") != std::string::npos);
    CHECK(s.codes(kUri) == std::vector<std::string>{"W0001", "E6003"});
  }
}

TEST_CASE("an unknown or null initializationOptions.target keeps the session on the default target") {
  for (json target : {json(nullptr), json("nope"), json(3)}) {
    std::string input = request(1, "initialize", {{"capabilities", json::object()},
                                                  {"initializationOptions", {{"target", target}}}}) +
                        notify("initialized") + notify("textDocument/didOpen", open(kDropped)) + kBye;
    Session s = serve(input);
    CHECK(s.status == 0);
    CHECK(s.reply(1).contains("result"));
    CHECK(s.codes(kUri) == std::vector<std::string>{"W0001", "E6003"});
    if (!target.is_null()) CHECK(s.log.find("ignored") != std::string::npos);
  }
}

TEST_CASE("exit without shutdown, or the end of the input, is status 1") {
  CHECK(serve(kInit + notify("exit")).status == 1);
  CHECK(serve(kInit).status == 1);
  CHECK(serve("").status == 1);
  // A truncated body ends the session cleanly.
  CHECK(serve(kInit + "Content-Length: 100\r\n\r\n{\"jsonrpc\"").status == 1);
}

TEST_CASE("requests after shutdown are refused; the target comes from initializationOptions") {
  Session s = serve(request(2, "initialize", {{"initializationOptions", {{"target", "tpu"}}}}) +
                    notify("initialized") + request(3, "shutdown") + request(4, "shutdown") + notify("exit"));
  CHECK(s.reply(2)["result"]["capabilities"].is_object());
  CHECK(s.log.find("ignored") == std::string::npos);  // a known target is taken
  CHECK(s.reply(4)["error"]["code"] == -32600);
  CHECK(s.status == 0);
}

TEST_CASE("typed edits that queue up are all applied and checked once") {
  // `  wait(t);` typed a character at a time, each a didChange: the queued
  // changes are applied in order and only the last version is checked.
  std::string typed = "  wait(t);\n", input = kInit + notify("textDocument/didOpen", open(kDropped));
  for (size_t i = 0; i < typed.size(); ++i) {
    Position at{2, static_cast<uint32_t>(i)};
    input += notify("textDocument/didChange",
                    {{"textDocument", {{"uri", kUri}, {"version", static_cast<int>(i) + 2}}},
                     {"contentChanges", json::array({{{"range", range(at.line, at.character, at.line, at.character)},
                                                      {"text", std::string(1, typed[i])}}})}});
  }
  ServerOptions coalesce;
  coalesce.coalesce = true;
  Session s = serve(input + kBye, coalesce);
  int published = 0;
  json last;
  for (const json& m : s.messages)
    if (m.value("method", "") == "textDocument/publishDiagnostics") {
      ++published;
      last = m["params"];
    }
  // All input was queued from the start: one check, before the shutdown reply.
  CHECK(published == 1);
  CHECK(last["version"] == static_cast<int>(typed.size()) + 1);
  CHECK(last["diagnostics"].empty());
  // Without coalescing, every version is checked.
  Session each = serve(input + kBye);
  int every = 0;
  for (const json& m : each.messages) every += m.value("method", "") == "textDocument/publishDiagnostics";
  CHECK(every == static_cast<int>(typed.size()) + 1);
  CHECK(each.diagnostics(kUri).empty());
}
