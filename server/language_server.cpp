#include "server/language_server.h"

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "server/features.h"
#include "common/redaction.h"
#include "formats/uri.h"

namespace warplens::server {

using protocol::ErrorCode;

LanguageServer::LanguageServer(boost::asio::io_context& io, Outbox& out, AnalyzeFn analyze, ServerOptions options)
    : ctx_(io, out, std::move(analyze), std::move(options)) {
  register_lifecycle();
  register_features(ctx_);
}

LanguageServer::~LanguageServer() {
  *alive_ = false;
  stop_workers(std::chrono::milliseconds(0));
}

bool LanguageServer::stop_workers(std::chrono::milliseconds timeout) {
  ctx_.client.connection().cancel_pending("the server is stopping");
  ctx_.events.stopping.emit();
  bool analyses = ctx_.analyses.shutdown(timeout);
  bool jobs = ctx_.jobs.shutdown(timeout);
  return analyses && jobs;
}

void LanguageServer::receive(const protocol::FrameEvent& event) {
  // Whatever a frame holds, handling it must not end the server: handlers
  // are isolated in dispatch(); this catches what happens around them
  // (parsing, logging, a response handler).
  try {
    receive_frame(event);
  } catch (const std::exception& e) {
    spdlog::error("internal error while handling a message: {}", common::redact_text(e.what()));
  } catch (...) {
    spdlog::error("internal error while handling a message (unknown exception)");
  }
}

void LanguageServer::receive_frame(const protocol::FrameEvent& event) {
  if (const auto* error = std::get_if<protocol::FramingError>(&event)) {
    spdlog::warn("framing error: {}", error->message);
    ErrorCode code = error->kind == protocol::FramingErrorKind::TooLarge ? ErrorCode::InvalidRequest
                                                                         : ErrorCode::ParseError;
    ctx_.client.connection().reply_error(std::nullopt, {code, error->message, std::nullopt});
    return;
  }
  const std::string& body = std::get<protocol::Frame>(event).body;
  auto parsed = protocol::parse_message(body);
  if (auto* invalid = std::get_if<protocol::InvalidMessage>(&parsed)) {
    // The body may hold anything, secrets included: redacted like any text.
    spdlog::warn("invalid message ({}): {}", invalid->error.message, common::loggable_text(body, 200));
    ctx_.client.connection().reply_error(invalid->id, invalid->error);
    return;
  }
  auto& message = std::get<protocol::Message>(parsed);
  if (spdlog::should_log(spdlog::level::trace)) {
    json j = json::parse(body, nullptr, false);
    spdlog::trace("<-- {}", common::loggable(j));
  }
  if (auto* request = std::get_if<protocol::Request>(&message)) {
    dispatch(std::move(*request));
  } else if (auto* notification = std::get_if<protocol::Notification>(&message)) {
    dispatch(*notification);
  } else {
    const auto& response = std::get<protocol::Response>(message);
    if (!ctx_.client.connection().deliver(response))
      spdlog::warn("response to an unknown request {}", protocol::to_string(response.id));
  }
}

void LanguageServer::dispatch(protocol::Request request) {
  if (exited_) return;
  const std::string& method = request.method;
  if (phase_ == Phase::Uninitialized && method != "initialize")
    return ctx_.client.connection().reply_error(request.id, {ErrorCode::ServerNotInitialized,
                                                "the server is not initialized: send `initialize` first", {}});
  if (phase_ == Phase::ShutDown)
    return ctx_.client.connection().reply_error(request.id,
                                   {ErrorCode::InvalidRequest, "the server is shutting down (`shutdown` was received)", {}});
  if (phase_ == Phase::Running && method == "initialize")
    return ctx_.client.connection().reply_error(request.id, {ErrorCode::InvalidRequest, "`initialize` may only be sent once", {}});
  const RequestHandler* handler = ctx_.registry.methods.request(method);
  if (!handler) return ctx_.client.connection().reply_error(request.id, {ErrorCode::MethodNotFound, "unknown method: " + method, {}});

  if (pending_.count(request.id))
    spdlog::warn("request id {} reused while still pending", protocol::to_string(request.id));
  // The entry is erased once answered (possibly from a job thread: post).
  auto serial = std::make_shared<int>(0);
  Reply reply(ctx_.client.connection(), request.id, [this, alive = std::weak_ptr<bool>(alive_), id = request.id, serial] {
    boost::asio::post(ctx_.io, [this, alive, id, serial] {
      if (alive.expired()) return;
      auto it = pending_.find(id);
      if (it != pending_.end() && it->second.reply.done()) pending_.erase(it);
    });
  });
  auto& entry = pending_.insert_or_assign(request.id, Pending{std::stop_source(), reply}).first->second;
  RequestContext context{request.id, entry.stop.get_token(), reply};
  try {
    (*handler)(request.params, context);
  } catch (const RequestError& e) {
    context.reply.error(e.code(), e.what());
  } catch (const std::exception& e) {
    spdlog::error("{} failed: {}", method, e.what());
    context.reply.error(ErrorCode::InternalError, "internal error in " + method + ": " + e.what());
  } catch (...) {
    spdlog::error("{} failed with an unknown exception", method);
    context.reply.error(ErrorCode::InternalError, "internal error in " + method);
  }
}

void LanguageServer::dispatch(const protocol::Notification& notification) {
  const std::string& method = notification.method;
  if (method == "exit") {
    if (exited_) return;
    exited_ = true;
    spdlog::info("exit (shutdown {}received): exit code {}", shutdown_requested_ ? "" : "not ", exit_code());
    if (on_exit_) on_exit_(exit_code());
    return;
  }
  if (exited_) return;
  if (phase_ != Phase::Running) {
    spdlog::debug("dropping notification {} ({})", method,
                  phase_ == Phase::Uninitialized ? "not initialized" : "shutting down");
    return;
  }
  const NotificationHandler* handler = ctx_.registry.methods.notification(method);
  if (!handler) {
    if (method.rfind("$/", 0) != 0) spdlog::warn("unhandled notification {}", method);
    return;
  }
  try {
    (*handler)(notification.params);
  } catch (const std::exception& e) {
    // Notifications cannot be answered: tell the user through the log.
    spdlog::error("{} failed: {}", method, e.what());
    ctx_.client.log_message(protocol::MessageType::Error, method + " failed: " + e.what());
  } catch (...) {
    spdlog::error("{} failed with an unknown exception", method);
  }
}

protocol::InitializeResult LanguageServer::initialize(const protocol::InitializeParams& params) {
  formats::PositionEncoding encoding = formats::PositionEncoding::Utf16;  // the LSP default, always supported
  for (const auto& name : params.capabilities.positionEncodings)
    if (name == protocol::position_encoding_kind::kUtf8) encoding = formats::PositionEncoding::Utf8;
  ctx_.client.negotiate(params.capabilities, encoding);
  std::vector<std::string> problems;
  ctx_.workspace.set_settings(apply_settings(Settings{}, params.initializationOptions, problems));
  for (const auto& p : problems) {
    spdlog::warn("{}", p);
    ctx_.client.show_message(protocol::MessageType::Warning, "warplens: " + p);
  }
  ctx_.analyses.update_debounce();
  std::vector<std::string> folders;
  for (const auto& folder : params.workspaceFolders)
    if (auto path = formats::path_from_uri(folder.uri)) folders.push_back(*path);
  if (folders.empty() && params.rootUri)
    if (auto path = formats::path_from_uri(*params.rootUri)) folders.push_back(*path);
  ctx_.workspace.set_folders(std::move(folders));
  std::string client = params.clientInfo ? params.clientInfo->name + " " + params.clientInfo->version.value_or("")
                                          : std::string("an unnamed client");
  spdlog::info("initialize from {}: position encoding {}, settings {}", client, to_string(encoding),
               common::loggable(settings_to_json(ctx_.workspace.settings())));

