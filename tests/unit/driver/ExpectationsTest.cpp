#include <doctest/doctest.h>

#include "driver/UiTest.h"

using vx::driver::Expectation;
using vx::driver::parseExpectations;

TEST_CASE("annotations name the line they are on, or lines above with carets") {
  std::vector<std::string> errors;
  auto e = parseExpectations("a //~ ERROR E0001\nb\nc //~^ ERROR E6003\n//~| WARN W0001\n//~^^^ ERROR E0002\n", errors);
  CHECK(errors.empty());
  REQUIRE(e.size() == 4);
  CHECK(e[0] == Expectation{1, "E0001"});
  CHECK(e[1] == Expectation{2, "E6003"});
  CHECK(e[2] == Expectation{2, "W0001", false});
  CHECK(e[3] == Expectation{2, "E0002"});
}

TEST_CASE("malformed annotations are reported, not ignored") {
  std::vector<std::string> errors;
  parseExpectations("x //~ EROR E0001\n//~^^ ERROR E0001\ny //~ WARN E0001\n", errors);
  CHECK(errors.size() == 3);
}

TEST_CASE("a lint is expected at the level it is reported at") {
  std::vector<std::string> errors;
  auto e = parseExpectations("a //~ ERROR W6900\nb //~ WARN W0001\n", errors);
  CHECK(errors.empty());
  REQUIRE(e.size() == 2);
  CHECK(e[0] == Expectation{1, "W6900", true});
  CHECK(e[1] == Expectation{2, "W0001", false});
  CHECK(!(e[0] == Expectation{1, "W6900", false}));
}
