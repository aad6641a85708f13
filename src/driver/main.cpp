// `vxc`: the compiler driver. Subcommands live in Cmd*.cpp.
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "base/Text.h"
#include "base/Thread.h"
#include "driver/Args.h"
#include "driver/Backends.h"
#include "driver/Commands.h"
#include "driver/Pipeline.h"

namespace {

const char* kHelp =
    "vxc — the Vx compiler\n"
    "\n"
    "Usage: vxc <command> [options] [args]\n"
    "\n"
    "Commands:\n"
    "  check FILE...        parse and check Vx files, report diagnostics\n"
    "  fix FILE...          apply the checker's machine-applicable fixes (e.g. a missing `wait`)\n"
    "  explain CODE         print the documentation of a diagnostic code (e.g. E0001)\n"
    "  test-ui DIR...       run UI (golden) tests: .vx files with //~ expectations\n"
    "  build FILE           build a Vx file (`--target cpu`: C++, object, library, executable)\n"
    "  run FILE             build and run an entry on the host; print output checksums\n"
    "  tune FILE            run every combination of `--const` values the checker accepts; print the fastest\n"
    "  lsp                  serve diagnostics to an editor (Language Server Protocol, stdio)\n"
    "  help [COMMAND]       print this help, or COMMAND's\n"
    "\n"
    "Options:\n"
    "  -h, --help           print this help\n"
    "  -V, --version        print the version\n"
    "\n"
    "`vxc <command> --help` describes a command's options.\n";

int run(const std::vector<std::string>& args);

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Every command runs on a thread with a large stack (base/Thread.h).
  int status = 2;
  vx::base::Thread([&] { status = run(args); }).join();
  return status;
}

namespace {

int run(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  const std::string cmd = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  // `vxc check`, `vxc lsp` and `vxc test-ui` report what the target's
  // backend cannot build, as `vxc build` would.
  vx::driver::registerBackends();
  try {
    // `vxc help CMD` is `vxc CMD --help`.
    if (cmd == "help" && !rest.empty() && rest[0] != "help") return run({rest[0], "--help"});
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (cmd == "-V" || cmd == "--version") {
      std::printf("vxc %s\n", vx::driver::version().c_str());
      return 0;
    }
    if (cmd == "check") return vx::driver::cmdCheck(rest);
    if (cmd == "fix") return vx::driver::cmdFix(rest);
    if (cmd == "explain") return vx::driver::cmdExplain(rest);
    if (cmd == "test-ui") return vx::driver::cmdTestUi(rest);
    if (cmd == "build") return vx::driver::cmdBuild(rest);
    if (cmd == "run") return vx::driver::cmdRun(rest);
    if (cmd == "lsp") return vx::driver::cmdLsp(rest);
    if (cmd == "tune") return vx::driver::cmdTune(rest);
    std::string close = vx::base::closestMatch(
        cmd, {"check", "fix", "explain", "test-ui", "build", "run", "tune", "lsp", "help"});
    return vx::driver::usageError("unknown command `" + cmd + "`" +
                                  (close.empty() ? "" : "; did you mean `" + close + "`?") +
                                  "\n  (see `vxc --help`)");
  } catch (const std::bad_alloc&) {
    // Not a defect of the compiler: the input needs more memory than the
    // process may have (an address-space limit, `ulimit -v`).
    std::fprintf(stderr,
                 "error: out of memory: the input needs more memory than this process may use; "
                 "raise the limit (`ulimit -v`) or split the file\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: internal compiler error: %s\n", e.what());
    return 2;
  } catch (...) {
    std::fprintf(stderr, "error: internal compiler error\n");
    return 2;
  }
}

}  // namespace
