// `vxc run`: builds the entry's harness (CmdBuild.cpp's path), fills inputs
// from the seed, runs, prints one checksum line per output and the wall time.
#include <cctype>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include "base/Text.h"
#include "driver/Args.h"
#include "driver/Backends.h"
#include "driver/Commands.h"
#include "driver/Npy.h"
#include "driver/RunData.h"

namespace vx::driver {

namespace {

const char* kRunHelp =
    "Usage: vxc run [options] FILE\n"
    "\n"
    "Builds FILE for its target (default cpu), fills every tensor parameter of the entry\n"
    "deterministically from the seed (include/vx/data.h) or from `--input`, runs it, and prints one\n"
    "`checksum NAME = 0x...` line per output (each `&mut` tensor parameter; the matrix\n"
    "unit's accumulator, as `acc`, when there is none) and `time_us`, the wall time.\n"
    "Exit status: 0 ran, 1 the program has errors or trapped, 2 usage or internal error.\n"
    "\n"
    "Options:\n"
    "  --entry NAME                    the function to run (may be left out if there is one)\n"
    "  --const NAME=VALUE              set `const NAME` (integer, float or bool) for this run; repeatable\n"
    "  --target=cpu|tpu|b200|h100      where to run (tpu: simulated in vxsim; prints `cycles` and\n"
    "                                  the units' busy time; exit status 3 on a runtime fault;\n"
    "                                  b200, h100: built with nvcc, run on the GPU)\n"
    "  --interpret                     b200, h100: run the same CUDA source on the CPU under the\n"
    "                                  interpreter, which checks copies, mbarriers and accesses\n"
    "  --schedule-seed N               with --interpret: the order copies land in (default 1;\n"
    "                                  0: each copy lands only when it is waited)\n"
    "  --output DIR                    also write each output to DIR/NAME.npy (NumPy; bf16 as f32)\n"
    "  --input NAME=FILE.npy           NAME's contents from a NumPy array (f2, f4 or f8, converted to\n"
    "                                  the element type): a tensor's exact shape, or (n, ...) for a\n"
    "                                  Vec of n tensors; may repeat\n"
    "  --compare=TARGET                run the same entry and inputs on TARGET too, print each\n"
    "                                  output's max absolute and relative error, and exit 1 if one is\n"
    "                                  outside the tolerance the documented error bounds of the\n"
    "                                  entry's operations give (docs/compute.md, \"Precision\")\n"
    "  --tolerance REL                 with --compare: that tolerance instead: exit 1 if an output's\n"
    "                                  max absolute error is more than REL times the largest\n"
    "                                  magnitude of TARGET's output\n"
    "  --trace T.json, --timeline T.svg  tpu: write vxsim's timeline (Chrome/Perfetto trace, SVG)\n"
    "  --seed N                        input seed (default 0)\n"
    "  --arg NAME=VALUE                a Vec's length (default 8) or a scalar's value (default 0)\n"
    "  --sync-baseline                 run with every transfer_async blocking\n"
    "  --repeat N                      run N times, report the fastest (default 1)\n"
    "  --error-format=human|json|sarif diagnostics format (default human)\n"
    "  --color=auto|always|never       colours in human output\n"
    "  --solver-rlimit=N               Z3 resource limit per query of the checker, 1 to 999999999 (default 2000000)\n"
    "  -D NAME, -W NAME, -A NAME        deny, warn about or allow a lint (`unproved`, `unused_variables`);\n"
    "                                  `-D warnings` makes every warning an error\n"
    "\n"
    "Built programs are cached in $XDG_CACHE_HOME/vxc/run (or ~/.cache/vxc/run), keyed\n"
    "by the generated code, the runtime headers and the compiler command; VXC_NO_CACHE=1\n"
    "turns that off.\n";

// Decimal digits only: strtoull alone skips blanks and takes a sign, so
// `" -1"` would wrap to 2^64 - 1.
bool parseU64(const std::string& s, uint64_t& out) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (*end || errno) return false;
  out = v;
  return true;
}

bool parseI64(const std::string& s, int64_t lo, int64_t hi) {
  size_t sign = !s.empty() && s[0] == '-' ? 1 : 0;
  if (s.size() <= sign || !std::isdigit(static_cast<unsigned char>(s[sign]))) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  return !*end && !errno && v >= lo && v <= hi;
}

// The buffers the run-time extents size (given by `--arg`, or the harness's
// default, cpu::kDefaultExtent), a Vec's tensors all together: each at most
// the 2^31 elements `vxc run` allocates. Empty when fine.
std::string checkExtentSizes(const cpu::Entry& entry, const std::vector<std::string>& kvs) {
  std::map<std::string, uint64_t> given;
  for (const std::string& kv : kvs) {
    size_t eq = kv.find('=');
    uint64_t u = 0;
    if (eq != std::string::npos && parseU64(kv.substr(eq + 1), u)) given[kv.substr(0, eq)] = u;
  }
  for (const cpu::Param& p : entry.params) {
    if (p.kind == cpu::Param::Kind::Scalar || p.extents.empty()) continue;
    uint64_t total = 1;
    bool overflow = false;
    std::string named;
    auto times = [&](const std::string& name, uint64_t dflt) {
      auto it = given.find(name);
      uint64_t n = it == given.end() ? dflt : it->second;
      named += (named.empty() ? "" : ", ") + name + " = " + std::to_string(n) + (it == given.end() ? " by default" : "");
      overflow = overflow || __builtin_mul_overflow(total, n, &total);
    };
    if (p.kind == cpu::Param::Kind::Vec) times(p.name, cpu::kDefaultVecLength);
    for (size_t d = 0; d < p.shape.size(); ++d) {
      if (d < p.extents.size() && !p.extents[d].empty()) {
        times(p.extents[d], cpu::kDefaultExtent);
      } else {
        overflow = overflow || __builtin_mul_overflow(total, static_cast<uint64_t>(p.shape[d]), &total);
      }
    }
    if (overflow || total > (uint64_t{1} << 31))
      return "`" + p.name + "` would have " + (overflow ? std::string("more than 2^64") : std::to_string(total)) +
             " elements (" + named + "): more than `vxc run` allocates (2^31 elements)";
  }
  return {};
}

// Checks one `--arg NAME=VALUE` against the entry; empty when fine.
std::string checkArg(const cpu::Entry& entry, const std::string& kv) {
  size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) return "`--arg " + kv + "`: expected NAME=VALUE";
  std::string name = kv.substr(0, eq), value = kv.substr(eq + 1);
  std::vector<std::string> names;
  for (const cpu::Param& p : entry.params) {
    names.push_back(p.name);
    if (p.name != name) continue;
    uint64_t u = 0;
    switch (p.kind) {
      case cpu::Param::Kind::Tensor:
      case cpu::Param::Kind::Pinned:
        return "`" + name + "` is a tensor; its contents come from `--seed` or `--input " + name + "=FILE.npy`";
      case cpu::Param::Kind::Vec:
        if (!parseU64(value, u)) return "`--arg " + kv + "`: a Vec's length must be a non-negative integer";
        if (uint64_t total; __builtin_mul_overflow(u, static_cast<uint64_t>(p.elements()), &total) ||
                            total > (uint64_t{1} << 31))
          return "`--arg " + kv + "`: " + std::to_string(u) + " tensors of " + std::to_string(p.elements()) +
                 " elements is more than `vxc run` allocates (2^31 elements)";
        return {};
      case cpu::Param::Kind::Scalar: break;
    }
    const std::string& t = p.type;
    bool ok = true;
    if (t == "bool") ok = value == "true" || value == "false" || value == "1" || value == "0";
    else if (t == "i32") ok = parseI64(value, INT32_MIN, INT32_MAX);
    else if (t == "i64") ok = parseI64(value, INT64_MIN, INT64_MAX);
    else if (t == "u32") ok = parseU64(value, u) && u <= UINT32_MAX;
    else if (t == "u64" || t == "usize") ok = parseU64(value, u);
    else {
      char* end = nullptr;
      std::strtod(value.c_str(), &end);
      ok = !value.empty() && !*end;
    }
    if (!ok) return "`--arg " + kv + "`: `" + value + "` is not a valid `" + t + "`";
    return {};
  }
  std::string close = base::closestMatch(name, names);
  return "`" + entry.name + "` has no parameter `" + name + "`" + (close.empty() ? "" : "; did you mean `" + close + "`?");
}

