// `vxc tune` (../shared/spec/grid.md §4): every combination of the
// `--const NAME=V1,V2,...` lists is checked, built and run through this
// vxc's own `vxc run` — one process per combination, so that a trap in one
// does not end the sweep — and the accepted ones are printed sorted by their
// time: simulated cycles on tpu (deterministic, one run), the fastest of
// `--repeat` wall-clock runs on cpu and the GPUs. The rejected combinations
// follow with the checker's first error, and the winner is printed (and with
// `-o FILE` written) as the `--const` line that `vxc build` takes.
// Every combination's outputs (`vxc run --output`) are compared with those
// of the program as written (its declared constants, run once): a tile
// larger than the problem can make a loop or the grid empty, compute
// nothing and be the fastest. Those that differ (beyond --tolerance) are
// rejected, with how far. Outputs of other shapes than the program's, or
// all of them when the program as written does not run, are compared with
// each other: those agreeing with the most others are ranked.
#include <fstream>
#include <filesystem>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "codegen/cpu/Toolchain.h"
#include "driver/Args.h"
#include "driver/Commands.h"
#include "driver/Npy.h"

namespace vx::driver {

namespace {

const char* kTuneHelp =
    "Usage: vxc tune [options] FILE --const NAME=V1,V2,... [--const ...]\n"
    "\n"
    "Builds and runs every combination of the `--const` values that the checker accepts\n"
    "for the target, each checked as built, and prints them sorted by time (tpu: simulated\n"
    "cycles; cpu, b200, h100: the fastest of --repeat runs, in microseconds), then the\n"
    "rejected combinations and why, then the winner as a `--const` line for `vxc build`.\n"
    "Exit status: 0 some combination ran, 1 none did, 2 usage error.\n"
    "\n"
    "Options:\n"
    "  --const NAME=V1,V2,...          the values to try for `const NAME`; repeatable, one per name\n"
    "  --entry NAME                    the function to run (may be left out if there is one)\n"
    "  --target=cpu|tpu|b200|h100      where to run (default cpu)\n"
    "  --interpret                     b200, h100: run under the interpreter (its times do not\n"
    "                                  predict the GPU's; use it to see which combinations build)\n"
    "  --arg NAME=VALUE                passed to every run (a Vec's length or a scalar's value)\n"
    "  --input NAME=FILE.npy           passed to every run\n"
    "  --seed N                        input seed (default 0)\n"
    "  --repeat N                      timed runs per combination on cpu and GPUs (default 5)\n"
    "  --max-combinations N            refuse larger sweeps (default 256)\n"
    "  --tolerance REL                 outputs agree within REL of their largest magnitude\n"
    "                                  (default 1e-2); combinations whose outputs differ from the\n"
    "                                  program's as written (its declared constants) are rejected\n"
    "  -o FILE                         also write the winner's `--const` line to FILE\n"
    "  --solver-rlimit=N, -D/-W/-A NAME  as for `vxc check`\n";

struct Combination {
  std::vector<std::pair<std::string, std::string>> values;  // NAME, VALUE in the order given
  bool ran = false;
  double time = 0;     // cycles (tpu) or microseconds
  std::string reason;  // why it did not run
  std::string outDir;  // its `--output` folder
  std::map<std::string, NpyArray> outputs;
  std::string line() const {
    std::string s;
    for (const auto& [n, v] : values) s += (s.empty() ? "" : " ") + std::string("--const ") + n + "=" + v;
    return s;
  }
};

std::vector<std::string> splitComma(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// The first `error...` line of a run's stderr (the whole line, code included).
std::string firstError(const std::string& err) {
  std::istringstream in(err);
  for (std::string l; std::getline(in, l);)
    if (l.rfind("error", 0) == 0) return l;
  std::string t = err.substr(0, err.find('\n'));
  return t.empty() ? "no output" : t;
}

bool readValue(const std::string& out, const std::string& key, double& v) {
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);)
    if (l.rfind(key + " = ", 0) == 0) {
      try {
        v = std::stod(l.substr(key.size() + 3));
        return true;
      } catch (...) {
        return false;
      }
    }
  return false;
}

// The largest difference between two combinations' outputs (of the same
// names and shapes) relative to their largest magnitude (0: equal;
// infinity: a non-finite value on one side only).
double outputsApart(const Combination& x, const Combination& y) {
  if (x.outputs.size() != y.outputs.size()) return INFINITY;
  double worst = 0;
  for (const auto& [name, a] : x.outputs) {
    auto it = y.outputs.find(name);
    if (it == y.outputs.end() || it->second.shape != a.shape) return INFINITY;
    const ArrayGap gap = arrayGap(a.values, it->second.values);
    const double scale = std::max(gap.largestX, gap.largestY);
    if (gap.maxAbs > 0) worst = std::max(worst, scale > 0 ? gap.maxAbs / scale : INFINITY);
  }
  return worst;
}

// The outputs a run wrote to `c.outDir` (`vxc run --output`), by name.
bool readOutputs(Combination& c, std::string& error) {
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(c.outDir, ec)) {
    if (f.path().extension() != ".npy") continue;
    NpyArray arr;
    if (!readNpy(f.path().string(), arr, error)) return false;
    c.outputs[f.path().stem().string()] = std::move(arr);
  }
  return true;
}

