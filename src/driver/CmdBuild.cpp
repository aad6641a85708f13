// `vxc build`: checked HIR -> VIR (-> C++ -> g++). Also the front half of
// `vxc run` (compileToCpu), so that both commands build the same way.
#include <cctype>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/Text.h"
#include "codegen/cpu/Cpu.h"
#include "codegen/cpu/Toolchain.h"
#include "dialect/Vir.h"

#include "driver/Args.h"
#include "driver/Backends.h"
#include "driver/Commands.h"
#include "driver/Pipeline.h"

namespace vx::driver {

namespace fs = std::filesystem;

namespace {

const char* kBuildHelp =
    "Usage: vxc build [options] FILE\n"
    "\n"
    "Checks FILE, lowers it to the `vx` MLIR dialect and builds it for a target.\n"
    "Exit status: 0 built, 1 the program has errors, 2 usage or internal error.\n"
    "\n"
    "Options:\n"
    "  --target=cpu|tpu|b200|h100      target (default cpu; tpu: a .vxdma program; b200 and h100:\n"
    "                                  CUDA, built with nvcc for sm_100a and sm_90a)\n"
    "  --emit=obj|lib|exe|cpp|cu|mlir|vxdma|abi  what to produce (default obj; vxdma for --target tpu):\n"
    "                                    obj  OUT.o + OUT.h      lib  OUT.so + OUT.h\n"
    "                                    exe  the `vxc run` harness for --entry\n"
    "                                    cpp  OUT.cpp + OUT.h (cpu)  cu  OUT.cu + OUT.h (b200, h100)\n"
    "                                    mlir VIR as text (stdout without -o)\n"
    "                                    abi  the C entries as JSON (stdout without -o)\n"
    "                                  several at once: `--emit=mlir,cpp,obj` (-o is then the stem,\n"
    "                                  or a folder: `-o out/`);\n"
    "                                  one named: `--emit=obj=k.o,mlir=k.mlir`\n"
    "  -o OUT                          output path (default: FILE's name, in the current folder);\n"
    "                                  `-o -`: standard output, for the text kinds (cpp, cu, mlir, vxdma, abi)\n"
    "  --target-cpu=native|NAME        cpu: build for this machine, or a named level (`x86-64-v3`);\n"
    "                                  by default objects run on any machine of the architecture\n"
    "  --entry NAME                    the function an exe runs (tpu: the kernel)\n"
    "  --sync-baseline                 every transfer_async blocking (the correctness oracle)\n"
    "  --debug-info                    with --emit=mlir: print source locations\n"
    "  --symbol-prefix=P               cpu, b200, h100: name the C entries `P<fn>` (default `vx_`),\n"
    "                                  so that kernels with functions of one name link together\n"
    "  --interpret                     b200, h100: build the CUDA source as host C++ under the\n"
    "                                  interpreter (`vxc run --interpret`'s): a lib or exe without nvcc\n"
    "  --error-format=human|json|sarif diagnostics format (default human)\n"
    "  --color=auto|always|never       colours in human output\n"
    "  --solver-rlimit=N               Z3 resource limit per query of the checker, 1 to 999999999 (default 2000000)\n"
    "  --const NAME=VALUE              set `const NAME` (integer, float or bool) for this build; repeatable\n"
    "  -D NAME, -W NAME, -A NAME        deny, warn about or allow a lint (`unproved`, `unused_variables`);\n"
    "                                  `-D warnings` makes every warning an error\n";

}  // namespace

// The C header written beside an artifact of `kind` at `out` (FILE's stem
// `stem`): a unit's (cpp, cu) has its name with `.h`, an object's too, a
// library's FILE's stem (`libk.so` and `k.h`). Empty for the other kinds
// and standard output.
static std::string headerPath(const std::string& kind, const std::string& out, const std::string& stem) {
  if (out == "-" || out.empty()) return {};
  if (kind == "cpp" || kind == "cu") {
    fs::path p(out);
    p.replace_extension(".h");
    return p.string();
  }
  if (kind == "obj") return (fs::path(out).parent_path() / (fs::path(out).stem().string() + ".h")).string();
  if (kind == "lib") return (fs::path(out).parent_path() / (stem + ".h")).string();
  return {};
}

namespace {

// `--emit=cpp|cu`: the unit at `unitPath` and its header beside it; the
// unit includes its header by the name the header is written under.
int writeSource(const CpuProgram& prog, const std::string& unitPath) {
  if (unitPath == "-") {
    // Standard output: one self-contained unit, the header in its place.
    std::string unit = prog.source, error;
    std::string from = "#include \"" + prog.headerName + "\"";
    if (size_t at = unit.find(from); at != std::string::npos) unit.replace(at, from.size(), prog.header);
    return writeFile("-", unit, error) ? 0 : usageError(error);
  }
  std::string hPath = headerPath("cpp", unitPath, ""), error;
  std::string unit = prog.source;
  std::string from = "#include \"" + prog.headerName + "\"", to = "#include \"" + fs::path(hPath).filename().string() + "\"";
  if (size_t at = unit.find(from); at != std::string::npos) unit.replace(at, from.size(), to);
  if (!writeFile(unitPath, unit, error) || !writeFile(hPath, prog.header, error)) return usageError(error);
  return 0;
}

// `--emit=abi`: the C entries as JSON, for tools that call them (the Python
// package, python/vx): one object per function that has a C entry.
std::string abiJson(const CpuProgram& prog, const std::string& target) {
  nlohmann::json fns = nlohmann::json::array();
  for (const cpu::Entry& e : prog.entries) {
    nlohmann::json params = nlohmann::json::array();
    for (const cpu::Param& p : e.params) {
      const char* kind = "scalar";
      switch (p.kind) {
        case cpu::Param::Kind::Scalar: kind = "scalar"; break;
        case cpu::Param::Kind::Tensor: kind = "tensor"; break;
        case cpu::Param::Kind::Pinned: kind = "tensor"; break;
        case cpu::Param::Kind::Vec: kind = "vec"; break;
      }
      nlohmann::json q{{"name", p.name}, {"kind", kind}, {"type", p.type}, {"shape", p.shape}, {"mut", p.mut}};
      // Run-time extents: per dimension the extent's name (null where
      // static); the hidden parameters that hold them are marked.
      if (!p.extents.empty()) {
        nlohmann::json dims = nlohmann::json::array();
        for (const std::string& d : p.extents) dims.push_back(d.empty() ? nlohmann::json(nullptr) : nlohmann::json(d));
        q["extents"] = dims;
      }
      if (p.extent) q["extent"] = true;
      params.push_back(std::move(q));
    }
    nlohmann::json f{{"name", e.name}, {"symbol", e.symbol}, {"params", params},
                     {"result", e.result.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.result)},
                     {"c_abi", e.cAbi}};
    if (!e.cAbi) f["why"] = e.why;
    fns.push_back(std::move(f));
  }
  nlohmann::json j{{"vxc", version()}, {"target", target}, {"functions", fns}};
  return j.dump(2) + "\n";
}

}  // namespace

