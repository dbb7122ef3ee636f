// The optimize report: every candidate and its verdict (edit, compile result,
// reward level, times, max error), as markdown for people and as JSON
// (`warplens-optimize-report/1`, docs/optimize.md) for tools and CI.
#pragma once

#include <string>
#include <string_view>

#include "agent/job.h"

namespace warplens::agent {

// `original_text` lets the report show each edit as removed/added lines.
std::string render_markdown(const OptimizeResult& result, std::string_view original_text);
std::string render_json(const OptimizeResult& result);

// A candidate's edits as a unified diff of `path` (agent/unified_diff.h):
// what `git apply` accepts from the directory `path` is relative to.
std::string render_diff(std::string_view original_text, const std::vector<TextEdit>& edits, std::string_view path);

}  // namespace warplens::agent
