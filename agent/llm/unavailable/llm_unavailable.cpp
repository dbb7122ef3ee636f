// The LLM policy in a build without it (no OpenSSL development files at
// configure time, or -DWARPLENS_WITH_LLM=OFF): say so when someone asks for it.
#include "agent/llm/llm_policy_factory.h"

namespace warplens::agent::llm {

bool llm_policy_available() { return false; }

LlmPolicyOrError make_llm_policy(const LlmConfig&) {
  return {nullptr,
          "this warplens was built without the LLM policy (OpenSSL development files were not found when it was "
          "configured, or it was configured with -DWARPLENS_WITH_LLM=OFF). Install libssl-dev (or your system's OpenSSL "
          "development package) and reconfigure with -DWARPLENS_WITH_LLM=ON, or use the built-in policy."};
}

}  // namespace warplens::agent::llm
