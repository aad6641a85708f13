// Frontend benchmark: throughput and peak memory of lexing+parsing, of the
// parser with AST building, and of the whole `vxc check` pipeline on one file.
//
//   vx_bench_frontend FILE [--runs N] [--no-mem]
//   vx_bench_frontend --mode=lexparse|parse|check FILE   (memory probe, internal)
//
// Throughput is lines/s of the median warm run (ANTLR's DFA caches are
// process-wide, so every run after the first is warm). Memory is measured in
// a fresh child per mode: its peak RSS (VmHWM) after one run, minus its RSS
// before it read the file, divided by the file's lines. The last line of the
// output is `RESULT key=value ...` for bench/frontend.sh.
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

// One pipeline run on a fresh SourceMap/Sink, as `vxc check` does it.
// `text` is copied into the map outside the timed region.
struct Run {
  double seconds = 0;
  unsigned errors = 0;
  std::string firstErrors;  // rendered diagnostics, when there were errors
};

enum class Mode { LexParse, Parse, Check };

Run runOnce(Mode mode, const std::string& path, const std::string& text,
            vx::parse::ParseStats* stats = nullptr) {
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
    case Mode::Check:
      vx::driver::checkFile(sources, file, sink, vx::driver::CheckOptions{});
      break;
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.errors = sink.errorCount() + sink.warningCount();
  if (r.errors > 0) {
    r.firstErrors = vx::driver::renderAll(sink, sources, vx::driver::Format::Human, false);
    if (r.firstErrors.size() > 2000) r.firstErrors.resize(2000);
  }
  return r;
}

struct Timing {
  double cold = 0;
  double median = 0;
  double best = 0;
};

Timing timeMode(Mode mode, const char* name, const std::string& path, const std::string& text,
                int runs) {
  Timing t;
  Run first = runOnce(mode, path, text);
  if (first.errors > 0)
    std::fprintf(stderr, "warning: %s reported %u diagnostic(s); figures are not meaningful:\n%s\n",
                 name, first.errors, first.firstErrors.c_str());
  t.cold = first.seconds;
  std::vector<double> warm;
  for (int i = 0; i < runs; ++i) warm.push_back(runOnce(mode, path, text).seconds);
  std::sort(warm.begin(), warm.end());
  t.median = warm[warm.size() / 2];
  t.best = warm.front();
  return t;
}

// Child side of the memory probe: prints the peak RSS growth in bytes.
int probe(Mode mode, const std::string& path) {
  long baseline = statusBytes("VmRSS");
  std::string text = readAll(path);
  {
    vx::base::SourceMap sources;
    vx::base::FileId file = sources.add(path, std::move(text));
    vx::diag::Sink sink;
    vx::ast::Interner names;
    switch (mode) {
      case Mode::LexParse:
        vx::parse::lexAndParseOnly(sources, file, sink);
        break;
      case Mode::Parse: {
        vx::ast::Module m = vx::parse::parseFile(sources, file, names, sink);
        // Peak is read while the AST is alive: it is what later phases get.
        std::printf("%ld\n", statusBytes("VmHWM") - baseline);
        return 0;
      }
      case Mode::Check:
        vx::driver::checkFile(sources, file, sink, vx::driver::CheckOptions{});
        break;
    }
  }
  std::printf("%ld\n", statusBytes("VmHWM") - baseline);
  return 0;
}

// Runs this executable again with --mode=<mode> and reads the probe's answer.
long peakInChild(const char* self, const char* mode, const std::string& path) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    std::string flag = std::string("--mode=") + mode;
    execl(self, self, flag.c_str(), path.c_str(), static_cast<char*>(nullptr));
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
  else if (s == "check") m = Mode::Check;
  else return false;
  return true;
}

int usage() {
  std::fprintf(stderr, "usage: vx_bench_frontend FILE [--runs N] [--no-mem]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  int runs = 0;
  bool mem = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--mode=", 0) == 0) {
      Mode m;
      if (!parseMode(a.substr(7), m) || i + 1 >= argc) return usage();
      return probe(m, argv[i + 1]);
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else if (a == "--no-mem") {
      mem = false;
    } else if (!a.empty() && a[0] != '-' && path.empty()) {
      path = a;
    } else {
      return usage();
    }
  }
  if (path.empty()) return usage();

  std::string text = readAll(path);
  uint64_t lines = static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n'));
  if (!text.empty() && text.back() != '\n') ++lines;
  // About 3 s of warm runs per mode on this machine's budget, 3..10 runs.
  if (runs <= 0) runs = static_cast<int>(std::clamp<uint64_t>(3'000'000 / (lines + 1), 3, 10));

  // lex+parse goes first so that its first run is the process's cold one.
  Timing lp = timeMode(Mode::LexParse, "lex+parse", path, text, runs);
  Timing pa = timeMode(Mode::Parse, "parse+AST", path, text, runs);
  Timing ck = timeMode(Mode::Check, "check", path, text, runs);
  vx::parse::ParseStats stats;
  runOnce(Mode::Parse, path, text, &stats);

  long memLp = -1, memPa = -1, memCk = -1;
  if (mem) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 2;
    self[n] = '\0';
    memLp = peakInChild(self, "lexparse", path);
    memPa = peakInChild(self, "parse", path);
    memCk = peakInChild(self, "check", path);
  }

  auto lps = [&](double s) { return s > 0 ? static_cast<double>(lines) / s : 0.0; };
  auto bpl = [&](long b) { return b < 0 ? -1.0 : static_cast<double>(b) / static_cast<double>(lines); };
  std::printf("file        %s\n", path.c_str());
  std::printf("lines       %llu  (%zu bytes)\n", static_cast<unsigned long long>(lines), text.size());
  std::printf("chunks      %u   tokens %llu   SLL->LL fallbacks %u\n", stats.chunks,
              static_cast<unsigned long long>(stats.tokens), stats.llFallbacks);
  std::printf("cold        lex+parse %.0f lines/s (first parse in the process)\n", lps(lp.cold));
  std::printf("warm        median of %d runs per mode\n", runs);
  std::printf("%-10s %14s %14s %14s\n", "mode", "warm lines/s", "best lines/s", "bytes/line");
  std::printf("%-10s %14.0f %14.0f %14.1f\n", "lex+parse", lps(lp.median), lps(lp.best), bpl(memLp));
  std::printf("%-10s %14.0f %14.0f %14.1f\n", "parse+AST", lps(pa.median), lps(pa.best), bpl(memPa));
  std::printf("%-10s %14.0f %14.0f %14.1f\n", "check", lps(ck.median), lps(ck.best), bpl(memCk));
  std::printf(
      "RESULT lines=%llu cold_lps=%.0f lexparse_lps=%.0f parse_lps=%.0f check_lps=%.0f lexparse_bpl=%.1f "
      "parse_bpl=%.1f check_bpl=%.1f chunks=%u tokens=%llu fallbacks=%u\n",
      static_cast<unsigned long long>(lines), lps(lp.cold), lps(lp.median), lps(pa.median), lps(ck.median),
      bpl(memLp), bpl(memPa), bpl(memCk), stats.chunks,
      static_cast<unsigned long long>(stats.tokens), stats.llFallbacks);
  return 0;
}
