// The LLM policy's settings as a door gives them: the editor's
// warplens.llm.endpoint / warplens.llm.model, the CLI's --llm-endpoint /
// --llm-model (or WARPLENS_LLM_BASE_URL / WARPLENS_LLM_MODEL).
//
// The API key is deliberately not among them: it is read only from the
// WARPLENS_LLM_API_KEY environment variable and never logged.
#pragma once

#include <string>

namespace warplens::workflows {

struct LlmSettings {
  std::string endpoint;  // OpenAI-compatible base URL
  std::string model;
};

// Reads WARPLENS_LLM_API_KEY; empty when unset.
std::string llm_api_key();

}  // namespace warplens::workflows