uint64_t fnv1a(uint64_t h, const std::string& s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Where a built harness is kept, keyed by everything that went into it (the
// generated code, the runtime headers, the compiler and its flags), so that
// running one program with other seeds or arguments does not compile again.
// Empty when caching is off (VXC_NO_CACHE) or there is no cache folder.
std::string cachedExe(const std::string& unit, const std::string& header, const std::string& harness,
                      const std::vector<std::string>& command) {
  if (const char* off = std::getenv("VXC_NO_CACHE"); off && *off) return {};
  std::string dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) dir = x;
  else if (const char* home = std::getenv("HOME"); home && *home) dir = std::string(home) + "/.cache";
  else return {};
  dir += "/vxc/run";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return {};
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const std::string& part : {unit, header, harness}) h = fnv1a(fnv1a(h, part), "\x1f");
  for (const std::string& a : command) h = fnv1a(h, a + "\x1f");
  std::vector<std::filesystem::path> headers;
  for (const auto& e : std::filesystem::recursive_directory_iterator(cpu::runtimeIncludeDir() + "/vx", ec))
    if (e.is_regular_file(ec)) headers.push_back(e.path());
  std::sort(headers.begin(), headers.end());
  for (const std::filesystem::path& p : headers) {
    std::ifstream in(p, std::ios::binary);
    h = fnv1a(h, p.filename().string() + std::string(std::istreambuf_iterator<char>(in), {}));
  }
  char name[32];
  std::snprintf(name, sizeof name, "/%016llx", static_cast<unsigned long long>(h));
  return dir + name;
}

