// Issue 21 at the protocol layer: what a client may send that once ended
// the server. Each case fails without the fix.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "protocol/jsonrpc.h"
#include "protocol/lsp_basic.h"

using namespace warplens::protocol;

namespace {

std::string nested(std::size_t depth, char open, char close, std::string inner = "1") {
  std::string s;
  for (std::size_t i = 0; i < depth; ++i) s += open == '{' ? "{\"a\":" : "[";
  s += inner;
  for (std::size_t i = 0; i < depth; ++i) s += close;
  return s;
}

}  // namespace

TEST_CASE("A: a response whose error.message is not a string is delivered, not thrown") {
  std::ifstream in(std::string(WARPLENS_SOURCE_DIR) + "/tests/fixtures/robustness/response_error_message.jsonl");
  REQUIRE(in);
  int responses = 0, invalid = 0;
  for (std::string line; std::getline(in, line);) {
    CAPTURE(line);
    std::variant<Message, InvalidMessage> parsed;
    REQUIRE_NOTHROW(parsed = parse_message(line));
    if (auto* m = std::get_if<Message>(&parsed)) {
      REQUIRE(std::holds_alternative<Response>(*m));
      REQUIRE(std::get<Response>(*m).error.has_value());
      ++responses;
    } else {
      ++invalid;  // no integer code that fits: malformed, answered as such
    }
  }
  CHECK(responses == 7);
  CHECK(invalid == 2);
  auto m = std::get<Message>(parse_message(R"({"jsonrpc":"2.0","id":"zz","error":{"code":1,"message":[1,2]}})"));
  CHECK(std::get<Response>(m).error->message == "(the peer sent a non-string error message: [1,2])");
  m = std::get<Message>(parse_message(R"({"jsonrpc":"2.0","id":3,"error":{"code":-32800,"message":"gone"}})"));
  CHECK(std::get<Response>(m).error->message == "gone");
}

TEST_CASE("B: nesting deeper than 128 levels is refused before it is built, keeping the request id") {
  for (char kind : {'{', '['}) {
    CAPTURE(kind);
    const char close = kind == '{' ? '}' : ']';
    std::string body = R"({"jsonrpc":"2.0","id":41,"method":"initialize","params":{"capabilities":)" +
                       nested(100000, kind, close) + "}}";
    auto parsed = parse_message(body);
    REQUIRE(std::holds_alternative<InvalidMessage>(parsed));
    const auto& inv = std::get<InvalidMessage>(parsed);
    CHECK(inv.error.code == ErrorCode::InvalidRequest);
    CHECK(inv.error.message == "message nested deeper than 128 levels (the limit)");
    REQUIRE(inv.id.has_value());
    CHECK(*inv.id == RequestId{std::int64_t{41}});
  }
  // 300,000-deep arrays in executeCommand arguments, a string id after them.
  std::string body = R"({"jsonrpc":"2.0","method":"workspace/executeCommand","params":{"arguments":)" +
                     nested(300000, '[', ']') + R"(},"id":"late"})";
  auto parsed = parse_message(body);
  REQUIRE(std::holds_alternative<InvalidMessage>(parsed));
  CHECK(std::get<InvalidMessage>(parsed).id == RequestId{std::string("late")});
  // Brackets inside strings do not count; 128 levels are fine.
  auto ok = parse_message(R"({"jsonrpc":"2.0","method":"x","params":{"s":")" + std::string(5000, '[') + "\"}}");
  CHECK(std::holds_alternative<Message>(ok));
  ok = parse_message(R"({"jsonrpc":"2.0","method":"x","params":)" + nested(127, '[', ']') + "}");
  CHECK(std::holds_alternative<Message>(ok));
}

TEST_CASE("line numbers and versions out of range are errors, not wrapped into valid ones") {
  using nlohmann::json;
  CHECK_THROWS_AS(json({{"line", 4294967296LL}, {"character", 0}}).get<Position>(), json::exception);
  CHECK_THROWS_AS(json({{"line", 4294967297ULL}, {"character", 0}}).get<Position>(), json::exception);
  CHECK_THROWS_AS(json({{"line", 2147483648LL}, {"character", 0}}).get<Position>(), json::exception);
  CHECK_THROWS_AS(json({{"line", -1}, {"character", 0}}).get<Position>(), json::exception);
  CHECK_THROWS_AS(json({{"line", 1.5}, {"character", 0}}).get<Position>(), json::exception);
  CHECK_THROWS_AS(json({{"line", "3"}, {"character", 0}}).get<Position>(), json::exception);
  Position p = json({{"line", 2147483647LL}, {"character", 7}}).get<Position>();
  CHECK(p.line == 2147483647);
  CHECK(p.character == 7);
  CHECK_THROWS_AS(json({{"uri", "file:///a"}, {"version", 1.5}}).get<VersionedTextDocumentIdentifier>(),
                  json::exception);
}