std::string pad(std::string s, size_t w) {
  if (s.size() < w) s += std::string(w - s.size(), ' ');
  return s;
}

}  // namespace

int cmdTune(const std::vector<std::string>& args) {
  ParsedArgs a = parseArgs("tune", args,
                           {{"--help", false, {}},
                            {"--target", true, targetNames()},
                            {"--entry", true, {}},
                            {"--const", true, {}},
                            {"--arg", true, {}},
                            {"--input", true, {}},
                            {"--seed", true, {}},
                            {"--repeat", true, {}},
                            {"--interpret", false, {}},
                            {"--max-combinations", true, {}},
                            {"--tolerance", true, {}},
                            {"-o", true, {}},
                            {"--solver-rlimit", true, {}},
                            {"-D", true, {}},
                            {"-W", true, {}},
                            {"-A", true, {}}});
  if (!a.error.empty()) return usageError(a.error);
  if (a.has("--help")) {
    std::fputs(kTuneHelp, stdout);
    return 0;
  }
  if (a.positional.size() != 1) return usageError("`vxc tune` needs exactly one file");
  const std::string file = a.positional[0];
  const std::string target = a.get("--target", "cpu");
  const bool simulated = target == "tpu";
  auto number = [&](const std::string& flag, unsigned long dflt, unsigned long& out) {
    std::string v = a.get(flag, std::to_string(dflt));
    if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos || std::stoul(v) == 0)
      return false;
    out = std::stoul(v);
    return true;
  };
  // The output is checked before the sweep runs: not the input, and
  // writable (a sweep can take minutes).
  if (a.has("-o")) {
    const std::string out = a.get("-o", "");
    if (namesInput(file, out))
      return usageError("`" + out + "` is the input file; writing the best constants there would overwrite `" +
                        file + "`");
    std::error_code ec;
    bool existed = std::filesystem::exists(out, ec);
    { std::ofstream probe(out, std::ios::app); if (!probe) return usageError("cannot write `" + out + "`"); }
    if (!existed) std::filesystem::remove(out, ec);
  }
  unsigned long repeat = 5, maxCombinations = 256;
  if (!number("--repeat", 5, repeat)) return usageError("`--repeat` takes a positive number, e.g. `--repeat 5`");
  if (!number("--max-combinations", 256, maxCombinations))
    return usageError("`--max-combinations` takes a number from 1 to 999999999");

  double tolerance = 1e-2;
  if (a.has("--tolerance")) {
    std::string v = a.get("--tolerance", "");
    char* end = nullptr;
    tolerance = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !(tolerance >= 0) || !std::isfinite(tolerance))
      return usageError("`--tolerance` must be a non-negative number (a relative difference, e.g. 1e-2)");
  }

  // The sweep: the product of the `--const` lists, the first name slowest.
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  for (const auto& [flag, value] : a.ordered) {
    if (flag != "--const") continue;
    size_t eq = value.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
      return usageError("`--const " + value + "`: expected NAME=V1,V2,... (`--const BM=64,128`)");
    std::string name = value.substr(0, eq);
    for (const auto& ax : axes)
      if (ax.first == name) return usageError("`--const " + name + "` is given twice; list its values in one");
    std::vector<std::string> vals = splitComma(value.substr(eq + 1));
    for (size_t i = 0; i < vals.size(); ++i) {
      if (vals[i].empty()) return usageError("`--const " + value + "`: an empty value in the list");
      for (size_t j = 0; j < i; ++j)
        if (vals[j] == vals[i])
          return usageError("`--const " + value + "`: `" + vals[i] + "` is listed twice (each combination runs once)");
    }
    axes.emplace_back(name, vals);
  }
  if (axes.empty()) return usageError("`vxc tune` needs at least one `--const NAME=V1,V2,...` to sweep");
  size_t total = 1;
  for (const auto& ax : axes) {
    total *= ax.second.size();
    if (total > maxCombinations)
      return usageError("the sweep has more than " + std::to_string(maxCombinations) +
                        " combinations; narrow the lists or raise `--max-combinations`");
  }
  std::vector<Combination> combos(total);
  for (size_t i = 0; i < total; ++i) {
    size_t rest = i;
    std::vector<std::pair<std::string, std::string>> vals(axes.size());
    for (size_t k = axes.size(); k-- > 0;) {
      vals[k] = {axes[k].first, axes[k].second[rest % axes[k].second.size()]};
      rest /= axes[k].second.size();
    }
    combos[i].values = vals;
  }

  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return internalError("cannot find the vxc binary to run the combinations");
  self[n] = 0;
  std::vector<std::string> common{self, "run", file, "--target", target};
  for (const char* f : {"--entry", "--seed", "--solver-rlimit"})
    if (a.has(f)) common.insert(common.end(), {f, a.get(f, "")});
  if (a.has("--interpret")) common.push_back("--interpret");
  for (const auto& [flag, value] : a.ordered)
    if (flag == "--arg" || flag == "--input" || flag == "-D" || flag == "-W" || flag == "-A")
      common.insert(common.end(), {flag, value});
  if (!simulated) common.insert(common.end(), {"--repeat", std::to_string(repeat)});
  common.insert(common.end(), {"--color", "never"});

  // A name no `const` has fails every combination alike: `vxc check` with
  // each list's first value says so before the sweep.
  {
    std::vector<std::string> argv{self, "check", file, "--target", target, "--color", "never"};
    for (const auto& ax : axes) argv.insert(argv.end(), {"--const", ax.first + "=" + ax.second.front()});
    cpu::ProcessResult p = cpu::runProcess(argv, /*separate=*/true);
    if (p.status == 2 && p.stderrText.find("there is no `const ") != std::string::npos) {
      std::fprintf(stderr, "%s", p.stderrText.c_str());
      return usageError("a `--const` names no constant of the file; nothing was tuned");
    }
  }
  const std::string unit = simulated ? "cycles" : "time_us";
  std::fprintf(stderr, "tuning %s for %s: %zu combination%s\n", file.c_str(), target.c_str(), total,
               total == 1 ? "" : "s");
  TempDir outs;
  if (outs.path.empty()) return internalError("cannot create a temporary folder");
  // The program as written (its declared constants) computes what every
  // combination must: run once, its outputs the reference. A majority of
  // combinations that compute nothing (tiles larger than the problem) agree
  // with each other, not with it.
  Combination reference;
  std::string referenceFailure;
  {
    std::vector<std::string> argv;
    for (size_t i = 0; i < common.size(); ++i) {
      if (common[i] == "--repeat" && i + 1 < common.size()) {
        argv.insert(argv.end(), {"--repeat", "1"});
        ++i;
        continue;
      }
      argv.push_back(common[i]);
    }
    reference.outDir = outs.path + "/reference";
    argv.insert(argv.end(), {"--output", reference.outDir});
    cpu::ProcessResult p = cpu::runProcess(argv, /*separate=*/true);
    // An entry that is not there fails every combination alike: said now,
    // not after the sweep.
    if (p.status == 2 && (p.stderrText.find("to use as the entry") != std::string::npos ||
                          p.stderrText.find("choose an entry") != std::string::npos)) {
      std::fprintf(stderr, "%s", p.stderrText.c_str());
      return usageError("no combination can run; nothing was tuned");
    }
    if (p.status != 0) {
      referenceFailure = firstError(p.stderrText);
    } else {
      reference.ran = true;
      std::string error;
      if (!readOutputs(reference, error)) return internalError(error);
    }
  }
  size_t refused = 0;
  std::string firstRefusal;
  for (size_t i = 0; i < combos.size(); ++i) {
    Combination& c = combos[i];
    std::vector<std::string> argv = common;
    for (const auto& [name, v] : c.values) argv.insert(argv.end(), {"--const", name + "=" + v});
    c.outDir = outs.path + "/" + std::to_string(i);
    argv.insert(argv.end(), {"--output", c.outDir});
    cpu::ProcessResult p = cpu::runProcess(argv, /*separate=*/true);
    if (p.status == 2) {
      // A usage error: most are the same for every combination (an unknown
      // name, a bad value), but an input's shape or an extent's size can
      // depend on the constants. Rejected, and reported in full when no
      // combination ran.
      if (refused++ == 0) firstRefusal = p.stderrText;
      c.reason = "`vxc run` refused it: " + firstError(p.stderrText);
    } else if (p.status != 0) {
      c.reason = firstError(p.stderrText);
    } else if (!readValue(p.stdoutText, unit, c.time)) {
      c.reason = "the run printed no `" + unit + "`";
    } else {
      c.ran = true;
      std::string error;
      if (!readOutputs(c, error)) return internalError(error);
    }
    std::fprintf(stderr, "  [%zu/%zu] %s: %s\n", i + 1, total, c.line().c_str(),
                 c.ran ? (std::to_string(static_cast<long long>(c.time)) + " " + (simulated ? "cycles" : "us")).c_str()
                       : "rejected");
  }

  if (refused == combos.size()) {
    std::fprintf(stderr, "%s", firstRefusal.c_str());
    return usageError("`vxc run` refused every combination; nothing was tuned");
  }
  // Outputs: among the combinations whose outputs have the same names and
  // shapes (a constant may change them: then they compute something else),
  // the ones that agree with the most others are right (the first of them
  // in the sweep's order on a tie), and the rest are rejected.
  {
    auto signature = [](const Combination& c) {
      std::string sig;
      for (const auto& [name, arr] : c.outputs) {
        sig += name + "(";
        for (uint64_t d : arr.shape) sig += std::to_string(d) + ",";
        sig += ")";
      }
      return sig;
    };
    std::map<std::string, std::vector<Combination*>> groups;
    for (Combination& c : combos)
      if (c.ran && !c.outputs.empty()) groups[signature(c)].push_back(&c);
    char tol[32];
    std::snprintf(tol, sizeof tol, "%g", tolerance);
    const std::string referenceSig = reference.ran && !reference.outputs.empty() ? signature(reference) : "";
    if (!reference.ran)
      std::fprintf(stderr,
                   "note: the program as written (its declared constants) did not run (%s): the combinations "
                   "are compared with each other\n",
                   referenceFailure.c_str());
    for (auto& [sig, done] : groups) {
      const bool againstReference = sig == referenceSig;
      size_t bestAgree = 0;
      const Combination* ref = againstReference ? &reference : nullptr;
      if (!againstReference)
        for (const Combination* c : done) {
          size_t agree = 0;
          for (const Combination* d : done) agree += outputsApart(*c, *d) <= tolerance;
          if (agree > bestAgree) bestAgree = agree, ref = c;
        }
      for (Combination* c : done) {
        double apart = outputsApart(*c, *ref);
        if (apart <= tolerance) continue;
        c->ran = false;
        char rel[32];
        std::snprintf(rel, sizeof rel, "%.3g", apart);
        const std::string how =
            std::isinf(apart) ? std::string("non-finite values") : std::string(rel) + " of their largest magnitude";
        c->reason = againstReference
                        ? "its outputs differ from those of the program as written (its declared constants) (" + how +
                              ", more than --tolerance " + tol + ")"
                        : "its outputs differ from those of `" + ref->line() +
                              "`, which the most combinations agree with (" + how + ", more than --tolerance " + tol +
                              ")";
      }
    }
  }

  std::vector<const Combination*> ran, rejected;
  for (const Combination& c : combos) (c.ran ? ran : rejected).push_back(&c);
  std::stable_sort(ran.begin(), ran.end(), [](const Combination* x, const Combination* y) { return x->time < y->time; });
  // The table: one column per name, then the time and its ratio to the best.
  std::vector<size_t> width;
  for (const auto& ax : axes) {
    size_t w = ax.first.size();
    for (const std::string& v : ax.second) w = std::max(w, v.size());
    width.push_back(w + 2);
  }
  std::string head;
  for (size_t k = 0; k < axes.size(); ++k) head += pad(axes[k].first, width[k]);
  head += simulated ? "cycles" : "time_us";
  std::printf("%s\n", head.c_str());
  for (const Combination* c : ran) {
    std::string row;
    for (size_t k = 0; k < axes.size(); ++k) row += pad(c->values[k].second, width[k]);
    char t[64];
    if (simulated)
      std::snprintf(t, sizeof t, "%.0f", c->time);
    else
      std::snprintf(t, sizeof t, "%.3f", c->time);
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2fx", ran.front()->time > 0 ? c->time / ran.front()->time : 1.0);
    row += pad(t, 14) + ratio;
    std::printf("%s\n", row.c_str());
  }
  if (!rejected.empty()) {
    std::printf("rejected:\n");
    for (const Combination* c : rejected) std::printf("  %s: %s\n", c->line().c_str(), c->reason.c_str());
  }
  if (ran.empty()) {
    std::printf("no combination ran\n");
    return 1;
  }
  std::string best = ran.front()->line();
  std::printf("best: %s\n", best.c_str());
  if (target != "tpu" && a.has("--interpret"))
    std::printf("note: interpreter times rank how much work the CPU does to emulate the GPU, not the GPU\n");
  if (a.has("-o")) {
    std::string error;
    if (!writeFile(a.get("-o", ""), best + "\n", error)) return usageError(error);
  }
  return 0;
}

}  // namespace vx::driver
