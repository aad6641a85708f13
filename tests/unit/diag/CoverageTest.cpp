// Every diagnostic code has a UI test that expects it and a docs/errors page
// (carbon-lang's coverage test, rustc's error-code pages).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "diag/Diagnostic.h"
#include "diag/ErrorDocs.h"

namespace fs = std::filesystem;

namespace {
std::set<std::string> codesExpectedByUiTests() {
  std::set<std::string> codes;
  for (auto& e : fs::recursive_directory_iterator(fs::path(VX_SOURCE_DIR) / "tests")) {
    if (!e.is_regular_file() || e.path().extension() != ".vx") continue;
    std::ifstream in(e.path());
    std::string line;
    while (std::getline(in, line)) {
      size_t p = line.find("//~");
      if (p == std::string::npos) continue;
      for (size_t i = p; i + 5 <= line.size(); ++i)
        if ((line[i] == 'E' || line[i] == 'W') && std::isdigit(static_cast<unsigned char>(line[i + 1])))
          codes.insert(line.substr(i, 5));
    }
  }
  return codes;
}
}  // namespace

TEST_CASE("every diagnostic code has a UI test") {
  std::set<std::string> tested = codesExpectedByUiTests();
  for (const auto& code : vx::diag::allCodes()) {
    INFO("code " << code << " has no `//~ ERROR " << code << "` in tests/");
    CHECK(tested.count(code) == 1);
  }
}

TEST_CASE("every diagnostic code has a docs/errors page, embedded in the compiler") {
  for (const auto& code : vx::diag::allCodes()) {
    INFO("code " << code);
    CHECK(fs::exists(fs::path(VX_SOURCE_DIR) / "docs" / "errors" / (code + ".md")));
    CHECK(vx::diag::errorDoc(code) != nullptr);
    CHECK(!vx::diag::errorSummary(code).empty());
  }
}
