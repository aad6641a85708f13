// Frontend benchmark: throughput and peak memory of vxc's parser (AST
// included), of the front end through type checking, of the whole `vxc check`
// pipeline, and of the ANTLR reference parser alone (no AST; the path of
// chunks the fast parser gives back), on one file.
//
//   vx_bench_frontend FILE [--runs N] [--budget S] [--check-budget S] [--no-mem]
//   vx_bench_frontend --mode=lexparse|parse|types|check [--prefix N] FILE   (memory probe)
//
// Throughput is lines/s of the median warm run (ANTLR's DFA caches are
// process-wide, so every run after the first is warm); warm runs stop after N
// runs or S seconds. `check` runs the whole pipeline, including the ownership
// checker and its solver, which is far slower per line than parsing: when the
// file would take longer than the check budget, check is measured on a prefix
// of the file (whole top-level items) sized to fit, and the output says so.
// Memory is measured in a fresh child per mode: its peak RSS (VmHWM) after one
// run, minus its RSS before it read the file, divided by the lines it read.
// The last line of the output is `RESULT key=value ...` for bench/frontend.sh.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "ast/Ast.h"
#include "base/Source.h"
#include "diag/Render.h"
#include "diag/Sink.h"
#include "driver/Pipeline.h"
#include "parse/Parse.h"

