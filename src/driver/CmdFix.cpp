// `vxc fix FILE...`: applies the machine-applicable suggestions of the
// checker's diagnostics to the file, as `cargo fix` does, then reports what
// is left. docs/fix.md.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "base/Text.h"
#include "driver/Args.h"
#include "driver/Commands.h"
#include "driver/Fixes.h"
#include "driver/Pipeline.h"

namespace vx::driver {

namespace {

const char* kFixHelp =
    "Usage: vxc fix [options] FILE...\n"
    "\n"
    "Applies the machine-applicable suggestions of the checker's diagnostics (for example\n"
    "the `wait(t);` that E6003 suggests) to each FILE in place, checks again and repeats\n"
    "while fixes apply, then prints the diagnostics that are left. A file with syntax\n"
    "errors is left alone. A fix is applied only when the file checked with it alone\n"
    "has its diagnostic gone and no new one; a round of fixes that together would add\n"
    "an error is not applied.\n"
    "The file is replaced atomically (written beside it, then renamed); a symbolic link's\n"
    "target is fixed, and a file with other hard links is rewritten in place.\n"
    "Exit status: 0 the files check clean (or warnings only), 1 errors remain,\n"
    "2 usage or internal error.\n"
    "\n"
    "Options:\n"
    "  --target=cpu|tpu|b200|h100      target whose builtins and memories apply (default cpu)\n"
    "  --dry-run                       print the fixes as a diff and the diagnostics the fixed\n"
    "                                  file would have; change no file\n"
    "  --error-format=human|json|sarif diagnostics format (default human)\n"
    "  --color=auto|always|never       colours in human output (default auto: on a tty)\n"
    "  -D NAME, -W NAME, -A NAME        deny, warn about or allow a lint\n";

// Parse-phase codes: a file that does not parse is not changed.
bool syntaxError(const diag::Diagnostic& d) {
  std::string c = d.code();
  return d.severity() == diag::Severity::Error && (c == "E0001" || c == "E0002" || c == "E0003");
}

struct Checked {
  base::SourceMap sources;
  diag::Sink sink;
  base::FileId id{};
};

void checkText(const std::string& path, const std::string& text, const CheckOptions& opts, Checked& out) {
  out.id = out.sources.add(path, text);
  checkFile(out.sources, out.id, out.sink, opts);  // lint levels applied
}

struct Edit {
  uint32_t begin, end;
  std::string replacement;
  std::string code;
  bool first = true;  // the first edit of its suggestion (counts the fix)
};

// Whether two edits cannot both be applied in a defined order.
bool conflict(uint32_t b1, uint32_t e1, uint32_t b2, uint32_t e2) {
  if (b1 == e1 && b2 == e2) return b1 == b2;      // two insertions at one point
  if (b1 == e1) return b2 < b1 && b1 < e2;        // an insertion inside a replacement
  if (b2 == e2) return b1 < b2 && b2 < e1;
  return b1 < e2 && b2 < e1;                      // overlapping replacements
}

// The machine-applicable suggestions in `file` as edits, in order, without
// overlaps: a suggestion's edits go in all together or not at all, and the
// first of two overlapping suggestions wins (the next round sees the other
// again, if it still applies). The same fix twice is applied once.
// Only suggestions that, applied alone, remove their diagnostic and add
// none (fixIsSafe) are kept.
std::string applyEdits(const std::string& text, const std::vector<Edit>& edits);
std::vector<Edit> collectEdits(const Checked& c, const std::string& path, const std::string& text,
                               const CheckOptions& opts, const std::vector<std::pair<std::string, unsigned>>& before,
                               bool verify, std::set<std::string>* unsafe = nullptr);

std::vector<Edit> editsOf(const Checked& c, const std::string& path, const std::string& text,
                          const CheckOptions& opts, std::set<std::string>& unsafe) {
  std::vector<std::pair<std::string, unsigned>> before = diagnosticCounts(c.sink);
  // First all of them at once, checked once: when together they remove one
  // diagnostic of its code per fix and add none, each is safe enough (a
  // check per fix made 1,000 fixes take 7 s); else each alone (fixIsSafe).
  std::vector<Edit> all = collectEdits(c, path, text, opts, before, false);
  if (!all.empty()) {
    std::map<std::string, unsigned> fixes;
    for (const Edit& e : all)
      if (e.first) ++fixes[e.code];
    Checked together;
    checkText(path, applyEdits(text, all), opts, together);
    std::map<std::string, unsigned> was(before.begin(), before.end()), now;
    for (const auto& [code, n] : diagnosticCounts(together.sink)) now[code] = n;
    bool fine = true;
    for (const auto& [code, n] : now)
      fine = fine && (code == "E0206" || n <= (was.count(code) ? was[code] : 0));
    for (const auto& [code, n] : fixes)
      fine = fine && (now.count(code) ? now[code] : 0) + n <= was[code];
    if (fine) return all;
  }
  return collectEdits(c, path, text, opts, before, true, &unsafe);
}

std::vector<Edit> collectEdits(const Checked& c, const std::string& path, const std::string& text,
                               const CheckOptions& opts, const std::vector<std::pair<std::string, unsigned>>& before,
                               bool verify, std::set<std::string>* unsafe) {
  std::vector<Edit> kept;
  std::set<std::tuple<uint32_t, uint32_t, std::string>> seen;
  for (const diag::Diagnostic& d : c.sink.diagnostics())
    for (const diag::Suggestion& s : d.suggestions) {
      if (s.applicability != diag::Applicability::MachineApplicable) continue;
      bool here = true;
      for (const diag::SuggestionPart& p : s.parts()) here = here && p.span.file == c.id;
      if (!here) continue;
      if (verify && !fixIsSafe(path, text, fixEdits(s), d.code(), before, opts)) {
        if (unsafe) unsafe->insert(d.code());
        continue;
      }
      std::vector<diag::SuggestionPart> parts = s.parts();
      bool ok = true, dup = true;
      for (const diag::SuggestionPart& p : parts) {
        ok = ok && p.span.file == c.id && p.span.begin <= p.span.end;
        dup = dup && seen.count({p.span.begin, p.span.end, p.replacement});
        for (const Edit& k : kept) ok = ok && !conflict(p.span.begin, p.span.end, k.begin, k.end);
      }
      if (!ok || dup) continue;
      for (size_t i = 0; i < parts.size(); ++i) {
        const diag::SuggestionPart& p = parts[i];
        seen.insert({p.span.begin, p.span.end, p.replacement});
        kept.push_back(Edit{p.span.begin, p.span.end, p.replacement, d.code(), i == 0});
      }
    }
  // By position; at one point an insertion goes before a replacement that
  // starts there.
  std::stable_sort(kept.begin(), kept.end(),
                   [](const Edit& a, const Edit& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  return kept;
}

std::string applyEdits(const std::string& text, const std::vector<Edit>& edits) {
  std::string out;
  uint32_t at = 0;
  for (const Edit& e : edits) {
    if (e.begin < at || e.end > text.size()) continue;  // cannot happen: editsOf keeps them apart
    out.append(text, at, e.begin - at);
    out += base::withLineEnds(e.replacement, text, e.begin);  // CRLF in a CRLF file
    at = e.end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

// The errors a fix must not add. E0206 (what the target cannot build) is
// left out: `vxc check` reports it only once the ownership checker finds no
// error, so fixing the last ownership error can uncover it, which is not
// the fix's doing.
std::multiset<std::string> errorsOf(const diag::Sink& s) {
  std::multiset<std::string> codes;
  for (const diag::Diagnostic& d : s.diagnostics())
    if (d.severity() == diag::Severity::Error && std::string(d.code()) != "E0206") codes.insert(d.code());
  return codes;
}

// Writes `text` to `path` atomically, keeping the file's permissions. A
// symbolic link's target is written (the link stays a link); a file with
// other hard links is rewritten in place, so that they all see the fix.
std::string writeAtomically(const std::string& given, const std::string& text) {
  std::error_code ec0;
  std::filesystem::path resolved = std::filesystem::canonical(given, ec0);
  const std::string path = ec0 ? given : resolved.string();
  // Only a regular file the user may write is rewritten: a read-only file
  // (which a rename over it would replace, the folder being writable) and
  // a pipe or a device (which it would turn into a regular file) are not.
  if (struct stat fs {}; stat(path.c_str(), &fs) == 0) {
    if (!S_ISREG(fs.st_mode)) return "cannot write `" + given + "`: not a regular file";
    if (access(path.c_str(), W_OK) != 0)
      return "cannot write `" + given + "`: " + std::string(std::strerror(errno)) + " (fixes are written in place)";
  }
  if (struct stat ls {}; stat(path.c_str(), &ls) == 0 && ls.st_nlink > 1) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    return f ? std::string() : "cannot write `" + given + "`";
  }
  std::string tmp = path + ".vxfix." + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.close();
    if (!f) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      return "cannot write `" + tmp + "`";
    }
  }
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) chmod(tmp.c_str(), st.st_mode & 07777);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    return "cannot replace `" + path + "`";
  }
  return {};
}

// A unified-style diff of whole lines, for --dry-run.
std::string lineDiff(const std::string& path, const std::string& a, const std::string& b) {
  auto split = [](const std::string& s) {
    std::vector<std::string> v;
    size_t from = 0;
    for (size_t nl; (nl = s.find('\n', from)) != std::string::npos; from = nl + 1) v.push_back(s.substr(from, nl - from));
    if (from < s.size()) v.push_back(s.substr(from));
    return v;
  };
  std::vector<std::string> x = split(a), y = split(b);
  // Longest common subsequence (files a user fixes are small enough).
  size_t n = x.size(), m = y.size();
  if (n * m > 50'000'000) return "--- " + path + "\n+++ " + path + "\n(too large to show)\n";
  std::vector<std::vector<uint32_t>> L(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;) L[i][j] = x[i] == y[j] ? L[i + 1][j + 1] + 1 : std::max(L[i + 1][j], L[i][j + 1]);
  std::string out = "--- " + path + "\n+++ " + path + " (fixed)\n";
  size_t i = 0, j = 0;
  bool inHunk = false;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] == y[j]) {
      ++i;
      ++j;
      inHunk = false;
      continue;
    }
    if (!inHunk) out += "@@ line " + std::to_string(i + 1) + " @@\n";
    inHunk = true;
    if (j < m && (i == n || L[i][j + 1] >= L[i + 1][j])) {
      out += "+" + y[j] + "\n";
      ++j;
    } else {
      out += "-" + x[i] + "\n";
      ++i;
    }
  }
  return out;
}

}  // namespace

