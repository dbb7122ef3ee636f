// JSON-RPC 2.0 messages as LSP uses them: requests, notifications and
// responses, their error codes, and the checks that turn a frame's body into
// a typed message or into the error the peer must be told about.
//
// Batches (JSON arrays) are not supported: LSP never sends them, so an array
// is answered with InvalidRequest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

namespace warplens::protocol {

using json = nlohmann::json;

// JSON-RPC and LSP error codes (LSP 3.17 "ErrorCodes" and "LSPErrorCodes").
enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  UnknownErrorCode = -32001,
  RequestFailed = -32803,
  ServerCancelled = -32802,
  ContentModified = -32801,
  RequestCancelled = -32800,
};

// Request ids are integers or strings (LSP forbids null for requests).
using RequestId = std::variant<std::int64_t, std::string>;
std::string to_string(const RequestId& id);  // 7 or "abc" (quoted), for logs

struct ResponseError {
  ErrorCode code = ErrorCode::InternalError;
  std::string message;
  std::optional<json> data;
};
void to_json(json& j, const ResponseError& e);

struct Request {
  RequestId id;
  std::string method;
  json params;  // null when absent
};

struct Notification {
  std::string method;
  json params;  // null when absent
};

struct Response {
  RequestId id;
  json result;                        // meaningful when !error
  std::optional<ResponseError> error;
};

using Message = std::variant<Request, Notification, Response>;

// A body that is not a valid message. `id` is set when the body was a request
// whose id could be read, so the error reply can name it; otherwise the reply
// carries `"id": null`, as JSON-RPC requires.
struct InvalidMessage {
  ResponseError error;
  std::optional<RequestId> id;
};

// Parses one frame body. Invalid JSON gives ParseError (-32700); valid JSON
// that is not a JSON-RPC 2.0 message gives InvalidRequest (-32600).
std::variant<Message, InvalidMessage> parse_message(std::string_view body);

// Wire JSON for the messages the server sends.
json make_request(const RequestId& id, std::string_view method, json params);
json make_notification(std::string_view method, json params);
json make_result(const RequestId& id, json result);
json make_error(const std::optional<RequestId>& id, const ResponseError& error);

// Serialises a message for the wire. Invalid UTF-8 in strings is replaced
// (U+FFFD) rather than throwing, so a bad byte in a document can never make
// a reply unsendable.
std::string dump(const json& message);

}  // namespace warplens::protocol

// RequestId is a std::variant, so ADL cannot find a to_json in our namespace.
template <>
struct nlohmann::adl_serializer<warplens::protocol::RequestId> {
  static void to_json(json& j, const warplens::protocol::RequestId& id) {
    std::visit([&j](const auto& v) { j = v; }, id);
  }
  // Integers or strings; anything else throws json::type_error.
  static void from_json(const json& j, warplens::protocol::RequestId& id) {
    if (j.is_number_integer())
      id = j.get<std::int64_t>();
    else if (j.is_string())
      id = j.get<std::string>();
    else
      throw json::type_error::create(302, "id/token must be an integer or a string", &j);
  }
};
