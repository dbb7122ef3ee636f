#include "server/client_connection.h"

#include <spdlog/spdlog.h>

#include "common/redaction.h"

namespace warplens::server {

void ClientConnection::send(const json& message) {
  if (spdlog::should_log(spdlog::level::trace)) spdlog::trace("--> {}", common::loggable(message));
  out_.send(message);
}

void ClientConnection::notify(std::string_view method, json params) {
  send(protocol::make_notification(method, std::move(params)));
}

void ClientConnection::reply(const protocol::RequestId& id, json result) {
  send(protocol::make_result(id, std::move(result)));
}

void ClientConnection::reply_error(const std::optional<protocol::RequestId>& id, protocol::ResponseError error) {
  send(protocol::make_error(id, error));
}

void ClientConnection::request(std::string_view method, json params, ResponseHandler on_response) {
  protocol::RequestId id;
  {
    std::lock_guard lock(mutex_);
    id = ++next_id_;
    pending_[id] = std::move(on_response);
  }
  send(protocol::make_request(id, method, std::move(params)));
}

bool ClientConnection::deliver(const protocol::Response& response) {
  ResponseHandler handler;
  {
    std::lock_guard lock(mutex_);
    auto it = pending_.find(response.id);
    if (it == pending_.end()) return false;
    handler = std::move(it->second);
    pending_.erase(it);
  }
  if (!handler) return true;
  // A handler that throws on what the client sent must not take the
  // connection down with it.
  try {
    handler(response);
  } catch (const std::exception& e) {
    spdlog::error("handling the client's response {} failed: {}", protocol::to_string(response.id), e.what());
  }
  return true;
}

void ClientConnection::cancel_pending(const std::string& reason) {
  std::map<protocol::RequestId, ResponseHandler> pending;
  {
    std::lock_guard lock(mutex_);
    pending.swap(pending_);
  }
  for (auto& [id, handler] : pending) {
    protocol::Response r{id, nullptr, protocol::ResponseError{protocol::ErrorCode::RequestCancelled, reason, {}}};
    if (handler) handler(r);
  }
}

}  // namespace warplens::server
