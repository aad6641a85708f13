// Which targets implement each builtin and memory space, read from the one
// declaration in stdlib/targets.txt (embedded at build time).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace vx::check {

struct Target {
  std::string name;  // cpu, tpu, b200, h100
  // Builtin names and `Memory::X` spaces this target implements.
  std::set<std::string> available;
  // The targets that implement `what`, for messages ("available on tpu").
  std::map<std::string, std::vector<std::string>> implementers;
  bool implements(const std::string& what) const { return available.count(what) > 0; }
};

// The known targets, in the order of stdlib/targets.txt's columns.
const std::vector<std::string>& targetNames();
// The table for `name`; `ok` is false for an unknown target.
Target loadTarget(const std::string& name, bool& ok);

// The embedded stdlib files.
const char* preludeSource();

}  // namespace vx::check
