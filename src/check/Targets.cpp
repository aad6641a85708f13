#include "check/Targets.h"

#include "check/StdlibEmbed.h"

#include <cstring>
#include <sstream>

namespace vx::check {

namespace {
const char* stdlibFile(const char* name) {
  for (unsigned i = 0; i < kStdlibCount; ++i)
    if (std::strcmp(kStdlib[i].name, name) == 0) return kStdlib[i].text;
  return "";
}
}  // namespace

const char* preludeSource() { return stdlibFile("prelude"); }

const std::vector<std::string>& targetNames() {
  static const std::vector<std::string> names = {"cpu", "tpu", "b200", "h100"};
  return names;
}

Target loadTarget(const std::string& name, bool& ok) {
  ok = false;
  for (const auto& n : targetNames()) ok = ok || n == name;
  Target t;
  t.name = name;
  std::istringstream in(stdlibFile("targets"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.rfind(':');
    if (colon == std::string::npos) continue;
    std::string what = line.substr(0, colon);
    std::istringstream rest(line.substr(colon + 1));
    std::string target;
    while (rest >> target) {
      t.implementers[what].push_back(target);
      if (target == name) t.available.insert(what);
    }
  }
  return t;
}

}  // namespace vx::check
