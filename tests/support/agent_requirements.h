// Requirements of tests that use the optimize engine's optional parts (see
// tests/support/requirements.h):
//   rewrite-engine   the Clang rewrite engine (a -DWARPLENS_WITH_CLANG=ON build)
//   llm-policy       the LLM policy (OpenSSL, -DWARPLENS_WITH_LLM=ON)
//   no-llm-policy    a build without it (the case tests what such a build says)
#pragma once

#include "agent/llm/llm_policy_factory.h"
#include "agent/rewrite_engine.h"
#include "tests/support/requirements.h"

namespace warplens::test {

WARPLENS_REQUIREMENT("rewrite-engine", [] {
  return agent::rewrite_engine_available() ? met()
                                           : missing("built without the Clang rewrite engine (-DWARPLENS_WITH_CLANG=OFF)");
});
WARPLENS_REQUIREMENT("llm-policy", [] {
  return agent::llm::llm_policy_available() ? met() : missing("built without the LLM policy (no OpenSSL, or -DWARPLENS_WITH_LLM=OFF)");
});
WARPLENS_REQUIREMENT("no-llm-policy", [] {
  return agent::llm::llm_policy_available() ? missing("this build has the LLM policy") : met();
});

}  // namespace warplens::test
