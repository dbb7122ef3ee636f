// The LSP method table: which handler serves which method, the reply handle
// a request handler answers through, and the exceptions that become error
// replies.
//
// A request handler may answer at once or keep its Reply and answer later
// from any thread (hover waiting for an analysis, a job finishing). The
// first answer wins; a cancelled request has already been answered with
// RequestCancelled, so a late answer is dropped.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "protocol/jsonrpc.h"
#include "server/client_connection.h"

namespace warplens::server {

// Thrown by handlers: becomes an error reply with this code.
class RequestError : public std::runtime_error {
 public:
  RequestError(protocol::ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  protocol::ErrorCode code() const { return code_; }

 private:
  protocol::ErrorCode code_;
};

class Reply {
 public:
  Reply(ClientConnection& client, protocol::RequestId id, std::function<void()> on_done = {});

  void result(json value) const;
  void error(protocol::ErrorCode code, const std::string& message) const;
  void error(const protocol::ResponseError& e) const;
  bool done() const;
  const protocol::RequestId& id() const;

 private:
  struct State;
  bool claim() const;  // true for the first answer only
  std::shared_ptr<State> state_;
};

struct RequestContext {
  protocol::RequestId id;
  std::stop_token stop;  // requested by $/cancelRequest or shutdown
  Reply reply;
};

using RequestHandler = std::function<void(const json& params, RequestContext& request)>;
using NotificationHandler = std::function<void(const json& params)>;

class MethodTable {
 public:
  void on_request(const std::string& method, RequestHandler handler);
  void on_notification(const std::string& method, NotificationHandler handler);

  // Typed variants: the params are converted first; a conversion failure is
  // answered with InvalidParams (-32602) naming what was wrong.
  template <class Params>
  void on_request(const std::string& method, std::function<void(const Params&, RequestContext&)> handler) {
    on_request(method, [method, handler = std::move(handler)](const json& params, RequestContext& request) {
      handler(parse_params<Params>(method, params), request);
    });
  }
  template <class Params>
  void on_notification(const std::string& method, std::function<void(const Params&)> handler) {
    on_notification(method, [method, handler = std::move(handler)](const json& params) {
      handler(parse_params<Params>(method, params));
    });
  }

  const RequestHandler* request(const std::string& method) const;
  const NotificationHandler* notification(const std::string& method) const;

  template <class Params>
  static Params parse_params(const std::string& method, const json& params) {
    try {
      return params.get<Params>();
    } catch (const json::exception& e) {
      throw RequestError(protocol::ErrorCode::InvalidParams, "invalid params for " + method + ": " + e.what());
    }
  }

 private:
  std::map<std::string, RequestHandler> requests_;
  std::map<std::string, NotificationHandler> notifications_;
};

}  // namespace warplens::server
