// warplens's analysis results written for the model: findings with the
// source line they point at, kernel signatures and launch sites. Plain text,
// compact, 1-based line numbers (what people and models count in).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/findings.h"
#include "analysis/kernel_model.h"

namespace warplens::agent::llm {

// "- line 12 [uncoalesced-global] warning: ... \n    `out[x * n + y] = ...`"
// for at most `limit` findings (then "... and N more"); "(none)" when empty.
std::string findings_text(const std::vector<Finding>& findings, std::string_view source, std::size_t limit = 40);

// Kernels (signature, __launch_bounds__, shared arrays) and their launch sites.
std::string kernel_summary(const KernelModel& model);

// Line `line` (0-based) of `text`, trimmed; empty when out of range.
std::string source_line(std::string_view text, int line);

}  // namespace warplens::agent::llm
