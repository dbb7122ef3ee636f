#include "agent/llm/llm_config.h"

#include <cstdlib>

#include "agent/llm/endpoint_url.h"

namespace warplens::agent::llm {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

std::string api_key_from_environment() { return env(kApiKeyVariable); }

LlmConfig config_from_environment() {
  LlmConfig c;
  c.base_url = env(kBaseUrlVariable);
  c.model = env(kModelVariable);
  c.api_key = api_key_from_environment();
  c.ca_file = env(kCaFileVariable);
  return c;
}

std::string validate(const LlmConfig& c) {
  std::string error;
  if (!parse_endpoint_url(c.base_url, &error)) return error;
  if (c.model.empty())
    return "no model set: give the model name the endpoint serves (e.g. the name vLLM was started with, or "
           "`ollama list`)";
  if (c.max_turns < 1) return "max_turns must be at least 1";
  if (c.timeout.count() < 1) return "timeout must be at least 1 second";
  if (c.max_retries < 0) return "max_retries must not be negative";
  if (c.temperature && (*c.temperature < 0 || *c.temperature > 2)) return "temperature must be between 0 and 2";
  if (c.max_tokens && *c.max_tokens < 1) return "max_tokens must be positive";
  return {};
}

std::string describe(const LlmConfig& c) {
  // Print the parsed URL, never the raw text: a rejected one may hold a password.
  const auto url = parse_endpoint_url(c.base_url);
  std::string s = "endpoint " + (url ? url->to_string() : std::string("(invalid base URL)")) + ", model " + (c.model.empty() ? "(none)" : c.model) +
                  ", key: " + (c.api_key.empty() ? "none" : "set") + ", timeout " + std::to_string(c.timeout.count()) +
                  " s, max turns " + std::to_string(c.max_turns);
  if (!c.verify_tls) s += ", TLS verification OFF";
  if (!c.ca_file.empty()) s += ", extra CA file " + c.ca_file;
  return s;
}

}  // namespace warplens::agent::llm
