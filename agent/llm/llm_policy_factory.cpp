#include "agent/llm/llm_policy_factory.h"

#include "agent/llm/llm_error.h"
#include "agent/llm/llm_policy.h"

namespace warplens::agent::llm {

bool llm_policy_available() { return true; }

LlmPolicyOrError make_llm_policy(const LlmConfig& config) {
  try {
    return {std::make_unique<LlmPolicy>(config), {}};
  } catch (const LlmError& e) {
    return {nullptr, std::string("LLM policy: ") + e.what()};
  }
}

}  // namespace warplens::agent::llm
