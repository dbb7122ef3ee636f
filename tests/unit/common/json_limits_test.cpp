#include <doctest/doctest.h>

#include <string>

#include "common/json_limits.h"

using namespace warplens::common;

TEST_CASE("nesting depth counts brackets outside strings") {
  CHECK(json_nesting_depth("") == 0);
  CHECK(json_nesting_depth("5") == 0);
  CHECK(json_nesting_depth("[]") == 1);
  CHECK(json_nesting_depth(R"({"a":[1,{"b":[]}],"c":{}})") == 4);
  CHECK(json_nesting_depth(R"(["[[[[", "\"[[[", "\\"])") == 1);
  CHECK(json_nesting_depth(std::string(1000000, '[')) == kMaxJsonDepth + 1);  // stops early
  CHECK(json_nesting_depth(std::string(50, '['), 10) == 11);
}

TEST_CASE("parse_json_limited refuses deep JSON before building it, and never echoes the text") {
  std::string error;
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK(parse_json_limited(deep, &error).is_discarded());
  CHECK(error == "JSON nested deeper than 128 levels (the limit)");
  std::string ok = std::string(128, '[') + std::string(128, ']');
  CHECK_FALSE(parse_json_limited(ok, &error).is_discarded());
  // The first bytes of a file that is not JSON are not repeated.
  CHECK(parse_json_limited("root:$6$secret:19000:0:99999:7:::", &error).is_discarded());
  CHECK(error == "invalid JSON (syntax error at byte 1)");
  CHECK(error.find("root") == std::string::npos);
  CHECK(parse_json_limited(R"({"a": [1, 2]})", &error)["a"][1] == 2);
}
