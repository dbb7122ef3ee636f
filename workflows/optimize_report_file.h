// The optimize job's full report (every candidate, its edit, compile result,
// reward level, times, max error: agent/report.h) saved as markdown where
// the editor can open it: $XDG_CACHE_HOME/warplens/reports (else
// ~/.cache/warplens/reports), never inside the user's workspace.
#pragma once

#include <string>
#include <string_view>

#include "agent/job.h"

namespace warplens::workflows {

// The report's path, or "" when it could not be written (logged).
std::string save_optimize_report(const agent::OptimizeResult& result, std::string_view original_text);

}  // namespace warplens::workflows
