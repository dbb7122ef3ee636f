// Who proposes candidates in the editor's optimize job: the LLM policy when
// the settings name an endpoint and a model (warplens.llm.endpoint,
// warplens.llm.model; the key only from WARPLENS_LLM_API_KEY in the server's
// environment), else the built-in rewrite search.
#pragma once

#include <memory>
#include <string>

#include "agent/policy.h"
#include "server/settings.h"

namespace warplens::server {

struct ChosenPolicy {
  std::unique_ptr<agent::Policy> policy;
  std::string description;  // for the log: "builtin", or "llm: endpoint ..., key: set" (never the key)
  bool wants_tools = false; // the LLM policy drafts with the analysis and compile tools
};

// Throws OptimizeUnavailable (server/optimize_backend.h) with a message the
// user can act on: only one of endpoint/model set, an invalid URL, no key for
// an endpoint that is not on this machine, a build without the LLM policy,
// or (built-in search) a build without the Clang rewrite engine. The
// built-in search parses with `analysis` (the workspace's analysis settings:
// compile_commands.json, CUDA path, arch), so it sees the file the
// diagnostics saw.
ChosenPolicy choose_optimize_policy(const LlmSettings& llm, const std::string& api_key, int max_candidates,
                                    const AnalysisOptions& analysis = {});

}  // namespace warplens::server
