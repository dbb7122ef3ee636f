#include <doctest/doctest.h>

#include "protocol/jsonrpc.h"

using namespace warplens::protocol;

namespace {

InvalidMessage expect_invalid(std::string_view body) {
  auto parsed = parse_message(body);
  REQUIRE(std::holds_alternative<InvalidMessage>(parsed));
  return std::get<InvalidMessage>(parsed);
}

Message expect_message(std::string_view body) {
  auto parsed = parse_message(body);
  REQUIRE(std::holds_alternative<Message>(parsed));
  return std::get<Message>(parsed);
}

}  // namespace

TEST_CASE("requests, notifications and responses are told apart") {
  auto req = expect_message(R"({"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"a":1}})");
  REQUIRE(std::holds_alternative<Request>(req));
  CHECK(std::get<Request>(req).id == RequestId{std::int64_t{7}});
  CHECK(std::get<Request>(req).method == "textDocument/hover");
  CHECK(std::get<Request>(req).params["a"] == 1);

  auto str_id = expect_message(R"({"jsonrpc":"2.0","id":"x-1","method":"shutdown"})");
  CHECK(std::get<Request>(str_id).id == RequestId{std::string("x-1")});
  CHECK(std::get<Request>(str_id).params.is_null());

  auto note = expect_message(R"({"jsonrpc":"2.0","method":"initialized","params":{}})");
  CHECK(std::holds_alternative<Notification>(note));

  auto ok = expect_message(R"({"jsonrpc":"2.0","id":3,"result":null})");
  REQUIRE(std::holds_alternative<Response>(ok));
  CHECK_FALSE(std::get<Response>(ok).error);

  auto err = expect_message(R"({"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"nope"}})");
  REQUIRE(std::get<Response>(err).error);
  CHECK(std::get<Response>(err).error->code == ErrorCode::MethodNotFound);
  CHECK(std::get<Response>(err).error->message == "nope");
}

TEST_CASE("invalid JSON is a ParseError with a null id") {
  for (std::string_view body : {"{", "not json", "", "{\"jsonrpc\":\"2.0\",}", "\"\xFF\xFE\""}) {
    CAPTURE(body);
    auto inv = expect_invalid(body);
    CHECK(inv.error.code == ErrorCode::ParseError);
    CHECK_FALSE(inv.id);
  }
}

TEST_CASE("valid JSON that is not a JSON-RPC message is an InvalidRequest") {
  CHECK(expect_invalid("[]").error.code == ErrorCode::InvalidRequest);
  CHECK(expect_invalid(R"([{"jsonrpc":"2.0","method":"x"}])").error.code == ErrorCode::InvalidRequest);
  CHECK(expect_invalid("42").error.code == ErrorCode::InvalidRequest);
  CHECK(expect_invalid(R"({"id":1,"method":"x"})").error.code == ErrorCode::InvalidRequest);
  CHECK(expect_invalid(R"({"jsonrpc":"1.0","id":1,"method":"x"})").error.code == ErrorCode::InvalidRequest);
  CHECK(expect_invalid(R"({"jsonrpc":"2.0","id":1,"method":3})").error.code == ErrorCode::InvalidRequest);
  CHECK(expect_invalid(R"({"jsonrpc":"2.0","id":1,"method":"x","params":3})").error.code ==
        ErrorCode::InvalidRequest);
  CHECK(expect_invalid(R"({"jsonrpc":"2.0","id":{"a":1},"method":"x"})").error.code == ErrorCode::InvalidRequest);
  CHECK(expect_invalid(R"({"jsonrpc":"2.0","id":null,"method":"x"})").error.code == ErrorCode::InvalidRequest);
  CHECK(expect_invalid(R"({"jsonrpc":"2.0","id":1.5,"method":"x"})").error.code == ErrorCode::InvalidRequest);
  CHECK(expect_invalid(R"({"jsonrpc":"2.0","id":5})").error.code == ErrorCode::InvalidRequest);
  CHECK(expect_invalid(R"({"jsonrpc":"2.0"})").error.code == ErrorCode::InvalidRequest);
}

TEST_CASE("an invalid request keeps its id when it can be read") {
  auto inv = expect_invalid(R"({"jsonrpc":"2.0","id":9,"method":"x","params":"s"})");
  REQUIRE(inv.id);
  CHECK(*inv.id == RequestId{std::int64_t{9}});
  CHECK(make_error(inv.id, inv.error)["id"] == 9);
  CHECK(make_error(std::nullopt, inv.error)["id"].is_null());
}

TEST_CASE("wire messages carry jsonrpc 2.0 and round-trip through the parser") {
  json req = make_request(RequestId{std::string("s1")}, "window/workDoneProgress/create", {{"token", "t"}});
  CHECK(req["jsonrpc"] == "2.0");
  CHECK(std::holds_alternative<Request>(expect_message(dump(req))));
  json note = make_notification("exit", nullptr);
  CHECK_FALSE(note.contains("params"));
  CHECK(std::holds_alternative<Notification>(expect_message(dump(note))));
  json err = make_error(RequestId{std::int64_t{2}},
                        {ErrorCode::RequestCancelled, "cancelled", json{{"retry", false}}});
  CHECK(err["error"]["code"] == -32800);
  CHECK(err["error"]["data"]["retry"] == false);
  CHECK(make_result(RequestId{std::int64_t{1}}, nullptr).contains("result"));
}

TEST_CASE("error codes match LSP 3.17") {
  CHECK(static_cast<int>(ErrorCode::ServerNotInitialized) == -32002);
  CHECK(static_cast<int>(ErrorCode::RequestFailed) == -32803);
  CHECK(static_cast<int>(ErrorCode::ServerCancelled) == -32802);
  CHECK(static_cast<int>(ErrorCode::ContentModified) == -32801);
  CHECK(static_cast<int>(ErrorCode::RequestCancelled) == -32800);
}

TEST_CASE("dump never throws on invalid UTF-8") {
  json j = {{"text", std::string("a\xFF" "b")}};
  std::string out;
  CHECK_NOTHROW(out = dump(j));
  CHECK(out.find("\xEF\xBF\xBD") != std::string::npos);  // U+FFFD
}
