#include "workflows/llm_settings.h"

#include <cstdlib>

#include "agent/llm/llm_config.h"

namespace warplens::workflows {

std::string llm_api_key() {
  const char* key = std::getenv(agent::llm::kApiKeyVariable);
  return key ? key : "";
}

}  // namespace warplens::workflows
