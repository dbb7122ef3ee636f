#include "protocol/jsonrpc.h"

#include <limits>

#include "common/json_limits.h"

namespace warplens::protocol {

std::string to_string(const RequestId& id) {
  if (const auto* n = std::get_if<std::int64_t>(&id)) return std::to_string(*n);
  return json(std::get<std::string>(id)).dump();
}

void to_json(json& j, const ResponseError& e) {
  j = json{{"code", static_cast<int>(e.code)}, {"message", e.message}};
  if (e.data) j["data"] = *e.data;
}

namespace {

InvalidMessage invalid(std::string message, std::optional<RequestId> id = std::nullopt) {
  return {{ErrorCode::InvalidRequest, std::move(message), std::nullopt}, std::move(id)};
}

// JSON-RPC ids may be numbers or strings; LSP narrows numbers to integers.
std::optional<RequestId> read_id(const json& id) {
  if (id.is_number_integer()) return RequestId{id.get<std::int64_t>()};
  if (id.is_string()) return RequestId{id.get<std::string>()};
  return std::nullopt;
}

}  // namespace

namespace {

// The id of a message too deep to parse: everything below the top level is
// discarded while parsing (the parser is iterative, the callback drops each
// nested value as soon as it is complete), so nothing deep is ever built.
std::optional<RequestId> shallow_id(std::string_view body) {
  json top = json::parse(
      body.begin(), body.end(),
      [](int depth, json::parse_event_t event, json&) {
        return depth <= 1 || event == json::parse_event_t::key;  // drop every value below the top
      },
      /*allow_exceptions=*/false);
  if (!top.is_object()) return std::nullopt;
  auto it = top.find("id");
  return it == top.end() ? std::nullopt : read_id(*it);
}

// A response's error member, as far as it can be read: a peer that sends a
// non-string message (or none) still gets its response delivered.
std::optional<ResponseError> read_response_error(const json& e) {
  if (!e.is_object()) return std::nullopt;
  auto code = e.find("code");
  if (code == e.end() || !code->is_number_integer()) return std::nullopt;
  const std::int64_t value = code->get<std::int64_t>();
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) return std::nullopt;
  ResponseError err;
  err.code = static_cast<ErrorCode>(static_cast<int>(value));
  if (auto m = e.find("message"); m != e.end()) {
    if (m->is_string())
      err.message = m->get<std::string>();
    else
      err.message = "(the peer sent a non-string error message: " + dump(*m).substr(0, 200) + ")";
  }
  if (auto d = e.find("data"); d != e.end()) err.data = *d;
  return err;
}

}  // namespace

std::variant<Message, InvalidMessage> parse_message(std::string_view body) {
  if (common::json_nesting_depth(body, common::kMaxJsonDepth) > common::kMaxJsonDepth)
    return invalid("message " + common::too_deep_message(common::kMaxJsonDepth), shallow_id(body));
  json j = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return InvalidMessage{{ErrorCode::ParseError, "invalid JSON in message body", std::nullopt},
                          std::nullopt};
  if (j.is_array()) return invalid("JSON-RPC batches are not supported");
  if (!j.is_object()) return invalid("a JSON-RPC message must be a JSON object");

  std::optional<RequestId> id;
  bool has_id = j.contains("id");
  if (has_id) id = read_id(j["id"]);

  auto version = j.find("jsonrpc");
  if (version == j.end() || *version != "2.0")
    return invalid("missing or wrong \"jsonrpc\" member (must be \"2.0\")", id);

  auto method = j.find("method");
  if (method != j.end()) {
    if (!method->is_string()) return invalid("\"method\" must be a string", id);
    json params;
    if (auto p = j.find("params"); p != j.end()) {
      if (!p->is_object() && !p->is_array() && !p->is_null())
        return invalid("\"params\" must be an object or an array", id);
      params = std::move(*p);
    }
    if (!has_id) return Message{Notification{method->get<std::string>(), std::move(params)}};
    if (!id) return invalid("request id must be an integer or a string");
    return Message{Request{std::move(*id), method->get<std::string>(), std::move(params)}};
  }

  // No method: a response to one of the server's own requests.
  if (!has_id || !id) return invalid("message has neither a method nor a valid id");
  Response r{std::move(*id), nullptr, std::nullopt};
  if (auto e = j.find("error"); e != j.end()) {
    r.error = read_response_error(*e);
    if (!r.error) return invalid("malformed \"error\" member in response (needs an integer \"code\")");
  } else if (auto res = j.find("result"); res != j.end()) {
    r.result = std::move(*res);
  } else {
    return invalid("response has neither \"result\" nor \"error\"");
  }
  return Message{std::move(r)};
}

json make_request(const RequestId& id, std::string_view method, json params) {
  json j{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) j["params"] = std::move(params);
  return j;
}

json make_notification(std::string_view method, json params) {
  json j{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) j["params"] = std::move(params);
  return j;
}

json make_result(const RequestId& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json make_error(const std::optional<RequestId>& id, const ResponseError& error) {
  json j{{"jsonrpc", "2.0"}, {"error", error}};
  if (id)
    j["id"] = *id;
  else
    j["id"] = nullptr;
  return j;
}

std::string dump(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace warplens::protocol
