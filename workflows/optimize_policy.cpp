#include "workflows/optimize_policy.h"

#include <algorithm>

#include "agent/search.h"
#include "workflows/optimize.h"

namespace warplens::workflows {

ChosenPolicy choose_optimize_policy(const PolicyChoice& choice, const std::string& api_key,
                                    const SettingNames& names, int max_candidates) {
  if (choice.llm) {
    CheckedLlmPolicy made = make_checked_llm_policy(choice.llm_settings, api_key, names);
    if (!made.policy) throw OptimizeUnavailable(made.error);
    return {std::move(made.policy), "LLM policy: " + made.description, /*wants_tools=*/true};
  }
  if (!agent::rewrite_engine_available())
    throw OptimizeUnavailable(
        "this warplens build has no Clang rewrite engine (built with WARPLENS_WITH_CLANG=OFF), so it cannot "
        "propose rewrites; " + names.no_rewrite_engine);
  agent::SearchOptions search;
  search.engine = choice.engine;
  search.max_expansions = std::max(8, max_candidates);
  return {std::make_unique<agent::RewriteSearch>(search), "built-in rewrite search"};
}

}  // namespace warplens::workflows
