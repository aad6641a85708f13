// `vxsim`: run a .vxdma program on the simulated TensorCore.
// Exit status: 0 ran to halt, 2 usage error / unreadable or malformed
// program / program that cannot load, 3 runtime fault.
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/Sim.h"
#include "tpu/Asm.h"
#include "tpu/AsmLex.h"

namespace {

const char* kHelp =
    "vxsim - run a .vxdma program on the simulated TPU-like TensorCore\n"
    "\n"
    "Usage: vxsim PROGRAM.vxdma [options]\n"
    "\n"
    "Options:\n"
    "  --seed N               seed for the input fill (vx_fill), default 0\n"
    "  --arg NAME=VALUE       value of a `.param` (repeatable)\n"
    "  --config FILE          machine parameters, `key = value` lines\n"
    "  --set KEY=VALUE        one machine parameter (after --config)\n"
    "  --max-instructions N   executed-instruction limit (default 100000000)\n"
    "  --cores N              TensorCores a `.spmd` program runs on (default 2)\n"
    "  --trace OUT.json       write a Chrome/Perfetto trace\n"
    "  --timeline OUT.svg     write the timeline as an SVG picture\n"
    "  --profile              after the run, print where the time went and a hint\n"
    "  --check                assemble only; report errors\n"
    "  --print                print the program in canonical form\n"
    "  --print-config         print every machine parameter and exit\n"
    "  --config-table         print the parameter table (Markdown) and exit\n"
    "  --isa                  print the opcode table (Markdown) and exit\n"
    "  -h, --help             print this help\n"
    "  -V, --version          print the version\n"
    "\n"
    "Exit status: 0 ok, 2 bad usage or program, 3 runtime fault.\n"
    "See docs/tpu/sim.md and docs/tpu/isa.md.\n";

int usage(const std::string& msg) {
  std::fprintf(stderr, "vxsim: error: %s\n  (see `vxsim --help`)\n", msg.c_str());
  return 2;
}

bool readFile(const std::string& path, std::string& out) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return false;  // an ifstream opens a folder, and reads nothing
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return !f.bad();
}

bool writeFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  return static_cast<bool>(f);
}

// NAME=VALUE with an integer value.
bool splitArg(const std::string& s, std::string& name, std::string& value) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  name = s.substr(0, eq);
  value = s.substr(eq + 1);
  return true;
}

