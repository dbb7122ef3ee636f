#include "server/method_table.h"

#include <spdlog/spdlog.h>

namespace warplens::server {

struct Reply::State {
  State(ClientConnection& client, protocol::RequestId id, std::function<void()> on_done)
      : client(client), id(std::move(id)), on_done(std::move(on_done)) {}
  ClientConnection& client;
  protocol::RequestId id;
  std::function<void()> on_done;
  std::atomic<bool> answered{false};
};

Reply::Reply(ClientConnection& client, protocol::RequestId id, std::function<void()> on_done)
    : state_(std::make_shared<State>(client, std::move(id), std::move(on_done))) {}

bool Reply::claim() const {
  bool expected = false;
  if (!state_->answered.compare_exchange_strong(expected, true)) {
    spdlog::debug("dropping a second answer to request {}", protocol::to_string(state_->id));
    return false;
  }
  return true;
}

void Reply::result(json value) const {
  if (!claim()) return;
  state_->client.reply(state_->id, std::move(value));
  if (state_->on_done) state_->on_done();
}

void Reply::error(protocol::ErrorCode code, const std::string& message) const {
  error(protocol::ResponseError{code, message, std::nullopt});
}

void Reply::error(const protocol::ResponseError& e) const {
  if (!claim()) return;
  state_->client.reply_error(state_->id, e);
  if (state_->on_done) state_->on_done();
}

bool Reply::done() const { return state_->answered.load(); }
const protocol::RequestId& Reply::id() const { return state_->id; }

void MethodTable::on_request(const std::string& method, RequestHandler handler) {
  requests_[method] = std::move(handler);
}

void MethodTable::on_notification(const std::string& method, NotificationHandler handler) {
  notifications_[method] = std::move(handler);
}

const RequestHandler* MethodTable::request(const std::string& method) const {
  auto it = requests_.find(method);
  return it == requests_.end() ? nullptr : &it->second;
}

const NotificationHandler* MethodTable::notification(const std::string& method) const {
  auto it = notifications_.find(method);
  return it == notifications_.end() ? nullptr : &it->second;
}

}  // namespace warplens::server
