// Fixes that never add an error: a suggestion is offered (by `vxc fix`, as
// a language-server quick fix) only when the checker, run on the text with
// that suggestion applied alone, reports its diagnostic gone and nothing
// new (docs/diagnostics.md, "vxc fix").
#pragma once

#include <string>
#include <vector>

#include "diag/Diagnostic.h"
#include "driver/Pipeline.h"

namespace vx::driver {

struct FixEdit {
  uint32_t begin = 0, end = 0;  // byte offsets into the text
  std::string text;
};

// The edits of a suggestion, in order; empty when they overlap.
std::vector<FixEdit> fixEdits(const diag::Suggestion& s);
// `text` with non-overlapping edits applied (sorted by position).
std::string applyFixEdits(const std::string& text, std::vector<FixEdit> edits);

// How many diagnostics of each code `sink` holds (lint levels applied).
std::vector<std::pair<std::string, unsigned>> diagnosticCounts(const diag::Sink& sink);

// Whether `edits` (one suggestion of a diagnostic with code `code`) applied
// to `text` remove one diagnostic of that code and add none of any code:
// `before` is what the checker reports on `text`.
bool fixIsSafe(const std::string& path, const std::string& text, const std::vector<FixEdit>& edits,
               const std::string& code, const std::vector<std::pair<std::string, unsigned>>& before,
               const CheckOptions& opts);

}  // namespace vx::driver