TempDir::TempDir() {
  char tmpl[] = "/tmp/vxc-build-XXXXXX";
  if (mkdtemp(tmpl)) path = tmpl;
}
TempDir::~TempDir() {
  std::error_code ec;
  if (!path.empty()) fs::remove_all(path, ec);
}

int internalError(const std::string& message) {
  std::fprintf(stderr, "error: internal compiler error: %s\n", message.c_str());
  return 2;
}

int frontToVir(const FrontOptions& opts, const LowerVir& lower) {
  base::ReadResult r = base::readFile(opts.file);
  if (!r.error.empty()) return usageError(r.error);
  base::SourceMap sources;
  diag::Sink sink;
  base::FileId id = sources.add(opts.file, std::move(r.text));
  CheckOptions check;
  check.target = opts.target;
  check.overrideHazards = opts.unchecked;
  // The build lowers the program itself and reports the same diagnostics.
  check.targetLegality = false;
  check.lints = opts.lints;
  check.solverRlimit = opts.solverRlimit;
  check.consts = opts.consts;
  CheckOutput checked = checkFile(sources, id, sink, check);
  if (!checked.usageError.empty()) return usageError(opts.file + ": " + checked.usageError);
  bool lowered = false;
  if (checked.program) {
    dialect::VirOptions vo;
    vo.target = opts.target;
    vo.syncBaseline = opts.syncBaseline;
    std::unique_ptr<dialect::Vir> vir = dialect::buildVir(*checked.program, sources, id, vo, sink);
    if (vir) lowered = lower(*vir, id, sink);
  }
  // Warnings print even when the build goes on; errors stop it.
  if (!sink.diagnostics().empty() && !(opts.quietWarnings && !sink.hasErrors())) {
    std::string rendered = renderAll(sink, sources, opts.format, opts.color);
    std::fputs(rendered.c_str(), opts.format == Format::Sarif ? stdout : stderr);
    if (lowered && sink.hasErrors())
      std::fputs("warning: --unchecked: built although the checker rejected the program (for tests only)\n", stderr);
  }
  return lowered ? 0 : 1;
}

