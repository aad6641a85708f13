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
  // The first sentence of the page's first paragraph (which may wrap over
  // several lines), outside code spans.
  std::istringstream in(doc);
  std::string line, para;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      if (!para.empty()) break;
      continue;
    }
    para += (para.empty() ? "" : " ") + line;
  }
  bool inCode = false;
  for (size_t i = 0; i < para.size(); ++i) {
    if (para[i] == '`') inCode = !inCode;
    if (!inCode && para[i] == '.' && (i + 1 == para.size() || para[i + 1] == ' ')) return para.substr(0, i + 1);
  }
  return para;
}

}  // namespace vx::diag