// Keeps the cache to its newest entries (a hit refreshes an entry's time).
void trimCache(const std::string& dir, size_t keep) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (const auto& e : fs::directory_iterator(dir, ec)) entries.emplace_back(e.last_write_time(ec), e.path());
  if (entries.size() <= keep) return;
  std::sort(entries.begin(), entries.end());
  for (size_t i = 0; i + keep < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

// One target's build of the entry's `vxc run` harness.
struct Prepared {
  CpuProgram prog;
  const cpu::Entry* entry = nullptr;
  TempDir tmp;
  std::string exe;
};

// Checks, lowers and builds (or finds in the cache) the harness of the entry
// for `target`. 0, or the exit status after printing why not.
int prepare(const FrontOptions& fo, const std::string& target, bool interpret, const std::string& nvcc,
            const std::string& entryName, const std::vector<std::string>& kvs, Prepared& out) {
  const Backend& backend = backendFor(*target::targetByName(target));
  if (std::string e = cpu::runtimeIncludeError(); !e.empty()) return usageError(e);
  CpuProgram& prog = out.prog;
  if (int rc = compileToCpu(fo, prog)) return rc;
  std::string error;
  const cpu::Entry* entry = findEntry(prog, entryName, error);
  if (!entry) return usageError(error);
  out.entry = entry;
  for (const std::string& kv : kvs)
    if (std::string e = checkArg(*entry, kv); !e.empty()) return usageError(e);
  if (std::string e = checkExtentSizes(*entry, kvs); !e.empty()) return usageError(e);

  TempDir& tmp = out.tmp;
  if (tmp.path.empty()) return internalError("cannot create a temporary folder");
  if (backend.cudaArch && prog.runtimeChecks && !interpret)
    return usageError("a function of `" + fo.file + "` is `#[allow(unproved)]`: its token checks happen at run time, "
                      "which `--target " + target + "` does only with `--interpret`");
  // A CUDA unit is a .cu; the harness includes it, so for the interpreter
  // the harness is host C++ and for nvcc a .cu as well.
  const cpu::Flavor flavor = backend.cudaArch ? cpu::Flavor::Cuda : cpu::Flavor::Cpu;
  std::string unitName = backend.cudaArch ? "unit.cu" : "unit.cpp";
  std::string unitPath = tmp.path + "/" + unitName;
  std::string& exe = out.exe;
  exe = tmp.path + "/run";
  std::string mainPath = tmp.path + (backend.cudaArch && !interpret ? "/main.cu" : "/main.cpp");
  std::string harness = cpu::emitHarness(*entry, unitName, flavor);
  auto commandFor = [&](const std::string& source, const std::string& output) {
    if (!backend.cudaArch) return cpu::compilerCommand(source, output, cpu::Artifact::Executable, "native");
    if (interpret) return cpu::interpreterCommand(source, output, backend.cudaArch);
    return cpu::cudaCompilerCommand(nvcc, source, output, cpu::Artifact::Executable, backend.cudaArch);
  };
  std::vector<std::string> command = commandFor(mainPath, exe);
  // The key names no temporary path: the same program hits the same entry.
  std::string cached = cachedExe(prog.source, prog.header, harness, commandFor("main", "run"));
  if (!cached.empty() && access(cached.c_str(), X_OK) == 0) {
    exe = cached;
    std::error_code ec;
    std::filesystem::last_write_time(cached, std::filesystem::file_time_type::clock::now(), ec);
    return 0;
  }
  std::ofstream(unitPath) << prog.source;
  std::ofstream(tmp.path + "/" + prog.headerName) << prog.header;
  std::ofstream(mainPath) << harness;
  if (int rc = compiled(cpu::runCompiler(command), fo.file, backend.cudaArch && !interpret ? "nvcc" : "the C++ compiler"))
    return rc;
  // Publish atomically: a concurrent `vxc run` sees all of it or nothing.
  std::error_code ec;
  if (!cached.empty()) {
    std::filesystem::copy_file(exe, cached + ".tmp" + std::to_string(getpid()), ec);
    if (!ec) std::filesystem::rename(cached + ".tmp" + std::to_string(getpid()), cached, ec);
    trimCache(std::filesystem::path(cached).parent_path().string(), 64);
  }
  return 0;
}

// Prints a run's output; a trap is the program's error (1).
int finishRun(const FrontOptions& fo, const cpu::ProcessResult& r) {
  std::fputs(r.stdoutText.c_str(), stdout);
  if (r.status == 0) {
    std::fflush(stdout);
    std::fputs(r.stderrText.c_str(), stderr);  // the program's own: `dbg` lines
    return 0;
  }
  std::fflush(stdout);
  if (r.status == 101) {  // a runtime trap: the program's error
    std::fputs(r.stderrText.c_str(), stderr);
    return 1;
  }
  // Killed by SIGSEGV or SIGBUS (128 + the signal): the runtime checks
  // every access the program makes, so what is left is its stack running
  // out (a recursion too deep); the program's error, as a trap is.
  if (r.status == 128 + 11 || r.status == 128 + 7) {
    std::fputs(r.stderrText.c_str(), stderr);
    std::fprintf(stderr,
                 "error: runtime fault: the program `%s` was stopped by signal %d: its stack ran out (a recursion too "
                 "deep?)\n",
                 fo.file.c_str(), r.status - 128);
    return 1;
  }
  return internalError("the program vxc built for `" + fo.file + "` exited with status " + std::to_string(r.status) +
                       (r.stderrText.empty() ? "" : ":\n" + r.stderrText));
}

std::vector<BufferSpec> cpuSpecs(const cpu::Entry& entry) {
  std::vector<BufferSpec> specs;
  for (const cpu::Param& p : entry.params) {
    BufferSpec s;
    s.name = p.name;
    s.type = p.type;
    s.shape = p.shape;
    s.extents = p.extents;
    s.mut = p.mut;
    switch (p.kind) {
      case cpu::Param::Kind::Scalar: s.kind = BufferSpec::Kind::Scalar; break;
      case cpu::Param::Kind::Vec: s.kind = BufferSpec::Kind::Vec; break;
      case cpu::Param::Kind::Tensor:
      case cpu::Param::Kind::Pinned: s.kind = BufferSpec::Kind::Tensor; break;
    }
    specs.push_back(std::move(s));
  }
  return specs;
}

// What one run of the entry needs, on any target.
struct RunRequest {
  FrontOptions fo;
  std::string target;
  bool interpret = false;
  std::string nvcc;
  std::string entry;
  uint64_t seed = 0, repeat = 1;
  std::vector<std::string> args, inputs;
  std::string outputDir;
  bool quiet = false;  // print nothing on success
  std::string traceOut, timelineOut;  // tpu: --trace, --timeline
  // Get the entry's name and the arguments, with the extents the inputs gave.
  std::string* entryOut = nullptr;
  std::vector<std::string>* argsOut = nullptr;
};

// Builds and runs the entry on the request's target; the entry's parameters
// go to `specs`. 0, or the exit status after printing why not.
int runOn(const RunRequest& q, std::vector<BufferSpec>& specs) {
  if (q.target == "tpu") {
    TpuRun run;
    run.entry = q.entry;
    run.seed = q.seed;
    run.args = q.args;
    run.inputs = q.inputs;
    run.outputDir = q.outputDir;
    run.quiet = q.quiet;
    run.traceOut = q.traceOut;
    run.timelineOut = q.timelineOut;
    run.specs = &specs;
    run.entryOut = q.entryOut;
    run.argsOut = q.argsOut;
    return runTpu(q.fo, run);
  }
  Prepared p;
  if (int rc = prepare(q.fo, q.target, q.interpret, q.nvcc, q.entry, q.args, p)) return rc;
  specs = cpuSpecs(*p.entry);
  std::vector<std::string> args = q.args;
  std::vector<std::string> argv{p.exe, "--seed", std::to_string(q.seed), "--repeat", std::to_string(q.repeat)};
  // Each input goes to the harness as raw elements of the parameter's type.
  for (size_t i = 0; i < q.inputs.size(); ++i) {
    Input in;
    if (std::string e = readInput(p.entry->name, specs, q.inputs[i], args, in); !e.empty()) return usageError(e);
    std::string raw = p.tmp.path + "/input" + std::to_string(i) + ".bin";
    std::ofstream f(raw, std::ios::binary);
    f << encodeElements(in.values, in.type);
    f.close();
    if (!f) return internalError("cannot write `" + raw + "`");
    argv.insert(argv.end(), {"--input", in.name + "=" + raw});
  }
  for (const std::string& kv : args) {
    if (std::string e = checkArg(*p.entry, kv); !e.empty()) return usageError(e);
    argv.insert(argv.end(), {"--arg", kv});
  }
  if (std::string e = checkExtentSizes(*p.entry, args); !e.empty()) return usageError(e);
  if (q.entryOut) *q.entryOut = p.entry->name;
  if (q.argsOut) *q.argsOut = args;
  if (!q.outputDir.empty()) argv.insert(argv.end(), {"--output", q.outputDir});
  cpu::ProcessResult r = cpu::runProcess(argv, /*separate=*/true);
  if (!q.quiet) return finishRun(q.fo, r);
  if (r.status == 0) return 0;
  std::fputs(r.stderrText.c_str(), stderr);
  return r.status == 101 ? 1 : internalError("the `--compare=" + q.target + "` run exited with status " +
                                             std::to_string(r.status));
}

// `compare NAME: max_abs = A, max_rel = R (vs TARGET)` per output: the
// largest |x - y| and |x - y| / max(|y|, tiny) over its elements. With a
// tolerance (>= 0), an output whose max_abs exceeds tolerance * max|y| fails
// the run: elementwise relative errors of values near zero say nothing
// about a sum of rounded products, the error relative to the output's scale
// does.
// The derived tolerance of `entry` run with `args` (NAME=VALUE).
dialect::CompareBound deriveBound(const FrontOptions& fo, const std::string& entry,
                                  const std::vector<std::string>& args, const dialect::ComparePair& pair) {
  std::map<std::string, int64_t> values;
  for (const std::string& kv : args) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    char* end = nullptr;
    std::string v = kv.substr(eq + 1);
    // Decimal, as the run reads them (`0256` is 256, not octal).
    long long n = std::strtoll(v.c_str(), &end, 10);
    if (!v.empty() && *end == '\0') values[kv.substr(0, eq)] = n;
  }
  dialect::CompareBound bound;
  bound.known = false;
  bound.why = "the program did not lower again";
  FrontOptions quiet = fo;
  quiet.quietWarnings = true;
  frontToVir(quiet, [&](dialect::Vir& vir, base::FileId, diag::Sink&) {
    bound = dialect::compareBound(vir, entry, values, pair);
    return true;
  });
  return bound;
}

