// The resource-usage and occupancy pipeline as the server and the CLI run
// it: the file's compile command from compile_commands.json (so nvcc sees
// the same include paths, macros and -Xptxas flags as the real build), then
// analysis/occupancy_findings.h's run_occupancy_analysis.
//
// Synchronous and slow on a cache miss (nvcc, ~0.4-1.5 s): the server runs
// it on its own worker after each parse (server/occupancy_service.h); `check`
// and `report` run it in line.
#pragma once

#include <stop_token>
#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "analysis/occupancy_findings.h"

namespace warplens::workflows {

// The command nvcc recompiles the file with: the argv of the
// compile_commands.json entry the front end also uses (the file's own, a
// source that includes a header, or the nearest source's), and its
// directory. Empty args with defaults (no database or no entry).
struct ResourceCompileCommand {
  std::vector<std::string> args;
  std::string directory;
  std::string description;  // "compile_commands.json: <path>" or "defaults"
};
ResourceCompileCommand resource_compile_command(const std::string& file, const std::string& compile_commands_dir);

// Why an analysis result is not worth compiling for resource usage ("the
// front end could not parse the file", "no device code"), or "" when it is.
std::string resource_skip_reason(const AnalysisResult& result);

// The whole pipeline for one parsed text. `model` must come from the parse
// of exactly `file.text`.
OccupancyAnalysis analyze_resources(const SourceFile& file, const KernelModel& model, const AnalysisOptions& options,
                                    std::stop_token stop = {});

}  // namespace warplens::workflows
