#include "diag/ErrorDocs.h"

#include <sstream>

namespace vx::diag {

const char* errorDoc(std::string_view code) {
  for (unsigned i = 0; i < kErrorDocsCount; ++i)
    if (code == kErrorDocs[i].name) return kErrorDocs[i].text;
  return nullptr;
}

std::string errorSummary(std::string_view code) {
  const char* doc = errorDoc(code);
  if (!doc) return {};
  std::istringstream in(doc);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') return line;
  return {};
}

}  // namespace vx::diag
