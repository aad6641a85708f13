// What the navigation methods (documentSymbol, definition, hover) know of a
// document without checking it: its top-level items from the parser, and
// the identifier under a position. A document with syntax errors still has
// the items that parsed cleanly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lsp/State.h"

namespace vx::lsp {

struct OutlineItem {
  enum class Kind { Fn, Const };
  Kind kind = Kind::Fn;
  std::string name;
  uint32_t begin = 0, end = 0;          // the whole item (bytes)
  uint32_t nameBegin = 0, nameEnd = 0;  // its name
  std::string header;                   // `fn name(params) -> T on Topology::X`, one line
};

std::vector<OutlineItem> outline(const std::string& path, const std::string& text);

// The identifier (letters, digits, `_`) around byte `offset`: [begin, end).
// Empty when there is none.
std::string_view identifierAt(std::string_view text, uint32_t offset, uint32_t& begin, uint32_t& end);

// The identifier at `params.position` of the open document
// `params.textDocument` (InvalidParams when either is missing): false when
// the document is not open or no identifier is there.
struct WordAt {
  std::string uri;
  const std::string* text = nullptr;
  std::string_view word;
  uint32_t begin = 0, end = 0;
};
bool wordAt(State& s, const json& params, WordAt& out);

// A builtin's signature from the prelude, without `extern `:
// `fn transfer_async<E, S, M: Memory>(src: &Tensor<E, S>, dst: M) -> Token<...> on Topology::TensorCore`.
std::string builtinSignature(const std::string& name);

// The parameters of a one-line signature (`fn f(a: T, b: U) -> R ...`), as
// written, split at the commas of the parameter list's top level.
std::vector<std::string> signatureParams(const std::string& header);

// The locals a completion offers at `offset`: the parameters of the function
// the offset is in and the `let` and `for` bindings before it in that
// function (by text: every binding earlier in the function, whatever its
// block), each once, nearest first.
std::vector<std::string> localsAt(const std::vector<OutlineItem>& items, std::string_view text, uint32_t offset);

}  // namespace vx::lsp
