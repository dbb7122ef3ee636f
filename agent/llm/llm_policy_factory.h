// Building the LLM policy. Present in every build: when warplens was
// configured without the LLM policy (no OpenSSL development files, or
// -DWARPLENS_WITH_LLM=OFF), make_llm_policy() returns no policy and an error
// that says so, instead of the build failing.
#pragma once

#include <memory>
#include <string>

#include "agent/llm/llm_config.h"
#include "agent/policy.h"

namespace warplens::agent::llm {

// True when this build contains the LLM policy.
bool llm_policy_available();

struct LlmPolicyOrError {
  std::unique_ptr<Policy> policy;  // null on error
  std::string error;               // for the user: missing from the build, or what is wrong with the config
};

LlmPolicyOrError make_llm_policy(const LlmConfig& config);

}  // namespace warplens::agent::llm
