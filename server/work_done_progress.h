// window/workDoneProgress for one long job, as a ProgressSink.
//
// With a token the client gave (a request's workDoneToken) events go out at
// once. Otherwise the server asks the client to create a token first and
// holds events until it answers; if the client refuses (or does not support
// progress), events are dropped. Either way the client sees `begin` first,
// `end` last and no `report` outside them (Neovim 0.7 errors on a report
// without a begin).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "protocol/lsp_window.h"
#include "server/client_connection.h"
#include "server/job_runner.h"

namespace warplens::server {

class WorkDoneProgress : public ProgressSink, public std::enable_shared_from_this<WorkDoneProgress> {
 public:
  // Progress under a token the client created.
  static std::shared_ptr<WorkDoneProgress> with_client_token(ClientConnection& client, protocol::ProgressToken token);
  // Sends window/workDoneProgress/create for `token`, then reports under it.
  static std::shared_ptr<WorkDoneProgress> create(ClientConnection& client, protocol::ProgressToken token);

  void begin(const std::string& title, const std::string& message) override;
  void report(const std::string& message, std::optional<int> percentage) override;
  void end(const std::string& message) override;

  const protocol::ProgressToken& token() const { return token_; }

 private:
  enum class State { Creating, Ready, Refused };
  WorkDoneProgress(ClientConnection& client, protocol::ProgressToken token, State state);
  void send(const json& value);  // with mutex_ held
  void flush();                  // with mutex_ held, once Ready

  ClientConnection& client_;
  protocol::ProgressToken token_;
  std::mutex mutex_;
  State state_;
  bool begun_ = false;
  bool ended_ = false;
  // Held while Creating; the latest report replaces an earlier one.
  std::optional<json> held_begin_, held_report_, held_end_;
};

}  // namespace warplens::server
