// One HTTP(S) POST, the way an LLM client needs it: TLS verified against the
// system CAs (plus an optional CA file), a whole-request timeout, and
// cancellation through a stop_token that aborts the connection at once, even
// in the middle of a long generation.
//
// Boost.Beast over Boost.Asio with OpenSSL; one connection per request (a
// chat completion takes seconds, so connection reuse would buy nothing).
// Proxies (HTTP_PROXY, HTTPS_PROXY) are not supported.
#pragma once

#include <chrono>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "agent/llm/endpoint_url.h"

namespace warplens::agent::llm {

struct HttpHeader {
  std::string name;
  std::string value;
};

struct HttpRequest {
  EndpointUrl endpoint;
  std::string target;                // "/v1/chat/completions"
  std::vector<HttpHeader> headers;   // may carry Authorization: never logged
  std::string body;                  // sent as application/json
};

struct HttpResponse {
  int status = 0;
  std::string reason;
  std::vector<HttpHeader> headers;
  std::string body;
  // Case-insensitive lookup; nullptr when absent.
  const std::string* header(std::string_view name) const;
};

enum class TransportFailure {
  None,
  Resolve,    // host name did not resolve
  Refused,    // nothing listens on that port
  Connect,    // other connect failure (unreachable, ...)
  Tls,        // handshake or certificate verification failed; bad CA file
  Timeout,    // the whole exchange took longer than the timeout
  Cancelled,  // stop was requested
  Io,         // connection dropped or reset mid-exchange
  TooLarge,   // response over max_response_bytes
};

struct TransportOptions {
  std::chrono::milliseconds timeout{300000};
  bool verify_tls = true;
  std::string ca_file;                         // PEM, added to the system store
  std::size_t max_response_bytes = 32u << 20;
};

struct HttpOutcome {
  std::optional<HttpResponse> response;        // set when failure == None
  TransportFailure failure = TransportFailure::None;
  std::string message;                         // what failed, for the user
};

// Blocks until the response has been read, the timeout passed, or `stop` was
// requested (then the connection is closed and failure is Cancelled).
HttpOutcome http_post(const HttpRequest& request, const TransportOptions& options, std::stop_token stop = {});

}  // namespace warplens::agent::llm
