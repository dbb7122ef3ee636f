#include "workflows/llm_settings.h"

#include <cstdlib>

#include "agent/llm/endpoint_url.h"
#include "agent/llm/llm_policy_factory.h"
#include "common/redaction.h"

namespace warplens::workflows {

namespace llm = agent::llm;

namespace {

bool on_this_machine(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// Some messages quote the URL; one with user:password@ is shown without
// them (the one redactor, common/redaction.h).
std::string without_credentials(const std::string& message) { return common::redact_text(message); }

}  // namespace

std::string llm_api_key() {
  const char* key = std::getenv(llm::kApiKeyVariable);
  return key ? key : "";
}

std::optional<llm::LlmConfig> llm_config(const LlmSettings& settings, const std::string& api_key,
                                         const SettingNames& names, std::string& error) {
  if (settings.endpoint.empty()) {
    error = "the LLM policy needs an endpoint: " + names.llm_endpoint + " is not set" + names.llm_unset_hint;
    return std::nullopt;
  }
  if (settings.model.empty()) {
    error = "the LLM policy needs a model: " + names.llm_model + " is not set" + names.llm_unset_hint;
    return std::nullopt;
  }
  if (!llm::llm_policy_available()) {
    error = names.llm_endpoint +
            " is set but this warplens was built without the LLM policy (OpenSSL development files were not "
            "found when it was configured, or it was configured with -DWARPLENS_WITH_LLM=OFF); " +
            names.no_llm_hint;
    return std::nullopt;
  }
  // The environment gives what settings do not hold (WARPLENS_LLM_CA_FILE);
  // the settings decide the endpoint and the model, the caller the key.
  llm::LlmConfig config = llm::config_from_environment();
  config.base_url = settings.endpoint;
  config.model = settings.model;
  config.api_key = api_key;
  if (settings.max_turns > 0) config.max_turns = settings.max_turns;
  std::string url_error;
  auto url = llm::parse_endpoint_url(config.base_url, &url_error);
  if (!url) {
    error = names.llm_endpoint + " is not usable: " + without_credentials(url_error);
    return std::nullopt;
  }
  if (std::string bad = llm::validate(config); !bad.empty()) {
    error = "the LLM settings (" + names.llm_endpoint + ", " + names.llm_model +
            ") are not usable: " + without_credentials(bad);
    return std::nullopt;
  }
  if (api_key.empty() && !on_this_machine(url->host)) {
    error = "no API key for the LLM endpoint " + url->to_string() + ": " + names.llm_key_help;
    return std::nullopt;
  }
  return config;
}

CheckedLlmPolicy make_checked_llm_policy(const LlmSettings& settings, const std::string& api_key,
                                         const SettingNames& names) {
  CheckedLlmPolicy out;
  auto config = llm_config(settings, api_key, names, out.error);
  if (!config) return out;
  llm::LlmPolicyOrError made = llm::make_llm_policy(*config);
  if (!made.policy) {
    out.error = without_credentials(made.error);
    return out;
  }
  out.policy = std::move(made.policy);
  out.description = llm::describe(*config);
  return out;
}

}  // namespace warplens::workflows
