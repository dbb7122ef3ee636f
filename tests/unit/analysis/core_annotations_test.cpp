// The annotated-snippet helper every analysis test relies on.
#include <doctest/doctest.h>

#include <stdexcept>

#include "tests/support/annotations.h"

using warplens::Position;
using warplens::Range;
using warplens::testing::Annotations;

namespace {
Range R(int l1, int c1, int l2, int c2) { return {{l1, c1}, {l2, c2}}; }
}  // namespace

TEST_CASE("markers are removed and positions are 0-based byte columns") {
  Annotations a("int ^x = [[1 + 2]];\n$second[[y]] = $p^3;");
  CHECK(a.code() == "int x = 1 + 2;\ny = 3;");
  CHECK(a.point() == Position{0, 4});
  CHECK(a.point("p") == Position{1, 4});
  CHECK(a.range() == R(0, 8, 0, 13));
  CHECK(a.range("second") == R(1, 0, 1, 1));
  CHECK(a.point_offset("p") == 19);
  CHECK(a.range_names() == std::vector<std::string>{"second"});
}

TEST_CASE("subscripts inside a range do not close it") {
  Annotations a("[[in[idx[i]]]] = [[tile[ty][tx]]];");
  CHECK(a.code() == "in[idx[i]] = tile[ty][tx];");
  REQUIRE(a.ranges().size() == 2);
  CHECK(a.ranges()[0] == R(0, 0, 0, 10));
  CHECK(a.ranges()[1] == R(0, 13, 0, 25));
}

TEST_CASE("three brackets mark the index of a subscript") {
  Annotations a("a[[[i + 1]]] = b[$j[[j]]];");
  CHECK(a.code() == "a[i + 1] = b[j];");
  CHECK(a.range() == R(0, 2, 0, 7));
  CHECK(a.range("j") == R(0, 13, 0, 14));
}

TEST_CASE("ranges nest and repeat") {
  Annotations a("$outer[[f([[x]], [[y]])]]");
  CHECK(a.code() == "f(x, y)");
  CHECK(a.range("outer") == R(0, 0, 0, 7));
  CHECK(a.ranges() == std::vector<Range>{R(0, 2, 0, 3), R(0, 5, 0, 6)});
}

TEST_CASE("a literal caret is written twice") {
  Annotations a("[[s[tx ^^ ty]]]^");
  CHECK(a.code() == "s[tx ^ ty]");
  CHECK(a.point() == Position{0, 10});
}

TEST_CASE("multi-byte text counts bytes") {
  Annotations a("// \xc3\xa9\n[[x]]");  // é is two bytes
  CHECK(a.range() == R(1, 0, 1, 1));
  Annotations b("/* \xc3\xa9 */ [[x]]");
  CHECK(b.range() == R(0, 9, 0, 10));
}

TEST_CASE("malformed annotations fail loudly") {
  CHECK_THROWS_AS(Annotations("[[x"), std::invalid_argument);
  CHECK_THROWS_AS(Annotations("$name x"), std::invalid_argument);
  CHECK_THROWS_AS(Annotations("$[[x]]"), std::invalid_argument);
  Annotations a("^ x ^ [[y]]");
  CHECK_THROWS_AS(a.point(), std::invalid_argument);
  CHECK(a.points().size() == 2);
  CHECK_THROWS_AS(a.range("missing"), std::invalid_argument);
  CHECK_FALSE(a.has_range("missing"));
  // Brackets that are not markers pass through.
  CHECK(Annotations("a[i]] x]").code() == "a[i]] x]");
}
