// What the language server knows of a checked version of a document: every
// name the type checker resolved (functions, consts, parameters, locals,
// builtins) with its declaration, uses and type, and the ownership
// checker's token states after each statement. Built on the checker's
// thread, read by hover, definition, references, semantic tokens and inlay
// hints on the message thread (docs/lsp.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/Source.h"
#include "check/Ownership.h"
#include "hir/Hir.h"
#include "lsp/Position.h"

namespace vx::lsp {

struct Symbol {
  enum class Kind { Function, Builtin, Const, Param, Local };
  Kind kind = Kind::Local;
  std::string name;
  std::string type;     // locals, params and consts: the type; functions: empty
  bool linear = false;  // a token, or a tuple holding one
  bool mut = false;
  bool hasDecl = false;  // declared in this document (not a builtin)
  uint32_t declBegin = 0, declEnd = 0;   // the name at its declaration
  uint32_t fnBegin = 0, fnEnd = 0;       // params and locals: their function
  std::vector<std::pair<uint32_t, uint32_t>> uses;  // the name at each use
};

struct DocIndex {
  int64_t version = 0;
  std::string text;  // the version indexed
  std::vector<Symbol> symbols;
  std::vector<check::FunctionStates> states;  // per function, shared with the checker's cache
};

// The token states of one function, with spans and lines in the index's text.
std::vector<check::TokenState> resolvedStates(const DocIndex& index, const check::FunctionStates& f);
// The same with the text's line index made by the caller (once for many
// functions: making it costs the whole text).
std::vector<check::TokenState> resolvedStates(const DocIndex& index, const check::FunctionStates& f,
                                              const LineIndex& lines);

// The names of `prog` declared or used in `file` (whose text is `text`).
std::vector<Symbol> indexNames(const hir::Program& prog, base::FileId file, const std::string& text);

// The symbol whose declaration or a use covers byte `offset`; null if none.
const Symbol* symbolAt(const DocIndex& index, uint32_t offset);

}  // namespace vx::lsp