int compileToCpu(const FrontOptions& opts, CpuProgram& out) {
  return frontToVir(opts, [&](dialect::Vir& vir, base::FileId, diag::Sink&) {
    if (opts.wantMlir) out.mlir = vir.print(opts.debugInfo);
    out.headerName = fs::path(opts.file).stem().string() + ".h";
    const Backend& backend = backendFor(*target::targetByName(opts.target));
    if (!opts.wantMlir && (opts.target == "cpu" || backend.cudaArch)) {
      cpu::CppUnit unit = cpu::emitCpp(vir, out.headerName, opts.file,
                                       backend.cudaArch ? cpu::Flavor::Cuda : cpu::Flavor::Cpu, opts.symbolPrefix);
      out.source = std::move(unit.source);
      out.header = std::move(unit.header);
      out.entries = std::move(unit.entries);
      out.runtimeChecks = unit.runtimeChecks;
    }
    return true;
  });
}

// Why `output` cannot be written, or "": checked before a compiler runs,
// whose own failure to write it would read as vxc's bug.
std::string unwritable(const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(output);
  if (fs::is_directory(p, ec)) return "cannot write `" + output + "`: it is a folder";
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::exists(dir, ec)) return "cannot write `" + output + "`: its folder `" + dir.string() + "` does not exist";
  if (!fs::is_directory(dir, ec)) return "cannot write `" + output + "`: `" + dir.string() + "` is not a folder";
  if (::access(dir.c_str(), W_OK) != 0 || (fs::exists(p, ec) && ::access(p.c_str(), W_OK) != 0))
    return "cannot write `" + output + "`: " + std::strerror(errno);
  return {};
}

int compileGenerated(const std::string& source, const std::string& output, cpu::Artifact kind,
                     const std::string& origin, const std::string& targetCpu) {
  if (std::string e = cpu::runtimeIncludeError(); !e.empty()) return usageError(e);
  if (std::string e = unwritable(output); !e.empty()) return usageError(e);
  cpu::CompileResult r = cpu::compileCpp(source, output, kind, targetCpu);
  // An unknown CPU name is the user's, not an internal error.
  if (!r.ok && !targetCpu.empty() && r.log.find("-march=") != std::string::npos)
    return usageError("`--target-cpu=" + targetCpu + "`: the C++ compiler does not know this CPU:\n" + r.log);
  return compiled(r, origin, "the C++ compiler");
}

