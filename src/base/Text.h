// Small text utilities shared by every phase.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vx::base {

// Levenshtein distance, for "did you mean" suggestions.
size_t editDistance(std::string_view a, std::string_view b);

// The candidate closest to `word` within a distance that scales with its
// length, or empty when none is close enough.
std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates);

// A suggestion's `replacement` (its lines end in LF) as inserted at byte
// `at` of `text`: with CRLF line ends where the file's lines end in CRLF.
std::string withLineEnds(std::string_view replacement, std::string_view text, uint32_t at);

}  // namespace vx::base
