// vx-builtins-doc: writes docs/language/builtins.md from the one table of
// builtins (Builtins.def), the memory table (Targets.def), the prelude's
// signatures and doc comments (stdlib/prelude.vx) and one example per
// builtin (docs/language/builtins/NAME.vx). A test runs it and fails when
// the committed page differs, so the reference cannot drift from the table.
//
//   vx-builtins-doc PRELUDE EXAMPLES_DIR > docs/language/builtins.md
//   vx-builtins-doc --targets NAME     the targets that have builtin NAME, one per line
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/Source.h"
#include "target/Target.h"

namespace {

using namespace vx::target;

struct Declared {
  std::string doc;        // the `///` lines, joined
  std::string signature;  // `extern fn ...;` as written
  std::vector<std::string> params;
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Parameter names of `extern fn name<...>(a: A, b: B) -> R ...;`.
std::vector<std::string> paramNames(const std::string& sig) {
  std::vector<std::string> out;
  size_t open = sig.find('(');
  if (open == std::string::npos) return out;
  int depth = 0;
  std::string cur;
  for (size_t i = open + 1; i < sig.size(); ++i) {
    char c = sig[i];
    if (depth == 0 && (c == ',' || c == ')')) {
      std::string p = trim(cur);
      if (!p.empty()) out.push_back(trim(p.substr(0, p.find(':'))));
      cur.clear();
      if (c == ')') break;
      continue;
    }
    if (c == '<' || c == '[' || c == '(') ++depth;
    if (c == '>' || c == ']' || c == ')') --depth;
    cur += c;
  }
  return out;
}

std::map<std::string, Declared> readPrelude(const std::string& text) {
  std::map<std::string, Declared> out;
  std::istringstream in(text);
  std::string line, doc;
  while (std::getline(in, line)) {
    std::string t = trim(line);
    if (t.rfind("///", 0) == 0) {
      std::string d = trim(t.substr(3));
      doc += doc.empty() ? d : " " + d;
      continue;
    }
    if (t.rfind("extern fn ", 0) == 0) {
      std::string sig = t;
      while (sig.find(';') == std::string::npos && std::getline(in, line)) sig += "\n" + line;
      size_t nameBegin = 10;
      size_t nameEnd = sig.find_first_of("<(", nameBegin);
      Declared d{doc, sig, paramNames(sig)};
      out[sig.substr(nameBegin, nameEnd - nameBegin)] = d;
    }
    doc.clear();
  }
  return out;
}

const char* resultText(ResultKind r) {
  switch (r) {
    case ResultKind::Void: return "nothing";
    case ResultKind::Buffer: return "a new buffer";
    case ResultKind::Token: return "a token for the copy it starts (linear: waited exactly once)";
    case ResultKind::Payload: return "the buffer of the copy the token stood for";
    case ResultKind::Same: return "its first argument, unchanged";
    case ResultKind::View: return "a reference to a block of its first argument: a place (grid.md §2)";
  }
  return "";
}

const char* syncText(Sync s) {
  switch (s) {
    case Sync::Blocking: return "already blocking: unchanged";
    case Sync::ToTransfer: return "`transfer`, and the token's `wait` returns its buffer";
    case Sync::ToTransferInto: return "a blocking copy into the destination";
    case Sync::ToStore: return "`store`";
  }
  return "";
}

const char* effectText(ArgEffect e) {
  switch (e) {
    case ArgEffect::None: return "";
    case ArgEffect::Space: return "a constant `Memory::X`";
    case ArgEffect::Scalar: return "a value";
    case ArgEffect::Read: return "read during the call";
    case ArgEffect::Write: return "written (and maybe read) during the call";
    case ArgEffect::Move: return "moved in (read; a variable passed is not usable afterwards; a slot, an element or a buffer behind a reference is read where it stays, E6014)";
    case ArgEffect::DmaSrc: return "read by the started copy until its token is waited: not written before";
    case ArgEffect::DmaDst:
      return "written by the started copy until its token is waited: neither read nor written before";
    case ArgEffect::Consume: return "a token, consumed: the call completes its copy";
    case ArgEffect::Base: return "the tensor a block is taken of: accessed where the block is used";
  }
  return "";
}

std::string sizeText(uint64_t bytes) {
  if (bytes == 0) return "unbounded";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes % 1024 == 0 && bytes >= 1024) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + " " + units[u];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--targets") {
    Builtin b = builtinByName(argv[2]);
    if (b == Builtin::None) {
      std::fprintf(stderr, "vx-builtins-doc: `%s` is not a builtin\n", argv[2]);
      return 2;
    }
    for (TargetKind t : allTargets())
      if (available(b, t)) std::printf("%s\n", info(t).name);
    return 0;
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: vx-builtins-doc PRELUDE EXAMPLES_DIR\n");
    return 2;
  }
  vx::base::ReadResult preludeFile = vx::base::readFile(argv[1]);
  if (!preludeFile.error.empty()) {
    std::fprintf(stderr, "vx-builtins-doc: %s\n", preludeFile.error.c_str());
    return 2;
  }
  const std::string& prelude = preludeFile.text;
  std::map<std::string, Declared> declared = readPrelude(prelude);
  std::string dir = argv[2];

