// A build without the LLM policy (no OpenSSL): asking for it gives a clear
// error instead of a policy, and the config can still be validated.
#include <doctest/doctest.h>

#include "agent/llm/llm_policy_factory.h"

using namespace warplens::agent::llm;

TEST_CASE("without the LLM policy, make_llm_policy says it is missing and why") {
  CHECK_FALSE(llm_policy_available());
  LlmConfig config;
  config.base_url = "http://localhost:8000/v1";
  config.model = "m";
  CHECK(validate(config).empty());
  auto made = make_llm_policy(config);
  CHECK(made.policy == nullptr);
  CHECK(made.error.find("built without the LLM policy") != std::string::npos);
  CHECK(made.error.find("WARPLENS_WITH_LLM=ON") != std::string::npos);
  CHECK(made.error.find("libssl-dev") != std::string::npos);
}
