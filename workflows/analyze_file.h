// "Check a file": the front end and the static analyses, then resource
// usage and occupancy (nvcc, synchronously, workflows/resources.h): what
// `warplens check` and `warplens report` print, what the command line's
// optimize is guided by, and what an MCP tool would return. The language
// server runs the same two parts itself, apart (the analysis on the typing
// path, resources in the background: server/occupancy_service.h).
#pragma once

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "analysis/occupancy_findings.h"

namespace warplens::workflows {

struct FileAnalysis {
  AnalysisResult result;
  std::optional<OccupancyAnalysis> resources;
  std::string resources_skipped;  // why `resources` is empty
  // The analysis's findings, then the resource findings.
  std::vector<Finding> findings() const;
};

// `resource_usage` false skips nvcc (resources_skipped says so).
FileAnalysis analyze_file(const SourceFile& file, const AnalysisOptions& options, bool resource_usage = true,
                          std::stop_token stop = {});

}  // namespace warplens::workflows
