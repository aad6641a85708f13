#include "base/Text.h"

#include <algorithm>

namespace vx::base {

// Optimal string alignment distance: insertions, deletions, substitutions
// and transpositions of adjacent letters (`wiat` is one edit from `wait`).
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string withLineEnds(std::string_view replacement, std::string_view text, uint32_t at) {
  if (text.find("\r\n") == std::string_view::npos) return std::string(replacement);
  std::string out;
  for (size_t i = 0; i < replacement.size(); ++i) {
    char c = replacement[i];
    bool afterCr = i > 0 ? replacement[i - 1] == '\r' : at > 0 && at <= text.size() && text[at - 1] == '\r';
    if (c == '\n' && !afterCr) out += '\r';
    out += c;
  }
  return out;
}

std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  // The distance costs the product of the lengths: a name longer than this
  // (generated code, a pasted blob) gets no suggestion rather than a
  // quadratic wait.
  constexpr size_t kLongest = 64;
  if (word.size() > kLongest) return "";
  size_t limit = std::max<size_t>(1, word.size() / 3);
  size_t best = limit + 1;
  std::string result;
  for (const auto& c : candidates) {
    // The distance is at least the difference of the lengths.
    if ((c.size() > word.size() ? c.size() - word.size() : word.size() - c.size()) >= best) continue;
    size_t d = editDistance(word, c);
    if (d < best) {
      best = d;
      result = c;
    }
  }
  return result;
}

}  // namespace vx::base
