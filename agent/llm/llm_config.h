// What the user configures to use an LLM endpoint: where it is, which model,
// the key, and the limits of one optimize session.
//
// The key comes from the environment variable WARPLENS_LLM_API_KEY (the
// editor extensions keep it in their secret storage and pass it to the server
// as that variable). It is only ever put into the Authorization header; it is
// never logged, and describe() shows only whether one is set.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace warplens::agent::llm {

inline constexpr const char* kApiKeyVariable = "WARPLENS_LLM_API_KEY";
inline constexpr const char* kBaseUrlVariable = "WARPLENS_LLM_BASE_URL";
inline constexpr const char* kModelVariable = "WARPLENS_LLM_MODEL";
inline constexpr const char* kCaFileVariable = "WARPLENS_LLM_CA_FILE";

struct LlmConfig {
  std::string base_url;        // OpenAI-compatible API root, e.g. "http://localhost:8000/v1"
  std::string model;           // as the endpoint names it, e.g. "Qwen/Qwen2.5-Coder-32B-Instruct"
  std::string api_key;         // may be empty for local servers that need none
  std::chrono::seconds timeout{300};  // one request, connect to last byte
  int max_turns = 30;          // chat requests in one optimize job, all rounds together
  std::optional<double> temperature;  // unset: the server's default (some models reject others)
  std::optional<int> max_tokens;      // unset: the server's default

  // TLS: verification is on and uses the system's CA store; ca_file adds a
  // PEM bundle (a company CA, a self-signed local server) on top of it.
  bool verify_tls = true;
  std::string ca_file;

  // Retries on 429, 5xx and dropped connections: at most max_retries more
  // attempts, waiting Retry-After when the server says, else base * 2^n,
  // never longer than retry_max_delay.
  int max_retries = 3;
  std::chrono::milliseconds retry_base_delay{1000};
  std::chrono::milliseconds retry_max_delay{30000};

  // Candidates may change host code only when this is set; otherwise a
  // proposal whose kernel launches differ (without a declared launch change)
  // is refused before it reaches the verifier.
  bool allow_host_changes = false;
  std::string target_gpu;      // e.g. "NVIDIA H200 (sm_90)", shown to the model when set
};

// A config from WARPLENS_LLM_BASE_URL, WARPLENS_LLM_MODEL, WARPLENS_LLM_API_KEY
// and WARPLENS_LLM_CA_FILE; unset variables leave the defaults.
LlmConfig config_from_environment();

// The key from WARPLENS_LLM_API_KEY, or empty.
std::string api_key_from_environment();

// Empty when usable; otherwise what is wrong, for the user ("no model set: ...").
std::string validate(const LlmConfig& config);

// One line for logs and reports: URL, model, limits, and "key: set"/"key: none".
// Never contains the key.
std::string describe(const LlmConfig& config);

}  // namespace warplens::agent::llm
