// The LLM policy's settings as a door gives them (the editor's
// warplens.llm.endpoint / warplens.llm.model, the command line's
// --llm-endpoint / --llm-model or WARPLENS_LLM_BASE_URL / WARPLENS_LLM_MODEL),
// and the one place they are checked: every door gets the same checks, in
// its own words (workflows/setting_names.h).
//
// The API key is deliberately not among them: it is read only from the
// WARPLENS_LLM_API_KEY environment variable and never logged.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "agent/llm/llm_config.h"
#include "agent/policy.h"
#include "workflows/setting_names.h"

namespace warplens::workflows {

struct LlmSettings {
  std::string endpoint;  // OpenAI-compatible base URL
  std::string model;
  int max_turns = 0;     // chat requests in the whole job; 0: the LLM policy's default
};

// Reads WARPLENS_LLM_API_KEY; empty when unset.
std::string llm_api_key();

// The LLM policy's configuration: `settings` and `api_key` on top of what
// only the environment gives (WARPLENS_LLM_CA_FILE). Nullopt with `error`
// when it cannot work: the endpoint or the model is not set, this build has
// no LLM policy, the URL is not usable (credentials in it are never quoted),
// or a remote endpoint has no key (a local server, vLLM or Ollama, usually
// needs none; a remote one would only fail on the first request, after the
// job started).
std::optional<agent::llm::LlmConfig> llm_config(const LlmSettings& settings, const std::string& api_key,
                                                const SettingNames& names, std::string& error);

// The LLM policy for `settings`, checked as llm_config() does; null policy
// with `error` when it cannot be made.
struct CheckedLlmPolicy {
  std::unique_ptr<agent::Policy> policy;
  std::string description;  // "endpoint http://..., model m, key: set" (never the key)
  std::string error;
};
CheckedLlmPolicy make_checked_llm_policy(const LlmSettings& settings, const std::string& api_key,
                                         const SettingNames& names);

}  // namespace warplens::workflows