int compareOutputs(const std::string& entry, const std::vector<BufferSpec>& specs, const std::string& mine,
                   const std::string& theirs, const std::string& other, double tolerance, bool derived) {
  bool any = false, within = true;
  for (const BufferSpec& p : specs) {
    if (!p.mut || p.kind == BufferSpec::Kind::Scalar) continue;
    any = true;
    NpyArray x, y;
    std::string error;
    if (!readNpy(mine + "/" + p.name + ".npy", x, error) || !readNpy(theirs + "/" + p.name + ".npy", y, error))
      return internalError(error);
    // The program itself differs between the targets (`#[cfg]` items,
    // constants set per target): a usage error, not the compiler's.
    if (x.shape != y.shape)
      return usageError("cannot compare: `" + p.name + "` is " + shapeText(x.shape) + " on this target and " +
                        shapeText(y.shape) + " on `" + other +
                        "`: the program differs between them (its `#[cfg]` items or constants); set the "
                        "constants that differ with `--const NAME=VALUE` to compare one program");
    const ArrayGap gap = arrayGap(x.values, y.values);
    const double maxAbs = gap.maxAbs, maxRel = gap.maxRel, scale = gap.largestY;
    std::printf("compare %s: max_abs = %.6g, max_rel = %.6g (vs %s)\n", p.name.c_str(), maxAbs, maxRel, other.c_str());
    if (tolerance >= 0 && !(maxAbs <= tolerance * scale)) {
      std::printf("compare %s: max_abs is more than the %stolerance %.6g times max|%s| = %.6g\n", p.name.c_str(),
                  derived ? "derived " : "", tolerance, p.name.c_str(), scale);
      within = false;
    }
  }
  if (!any) std::printf("compare: `%s` has no outputs to compare (only checksums of its accumulator)\n", entry.c_str());
  std::fflush(stdout);
  return within ? 0 : 1;
}

}  // namespace

