// `shutdown`: from now on requests are refused; `exit` then ends with 0.
#include "lsp/Methods.h"

namespace vx::lsp {

json shutdown(State& s, const json&) {
  // The checks already asked for are published first: a scripted session
  // sees the diagnostics of everything it sent.
  if (s.checker) s.checker->drain();
  s.shutdown = true;
  s.docs.clear();
  s.stale.clear();
  return nullptr;
}

}  // namespace vx::lsp