  std::string out;
  out += "# Builtins\n\n";
  out += "<!-- Generated by `vx-builtins-doc` (src/target/BuiltinsDoc.cpp) from src/target/Builtins.def,\n"
         "     src/target/Targets.def, stdlib/prelude.vx and docs/language/builtins/*.vx.\n"
         "     Do not edit: the test docs.builtins-reference fails when this page differs from\n"
         "     what the tool writes. To regenerate:\n"
         "     build/src/target/vx-builtins-doc stdlib/prelude.vx docs/language/builtins > docs/language/builtins.md -->\n\n";
  out += "The builtins every Vx program can call, declared in `stdlib/prelude.vx`. What each does to its "
         "arguments is one row of `src/target/Builtins.def`, the table the ownership checker, Sema's "
         "availability check (E0206) and the target-legality pass read; the `--sync-baseline` column says what "
         "that pass makes of each asynchronous builtin. Each example below checks clean on every target that has the builtin "
         "(test `docs.builtin-examples`). Adding a builtin: [docs/adding-a-builtin.md](../adding-a-builtin.md).\n\n";

  std::vector<TargetKind> targets = allTargets();
  out += "| builtin | arguments | result | `--sync-baseline` | targets |\n|---|---|---|---|---|\n";
  for (Builtin b : allBuiltins()) {
    const BuiltinInfo& bi = info(b);
    std::string args;
    const Declared& d = declared[bi.name];
    for (unsigned i = 0; i < bi.arity(); ++i) {
      std::string name = i < d.params.size() ? d.params[i] : "arg" + std::to_string(i);
      args += (i ? ", " : "") + std::string("`") + name + "`: " + effectName(bi.args[i]);
    }
    out += std::string("| [`") + bi.name + "`](#" + bi.name + ") | " + args + " | " + resultText(bi.result) + " | " +
           syncText(bi.sync) + " | " + targetsWith(b) + " |\n";
  }

  out += "\n## Memory spaces per target\n\nCapacity (what E6007 counts against) and alignment of each memory space; "
         "a space a target lacks is E0206 there.\n\n| space |";
  for (TargetKind t : targets) out += std::string(" ") + info(t).name + " |";
  out += "\n|---|";
  for (size_t i = 0; i < targets.size(); ++i) out += "---|";
  out += "\n";
  for (MemSpace m : allMemSpaces()) {
    out += std::string("| `Memory::") + info(m).name + "` |";
    for (TargetKind t : targets) {
      MemoryInfo mi = memory(t, m);
      out += mi.exists ? " " + sizeText(mi.capacity) + ", aligned " + std::to_string(mi.alignment) + " |" : " — |";
    }
    out += "\n";
  }

  int status = 0;
  for (Builtin b : allBuiltins()) {
    const BuiltinInfo& bi = info(b);
    auto it = declared.find(bi.name);
    if (it == declared.end()) {
      std::fprintf(stderr, "vx-builtins-doc: `%s` is in Builtins.def but not declared in %s\n", bi.name, argv[1]);
      status = 1;
      continue;
    }
    const Declared& d = it->second;
    out += std::string("\n## ") + bi.name + "\n\n```vx\n" + d.signature + "\n```\n\n" + d.doc + "\n\n";
    for (unsigned i = 0; i < bi.arity(); ++i) {
      std::string name = i < d.params.size() ? d.params[i] : "arg" + std::to_string(i);
      out += "- `" + name + "`: " + effectText(bi.args[i]) + "\n";
    }
    out += std::string("- returns ") + resultText(bi.result) + "\n";
    out += std::string("- under `--sync-baseline`: ") + syncText(bi.sync) + "\n";
    out += "- targets: " + targetsWith(b) + "\n";
    std::string path = dir + "/" + bi.name + ".vx";
    vx::base::ReadResult exampleFile = vx::base::readFile(path);
    const std::string& example = exampleFile.text;
    if (!exampleFile.error.empty()) {
      std::fprintf(stderr, "vx-builtins-doc: no example %s for `%s`\n", path.c_str(), bi.name);
      status = 1;
      continue;
    }
    out += "\nExample ([builtins/" + std::string(bi.name) + ".vx](builtins/" + bi.name + ".vx)):\n\n```vx\n" +
           example + (example.empty() || example.back() == '\n' ? "" : "\n") + "```\n";
  }
  std::fputs(out.c_str(), stdout);
  return status;
}