int cmdFix(const std::vector<std::string>& args) {
  ParsedArgs a = parseArgs("fix", args,
                           {{"--help", false, {}},
                            {"--target", true, targetNames()},
                            {"--dry-run", false, {}},
                            {"--error-format", true, {"human", "json", "sarif"}},
                            {"--color", true, {"auto", "always", "never"}},
                            {"-D", true, {}},
                            {"-W", true, {}},
                            {"-A", true, {}}});
  if (!a.error.empty()) return usageError(a.error);
  if (a.has("--help")) {
    std::fputs(kFixHelp, stdout);
    return 0;
  }
  std::string lintError;
  diag::LintOptions lints = lintOptions(a, lintError);
  if (!lintError.empty()) return usageError(lintError);
  if (a.positional.empty()) return usageError("`vxc fix` needs at least one file");
  CheckOptions opts;
  opts.lints = lints;
  opts.target = a.get("--target", "cpu");
  std::string fmt = a.get("--error-format", "human");
  Format format = fmt == "json" ? Format::Json : fmt == "sarif" ? Format::Sarif : Format::Human;
  std::string color = a.get("--color", "auto");
  bool useColor = color == "always" || (color == "auto" && isatty(STDERR_FILENO));
  bool dryRun = a.has("--dry-run");

  bool errors = false;
  // SARIF: one log on stdout for all the files (each file's results merged
  // into the first's run), and a dry run's diffs on stderr beside it.
  nlohmann::json sarif;
  auto emit = [&](diag::Sink& sink, const base::SourceMap& sources) {
    std::string rendered = renderAll(sink, sources, format, useColor);
    if (format != Format::Sarif) {
      std::fputs(rendered.c_str(), stderr);
      return;
    }
    nlohmann::json log = nlohmann::json::parse(rendered);
    if (sarif.is_null())
      sarif = std::move(log);
    else
      for (auto& result : log["runs"][0]["results"]) sarif["runs"][0]["results"].push_back(std::move(result));
  };
  auto flushSarif = [&] {
    if (!sarif.is_null()) std::fputs((sarif.dump(2) + "\n").c_str(), stdout);
  };
  for (const std::string& path : a.positional) {
    base::ReadResult r = base::readFile(path);
    if (!r.error.empty()) {
      flushSarif();
      return usageError(r.error);
    }
    const std::string original = r.text;
    auto last = std::make_unique<Checked>();
    checkText(path, original, opts, *last);
    bool broken = false;
    for (const diag::Diagnostic& d : last->sink.diagnostics()) broken = broken || syntaxError(d);
    if (broken) {
      emit(last->sink, last->sources);
      std::fprintf(stderr, "error: `%s` has syntax errors; `vxc fix` changes only files that parse\n", path.c_str());
      errors = true;
      continue;
    }
    // Rounds: apply every fix, check again; a fix may enable another (a
    // second token dropped at the same `}`). A round that adds an error is
    // left out, and fixing stops there.
    std::string text = original;
    std::map<std::string, unsigned> applied;
    std::string refused;
    std::set<std::string> unsafe;  // codes whose fix, alone, would add an error
    for (int round = 0; round < 8; ++round) {
      std::vector<Edit> edits = editsOf(*last, path, text, opts, unsafe);
      if (edits.empty()) break;
      std::string next = applyEdits(text, edits);
      if (next == text) break;
      auto again = std::make_unique<Checked>();
      checkText(path, next, opts, *again);
      std::multiset<std::string> before = errorsOf(last->sink), after = errorsOf(again->sink);
      bool worse = after.size() > before.size();
      for (const std::string& c : after) worse = worse || after.count(c) > before.count(c);
      if (worse) {
        std::set<std::string> codes;
        for (const Edit& e : edits) codes.insert(e.code);
        for (const std::string& c : codes) refused += (refused.empty() ? "" : ", ") + c;
        break;
      }
      for (const Edit& e : edits)
        if (e.first) ++applied[e.code];
      text = std::move(next);
      last = std::move(again);
    }
    if (text != original) {
      unsigned count = 0;
      std::string codes;
      for (const auto& [code, n] : applied) {
        count += n;
        codes += (codes.empty() ? "" : ", ") + code + (n > 1 ? " x" + std::to_string(n) : "");
      }
      if (dryRun) {
        std::fputs(lineDiff(path, original, text).c_str(), format == Format::Sarif ? stderr : stdout);
      } else if (std::string e = writeAtomically(path, text); !e.empty()) {
        flushSarif();
        return usageError(e);
      }
      std::fprintf(stderr, "%s `%s`: %u fix%s (%s)\n", dryRun ? "would fix" : "fixed", path.c_str(), count,
                   count == 1 ? "" : "es", codes.c_str());
    }
    if (!refused.empty())
      std::fprintf(stderr, "note: the fixes for %s were not applied: they would add an error\n", refused.c_str());
    // A fix left out because, alone, it would add an error (making `y`
    // `mut` uncovers a token dropped): said, not silently skipped.
    for (const auto& [code, n] : applied) unsafe.erase(code);
    if (!unsafe.empty()) {
      std::string codes;
      for (const std::string& c : unsafe) codes += (codes.empty() ? "" : ", ") + c;
      std::fprintf(stderr,
                   "note: the suggested fix for %s was not applied: applied alone it would add an error; apply it by "
                   "hand and fix what it uncovers\n",
                   codes.c_str());
    }
    emit(last->sink, last->sources);
    errors = errors || last->sink.hasErrors();
  }
  flushSarif();
  return errors ? 1 : 0;
}

}  // namespace vx::driver