int compiled(const cpu::CompileResult& c, const std::string& origin, const std::string& compiler) {
  if (c.ok) return 0;
  // Emitted code that does not compile is vxc's bug, never the user's.
  std::string log = c.log.size() > 6000 ? c.log.substr(0, 6000) + "\n[...]" : c.log;
  return internalError(compiler + " rejected the code vxc generated for `" + origin + "`\n  command: " +
                       c.command + "\n" + log);
}

const cpu::Entry* findEntry(const CpuProgram& prog, const std::string& name, std::string& error) {
  std::string names;
  std::vector<std::string> all;
  const cpu::Entry* only = nullptr;
  unsigned count = 0;
  for (const cpu::Entry& e : prog.entries) {
    if (e.name == name) {
      if (!e.cAbi) error = "`" + name + "` cannot be an entry: " + e.why;
      return e.cAbi ? &e : nullptr;
    }
    if (!e.cAbi) continue;
    names += (names.empty() ? "`" : ", `") + e.name + "`";
    all.push_back(e.name);
    only = &e;
    ++count;
  }
  if (name.empty() && count == 1) return only;
  if (name.empty())
    error = count == 0 ? "the program has no function that can be an entry" : "choose an entry with `--entry NAME` (one of " + names + ")";
  else if (std::string close = base::closestMatch(name, all); !close.empty())
    error = "no function `" + name + "` to use as the entry; did you mean `" + close + "`?";
  else
    error = "no function `" + name + "` to use as the entry" + (names.empty() ? "" : "; the entries are " + names);
  return nullptr;
}

std::vector<FlagSpec> withFrontFlags(std::vector<FlagSpec> own) {
  std::vector<FlagSpec> front = {{"--help", false, {}},
                                 {"--target", true, targetNames()},
                                 {"--entry", true, {}},
                                 {"--sync-baseline", false, {}},
                                 {"--unchecked", false, {}},  // hidden: tests only (CmdTpu.cpp)
                                 {"--error-format", true, {"human", "json", "sarif"}},
                                 {"--color", true, {"auto", "always", "never"}},
                                 {"--solver-rlimit", true, {}},
                                 {"--const", true, {}},
                                 {"-D", true, {}},
                                 {"-W", true, {}},
                                 {"-A", true, {}}};
  own.insert(own.end(), front.begin(), front.end());
  return own;
}

int frontOptions(const ParsedArgs& a, const std::string& command, FrontOptions& fo) {
  std::string lintError;
  fo.lints = lintOptions(a, lintError);
  if (!lintError.empty()) return usageError(lintError);
  if (a.positional.size() != 1) return usageError("`vxc " + command + "` needs exactly one file");
  if (a.has("--solver-rlimit")) {
    std::string v = a.get("--solver-rlimit", "");
    if (!parseSolverRlimit(v, fo.solverRlimit))
      return usageError("`--solver-rlimit` takes a whole number from 1 to 999999999 (Z3's resources per query; "
                        "the default is 2000000), not `" + v + "`");
  }
  fo.file = a.positional[0];
  for (const auto& [flag, value] : a.ordered)
    if (flag == "--const") fo.consts.push_back(value);
  fo.target = a.get("--target", "cpu");
  fo.syncBaseline = a.has("--sync-baseline");
  fo.unchecked = a.has("--unchecked");
  std::string fmt = a.get("--error-format", "human");
  fo.format = fmt == "json" ? Format::Json : fmt == "sarif" ? Format::Sarif : Format::Human;
  std::string color = a.get("--color", "auto");
  fo.color = color == "always" || (color == "auto" && isatty(STDERR_FILENO));
  return 0;
}

