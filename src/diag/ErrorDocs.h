// The pages of docs/errors, embedded at build time (cmake/EmbedErrorDocs.cmake).
#pragma once

#include <string>
#include <string_view>

namespace vx::diag {

struct EmbeddedText {
  const char* name;
  const char* text;
};
extern const EmbeddedText kErrorDocs[];  // name = code
extern const unsigned kErrorDocsCount;

// The markdown page for `code` (e.g. "E6003"), or nullptr when there is none.
const char* errorDoc(std::string_view code);
// The page's one-sentence summary: its first paragraph line after the title.
std::string errorSummary(std::string_view code);

}  // namespace vx::diag
