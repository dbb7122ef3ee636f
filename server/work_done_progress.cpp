#include "server/work_done_progress.h"

namespace warplens::server {

WorkDoneProgress::WorkDoneProgress(ClientConnection& client, protocol::ProgressToken token, State state)
    : client_(client), token_(std::move(token)), state_(state) {}

std::shared_ptr<WorkDoneProgress> WorkDoneProgress::with_client_token(ClientConnection& client,
                                                                      protocol::ProgressToken token) {
  return std::shared_ptr<WorkDoneProgress>(new WorkDoneProgress(client, std::move(token), State::Ready));
}

std::shared_ptr<WorkDoneProgress> WorkDoneProgress::create(ClientConnection& client, protocol::ProgressToken token) {
  auto p = std::shared_ptr<WorkDoneProgress>(new WorkDoneProgress(client, token, State::Creating));
  client.request("window/workDoneProgress/create", protocol::WorkDoneProgressCreateParams{token},
                 [weak = std::weak_ptr<WorkDoneProgress>(p)](const protocol::Response& r) {
                   auto self = weak.lock();
                   if (!self) return;
                   std::lock_guard lock(self->mutex_);
                   if (r.error) {
                     self->state_ = State::Refused;
                     return;
                   }
                   self->state_ = State::Ready;
                   self->flush();
                 });
  return p;
}

void WorkDoneProgress::send(const json& value) {
  client_.notify("$/progress", protocol::ProgressParams{token_, value});
}

void WorkDoneProgress::flush() {
  if (held_begin_) {
    send(*held_begin_);
    begun_ = true;
    if (held_report_ && !held_end_) send(*held_report_);
    if (held_end_) {
      send(*held_end_);
      ended_ = true;
    }
  }
  held_begin_.reset();
  held_report_.reset();
  held_end_.reset();
}

void WorkDoneProgress::begin(const std::string& title, const std::string& message) {
  json value = protocol::WorkDoneProgressBegin{title, true, message, 0};
  std::lock_guard lock(mutex_);
  if (begun_ || held_begin_) return;
  if (state_ == State::Creating) {
    held_begin_ = std::move(value);
  } else if (state_ == State::Ready) {
    send(value);
    begun_ = true;
  }
}

void WorkDoneProgress::report(const std::string& message, std::optional<int> percentage) {
  json value = protocol::WorkDoneProgressReport{std::nullopt, message, percentage};
  std::lock_guard lock(mutex_);
  if (state_ == State::Creating) {
    if (held_begin_ && !held_end_) held_report_ = std::move(value);
  } else if (state_ == State::Ready && begun_ && !ended_) {
    send(value);
  }
}

void WorkDoneProgress::end(const std::string& message) {
  json value = protocol::WorkDoneProgressEnd{message};
  std::lock_guard lock(mutex_);
  if (state_ == State::Creating) {
    if (held_begin_) held_end_ = std::move(value);
  } else if (state_ == State::Ready && begun_ && !ended_) {
    send(value);
    ended_ = true;
  }
}

}  // namespace warplens::server
