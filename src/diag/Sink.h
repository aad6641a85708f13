// Collects the diagnostics of one run and puts them in the deterministic order
// golden files rely on: file, line, column, code.
#pragma once

#include <functional>
#include <vector>

#include "diag/Diagnostic.h"

namespace vx::diag {

class Sink {
 public:
  void emit(Diagnostic d);
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }
  unsigned errorCount() const { return errors_; }
  unsigned warningCount() const { return warnings_; }
  bool hasErrors() const { return errors_ > 0; }
  // Sorts by file path, byte offset (= line, column), code, then message.
  void sort(const base::SourceMap& sources);
  // Keeps the diagnostics `keep` returns true for (it may change them) and
  // counts errors and warnings again.
  void rewrite(const std::function<bool(Diagnostic&)>& keep);

 private:
  std::vector<Diagnostic> diags_;
  unsigned errors_ = 0;
  unsigned warnings_ = 0;
};

}  // namespace vx::diag