int realMain(const std::vector<std::string>& args) {
  vx::sim::Options opt;
  std::string program, traceOut, svgOut, configFile;
  std::vector<std::pair<std::string, std::string>> sets;
  bool checkOnly = false, printOnly = false, printConfig = false, profile = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= args.size()) return false;
      out = args[++i];
      return true;
    };
    std::string v;
    if (a == "-h" || a == "--help") {
      std::fputs(kHelp, stdout);
      return 0;
    } else if (a == "-V" || a == "--version") {
      std::printf("vxsim %s (.vxdma format %u)\n", VXC_VERSION, vx::tpu::kFormatVersion);
      return 0;
    } else if (a == "--isa") {
      std::fputs(vx::tpu::opcodeTableMarkdown().c_str(), stdout);
      return 0;
    } else if (a == "--config-table") {
      std::fputs(vx::sim::configTableMarkdown().c_str(), stdout);
      return 0;
    } else if (a == "--seed") {
      if (!value(v)) return usage("--seed needs a value");
      // 0 to 2^64 - 1, as `vxc run --seed` takes it (a negative number is no seed).
      bool digits = !v.empty() && v.size() <= 20 && v.find_first_not_of("0123456789") == std::string::npos;
      errno = 0;
      unsigned long long n = digits ? std::strtoull(v.c_str(), nullptr, 10) : 0;
      if (!digits || errno == ERANGE) return usage("--seed takes a whole number from 0 to 2^64 - 1, not `" + v + "`");
      opt.seed = static_cast<uint64_t>(n);
    } else if (a == "--arg") {
      std::string name, val;
      if (!value(v) || !splitArg(v, name, val)) return usage("--arg takes NAME=VALUE");
      auto n = vx::tpu::asmlex::parseInt(val);
      if (!n) return usage("--arg " + name + " takes an integer, not `" + val + "`");
      opt.args.emplace_back(name, *n);
    } else if (a == "--config") {
      if (!value(configFile)) return usage("--config needs a file");
    } else if (a == "--set") {
      std::string name, val;
      if (!value(v) || !splitArg(v, name, val)) return usage("--set takes KEY=VALUE");
      sets.emplace_back(name, val);
    } else if (a == "--max-instructions") {
      if (!value(v)) return usage("--max-instructions needs a value");
      sets.emplace_back("max_instructions", v);
    } else if (a == "--cores") {
      if (!value(v)) return usage("--cores needs a value");
      sets.emplace_back("cores", v);
    } else if (a == "--trace") {
      if (!value(traceOut) || traceOut.empty()) return usage("--trace needs a file");
    } else if (a == "--timeline") {
      if (!value(svgOut) || svgOut.empty()) return usage("--timeline needs a file");
    } else if (a == "--profile") {
      profile = true;
    } else if (a == "--check") {
      checkOnly = true;
    } else if (a == "--print") {
      printOnly = true;
    } else if (a == "--print-config") {
      printConfig = true;
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option `" + a + "`");
    } else if (program.empty()) {
      program = a;
    } else {
      return usage("more than one program given (`" + program + "` and `" + a + "`)");
    }
  }

  if (!configFile.empty()) {
    std::string text;
    if (!readFile(configFile, text)) return usage("cannot read config file `" + configFile + "`");
    auto errors = vx::sim::parseConfig(text, configFile, opt.config);
    for (const std::string& e : errors) std::fprintf(stderr, "%s\n", e.c_str());
    if (!errors.empty()) return 2;
  }
  for (const auto& [k, val] : sets) {
    std::string err;
    if (!vx::sim::setConfig(opt.config, k, val, err)) return usage(err);
  }
  if (printConfig) {
    std::fputs(vx::sim::printConfig(opt.config).c_str(), stdout);
    return 0;
  }
  if (program.empty()) return usage("no program given");
  if (checkOnly && printOnly) return usage("--check and --print each stop before the run: give one");

  std::string text;
  if (!readFile(program, text)) return usage("cannot read `" + program + "`");
  if (text.rfind("\xEF\xBB\xBF", 0) == 0)
    return usage("`" + program + "` starts with a UTF-8 byte order mark; a .vxdma program starts with `.vxdma 1`");
  // The trace and timeline files are checked before the run (which can be
  // long): writable, and kept as they were when they existed.
  for (const std::string& out : {traceOut, svgOut}) {
    if (out.empty()) continue;
    std::error_code ec;
    const bool existed = std::filesystem::exists(out, ec);
    if (std::filesystem::is_directory(out, ec)) return usage("cannot write `" + out + "`: it is a folder");
    { std::ofstream probe(out, std::ios::app); if (!probe) return usage("cannot write `" + out + "`"); }
    if (!existed) std::filesystem::remove(out, ec);
  }
  vx::tpu::AsmResult asmResult = vx::tpu::assemble(text);
  if (!asmResult.ok()) {
    for (const vx::tpu::AsmError& e : asmResult.errors)
      std::fprintf(stderr, "%s\n", vx::tpu::formatError(program, e).c_str());
    return 2;
  }
  if (checkOnly) return 0;
  if (printOnly) {
    std::fputs(vx::tpu::print(asmResult.program).c_str(), stdout);
    return 0;
  }

  opt.programName = program;
  opt.trace = !traceOut.empty() || !svgOut.empty();
  vx::sim::Result r = vx::sim::run(asmResult.program, opt);
  if (r.status == vx::sim::Status::Ok) {
    std::fputs(vx::sim::report(r).c_str(), stdout);
    if (profile) std::fputs(vx::sim::profileText(asmResult.program, r).c_str(), stdout);
  } else std::fprintf(stderr, "%s", vx::sim::report(r).c_str());
  // A faulting run still gets its trace: it shows what led up to the fault.
  if (r.status != vx::sim::Status::LoadError) {
    if (!traceOut.empty() && !writeFile(traceOut, vx::sim::chromeTraceJson(asmResult.program, r)))
      return usage("cannot write `" + traceOut + "`");
    if (!svgOut.empty() && !writeFile(svgOut, vx::sim::timelineSvg(asmResult.program, r)))
      return usage("cannot write `" + svgOut + "`");
  }
  return r.exitCode();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return realMain(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vxsim: internal error: %s\n", e.what());
    return 2;
  }
}
