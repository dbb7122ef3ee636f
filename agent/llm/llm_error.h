// What can go wrong between warplens and an LLM endpoint, as one exception
// type with a kind, so callers (the policy, the CLI, the server) can tell a
// wrong key from a wrong URL without parsing messages.
//
// Messages are meant for the user as they are: they name the URL and the
// likely fix, and never contain the API key (see redaction.h).
#pragma once

#include <stdexcept>
#include <string>

namespace warplens::agent::llm {

enum class LlmErrorKind {
  Configuration,    // bad base URL, missing model, unreadable CA file
  Connection,       // could not resolve, connection refused or reset
  Tls,              // handshake or certificate verification failed
  Timeout,          // no complete answer within the timeout
  Cancelled,        // the stop token was triggered
  Authentication,   // 401/403: key missing or rejected
  NotFound,         // 404: wrong path prefix or unknown model
  NoToolSupport,    // the endpoint or model cannot do tool calling
  RateLimited,      // 429 after all retries
  ServerError,      // 5xx after all retries
  Rejected,         // other 4xx (bad request, context too long, ...)
  InvalidResponse,  // not JSON, or not a chat completion
};

const char* to_string(LlmErrorKind kind);  // "authentication", ...

class LlmError : public std::runtime_error {
 public:
  LlmError(LlmErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  LlmErrorKind kind() const { return kind_; }

 private:
  LlmErrorKind kind_;
};

}  // namespace warplens::agent::llm
