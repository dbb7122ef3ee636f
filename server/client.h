// The editor as the features see it: a connection to send notifications
// and requests through, and what initialize negotiated (capabilities, the
// position encoding), which features read but never change. Only the
// lifecycle (LanguageServer::initialize) calls negotiate().
//
// The connection is thread-safe; the negotiated state is written once,
// before any feature's handler runs, so reading it from a job thread is
// safe too.
#pragma once

#include <string>
#include <string_view>

#include "protocol/lsp_lifecycle.h"
#include "protocol/lsp_window.h"
#include "server/client_connection.h"
#include "formats/position_encoding.h"

namespace warplens::server {

class Client {
 public:
  explicit Client(Outbox& out) : connection_(out) {}
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // The raw connection: replies, responses and work-done progress use it.
  ClientConnection& connection() { return connection_; }

  void notify(std::string_view method, json params) { connection_.notify(method, std::move(params)); }
  void request(std::string_view method, json params, ClientConnection::ResponseHandler on_response) {
    connection_.request(method, std::move(params), std::move(on_response));
  }
  void show_message(protocol::MessageType type, const std::string& message);
  void log_message(protocol::MessageType type, const std::string& message);
  // Asks the client to re-request code lenses (when it supports it).
  void refresh_code_lenses();

  const protocol::ClientCapabilities& capabilities() const { return capabilities_; }
  formats::PositionEncoding encoding() const { return encoding_; }
  void negotiate(protocol::ClientCapabilities capabilities, formats::PositionEncoding encoding) {
    capabilities_ = std::move(capabilities);
    encoding_ = encoding;
  }

 private:
  ClientConnection connection_;
  protocol::ClientCapabilities capabilities_;
  formats::PositionEncoding encoding_ = formats::PositionEncoding::Utf16;
};

}  // namespace warplens::server
