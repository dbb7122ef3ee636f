// server/carried_findings.h: findings of an older text moved onto the
// current one, line by line.
#include <doctest/doctest.h>

#include "server/carried_findings.h"

using namespace warplens;
using namespace warplens::server;

namespace {

Finding at(Range r, std::string code = "c") {
  Finding f;
  f.code = std::move(code);
  f.location = {"/src/k.cu", r};
  return f;
}

const std::string kOld = "line 0\nline 1\nline 2\nline 3\nline 4\n";

}  // namespace

TEST_CASE("lines before the edit keep their place, lines after it shift, lines in it are dropped") {
  std::string edited = "line 0\nline 1\nNEW a\nNEW b\nline 3\nline 4\n";  // line 2 replaced by two lines
  std::vector<Finding> old = {at({{1, 2}, {1, 4}}, "before"), at({{2, 0}, {2, 6}}, "changed"),
                              at({{3, 1}, {4, 3}}, "after"), at({}, "file-level")};
  auto carried = carry_findings(old, "/src/k.cu", kOld, edited);
  REQUIRE(carried.size() == 3);
  CHECK(carried[0].code == "before");
  CHECK(carried[0].location.range == Range{{1, 2}, {1, 4}});
  CHECK(carried[1].code == "after");
  CHECK(carried[1].location.range == Range{{4, 1}, {5, 3}});
  CHECK(carried[2].code == "file-level");
  CHECK(carried[2].location.range == Range{});
}

TEST_CASE("a whole-line range ending at column 0 of a changed line survives; fixes move or go") {
  std::string edited = "// inserted\n" + kOld;
  Finding f = at({{1, 0}, {2, 0}});
  Fix moved;
  moved.title = "moves";
  moved.edits.push_back({{{3, 0}, {3, 4}}, "x"});
  f.fixes.push_back(moved);
  f.related.push_back({{"/src/k.cu", {{4, 0}, {4, 1}}}, "here"});
  f.related.push_back({{"/other.h", {{4, 0}, {4, 1}}}, "elsewhere"});
  auto carried = carry_findings({f}, "/src/k.cu", kOld, edited);
  REQUIRE(carried.size() == 1);
  CHECK(carried[0].location.range == Range{{2, 0}, {3, 0}});
  REQUIRE(carried[0].fixes.size() == 1);
  CHECK(carried[0].fixes[0].edits[0].range == Range{{4, 0}, {4, 4}});
  REQUIRE(carried[0].related.size() == 2);
  CHECK(carried[0].related[0].location.range == Range{{5, 0}, {5, 1}});
  CHECK(carried[0].related[1].location.range == Range{{4, 0}, {4, 1}});  // another file: as it was

  // A fix whose edit is on the changed line is dropped; the finding stays.
  std::string changed_line_3 = "line 0\nline 1\nline 2\nLINE 3\nline 4\n";
  carried = carry_findings({f}, "/src/k.cu", kOld, changed_line_3);
  REQUIRE(carried.size() == 1);
  CHECK(carried[0].fixes.empty());
}

TEST_CASE("the same text carries everything unchanged") {
  std::vector<Finding> old = {at({{2, 0}, {2, 3}})};
  auto carried = carry_findings(old, "/src/k.cu", kOld, kOld);
  REQUIRE(carried.size() == 1);
  CHECK(carried[0].location.range == Range{{2, 0}, {2, 3}});
}
