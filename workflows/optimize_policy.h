// Who proposes candidates in the editor's optimize job: the LLM policy when
// the settings name an endpoint and a model (warplens.llm.endpoint,
// warplens.llm.model; the key only from WARPLENS_LLM_API_KEY in the server's
// environment), else the built-in rewrite search.
#pragma once

#include <memory>
#include <string>

#include "agent/policy.h"
#include "workflows/llm_settings.h"

namespace warplens::workflows {

struct ChosenPolicy {
  std::unique_ptr<agent::Policy> policy;
  std::string description;  // for the log: "builtin", or "llm: endpoint ..., key: set" (never the key)
  bool wants_tools = false; // the LLM policy drafts with the analysis and compile tools
};

// Throws OptimizeUnavailable (workflows/optimize.h) with a message the
// user can act on: only one of endpoint/model set, an invalid URL, no key for
// an endpoint that is not on this machine, a build without the LLM policy,
// or (built-in search) a build without the Clang rewrite engine.
ChosenPolicy choose_optimize_policy(const LlmSettings& llm, const std::string& api_key, int max_candidates);

}  // namespace warplens::workflows
