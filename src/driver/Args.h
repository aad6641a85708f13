// Command-line parsing shared by the subcommands: `--flag`, `--key=value` and
// `--key value`; an unknown flag gets a "did you mean" hint.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace vx::driver {

struct FlagSpec {
  std::string name;  // "--emit"
  bool takesValue;
  std::vector<std::string> values;  // allowed values; empty = any
};

struct ParsedArgs {
  std::map<std::string, std::string> flags;  // name -> value ("" for switches)
  std::vector<std::pair<std::string, std::string>> ordered;  // every flag, in order (repeatable ones)
  std::vector<std::string> positional;
  std::string error;  // set when the command line is wrong
  bool has(const std::string& f) const { return flags.count(f) > 0; }
  std::string get(const std::string& f, const std::string& dflt) const {
    auto it = flags.find(f);
    return it == flags.end() ? dflt : it->second;
  }
};

ParsedArgs parseArgs(const std::string& command, const std::vector<std::string>& args,
                     const std::vector<FlagSpec>& specs);

// The values `--target` takes: every target of the table (target/Targets.def).
std::vector<std::string> targetNames();

// Prints `error: ...` and returns exit status 2.
int usageError(const std::string& message);

// `--solver-rlimit`'s value (and `//@ solver-rlimit:`'s): a whole number
// from 1 to 999999999 (Z3 reads 0 as no limit at all: a query would then
// run to the clock). False for anything else.
bool parseSolverRlimit(const std::string& value, unsigned& out);

}  // namespace vx::driver