namespace {

// One artifact of `vxc build`: `emit` written to `output` (empty: the
// default name for FILE, or -o's path when it is the only artifact).
int buildOne(FrontOptions fo, const ParsedArgs& a, const std::string& emit, const std::string& output,
             const std::string& targetCpu, bool emitGiven) {
  fo.wantMlir = emit == "mlir";
  auto outOr = [&](const std::string& dflt) { return output.empty() ? dflt : output; };
  // ---- tpu: a .vxdma program (CmdTpu.cpp) ----
  if (fo.target == "tpu" && emit != "mlir") {
    if (emitGiven && emit != "vxdma") return usageError("`--target tpu` builds `--emit=vxdma` or `--emit=mlir`");
    return buildTpu(fo, a.get("--entry", ""), outOr(fs::path(fo.file).stem().string() + ".vxdma"));
  }
  if (emit == "vxdma") return usageError("`--emit=vxdma` needs `--target tpu`");
  if (fo.unchecked) return usageError("`--unchecked` is for `--target tpu` test builds only");
  // ---- end tpu ----
  if (!backendFor(*target::targetByName(fo.target)).builds && emit != "mlir")
    return usageError("`vxc build --target " + fo.target + "` is not available in this version; `--emit=mlir` is, "
                      "and `--target cpu` builds everything (see docs/status.md)");

  const Backend& backend = backendFor(*target::targetByName(fo.target));
  if (backend.cudaArch && emit == "cpp") return usageError("`--target " + fo.target + "` emits CUDA: `--emit=cu`");
  if (!backend.cudaArch && emit == "cu") return usageError("`--emit=cu` needs `--target b200` or `--target h100`");
  const bool interpret = a.has("--interpret");
  if (interpret && (!backend.cudaArch || (emit != "lib" && emit != "obj" && emit != "exe")))
    return usageError("`--interpret` builds `--target b200` or `--target h100` as host C++ under the CUDA "
                      "interpreter: `--emit=lib`, `obj` or `exe`");
  std::string nvcc;
  if (backend.cudaArch && emit != "mlir" && emit != "cu" && !interpret) {
    nvcc = cpu::findNvcc();
    if (nvcc.empty())
      return usageError("`--emit=" + emit + "` for `--target " + fo.target +
                        "` needs the CUDA toolkit (nvcc), which is not installed here; `--emit=cu` writes the "
                        "CUDA source, and `vxc run --target " + fo.target + " --interpret` runs it on the CPU");
  }
  if (output == "-" && (emit == "obj" || emit == "lib" || emit == "exe"))
    return usageError("`-o -` writes text to standard output; `--emit=" + emit +
                      "` is a binary file: name its path (`-o " + fs::path(fo.file).stem().string() +
                      (emit == "obj" ? ".o" : emit == "lib" ? ".so" : "") + "`)");
  CpuProgram prog;
  if (int rc = compileToCpu(fo, prog)) return rc;
  std::string stem = fs::path(fo.file).stem().string();
  std::string error;
  if (backend.cudaArch && prog.runtimeChecks && emit != "mlir" && emit != "cu" && !interpret)
    return usageError("a function of `" + fo.file + "` is `#[allow(unproved)]`: its token checks happen at run "
                      "time, which `--target " + fo.target + "` does only under `vxc run --interpret`");

  if (emit == "abi") {
    std::string json = abiJson(prog, fo.target);
    if (output.empty()) {
      std::fputs(json.c_str(), stdout);
      return 0;
    }
    return writeFile(output, json, error) ? 0 : usageError(error);
  }
  if (emit == "mlir") {
    if (output.empty()) {
      std::fputs(prog.mlir.c_str(), stdout);
      return 0;
    }
    return writeFile(output, prog.mlir, error) ? 0 : usageError(error);
  }
  if (backend.cudaArch)
    return buildCuda(fo, prog, emit, output, a.get("--entry", ""), interpret ? "" : nvcc, backend.cudaArch);
  if (emit == "cpp") return writeSource(prog, outOr(stem + ".cpp"));
  TempDir tmp;
  if (tmp.path.empty()) return internalError("cannot create a temporary folder");
  std::string unitPath = tmp.path + "/" + stem + ".cpp";
  if (!writeFile(unitPath, prog.source, error) || !writeFile(tmp.path + "/" + prog.headerName, prog.header, error))
    return internalError(error);
  if (emit == "exe") {
    const cpu::Entry* entry = findEntry(prog, a.get("--entry", ""), error);
    if (!entry) return usageError(error);
    std::string main = tmp.path + "/main.cpp";
    if (!writeFile(main, cpu::emitHarness(*entry, unitPath), error)) return internalError(error);
    return compileGenerated(main, outOr(stem), cpu::Artifact::Executable, fo.file, targetCpu);
  }
  bool lib = emit == "lib";
  std::string out = outOr(lib ? "lib" + stem + ".so" : stem + ".o");
  if (int rc = compileGenerated(unitPath, out, lib ? cpu::Artifact::SharedLibrary : cpu::Artifact::Object, fo.file,
                                targetCpu))
    return rc;
  // The header goes next to the artifact: what a C caller includes.
  return writeFile(headerPath(emit, out, stem), prog.header, error) ? 0 : usageError(error);
}

}  // namespace

