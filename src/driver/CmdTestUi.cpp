#include <cstdio>

#include "driver/Args.h"
#include "driver/Commands.h"
#include "driver/UiTest.h"

namespace vx::driver {

int cmdTestUi(const std::vector<std::string>& args) {
  ParsedArgs a = parseArgs("test-ui", args, {{"--help", false, {}}, {"--bless", false, {}}});
  if (!a.error.empty()) return usageError(a.error);
  if (a.has("--help")) {
    std::puts(
        "Usage: vxc test-ui [--bless] DIR|FILE...\n\n"
        "Runs UI tests: each .vx file is checked; its diagnostics must match its\n"
        "`//~ ERROR CODE` annotations (`//~^` = line above) and its full output the\n"
        "`.stderr` file beside it. Fenced ```vx blocks in .md files are checked\n"
        "against their annotations. --bless rewrites the .stderr files.");
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
