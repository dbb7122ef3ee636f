#include "mcp/session.h"

#include <spdlog/spdlog.h>

#include "common/redaction.h"
#include "mcp/argument_check.h"

namespace warplens::mcp {

using protocol::ErrorCode;
using protocol::RequestId;

json call_result_json(const ToolResult& result) {
  json j = {{"content", json::array({{{"type", "text"}, {"text", result.text}}})}};
  // An error's structuredContent would be validated against the success
  // schema (see ToolResult), so an error never sends one.
  if (result.is_error)
    j["isError"] = true;
  else
    j["structuredContent"] = result.structured;
  if (!result.meta.empty()) j["_meta"] = result.meta;
  return j;
}

Session::Session(ServerInfo info, std::vector<Tool> tools, Writer writer)
    : info_(std::move(info)), tools_(std::move(tools)), writer_(std::move(writer)) {}

Session::~Session() { shutdown(); }

std::string Session::protocol_version() const {
  std::lock_guard lock(mutex_);
  return protocol_version_;
}

void Session::reply_error(const std::optional<RequestId>& id, ErrorCode code, const std::string& message) {
  writer_(protocol::make_error(id, protocol::ResponseError{code, message, std::nullopt}));
}

void Session::handle(std::string_view body) {
  reap_finished();
  auto parsed = protocol::parse_message(body);
  if (auto* bad = std::get_if<protocol::InvalidMessage>(&parsed)) {
    writer_(protocol::make_error(bad->id, bad->error));
    return;
  }
  const auto& message = std::get<protocol::Message>(parsed);
  // Whatever a handler throws (a json type_error on a field the checks
  // missed, bad_alloc), the session stays up: a request gets an internal
  // error reply, a notification, which cannot be answered, a log line.
  if (const auto* r = std::get_if<protocol::Request>(&message)) {
    try {
      on_request(*r);
    } catch (const std::exception& e) {
      spdlog::error("mcp: {} failed: {}", r->method, e.what());
      reply_error(r->id, ErrorCode::InternalError, "internal error in " + r->method + ": " + e.what());
    } catch (...) {
      spdlog::error("mcp: {} failed with an unknown exception", r->method);
      reply_error(r->id, ErrorCode::InternalError, "internal error in " + r->method);
    }
  } else if (const auto* n = std::get_if<protocol::Notification>(&message)) {
    try {
      on_notification(*n);
    } catch (const std::exception& e) {
      spdlog::error("mcp: notification {} failed: {}", n->method, e.what());
    } catch (...) {
      spdlog::error("mcp: notification {} failed with an unknown exception", n->method);
    }
  }
  // Responses: this server sends no requests, so there is nothing to match.
}

void Session::handle_framing_error(const protocol::FramingError& error) {
  reply_error(std::nullopt,
              error.kind == protocol::FramingErrorKind::TooLarge ? ErrorCode::InvalidRequest : ErrorCode::ParseError,
              error.message);
}

void Session::on_request(const protocol::Request& request) {
  const std::string& m = request.method;
  if (m == "ping") {  // allowed in every state
    writer_(protocol::make_result(request.id, json::object()));
    return;
  }
  if (m == "initialize") {
    if (initialized_) {
      reply_error(request.id, ErrorCode::InvalidRequest, "initialize was already received in this session");
      return;
    }
    const json& p = request.params;
    if (!p.is_object() || !p.contains("protocolVersion") || !p["protocolVersion"].is_string()) {
      reply_error(request.id, ErrorCode::InvalidParams, "initialize needs params.protocolVersion (a string)");
      return;
    }
    // clientInfo is only logged, but a client that sends one of the wrong
    // shape is told so (json::value() on a non-object would throw).
    std::string client = "?";
    if (auto ci = p.find("clientInfo"); ci != p.end() && !ci->is_null()) {
      if (!ci->is_object()) {
        reply_error(request.id, ErrorCode::InvalidParams, "initialize: params.clientInfo must be an object");
        return;
      }
      if (auto name = ci->find("name"); name != ci->end()) {
        if (!name->is_string()) {
          reply_error(request.id, ErrorCode::InvalidParams, "initialize: params.clientInfo.name must be a string");
          return;
        }
        client = name->get<std::string>();
      }
    }
    std::string version = negotiate_protocol_version(p["protocolVersion"].get<std::string>());
    {
      std::lock_guard lock(mutex_);
      protocol_version_ = version;
    }
    spdlog::info("mcp: initialize from {} (protocol {} requested, {} answered)", common::redact_text(client),
                 common::redact_text(p["protocolVersion"].get<std::string>()), version);
    initialized_ = true;
    writer_(protocol::make_result(request.id, initialize_result(info_, version)));
    return;
  }
  if (!initialized_) {
    reply_error(request.id, ErrorCode::InvalidRequest, "`" + m + "` before initialize: send initialize first");
    return;
  }
  if (m == "tools/list") {
    if (!request.params.is_null() && !request.params.is_object()) {
      reply_error(request.id, ErrorCode::InvalidParams, "tools/list params must be an object");
      return;
    }
    json list = json::array();
    for (const auto& t : tools_) list.push_back(t.descriptor());
    writer_(protocol::make_result(request.id, {{"tools", list}}));  // one page: no nextCursor
    return;
  }
  if (m == "tools/call") {
    call_tool(request);
    return;
  }
  reply_error(request.id, ErrorCode::MethodNotFound, "method `" + m + "` is not supported by this server");
}

void Session::on_notification(const protocol::Notification& n) {
  if (n.method == "notifications/cancelled") {
    if (!n.params.is_object() || !n.params.contains("requestId")) return;  // nothing to answer a notification with
    RequestId id;
    try {
      id = n.params["requestId"].get<RequestId>();
    } catch (const std::exception&) {
      return;
    }
    // `reason` is optional text for the log; one of another type does not
    // make the cancellation invalid, it is only not shown.
    std::string reason = "no reason given";
    if (auto r = n.params.find("reason"); r != n.params.end() && !r->is_null()) {
      if (r->is_string())
        reason = common::redact_text(r->get<std::string>());
      else
        spdlog::warn("mcp: notifications/cancelled with a non-string reason ({}); ignoring the reason",
                     r->type_name());
    }
    std::lock_guard lock(mutex_);
    // Unknown or finished requests are ignored: the spec expects that race.
    if (auto it = calls_.find(protocol::to_string(id)); it != calls_.end()) {
      spdlog::info("mcp: request {} cancelled by the client ({})", it->first, reason);
      it->second->cancelled = true;
      it->second->stop.request_stop();
    }
    return;
  }
  // notifications/initialized, roots and the like: nothing to do. The
  // session serves tools once initialize is answered; a client that forgot
  // `initialized` is not punished for it.
}

void Session::call_tool(const protocol::Request& request) {
  const json& p = request.params;
  if (!p.is_object() || !p.contains("name") || !p["name"].is_string()) {
    reply_error(request.id, ErrorCode::InvalidParams, "tools/call needs params.name (a string)");
    return;
  }
  const std::string name = p["name"].get<std::string>();
  const Tool* tool = nullptr;
  for (const auto& t : tools_)
    if (t.name == name) tool = &t;
  if (!tool) {
    std::string known;
    for (const auto& t : tools_) known += (known.empty() ? "" : ", ") + t.name;
    reply_error(request.id, ErrorCode::InvalidParams, "unknown tool `" + name + "` (tools: " + known + ")");
    return;
  }
  json arguments = p.contains("arguments") && !p["arguments"].is_null() ? p["arguments"] : json::object();
  if (std::string e = check_arguments(tool->input_schema, arguments); !e.empty()) {
    reply_error(request.id, ErrorCode::InvalidParams, name + ": " + e);
    return;
  }
  std::optional<json> token;
  if (p.contains("_meta") && p["_meta"].is_object() && p["_meta"].contains("progressToken")) {
    const json& t = p["_meta"]["progressToken"];
    if (!t.is_string() && !t.is_number_integer()) {
      reply_error(request.id, ErrorCode::InvalidParams, "_meta.progressToken must be a string or an integer");
      return;
    }
    token = t;
  }

  auto call = std::make_shared<Call>();
  call->key = protocol::to_string(request.id);
  {
    std::lock_guard lock(mutex_);
    if (calls_.count(call->key)) {
      reply_error(request.id, ErrorCode::InvalidRequest, "request id " + call->key + " is already in flight");
      return;
    }
    if (calls_.size() >= kMaxConcurrentCalls) {
      reply_error(request.id, ErrorCode::InternalError,
                  "too many tool calls at once (" + std::to_string(kMaxConcurrentCalls) + "); retry when one finished");
      return;
    }
    calls_[call->key] = call;
    threads_.push_back(call);
    // Started under the lock, so shutdown() sees every thread it must join.
    call->thread = std::jthread([this, call, id = request.id, tool, arguments = std::move(arguments),
                                 token = std::move(token)](std::stop_token) mutable {
      run_call(call, id, *tool, std::move(arguments), std::move(token));
    });
  }
}

void Session::run_call(const std::shared_ptr<Call>& call, const RequestId& id, const Tool& tool, json arguments,
                       std::optional<json> token) {
  double last = -1;
  std::mutex progress_mutex;
  ToolContext::ProgressSink sink;
  if (token)
    sink = [&, token = *token](double progress, std::optional<double> total, const std::string& message) {
      std::lock_guard lock(progress_mutex);
      if (progress <= last || call->cancelled) return;  // the spec wants it to increase
      last = progress;
      json params = {{"progressToken", token}, {"progress", progress}};
      if (total) params["total"] = *total;
      if (!message.empty()) params["message"] = message;
      writer_(protocol::make_notification("notifications/progress", params));
    };
  ToolContext context(call->stop.get_token(), sink);
  ToolResult result;
  try {
    result = tool.run(arguments, context);
  } catch (const ToolError& e) {
    result = tool_error_result(e.kind, e.what());
  } catch (const std::exception& e) {
    spdlog::error("mcp: tool {} failed: {}", tool.name, e.what());
    result = tool_error_result("failed", std::string("internal error: ") + e.what());
  } catch (...) {
    spdlog::error("mcp: tool {} failed with an unknown exception", tool.name);
    result = tool_error_result("failed", "internal error (an unknown exception)");
  }
  {
    std::lock_guard lock(mutex_);
    calls_.erase(call->key);
  }
  if (call->cancelled) {
    spdlog::info("mcp: {} ({}) stopped after cancellation; no response sent", tool.name, call->key);
  } else {
    writer_(protocol::make_result(id, call_result_json(result)));
  }
  call->done = true;
}

void Session::reap_finished() {
  std::list<std::shared_ptr<Call>> finished;
  {
    std::lock_guard lock(mutex_);
    for (auto it = threads_.begin(); it != threads_.end();) {
      if ((*it)->done) {
        finished.push_back(*it);
        it = threads_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& c : finished)
    if (c->thread.joinable()) c->thread.join();
}

void Session::shutdown() {
  std::list<std::shared_ptr<Call>> all;
  {
    std::lock_guard lock(mutex_);
    for (auto& [_, c] : calls_) c->stop.request_stop();
    all.swap(threads_);
  }
  for (auto& c : all)
    if (c->thread.joinable()) c->thread.join();
}

}  // namespace warplens::mcp
