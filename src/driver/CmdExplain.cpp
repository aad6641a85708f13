#include <cstdio>

#include "diag/ErrorDocs.h"
#include "driver/Args.h"
#include "driver/Commands.h"

namespace vx::driver {

int cmdExplain(const std::vector<std::string>& args) {
  ParsedArgs a = parseArgs("explain", args, {{"--help", false, {}}});
  if (!a.error.empty()) return usageError(a.error);
  if (a.has("--help")) {
    std::puts("Usage: vxc explain CODE\n\nPrints the page for a diagnostic code, e.g. `vxc explain E6003`.");
    return 0;
  }
  if (a.positional.size() != 1) return usageError("`vxc explain` takes one code, e.g. `vxc explain E0001`");
  std::string code = a.positional[0];
  for (auto& c : code) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const char* doc = diag::errorDoc(code);
  if (!doc) return usageError("no documentation for `" + a.positional[0] + "`: not a vxc diagnostic code");
  std::fputs(doc, stdout);
  return 0;
}

}  // namespace vx::driver
