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

// Removed/added lines of a candidate against the original ("-"/"+" lines).
std::string render_diff(std::string_view original_text, const std::vector<TextEdit>& edits);

}  // namespace warplens::agent
