#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/Source.h"
#include "codegen/cpu/Toolchain.h"
#include "driver/Args.h"
#include "driver/Commands.h"
#include "driver/Npy.h"
#include "driver/UiTest.h"

namespace vx::driver {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The run-pass part of a case (`//@ run: ARGS`, docs/diagnostics.md): each
// run through this vxc's own `vxc run`; its `checksum` and `result` lines
// (or, with `//@ run-tolerance`, its `result` lines and its outputs as .npy
// within the tolerance) against the blessed NAME.run.stdout (and
// NAME.run/K/OUTPUT.npy). Problems go to `r`.
void runPass(const UiCase& c, UiResult& r, bool bless) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    r.problems.push_back(c.origin + ": cannot find the vxc binary to run the test");
    return;
  }
  self[n] = 0;
  fs::path file(c.filePath);
  fs::path golden = fs::path(file).replace_extension(".run.stdout");
  fs::path npyDir = fs::path(file).replace_extension(".run");
  bool npy = r.runTolerance >= 0;
  TempDir tmp;
  std::string actual;
  for (size_t k = 0; k < r.runs.size(); ++k) {
    std::vector<std::string> argv{self, "run", c.filePath, "--target", r.target};
    for (const std::string& w : words(r.runs[k])) argv.push_back(w);
    std::string out = tmp.path + "/" + std::to_string(k + 1);
    if (npy) {
      fs::create_directories(out);
      argv.insert(argv.end(), {"--output", out});
    }
    cpu::ProcessResult p = cpu::runProcess(argv, /*separate=*/true);
    actual += "# run: " + r.runs[k] + "\n";
    if (p.status != 0) {
      r.problems.push_back(c.origin + ": `vxc run` for `//@ run: " + r.runs[k] + "` exited with status " +
                           std::to_string(p.status) + ":\n" + p.stderrText);
      continue;
    }
    std::istringstream lines(p.stdoutText);
    for (std::string l; std::getline(lines, l);)
      if ((!npy && l.rfind("checksum ", 0) == 0) || l.rfind("result = ", 0) == 0) actual += l + "\n";
    if (!npy) continue;
    fs::path want = npyDir / std::to_string(k + 1);
    std::vector<fs::path> outputs;
    for (const auto& e : fs::directory_iterator(out)) outputs.push_back(e.path());
    std::sort(outputs.begin(), outputs.end());
    if (bless) {
      fs::remove_all(want);
      fs::create_directories(want);
      for (const fs::path& o : outputs) fs::copy_file(o, want / o.filename());
      continue;
    }
    for (const fs::path& o : outputs) {
      NpyArray x, y;
      std::string error;
      if (!readNpy((want / o.filename()).string(), y, error)) {
        r.problems.push_back(c.origin + ": run " + std::to_string(k + 1) + ": no blessed " + o.filename().string() +
                             " (run with --bless): " + error);
        continue;
      }
      if (!readNpy(o.string(), x, error) || x.shape != y.shape) {
        r.problems.push_back(c.origin + ": run " + std::to_string(k + 1) + ": " + o.filename().string() +
                             (error.empty() ? " has another shape than the blessed one" : ": " + error));
        continue;
      }
      double worst = 0;
      size_t at = 0;
      for (size_t i = 0; i < x.values.size(); ++i) {
        double d = std::fabs(x.values[i] - y.values[i]) / std::max(1.0, std::fabs(y.values[i]));
        if (std::isnan(x.values[i]) != std::isnan(y.values[i])) d = INFINITY;
        if (d > worst) worst = d, at = i;
      }
      if (worst > r.runTolerance) {
        char msg[256];
        std::snprintf(msg, sizeof msg, "element %zu is %.9g, the blessed value %.9g (difference %.3g > %.3g)", at,
                      x.values[at], y.values[at], worst, r.runTolerance);
        r.problems.push_back(c.origin + ": run " + std::to_string(k + 1) + ": " + o.filename().string() + ": " + msg);
      }
    }
  }
  if (bless) {
    std::ofstream(golden, std::ios::binary) << actual;
    return;
  }
  base::ReadResult blessed = base::readFile(golden.string());
  const std::string& want = blessed.text;
  if (!blessed.error.empty())
    r.problems.push_back(c.origin + ": no " + golden.filename().string() + " (run with --bless)");
  else if (want != actual)
    r.problems.push_back(c.origin + ": the runs print\n" + actual + "    but " + golden.filename().string() +
                         " holds\n" + want + "    (run with --bless to update)");
}

}  // namespace

int cmdTestUi(const std::vector<std::string>& args) {
  ParsedArgs a = parseArgs("test-ui", args, {{"--help", false, {}}, {"--bless", false, {}}});
  if (!a.error.empty()) return usageError(a.error);
  if (a.has("--help")) {
    std::puts(
        "Usage: vxc test-ui [--bless] DIR|FILE...\n\n"
        "Runs UI tests: each .vx file is checked; its diagnostics must match its\n"
        "`//~ ERROR CODE` annotations (`//~^` = line above) and its full output the\n"
        "`.stderr` file beside it. A file with `//@ run: ARGS` headers is also run\n"
        "(`vxc run FILE ARGS`), and what it prints must match NAME.run.stdout (with\n"
        "`//@ run-tolerance: X`, its outputs the blessed .npy files within X).\n"
        "Fenced ```vx blocks in .md files are checked against their annotations.\n"
        "--bless rewrites the .stderr, .run.stdout and .npy files.");
    return 0;
  }
  if (a.positional.empty()) return usageError("`vxc test-ui` needs a directory or file");
  bool bless = a.has("--bless");
  unsigned passed = 0, failed = 0;
  for (const auto& root : a.positional) {
    std::string error;
    std::vector<UiCase> cases = collectUiCases(root, error);
    if (!error.empty()) return usageError(error);
    for (const auto& c : cases) {
      UiResult r = runUiCase(c, bless);
      if (r.problems.empty() && !r.runs.empty()) runPass(c, r, bless);
      r.passed = r.problems.empty();
      if (r.passed) {
        ++passed;
        std::printf("ok      %s\n", c.origin.c_str());
      } else {
        ++failed;
        std::printf("FAILED  %s\n", c.origin.c_str());
        for (const auto& p : r.problems) std::printf("    %s\n", p.c_str());
      }
    }
  }
  std::printf("\ntest-ui: %u passed, %u failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace vx::driver