// An artifact's default file name, after FILE's stem: `k.o`, `libk.so`,
// `k` (exe), `k.abi.json`, `k.cpp`, `k.mlir`, ...
static std::string artifactName(const std::string& kind, const std::string& base) {
  return kind == "obj" ? base + ".o" : kind == "lib" ? "lib" + base + ".so" : kind == "exe" ? base
         : kind == "abi" ? base + ".abi.json" : base + "." + kind;
}

int cmdBuild(const std::vector<std::string>& args) {
  ParsedArgs a = parseArgs("build", args,
                           withFrontFlags({{"--emit", true, {}},
                                           {"-o", true, {}},
                                           {"--target-cpu", true, {}},
                                           {"--debug-info", false, {}},
                                           {"--symbol-prefix", true, {}},
                                           {"--interpret", false, {}}}));
  if (!a.error.empty()) return usageError(a.error);
  if (a.has("--help")) {
    std::fputs(kBuildHelp, stdout);
    return 0;
  }
  FrontOptions fo;
  if (int rc = frontOptions(a, "build", fo)) return rc;
  fo.debugInfo = a.has("--debug-info");
  if (a.has("--symbol-prefix")) {
    fo.symbolPrefix = a.get("--symbol-prefix", "");
    const std::string& p = fo.symbolPrefix;
    bool ident = !p.empty() && p.size() <= 64 && !std::isdigit(static_cast<unsigned char>(p[0]));
    for (char c : p) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ident)
      return usageError("`--symbol-prefix` takes the start of a C identifier (letters, digits and `_`, not first a "
                        "digit; at most 64), not `" + p + "`");
    if (fo.target == "tpu") return usageError("`--symbol-prefix` is for the targets with a C entry (cpu, b200, h100)");
  }
  // Portable by default, as rustc: objects and libraries run on any machine
  // of the architecture; `--target-cpu=native` (or a level) opts in.
  std::string targetCpu = a.get("--target-cpu", "");
  if (a.has("--target-cpu") && !cpu::validTargetCpu(targetCpu))
    return usageError("`--target-cpu` takes `native` or a CPU name the C++ compiler knows (`x86-64-v3`), not `" +
                      targetCpu + "`");
  if (a.has("--target-cpu") && fo.target != "cpu")
    return usageError("`--target-cpu` is for `--target cpu`");
  // `--emit=KIND[=PATH],...`: one artifact per kind, as rustc's --emit.
  // With one kind and no PATH, -o names it; with several, -o names the stem
  // every kind's default extension goes on.
  static const std::vector<std::string> kinds{"obj", "lib", "exe", "cpp", "cu", "mlir", "vxdma", "abi"};
  std::vector<std::pair<std::string, std::string>> emits;
  std::string spec = a.get("--emit", "obj");
  for (size_t from = 0; from <= spec.size();) {
    size_t comma = spec.find(',', from);
    std::string item = spec.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    from = comma == std::string::npos ? spec.size() + 1 : comma + 1;
    size_t eq = item.find('=');
    std::string kind = item.substr(0, eq), path = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
      std::string list;
      for (const std::string& k : kinds) list += (list.empty() ? "`" : ", `") + k + "`";
      return usageError("invalid value `" + kind + "` for `--emit`; expected one of " + list +
                        " (several: `--emit=mlir,obj`, each may name its file: `--emit=obj=k.o`)");
    }
    if (eq != std::string::npos && path.empty()) return usageError("`--emit=" + item + "`: expected KIND=PATH");
    for (const auto& [k, p] : emits)
      if (k == kind) return usageError("`--emit` names `" + kind + "` twice");
    emits.emplace_back(kind, path);
  }
  // The header an artifact brings would replace a file this build reads or
  // writes.
  auto headerOverwrites = [&](const std::string& h, const std::string& other) {
    bool input = other == fo.file;
    return usageError("the C header written beside the artifact would be `" + h + "`, which is " +
                      (input ? "the input file" : "also an artifact of this build (`" + other + "`)") +
                      " (name the artifact otherwise with `-o` or `--emit=KIND=PATH`)");
  };
  auto overwrites = [&](const std::string& out) {
    return usageError("`" + out + "` is the input file; writing it would overwrite `" + fo.file +
                      "` (name another output with `-o` or `--emit=KIND=PATH`)");
  };
  if (emits.size() == 1) {
    std::string out = emits[0].second.empty() ? a.get("-o", "") : emits[0].second;
    // The default names (FILE's stem and the kind's extension) may be the
    // input's own name too (a source file called `k` built as `exe`).
    const std::string& kind = emits[0].first;
    std::string stem = fs::path(fo.file).stem().string();
    std::string dflt = kind == "abi" || kind == "mlir" ? "" : artifactName(kind, stem);  // those two: stdout
    if (namesInput(fo.file, out.empty() ? dflt : out)) return overwrites(out.empty() ? dflt : out);
    if (std::string h = headerPath(kind, out.empty() ? dflt : out, stem); !h.empty()) {
      if (namesInput(fo.file, h)) return headerOverwrites(h, fo.file);
      if (namesInput(out.empty() ? dflt : out, h) || h == (out.empty() ? dflt : out))
        return headerOverwrites(h, out.empty() ? dflt : out);
    }
    return buildOne(fo, a, emits[0].first, out, targetCpu, a.has("--emit"));
  }
  if (a.get("-o", "") == "-")
    return usageError("`-o -` names one artifact; with several `--emit` kinds, give each its path "
                      "(`--emit=mlir=-,obj`)");
  std::string stem = a.has("-o") ? a.get("-o", "") : fs::path(fo.file).stem().string();
  // `-o DIR/` (or an existing folder): the artifacts go there, named after
  // FILE (`out/.cpp` was written).
  if (std::error_code ec; !stem.empty() && (stem.back() == '/' || fs::is_directory(stem, ec)))
    stem = (fs::path(stem) / fs::path(fo.file).stem()).string();
  // Every artifact's path first: none may be the input, nor two the same
  // file (the later one would replace the earlier), before any is written.
  std::vector<std::string> outs;
  for (const auto& [kind, path] : emits) {
    std::string out = path;
    if (out.empty()) {
      fs::path sp(stem);
      std::string base = sp.filename().string();
      out = (sp.parent_path() / artifactName(kind, base)).string();
    }
    if (namesInput(fo.file, out)) return overwrites(out);
    for (size_t j = 0; j < outs.size(); ++j)
      if (outs[j] == out || (out != "-" && namesInput(outs[j], out)))
        return usageError("`--emit=" + emits[j].first + "` and `--emit=" + kind + "` both write `" + out +
                          "`; give each its own path");
    outs.push_back(out);
  }
  // The headers written beside them: none may be the input or an artifact.
  for (size_t i = 0; i < emits.size(); ++i) {
    std::string h = headerPath(emits[i].first, outs[i], fs::path(fo.file).stem().string());
    if (h.empty()) continue;
    if (namesInput(fo.file, h)) return headerOverwrites(h, fo.file);
    for (const std::string& o : outs)
      if (o == h || namesInput(o, h)) return headerOverwrites(h, o);
  }
  for (size_t i = 0; i < emits.size(); ++i) {
    // The diagnostics once: warnings of the later artifacts are the same.
    FrontOptions one = fo;
    if (i > 0) one.quietWarnings = true;
    if (int rc = buildOne(one, a, emits[i].first, outs[i], targetCpu, true)) return rc;
  }
  return 0;
}

