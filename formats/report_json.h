// The kernel report as JSON: one file's entry of `warplens report --format
// json`, which the `warplens.report` command returns too
// (docs/formats/report.md). The kernel model comes from model_json.h; this
// adds resource usage and occupancy per kernel (docs/occupancy.md) and the
// file's diagnostics.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/analyzer.h"
#include "analysis/occupancy_findings.h"
#include "formats/convert.h"

namespace warplens::formats {

struct FileReport {
  std::string path;
  const AnalysisResult* analysis = nullptr;
  // Resource usage and occupancy; null when they were not computed, and
  // `resources_skipped` then says why ("--no-resource-usage", "no device code", ...).
  const OccupancyAnalysis* resources = nullptr;
  std::string resources_skipped;
  const std::vector<Finding>* diagnostics = nullptr;
};

// {file, parsed, parseMs, toolchain, functions, launches, resourceUsage,
//  kernels, diagnostics}.
nlohmann::json file_report_json(const FileReport& report, Converter& convert);

// One kernel's resources and occupancy; keys as in docs/occupancy.md
// (`registers`, `shared_static_bytes`, ..., `block_size`, `occupancy`,
// `limiter`, `arch`).
nlohmann::json kernel_resources_json(const KernelResourceReport& report, Converter& convert,
                                     const std::string& file);

// The nvcc run behind them: {status, message, requestedArch, compiledArch, ...}.
nlohmann::json resource_usage_json(const OccupancyAnalysis& analysis);

}  // namespace warplens::formats
