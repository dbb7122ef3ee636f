// Who proposes candidates in an optimize job: the LLM policy when the door
// asks for it (the editor: warplens.llm.endpoint and warplens.llm.model are
// set; the command line: --policy llm), else the built-in rewrite search.
// The LLM settings are checked by workflows/llm_settings.h.
#pragma once

#include <memory>
#include <string>

#include "agent/policy.h"
#include "agent/rewrite_engine.h"
#include "workflows/llm_settings.h"
#include "workflows/setting_names.h"

namespace warplens::workflows {

struct PolicyChoice {
  bool llm = false;              // the LLM policy; else the built-in rewrite search
  LlmSettings llm_settings;      // for the LLM policy
  agent::EngineOptions engine;   // how the built-in search parses the file (arch, -I, -D)
};

struct ChosenPolicy {
  std::unique_ptr<agent::Policy> policy;
  // For logs and the command line's output, never the key:
  // "built-in rewrite search", "LLM policy: endpoint http://..., model m, key: set".
  std::string description;
  bool wants_tools = false;  // the LLM policy drafts with the analysis and compile tools
};

// Throws OptimizeUnavailable (workflows/optimize.h) with a message naming
// the door's settings (`names`): the LLM settings are not usable, or the
// build has no Clang rewrite engine for the built-in search.
ChosenPolicy choose_optimize_policy(const PolicyChoice& choice, const std::string& api_key,
                                    const SettingNames& names, int max_candidates);

}  // namespace warplens::workflows
