// One MCP session: the JSON-RPC messages of a connected client, answered.
//
// The transport (stdio_server.h) hands each message body to handle(); the
// session answers through the Writer, which may be called from any thread
// (it must serialise writes). Lifecycle requests, ping and tools/list are
// answered at once on the caller's thread. Each tools/call runs on a thread
// of its own, so a long tool (profile, verify, optimize) does not hold up
// ping, other calls, or the notifications/cancelled that stops it.
//
// Cancellation (2025-06-18, "Cancellation"): notifications/cancelled for an
// in-flight call requests its stop_token, and the call's response is then
// not sent, as the spec asks. Progress ("Progress"): when a call's
// `_meta.progressToken` is set, the tool's progress becomes
// notifications/progress with that token, strictly increasing.
#pragma once

#include <atomic>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "mcp/lifecycle.h"
#include "mcp/tool.h"
#include "protocol/framing.h"
#include "protocol/jsonrpc.h"

namespace warplens::mcp {

class Session {
 public:
  using Writer = std::function<void(const json& message)>;
  // At most this many tool calls run at once; more are refused with a
  // JSON-RPC error (the client retries), so a runaway agent cannot start
  // unbounded threads.
  static constexpr std::size_t kMaxConcurrentCalls = 8;

  Session(ServerInfo info, std::vector<Tool> tools, Writer writer);
  ~Session();  // stops and joins the calls still running
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // One message body (one line of the stdio transport).
  void handle(std::string_view body);
  // A line the transport could not frame (too long).
  void handle_framing_error(const protocol::FramingError& error);

  // The client left: stop every running call and wait for it.
  void shutdown();

  bool initialized() const { return initialized_; }
  std::string protocol_version() const;
  const std::vector<Tool>& tools() const { return tools_; }

 private:
  struct Call {
    std::string key;  // protocol::to_string(id)
    std::stop_source stop;
    std::atomic<bool> cancelled{false};
    std::atomic<bool> done{false};
    std::jthread thread;
  };

  void on_request(const protocol::Request& request);
  void on_notification(const protocol::Notification& notification);
  void call_tool(const protocol::Request& request);
  void run_call(const std::shared_ptr<Call>& call, const protocol::RequestId& id, const Tool& tool, json arguments,
                std::optional<json> progress_token);
  void reap_finished();
  void reply_error(const std::optional<protocol::RequestId>& id, protocol::ErrorCode code, const std::string& message);

  ServerInfo info_;
  std::vector<Tool> tools_;
  Writer writer_;

  std::atomic<bool> initialized_{false};  // initialize answered
  mutable std::mutex mutex_;
  std::string protocol_version_;
  std::map<std::string, std::shared_ptr<Call>> calls_;  // in flight, by request id
  std::list<std::shared_ptr<Call>> threads_;            // started, joined by reap_finished()/shutdown()
};

// The tools/call result for `result`: content, then structuredContent on
// success or isError on failure, and `_meta` when the result has any.
json call_result_json(const ToolResult& result);

}  // namespace warplens::mcp
