#include "agent/llm/chat_client.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <condition_variable>
#include <mutex>

#include "agent/llm/chat_wire.h"
#include "agent/llm/http_transport.h"
#include "agent/llm/llm_error.h"
#include "agent/llm/text_clip.h"
#include "common/redaction.h"

namespace warplens::agent::llm {

namespace {

using namespace std::chrono_literals;
using Ms = std::chrono::milliseconds;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool mentions(const std::string& lowered, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (lowered.find(w) != std::string::npos) return true;
  return false;
}

bool retryable_status(int status) { return status == 429 || (status >= 500 && status != 501 && status != 505); }

// Retry-After in seconds (the HTTP-date form is ignored: we fall back to our
// own backoff), or retry-after-ms as some hosted APIs send.
std::optional<Ms> retry_after(const HttpResponse& r) {
  auto number = [](const std::string& text) -> std::optional<double> {
    double v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || p != text.data() + text.size() || v < 0) return std::nullopt;
    return v;
  };
  if (const std::string* ms = r.header("retry-after-ms"))
    if (auto v = number(*ms)) return Ms(static_cast<long long>(*v));
  if (const std::string* s = r.header("retry-after"))
    if (auto v = number(*s)) return Ms(static_cast<long long>(*v * 1000));
  return std::nullopt;
}

LlmError http_error(int status, const std::string& server_message, const std::string& url, const LlmConfig& config) {
  const std::string what = "HTTP " + std::to_string(status) + (server_message.empty() ? "" : ": " + server_message);
  const std::string l = lower(server_message);
  if (status == 401 || status == 403) {
    std::string hint = config.api_key.empty()
                           ? "No API key is set: put it in the WARPLENS_LLM_API_KEY environment variable (the editor "
                             "extensions keep it in their secret storage)."
                           : "An API key is set (WARPLENS_LLM_API_KEY) but the endpoint did not accept it.";
    return LlmError(LlmErrorKind::Authentication, "the endpoint " + url + " refused the request (" + what + "). " + hint);
  }
  const bool about_model = mentions(l, {"model"}) && mentions(l, {"not found", "does not exist", "not exist", "unknown",
                                                                  "no such", "not available", "invalid model"});
  if (mentions(l, {"tool"}) && (status == 400 || status == 422 || status == 404) &&
      mentions(l, {"support", "enable-auto-tool-choice", "tool-call-parser", "tool_choice", "tool choice", "not allowed",
                   "unsupported", "unrecognized", "unexpected"})) {
    return LlmError(LlmErrorKind::NoToolSupport,
                    "the endpoint " + url + " cannot do tool calling with model '" + config.model + "' (" + what +
                        "). The LLM policy needs tool calls: start vLLM with --enable-auto-tool-choice "
                        "--tool-call-parser <parser for the model>, SGLang with --tool-call-parser, or pick an Ollama "
                        "model with tool support (see docs/llm.md).");
  }
  if (status == 404 || about_model) {
    if (about_model)
      return LlmError(LlmErrorKind::NotFound, "model '" + config.model + "' is not served at " + url + " (" + what +
                                                  "). Check the model name (vLLM: --served-model-name; Ollama: "
                                                  "`ollama list`; hosted APIs: their model list).");
    return LlmError(LlmErrorKind::NotFound,
                    "nothing answers at " + url + "/chat/completions (" + what +
                        "). Check the base URL: OpenAI-compatible servers usually expect it to end in /v1, e.g. "
                        "http://localhost:8000/v1.");
  }
  std::string hint;
  if (mentions(l, {"context length", "context_length", "maximum context", "too many tokens", "too long"}))
    hint = " The conversation outgrew the model's context window: lower max_turns or use a model with a longer context.";
  return LlmError(LlmErrorKind::Rejected, "the endpoint " + url + " rejected the request (" + what + ")." + hint);
}

// Sleeps `delay` unless `stop` comes first; returns false when stopped.
bool sleep_unless_stopped(Ms delay, std::stop_token stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  return !cv.wait_for(lock, stop, delay, [] { return false; }) && !stop.stop_requested();
}

}  // namespace

ChatClient::ChatClient(LlmConfig config) : config_(std::move(config)) {
  if (std::string error = validate(config_); !error.empty()) throw LlmError(LlmErrorKind::Configuration, error);
  endpoint_ = *parse_endpoint_url(config_.base_url);
  // From now on no log line of this process shows the key, or a piece of it.
  common::register_secret(config_.api_key, /*fragments=*/true);
}