int cmdRun(const std::vector<std::string>& args) {
  // `--arg` and `--input` may repeat; take those out before the common parser.
  std::vector<std::string> rest, kvs, inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    bool arg = args[i] == "--arg", input = args[i] == "--input";
    if (arg || input) {
      if (i + 1 >= args.size()) return usageError("option `" + args[i] + "` needs a value");
      (arg ? kvs : inputs).push_back(args[++i]);
    } else if (args[i].rfind("--arg=", 0) == 0) {
      kvs.push_back(args[i].substr(6));
    } else if (args[i].rfind("--input=", 0) == 0) {
      inputs.push_back(args[i].substr(8));
    } else {
      rest.push_back(args[i]);
    }
  }
  // One value a name: a second `--arg n=...` (or `--input x=...`) is a
  // mistake more often than an override, so it is refused, not taken.
  for (const std::vector<std::string>* list : {&kvs, &inputs}) {
    std::set<std::string> names;
    for (const std::string& kv : *list) {
      std::string name = kv.substr(0, kv.find('='));
      if (!names.insert(name).second)
        return usageError("`" + std::string(list == &kvs ? "--arg " : "--input ") + name + "` is given twice");
    }
  }
  ParsedArgs a = parseArgs("run", rest,
                           withFrontFlags({{"--seed", true, {}},
                                           {"--repeat", true, {}},
                                           {"--interpret", false, {}},
                                           {"--output", true, {}},
                                           {"--compare", true, targetNames()},
                                           {"--tolerance", true, {}},
                                           {"--schedule-seed", true, {}},
                                           {"--trace", true, {}},
                                           {"--timeline", true, {}}}));
  if (!a.error.empty()) return usageError(a.error);
  if (a.has("--help")) {
    std::fputs(kRunHelp, stdout);
    return 0;
  }
  FrontOptions fo;
  if (int rc = frontOptions(a, "run", fo)) return rc;
  std::string target = a.get("--target", "cpu");
  if (!backendFor(*target::targetByName(target)).runs)
    return usageError("`vxc run --target " + a.get("--target", "") +
                      "` is not available in this version; `--target cpu` is (see docs/status.md)");
  uint64_t seed = 0, repeat = 1;
  if (!parseU64(a.get("--seed", "0"), seed)) return usageError("`--seed` must be a non-negative integer");
  if (!parseU64(a.get("--repeat", "1"), repeat) || repeat == 0 || repeat > 100000)
    return usageError("`--repeat` must be an integer from 1 to 100000");

  const Backend& backend = backendFor(*target::targetByName(target));
  bool interpret = a.has("--interpret");
  if (interpret && !backend.cudaArch) return usageError("`--interpret` runs `--target b200` or `--target h100` on the CPU");
  uint64_t scheduleSeed = 1;
  if (!parseU64(a.get("--schedule-seed", "1"), scheduleSeed)) return usageError("`--schedule-seed` must be a non-negative integer");
  if (a.has("--schedule-seed") && !interpret) return usageError("`--schedule-seed` orders the copies of `--interpret` runs");
  std::string nvcc;
  if (backend.cudaArch && !interpret) {
    nvcc = cpu::findNvcc();
    if (nvcc.empty())
      return usageError("`vxc run --target " + target + "` needs the CUDA toolkit and a GPU; `--interpret` runs the "
                        "same CUDA source on the CPU");
    // The toolkit without a GPU (a build machine): say so before building,
    // not as a CUDA driver error from the harness.
    if (!cpu::gpuPresent())
      return usageError("`vxc run --target " + target + "` needs an NVIDIA GPU, and this machine has none (no "
                        "/dev/nvidiactl, /dev/nvidia0 or /proc/driver/nvidia); `--interpret` runs the same CUDA "
                        "source on the CPU: `vxc run --target " + target + " --interpret ...`");
  }
  if (fo.unchecked && !interpret && target != "tpu")
    return usageError("`--unchecked` is for `--target tpu` and `--interpret` test runs only");
  if (interpret) setenv("VX_SCHEDULE_SEED", std::to_string(scheduleSeed).c_str(), 1);
  std::string compare = a.get("--compare", "");
  double tolerance = -1;
  if (a.has("--tolerance")) {
    if (compare.empty()) return usageError("`--tolerance` bounds the errors of `--compare=TARGET`");
    const std::string t = a.get("--tolerance", "");
    char* end = nullptr;
    tolerance = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0' || !(tolerance >= 0) || !std::isfinite(tolerance))
      return usageError("`--tolerance` must be a non-negative number (a relative error, such as 1e-3)");
  }
  TempDir scratch;
  if (scratch.path.empty()) return internalError("cannot create a temporary folder");
  RunRequest q;
  q.fo = fo;
  q.target = target;
  q.interpret = interpret;
  q.nvcc = nvcc;
  q.entry = a.get("--entry", "");
  q.seed = seed;
  q.repeat = repeat;
  q.args = kvs;
  q.inputs = inputs;
  q.outputDir = a.get("--output", "");
  q.traceOut = a.get("--trace", "");
  q.timelineOut = a.get("--timeline", "");
  if ((a.has("--trace") || a.has("--timeline")) && target != "tpu")
    return usageError("`--trace` and `--timeline` record vxsim's timeline: `--target tpu`");
  if (!compare.empty() && q.outputDir.empty()) q.outputDir = scratch.path + "/mine";
  if (!q.outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(q.outputDir, ec);
    if (ec) return usageError("cannot create `" + q.outputDir + "`: " + ec.message());
  }
  std::vector<BufferSpec> specs;
  std::string entryName;
  std::vector<std::string> effectiveArgs;
  q.entryOut = &entryName;
  q.argsOut = &effectiveArgs;
  if (int rc = runOn(q, specs)) return rc;
  if (compare.empty()) return 0;

  // ---- --compare=TARGET: the same entry, inputs and arguments there, once ----
  const Backend& other = backendFor(*target::targetByName(compare));
  RunRequest o = q;
  o.fo.target = compare;
  o.target = compare;
  o.nvcc = other.cudaArch ? cpu::findNvcc() : "";
  // Without the toolkit or a GPU, the other GPU target runs interpreted.
  o.interpret = other.cudaArch && (interpret || o.nvcc.empty() || !cpu::gpuPresent());
  o.repeat = 1;
  o.quiet = true;
  o.outputDir = scratch.path + "/theirs";
  o.entryOut = nullptr;
  o.argsOut = nullptr;
  o.traceOut.clear();
  o.timelineOut.clear();
  std::filesystem::create_directories(o.outputDir);
  std::vector<BufferSpec> otherSpecs;
  if (int rc = runOn(o, otherSpecs)) return rc;
  bool derived = tolerance < 0;
  if (derived) {
    // No `--tolerance`: the one the documented bounds give (docs/compute.md).
    dialect::ComparePair pair;
    pair.gpu = backend.cudaArch || other.cudaArch;
    pair.realGpu = (backend.cudaArch && !interpret) || (other.cudaArch && !o.interpret);
    dialect::CompareBound bound = deriveBound(q.fo, entryName, effectiveArgs, pair);
    if (!bound.known) {
      std::printf("compare: no tolerance derived (%s): pass `--tolerance REL`\n", bound.why.c_str());
      derived = false;
    } else {
      tolerance = bound.rel;
      std::printf("compare: derived tolerance %.6g of each output's largest magnitude%s\n", tolerance,
                  bound.terms.empty() ? " (every operation is computed bit for bit on both targets)" : ":");
      for (const std::string& t : bound.terms) std::printf("  %s\n", t.c_str());
    }
  }
  return compareOutputs(q.entry.empty() ? fo.file : q.entry, specs, q.outputDir, o.outputDir, compare, tolerance,
                        derived);
}

}  // namespace vx::driver
