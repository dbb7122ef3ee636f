// A client for one OpenAI-compatible chat-completions endpoint: POSTs the
// conversation with the tool definitions to {base_url}/chat/completions and
// returns the assistant's reply.
//
// Retries 429, 5xx and dropped connections with bounded exponential backoff
// (honouring Retry-After); everything else becomes an LlmError whose message
// says what to fix (wrong key, wrong URL or model, no tool support, ...).
// The API key goes into the Authorization header and nowhere else: every text
// that comes back from the server is redacted before it is logged or thrown.
#pragma once

#include <chrono>
#include <optional>
#include <stop_token>
#include <vector>

#include "agent/llm/chat_types.h"
#include "agent/llm/endpoint_url.h"
#include "agent/llm/llm_config.h"

namespace warplens::agent::llm {

class ChatClient {
 public:
  using Clock = std::chrono::steady_clock;

  // Throws LlmError(Configuration) when the config is unusable.
  explicit ChatClient(LlmConfig config);

  // One completion. `deadline` (e.g. the job's wall budget) caps the request
  // timeout and the retries. Throws LlmError; kind Cancelled when `stop` was
  // requested (the connection is closed at once).
  ChatCompletion complete(const std::vector<ChatMessage>& messages, const std::vector<ToolDefinition>& tools,
                          std::stop_token stop, std::optional<Clock::time_point> deadline = std::nullopt);

  const LlmConfig& config() const { return config_; }
  const EndpointUrl& endpoint() const { return endpoint_; }
  int requests_sent() const { return requests_sent_; }

 private:
  LlmConfig config_;
  EndpointUrl endpoint_;
  int requests_sent_ = 0;
};

}  // namespace warplens::agent::llm
