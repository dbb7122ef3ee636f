#include "server/optimize_policy.h"

#include <algorithm>

#include "agent/llm/endpoint_url.h"
#include "agent/llm/llm_config.h"
#include "agent/llm/llm_policy_factory.h"
#include "agent/rewrite_engine.h"
#include "agent/search.h"
#include "common/redaction.h"
#include "server/optimize_backend.h"

namespace warplens::server {

namespace {

namespace llm = agent::llm;

constexpr const char* kKeyHelp =
    "set WARPLENS_LLM_API_KEY in the language server's environment (VS Code: the command \"warplens: Set LLM API "
    "key\"; Neovim: the `cmd_env` option of require('warplens').setup, or the environment nvim starts from)";

bool on_this_machine(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// Some messages quote the URL; one with user:password@ is shown without them.
std::string without_credentials(const std::string& message) { return common::redact_text(message); }

ChosenPolicy llm_policy(const LlmSettings& settings, const std::string& api_key) {
  if (settings.endpoint.empty() || settings.model.empty())
    throw OptimizeUnavailable(std::string("the LLM policy needs both warplens.llm.endpoint and warplens.llm.model; ") +
                              (settings.endpoint.empty() ? "warplens.llm.endpoint" : "warplens.llm.model") +
                              " is not set (clear both to use the built-in rewrite search)");
  if (!llm::llm_policy_available())
    throw OptimizeUnavailable(
        "warplens.llm.endpoint is set but this warplens build has no LLM policy (built with WARPLENS_WITH_LLM=OFF "
        "or without OpenSSL); clear warplens.llm.endpoint and warplens.llm.model to use the built-in rewrite "
        "search");
  // The environment gives what settings do not hold (WARPLENS_LLM_CA_FILE);
  // the settings decide the endpoint and model, the seam the key.
  llm::LlmConfig config = llm::config_from_environment();
  config.base_url = settings.endpoint;
  config.model = settings.model;
  config.api_key = api_key;
  std::string url_error;
  auto url = llm::parse_endpoint_url(config.base_url, &url_error);
  if (!url) throw OptimizeUnavailable("warplens.llm.endpoint is not usable: " + without_credentials(url_error));
  if (std::string bad = llm::validate(config); !bad.empty())
    throw OptimizeUnavailable("the LLM settings are not usable: " + without_credentials(bad));
  // Local servers (vLLM, Ollama) usually need no key; a remote one without a
  // key would only fail on the first request, after the job started.
  if (api_key.empty() && !on_this_machine(url->host))
    throw OptimizeUnavailable("no API key for the LLM endpoint " + url->to_string() + ": " + kKeyHelp);
  llm::LlmPolicyOrError made = llm::make_llm_policy(config);
  if (!made.policy) throw OptimizeUnavailable(without_credentials(made.error));
  return {std::move(made.policy), "llm: " + llm::describe(config), /*wants_tools=*/true};
}

}  // namespace

ChosenPolicy choose_optimize_policy(const LlmSettings& llm, const std::string& api_key, int max_candidates,
                                    const AnalysisOptions& analysis) {
  if (!llm.endpoint.empty() || !llm.model.empty()) return llm_policy(llm, api_key);
  if (!agent::rewrite_engine_available())
    throw OptimizeUnavailable(
        "this warplens build has no Clang rewrite engine (built with WARPLENS_WITH_CLANG=OFF), so it cannot "
        "propose rewrites; set warplens.llm.endpoint and warplens.llm.model to use an LLM instead; nothing is offered");
  agent::SearchOptions search;
  search.engine.analysis = analysis;
  search.max_expansions = std::max(8, max_candidates);
  return {std::make_unique<agent::RewriteSearch>(search), "builtin"};
}

}  // namespace warplens::server