namespace {

using Clock = std::chrono::steady_clock;

// A field of /proc/self/status in bytes (the kernel writes kB).
long statusBytes(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  size_t n = std::strlen(field);
  while (std::getline(in, line))
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
      return std::atol(line.c_str() + n + 1) * 1024;
  return -1;
}

std::string readAll(const std::string& path) {
  vx::base::ReadResult r = vx::base::readFile(path);
  if (!r.error.empty()) {
    std::fprintf(stderr, "vx_bench_frontend: %s\n", r.error.c_str());
    std::exit(2);
  }
  return std::move(r.text);
}

uint64_t countLines(const std::string& text) {
  uint64_t n = static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n'));
  return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

// The first `lines` lines, cut back to the end of the last top-level item
// (a line that is exactly `}`), so the prefix is still a valid program.
std::string prefixOf(const std::string& text, uint64_t lines) {
  size_t end = 0;
  for (uint64_t i = 0; i < lines && end < text.size(); ++i) {
    size_t nl = text.find('\n', end);
    end = nl == std::string::npos ? text.size() : nl + 1;
  }
  if (end >= text.size()) return text;
  size_t item = text.rfind("\n}\n", end - 1);
  if (item != std::string::npos && item + 3 <= end) end = item + 3;
  return text.substr(0, end);
}

enum class Mode { LexParse, Parse, Types, Check };

// One run on a fresh SourceMap/Sink, as `vxc check` does it. Copying `text`
// into the map is outside the timed region; tearing down what the run built
// is inside it.
struct Run {
  double seconds = 0;
  unsigned diagnostics = 0;
  std::string shown;  // the first diagnostics, rendered, when asked
};

Run runOnce(Mode mode, const std::string& path, const std::string& text,
            vx::parse::ParseStats* stats = nullptr, bool render = false) {
  vx::base::SourceMap sources;
  vx::base::FileId file = sources.add(path, text);
  vx::diag::Sink sink;
  Run r;
  auto t0 = Clock::now();
  switch (mode) {
    case Mode::LexParse:
      vx::parse::lexAndParseOnly(sources, file, sink);
      break;
    case Mode::Parse: {
      vx::ast::Interner names;
      vx::ast::Module m = vx::parse::parseFile(sources, file, names, sink, {}, stats);
      (void)m;
      break;
    }
    case Mode::Types: {
      vx::driver::CheckOptions o;
      o.stopAfterTypes = true;
      vx::driver::checkFile(sources, file, sink, o);
      break;
    }
    case Mode::Check:
      vx::driver::checkFile(sources, file, sink, vx::driver::CheckOptions{});
      break;
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.diagnostics = sink.errorCount() + sink.warningCount();
  if (render) {
    const auto& ds = sink.diagnostics();
    for (size_t i = 0; i < ds.size() && i < 3; ++i)
      r.shown += vx::diag::renderHuman(ds[i], sources, false) + "\n";
  }
  return r;
}

struct Timing {
  double cold = 0;
  double median = 0;
  double best = 0;
  int warmRuns = 0;
};

// One cold run, then warm runs until `runs` of them or `budget` seconds.
Timing timeMode(Mode mode, const char* name, const std::string& path, const std::string& text,
                int runs, double budget) {
  Timing t;
  Run first = runOnce(mode, path, text, nullptr, /*render=*/true);
  if (first.diagnostics > 0)
    std::fprintf(stderr, "warning: %s reported %u diagnostic(s); figures are not meaningful:\n%s\n",
                 name, first.diagnostics, first.shown.c_str());
  t.cold = first.seconds;
  std::vector<double> warm;
  double spent = 0;
  while (static_cast<int>(warm.size()) < runs && (warm.empty() || spent < budget)) {
    warm.push_back(runOnce(mode, path, text).seconds);
    spent += warm.back();
  }
  std::sort(warm.begin(), warm.end());
  t.median = warm[warm.size() / 2];
  t.best = warm.front();
  t.warmRuns = static_cast<int>(warm.size());
  return t;
}

// Child side of the memory probe: prints the peak RSS growth in bytes.
int probe(Mode mode, const std::string& path, uint64_t prefix) {
  long baseline = statusBytes("VmRSS");
  std::string text = readAll(path);
  if (prefix > 0) text = prefixOf(text, prefix);
  vx::base::SourceMap sources;
  vx::base::FileId file = sources.add(path, std::move(text));
  vx::diag::Sink sink;
  vx::ast::Interner names;
  switch (mode) {
    case Mode::LexParse:
      vx::parse::lexAndParseOnly(sources, file, sink);
      break;
    case Mode::Parse: {
      // Read while the AST is alive: it is what later phases get.
      vx::ast::Module m = vx::parse::parseFile(sources, file, names, sink);
      std::printf("%ld\n", statusBytes("VmHWM") - baseline);
      return 0;
    }
    case Mode::Types: {
      vx::driver::CheckOptions o;
      o.stopAfterTypes = true;
      vx::driver::checkFile(sources, file, sink, o);
      break;
    }
    case Mode::Check:
      vx::driver::checkFile(sources, file, sink, vx::driver::CheckOptions{});
      break;
  }
  std::printf("%ld\n", statusBytes("VmHWM") - baseline);
  return 0;
}

// Runs this executable again with --mode=<mode> and reads the probe's answer.
long peakInChild(const char* mode, const std::string& path, uint64_t prefix) {
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return -1;
  self[len] = '\0';
  int fds[2];
  if (pipe(fds) != 0) return -1;
  std::string flag = std::string("--mode=") + mode, pre = std::to_string(prefix);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execl(self, self, flag.c_str(), "--prefix", pre.c_str(), path.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[256];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || out.empty()) {
    std::fprintf(stderr, "warning: memory probe --mode=%s failed (status %d)\n", mode, status);
    return -1;
  }
  return std::atol(out.c_str());
}

bool parseMode(const std::string& s, Mode& m) {
  if (s == "lexparse") m = Mode::LexParse;
  else if (s == "parse") m = Mode::Parse;
  else if (s == "types") m = Mode::Types;
  else if (s == "check") m = Mode::Check;
  else return false;
  return true;
}

int usage() {
  std::fprintf(stderr,
               "usage: vx_bench_frontend FILE [--runs N] [--budget S] [--check-budget S] "
               "[--no-mem]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  int runs = 10;
  double budget = 3, checkBudget = 60;
  bool mem = true, probeMode = false;
  Mode mode = Mode::Check;
  uint64_t prefix = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool more = i + 1 < argc;
    if (a.rfind("--mode=", 0) == 0) {
      if (!parseMode(a.substr(7), mode)) return usage();
      probeMode = true;
    } else if (a == "--prefix" && more) {
      prefix = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--runs" && more) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--budget" && more) {
      budget = std::atof(argv[++i]);
    } else if (a == "--check-budget" && more) {
      checkBudget = std::atof(argv[++i]);
    } else if (a == "--no-mem") {
      mem = false;
    } else if (!a.empty() && a[0] != '-' && path.empty()) {
      path = a;
    } else {
      return usage();
    }
  }
  if (path.empty()) return usage();
  if (probeMode) return probe(mode, path, prefix);

  std::string text = readAll(path);
  uint64_t lines = countLines(text);

  // parse+AST goes first so that its first run is the process's cold one.
  Timing pa = timeMode(Mode::Parse, "parse+AST", path, text, runs, budget);
  Timing lp = timeMode(Mode::LexParse, "ANTLR ref", path, text, runs, budget);
  Timing ty = timeMode(Mode::Types, "types", path, text, runs, budget);

  // Calibrate check on up to 1000 lines; a cold run and a warm run of the
  // measured text must fit the check budget.
  std::string calib = prefixOf(text, 1000);
  double calibSecs = runOnce(Mode::Check, path, calib).seconds;
  double checkLps = static_cast<double>(countLines(calib)) / std::max(calibSecs, 1e-9);
  uint64_t checkPrefix = 0;  // 0: the whole file
  if (static_cast<double>(lines) / checkLps * 2 > checkBudget)
    checkPrefix = std::max<uint64_t>(1000, static_cast<uint64_t>(checkLps * checkBudget / 2));
  if (checkPrefix >= lines) checkPrefix = 0;
  std::string checkText = checkPrefix ? prefixOf(text, checkPrefix) : text;
  uint64_t checkLines = countLines(checkText);
  Timing ck = timeMode(Mode::Check, "check", path, checkText, runs, budget);

  vx::parse::ParseStats stats;
  runOnce(Mode::Parse, path, text, &stats);

  long memLp = -1, memPa = -1, memTy = -1, memCk = -1;
  if (mem) {
    memLp = peakInChild("lexparse", path, 0);
    memPa = peakInChild("parse", path, 0);
    memTy = peakInChild("types", path, 0);
    memCk = peakInChild("check", path, checkPrefix ? checkLines : 0);
  }

  auto rate = [](uint64_t n, double s) { return s > 0 ? static_cast<double>(n) / s : 0.0; };
  auto perLine = [](long b, uint64_t n) {
    return b < 0 ? -1.0 : static_cast<double>(b) / static_cast<double>(n);
  };
  std::printf("file        %s\n", path.c_str());
  std::printf("lines       %llu  (%zu bytes)\n", static_cast<unsigned long long>(lines), text.size());
  std::printf("chunks      %u   tokens %llu   given to ANTLR %u   SLL->LL fallbacks %u\n",
              stats.chunks, static_cast<unsigned long long>(stats.tokens), stats.antlrChunks,
              stats.llFallbacks);
  std::printf("cold        parse+AST %.0f lines/s (first parse in the process)\n",
              rate(lines, pa.cold));
  if (checkPrefix)
    std::printf("check       on the first %llu lines only (whole file: ~%.0f s at %.0f lines/s)\n",
                static_cast<unsigned long long>(checkLines), static_cast<double>(lines) / checkLps,
                checkLps);
  std::printf("%-10s %6s %14s %14s %14s\n", "mode", "runs", "warm lines/s", "best lines/s",
              "bytes/line");
  auto row = [&](const char* name, const Timing& t, uint64_t n, long m) {
    std::printf("%-10s %6d %14.0f %14.0f %14.1f\n", name, t.warmRuns, rate(n, t.median),
                rate(n, t.best), perLine(m, n));
  };
  row("ANTLR ref", lp, lines, memLp);
  row("parse+AST", pa, lines, memPa);
  row("+types", ty, lines, memTy);
  row("check", ck, checkLines, memCk);
  std::printf(
      "RESULT lines=%llu cold_lps=%.0f antlr_lps=%.0f parse_lps=%.0f types_lps=%.0f check_lps=%.0f "
      "check_lines=%llu antlr_bpl=%.1f parse_bpl=%.1f types_bpl=%.1f check_bpl=%.1f chunks=%u tokens=%llu "
      "antlr_chunks=%u fallbacks=%u\n",
      static_cast<unsigned long long>(lines), rate(lines, pa.cold), rate(lines, lp.median),
      rate(lines, pa.median), rate(lines, ty.median), rate(checkLines, ck.median),
      static_cast<unsigned long long>(checkLines), perLine(memLp, lines), perLine(memPa, lines),
      perLine(memTy, lines), perLine(memCk, checkLines), stats.chunks, static_cast<unsigned long long>(stats.tokens),
      stats.antlrChunks, stats.llFallbacks);
  return 0;
}
