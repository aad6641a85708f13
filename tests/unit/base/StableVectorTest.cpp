#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/StableVector.h"

using vx::base::StableVector;

namespace {

// Counts live instances, to check that every element made is destroyed once.
struct Counted {
  static int live;
  std::string text;
  explicit Counted(std::string t = "") : text(std::move(t)) { ++live; }
  Counted(const Counted& o) : text(o.text) { ++live; }
  Counted(Counted&& o) noexcept : text(std::move(o.text)) { ++live; }
  Counted& operator=(const Counted&) = default;
  ~Counted() { --live; }
};
int Counted::live = 0;

}  // namespace

TEST_CASE("a reference to an element stays valid while elements are added") {
  StableVector<std::string> v;
  std::string& first = v.emplace_back("first");
  const std::string* where = &first;
  for (int i = 0; i < 100000; ++i) v.push_back(std::to_string(i));  // many chunks
  CHECK(&v[0] == where);
  CHECK(v[0] == "first");
  CHECK(v.size() == 100001);
  CHECK(v.back() == "99999");
  CHECK(v[12345] == "12344");
}

TEST_CASE("indexing, iteration and reverse iteration see the elements in order") {
  StableVector<int> v;
  for (int i = 0; i < 10000; ++i) v.push_back(i);
  int expect = 0;
  for (int x : v) CHECK(x == expect++);
  CHECK(expect == 10000);
  std::vector<int> back(v.rbegin(), v.rend());
  CHECK(back.front() == 9999);
  CHECK(back.back() == 0);
  CHECK(std::find(v.begin(), v.end(), 4321) - v.begin() == 4321);
  const StableVector<int>& c = v;
  CHECK(c.end() - c.begin() == 10000);
}

TEST_CASE("resize shrinks by destroying the last elements and grows with default ones") {
  Counted::live = 0;
  {
    StableVector<Counted> v;
    for (int i = 0; i < 5000; ++i) v.emplace_back("x" + std::to_string(i));
    CHECK(Counted::live == 5000);
    v.resize(10);
    CHECK(v.size() == 10);
    CHECK(Counted::live == 10);
    CHECK(v[9].text == "x9");
    v.resize(3000);
    CHECK(Counted::live == 3000);
    CHECK(v[2999].text.empty());
    v.pop_back();
    CHECK(Counted::live == 2999);
  }
  CHECK(Counted::live == 0);
}

TEST_CASE("copies are deep and moves leave the source empty") {
  Counted::live = 0;
  {
    StableVector<Counted> a;
    for (int i = 0; i < 700; ++i) a.emplace_back(std::to_string(i));
    StableVector<Counted> b = a;
    b[0].text = "changed";
    CHECK(a[0].text == "0");
    CHECK(Counted::live == 1400);
    StableVector<Counted> c = std::move(a);
    CHECK(a.empty());  // NOLINT(bugprone-use-after-move): a moved-from vector is empty
    CHECK(c.size() == 700);
    CHECK(c[699].text == "699");
    b = c;
    CHECK(b[0].text == "0");
    CHECK(Counted::live == 1400);
    c = std::move(b);
    CHECK(Counted::live == 700);
    c.clear();
    CHECK(Counted::live == 0);
  }
  CHECK(Counted::live == 0);
}

TEST_CASE("elements larger than a chunk still get a chunk each") {
  struct Big {
    char bytes[40000];
  };
  StableVector<Big> v;
  for (int i = 0; i < 5; ++i) v.emplace_back().bytes[0] = static_cast<char>(i);
  for (int i = 0; i < 5; ++i) CHECK(v[i].bytes[0] == static_cast<char>(i));
}
