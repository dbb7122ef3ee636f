// The server's side of the conversation with the client: replies,
// notifications, and requests the server sends (window/workDoneProgress/
// create, workspace/configuration, ...) with their response handlers.
//
// Thread-safe: jobs report progress and reply from their own thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/jsonrpc.h"

namespace warplens::server {

using protocol::json;

// Where outgoing messages go: the transport (framed, one writer) or, in
// tests, a list. Implementations must be thread-safe.
class Outbox {
 public:
  virtual ~Outbox() = default;
  virtual void send(const json& message) = 0;
};

class ClientConnection {
 public:
  using ResponseHandler = std::function<void(const protocol::Response&)>;

  explicit ClientConnection(Outbox& out) : out_(out) {}

  void notify(std::string_view method, json params);
  void reply(const protocol::RequestId& id, json result);
  void reply_error(const std::optional<protocol::RequestId>& id, protocol::ResponseError error);

  // Sends a request; `on_response` runs when deliver() sees its answer.
  void request(std::string_view method, json params, ResponseHandler on_response);
  // Routes a response from the client. False for an unknown id.
  bool deliver(const protocol::Response& response);
  // Answers every request still waiting with a RequestCancelled error.
  void cancel_pending(const std::string& reason);

 private:
  void send(const json& message);

  Outbox& out_;
  std::mutex mutex_;
  std::int64_t next_id_ = 0;
  std::map<protocol::RequestId, ResponseHandler> pending_;
};

}  // namespace warplens::server
