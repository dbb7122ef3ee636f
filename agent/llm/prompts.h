// What the model is told: the system prompt (role, rules, reward levels,
// CUDA optimisation guidance, how to use the tools), the opening brief for
// one kernel (source, findings, profile, earlier verdicts, budget), and each
// verdict as it comes back from the verifier.
#pragma once

#include <string>
#include <vector>

#include "agent/llm/llm_config.h"
#include "agent/policy.h"

namespace warplens::agent::llm {

std::string system_prompt(const LlmConfig& config);

// The first user message: the task for `context.kernel`. `file_name` is the
// kernel file's name relative to its directory (absolute paths, which may
// name the user, are not sent).
std::string kernel_brief(const PolicyContext& context, const LlmConfig& config, const std::string& file_name,
                         int turns_left);

// The verifier's verdict on a candidate, for the model: level, correctness,
// times and speedup, or why it failed (compile log clipped).
std::string verdict_text(const TriedCandidate& tried);

// "Budget left: 7 candidates, 412 s, 23 turns."
std::string budget_text(const BudgetLeft& left, int turns_left);

}  // namespace warplens::agent::llm
