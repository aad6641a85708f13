// Renderers: one source of truth (Diagnostic), three formats.
#pragma once

#include <string>
#include <vector>

#include "diag/Diagnostic.h"

namespace vx::diag {

// rustc's layout: header, `-->` location, numbered source lines with `^^^`
// under the primary span and `---` under secondary ones, then notes and help.
std::string renderHuman(const Diagnostic& d, const base::SourceMap& sources, bool color);
// `error: aborting due to N previous errors; M warnings emitted`, or empty.
std::string renderSummary(unsigned errors, unsigned warnings, bool color);
// One line of JSON with rustc's field names (no trailing newline).
std::string renderJson(const Diagnostic& d, const base::SourceMap& sources);
// A whole SARIF 2.1.0 log for a run.
std::string renderSarif(const std::vector<Diagnostic>& diags, const base::SourceMap& sources,
                        const std::string& toolVersion);

}  // namespace vx::diag