  protocol::InitializeResult result;
  result.capabilities = ctx_.registry.capabilities;
  result.capabilities.positionEncoding = to_string(encoding);
  std::vector<std::string> commands;
  for (const auto& [name, handler] : ctx_.registry.commands) commands.push_back(name);
  result.capabilities.executeCommandProvider = protocol::ExecuteCommandOptions{commands, true};
  result.serverInfo = protocol::ServerInfo{"warplens", ctx_.options.version};
  return result;
}

void LanguageServer::register_lifecycle() {
  auto& m = ctx_.registry.methods;
  m.on_request<protocol::InitializeParams>("initialize", [this](const auto& params, RequestContext& rc) {
    auto result = initialize(params);
    phase_ = Phase::Running;
    rc.reply.result(result);
  });
  m.on_notification("initialized", [this](const json&) { ctx_.events.initialized.emit(); });
  m.on_request("shutdown", [this](const json&, RequestContext& rc) {
    shutdown_requested_ = true;
    phase_ = Phase::ShutDown;
    for (auto& [id, p] : pending_) {
      if (id == rc.id) continue;
      p.reply.error(ErrorCode::RequestCancelled, "the server is shutting down");
      p.stop.request_stop();
    }
    ctx_.jobs.cancel_all();
    ctx_.analyses.shutdown(std::chrono::milliseconds(0));
    ctx_.events.stopping.emit();
    rc.reply.result(nullptr);
  });
  m.on_notification<protocol::CancelParams>("$/cancelRequest", [this](const protocol::CancelParams& p) {
    auto it = pending_.find(p.id);
    if (it == pending_.end()) return;  // already answered: nothing to do
    spdlog::debug("cancelling request {}", protocol::to_string(p.id));
    it->second.reply.error(ErrorCode::RequestCancelled, "the request was cancelled");
    it->second.stop.request_stop();
  });
}

}  // namespace warplens::server
