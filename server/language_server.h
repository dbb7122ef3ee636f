// The language server: receives frames, turns them into messages, runs the
// lifecycle (initialize, initialized, shutdown, exit), and dispatches
// everything else through the method table that the features filled.
//
// Per-request isolation: a handler that throws is answered with an error
// and the server carries on. Requests can be cancelled with $/cancelRequest;
// the server then answers RequestCancelled (-32800) at once and the handler
// sees its stop_token set.
//
// Runs on the io_context's thread: call receive() from there.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <stop_token>

#include "protocol/framing.h"
#include "protocol/jsonrpc.h"
#include "server/server_context.h"

namespace warplens::server {

class LanguageServer {
 public:
  LanguageServer(boost::asio::io_context& io, Outbox& out, AnalyzeFn analyze, ServerOptions options);
  ~LanguageServer();
  LanguageServer(const LanguageServer&) = delete;
  LanguageServer& operator=(const LanguageServer&) = delete;

  // One frame (or framing error) from the transport.
  void receive(const protocol::FrameEvent& event);
  void receive(std::string_view body) { receive(protocol::FrameEvent{protocol::Frame{std::string(body)}}); }

  // Called with the exit code when the client sends `exit`.
  void on_exit(std::function<void(int)> callback) { on_exit_ = std::move(callback); }
  bool exited() const { return exited_; }
  // The exit code if the connection closes now: 0 after shutdown, else 1.
  int exit_code() const { return shutdown_requested_ ? 0 : 1; }

  // Stops analyses and jobs and waits up to `timeout` for their threads.
  // False when one is stuck: exit the process without destructors then.
  bool stop_workers(std::chrono::milliseconds timeout);

  ServerContext& context() { return ctx_; }

 private:
  enum class Phase { Uninitialized, Running, ShutDown };

  void receive_frame(const protocol::FrameEvent& event);
  void dispatch(protocol::Request request);
  void dispatch(const protocol::Notification& notification);
  void register_lifecycle();
  protocol::InitializeResult initialize(const protocol::InitializeParams& params);

  struct Pending {
    std::stop_source stop;
    Reply reply;
  };

  ServerContext ctx_;
  Phase phase_ = Phase::Uninitialized;
  bool shutdown_requested_ = false;
  bool exited_ = false;
  std::function<void(int)> on_exit_;
  std::map<protocol::RequestId, Pending> pending_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace warplens::server