int buildCuda(const FrontOptions& fo, const CpuProgram& prog, const std::string& emit, const std::string& output,
              const std::string& entryName, const std::string& nvcc, const std::string& arch) {
  std::string stem = fs::path(fo.file).stem().string();
  std::string error;
  if (emit == "cu") return writeSource(prog, output.empty() ? stem + ".cu" : output);
  if (std::string e = cpu::runtimeIncludeError(); !e.empty()) return usageError(e);
  TempDir tmp;
  if (tmp.path.empty()) return internalError("cannot create a temporary folder");
  std::string unitPath = tmp.path + "/" + stem + ".cu";
  if (!writeFile(unitPath, prog.source, error) || !writeFile(tmp.path + "/" + prog.headerName, prog.header, error))
    return internalError(error);
  // No nvcc: `--interpret`, the host compiler with the interpreter in place
  // of the GPU (what `vxc run --interpret` runs; a library the Python
  // package loads).
  const bool interpret = nvcc.empty();
  auto command = [&](const std::string& source, const std::string& out, cpu::Artifact kind) {
    return interpret ? cpu::interpreterCommand(source, out, arch, kind)
                     : cpu::cudaCompilerCommand(nvcc, source, out, kind, arch);
  };
  const char* compiler = interpret ? "the C++ compiler (CUDA interpreter)" : "nvcc";
  if (emit == "exe") {
    const cpu::Entry* entry = findEntry(prog, entryName, error);
    if (!entry) return usageError(error);
    std::string main = tmp.path + (interpret ? "/main.cpp" : "/main.cu");
    if (!writeFile(main, cpu::emitHarness(*entry, unitPath, cpu::Flavor::Cuda), error)) return internalError(error);
    if (std::string e = unwritable(output.empty() ? stem : output); !e.empty()) return usageError(e);
    return compiled(cpu::runCompiler(command(main, output.empty() ? stem : output, cpu::Artifact::Executable)),
                    fo.file, compiler);
  }
  bool lib = emit == "lib";
  std::string out = output.empty() ? (lib ? "lib" + stem + ".so" : stem + ".o") : output;
  if (std::string e = unwritable(out); !e.empty()) return usageError(e);
  if (int rc = compiled(cpu::runCompiler(command(unitPath, out,
                                                 lib ? cpu::Artifact::SharedLibrary : cpu::Artifact::Object)),
                        fo.file, compiler))
    return rc;
  return writeFile(headerPath(emit, out, stem), prog.header, error) ? 0 : usageError(error);
}

bool namesInput(const std::string& input, const std::string& output) {
  if (output.empty() || output == "-") return false;
  std::error_code ec;
  if (fs::exists(output, ec) && fs::equivalent(input, output, ec)) return true;
  fs::path a = fs::weakly_canonical(input, ec);
  if (ec) return false;
  fs::path b = fs::weakly_canonical(output, ec);
  return !ec && a == b;
}

bool writeFile(const std::string& path, const std::string& text, std::string& error) {
  if (path == "-") {  // `-o -`: standard output, as every Unix tool
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    if (std::ferror(stdout)) error = "cannot write to standard output";
    return !std::ferror(stdout);
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    std::string why = unwritable(path);
    error = why.empty() ? "cannot write `" + path + "`" : why;
  }
  return static_cast<bool>(out);
}

}  // namespace vx::driver