ChatCompletion ChatClient::complete(const std::vector<ChatMessage>& messages, const std::vector<ToolDefinition>& tools,
                                    std::stop_token stop, std::optional<Clock::time_point> deadline) {
  const std::string& key = config_.api_key;
  // Text from the endpoint may echo what it was sent: the key, fragments of
  // it, other credentials.
  auto redact = [&key](std::string_view text) { return common::redact_text(common::redact_secret(text, key)); };
  const std::string url = endpoint_.to_string();
  HttpRequest request;
  request.endpoint = endpoint_;
  request.target = endpoint_.target("/chat/completions");
  if (!key.empty()) request.headers.push_back({"Authorization", "Bearer " + key});
  request.body = encode_chat_request(config_, messages, tools);

  TransportOptions options;
  options.verify_tls = config_.verify_tls;
  options.ca_file = config_.ca_file;

  for (int attempt = 0;; ++attempt) {
    if (stop.stop_requested()) throw LlmError(LlmErrorKind::Cancelled, "cancelled");
    options.timeout = std::chrono::duration_cast<Ms>(config_.timeout);
    if (deadline) {
      const auto left = std::chrono::duration_cast<Ms>(*deadline - Clock::now());
      if (left <= 0ms)
        throw LlmError(LlmErrorKind::Timeout, "the optimize job's time budget ran out before asking " + url);
      options.timeout = std::min(options.timeout, left);
    }
    spdlog::debug("llm: POST {}/chat/completions ({} bytes, {} messages, attempt {})", url, request.body.size(),
                  messages.size(), attempt + 1);
    ++requests_sent_;
    const auto started = Clock::now();
    HttpOutcome outcome = http_post(request, options, stop);
    const auto elapsed_ms = std::chrono::duration_cast<Ms>(Clock::now() - started).count();

    std::string retry_reason;
    LlmErrorKind give_up_kind = LlmErrorKind::ServerError;
    std::optional<Ms> server_delay;
    if (outcome.failure != TransportFailure::None) {
      const std::string message = redact(outcome.message);
      switch (outcome.failure) {
        case TransportFailure::Cancelled: throw LlmError(LlmErrorKind::Cancelled, "cancelled");
        case TransportFailure::Timeout:
          throw LlmError(LlmErrorKind::Timeout,
                         message + ". Large models can take minutes per answer: raise the timeout if needed.");
        case TransportFailure::Resolve:
        case TransportFailure::Refused:
        case TransportFailure::Connect: throw LlmError(LlmErrorKind::Connection, message + " (base URL " + url + ")");
        case TransportFailure::Tls: throw LlmError(LlmErrorKind::Tls, message);
        case TransportFailure::TooLarge: throw LlmError(LlmErrorKind::InvalidResponse, message);
        case TransportFailure::Io:
        case TransportFailure::None:
          retry_reason = message;
          give_up_kind = LlmErrorKind::Connection;
          break;
      }
    } else {
      const HttpResponse& response = *outcome.response;
      spdlog::debug("llm: HTTP {} from {} in {} ms ({} bytes)", response.status, url, elapsed_ms, response.body.size());
      if (spdlog::should_log(spdlog::level::trace))
        spdlog::trace("llm: response body: {}", clip(redact(std::string_view(response.body).substr(0, 8000)), 4000));
      if (response.status >= 200 && response.status < 300) {
        try {
          ChatCompletion completion = decode_chat_completion(response.body);
          spdlog::debug("llm: finish_reason {}, {} tool call(s), tokens {} in / {} out", completion.finish_reason,
                        completion.message.tool_calls.size(), completion.prompt_tokens, completion.completion_tokens);
          return completion;
        } catch (const LlmError& e) {
          throw LlmError(e.kind(), redact(e.what()));
        }
      }
      const std::string server_message = redact(error_message_from_body(response.body));
      if (!retryable_status(response.status)) throw http_error(response.status, server_message, url, config_);
      retry_reason = "HTTP " + std::to_string(response.status) + " from " + url +
                     (server_message.empty() ? "" : ": " + server_message);
      give_up_kind = response.status == 429 ? LlmErrorKind::RateLimited : LlmErrorKind::ServerError;
      server_delay = retry_after(response);
    }

    if (attempt >= config_.max_retries)
      throw LlmError(give_up_kind, retry_reason + " (gave up after " + std::to_string(attempt + 1) + " attempt" +
                                       (attempt ? "s" : "") + ")");
    const Ms backoff = std::min<Ms>(config_.retry_max_delay, Ms(config_.retry_base_delay.count() << std::min(attempt, 20)));
    const Ms delay = server_delay ? std::min(*server_delay, config_.retry_max_delay) : backoff;
    if (deadline && Clock::now() + delay >= *deadline)
      throw LlmError(give_up_kind, retry_reason + " (no time left in the job's budget to retry)");
    spdlog::warn("llm: {}; retrying in {:.1f} s (attempt {} of {})", retry_reason, delay.count() / 1000.0, attempt + 2,
                 config_.max_retries + 1);
    if (!sleep_unless_stopped(delay, stop)) throw LlmError(LlmErrorKind::Cancelled, "cancelled");
  }
}

}  // namespace warplens::agent::llm
