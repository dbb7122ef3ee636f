// Steps 1-4 of docs/frontend.md, without Clang: which compile command a
// file gets, which toolkit and data directory, which architecture, and the
// whole Clang command line. The front end (analysis/clang/frontend.cpp)
// parses with it; `warplens compile-db` writes it for clangd, so the
// editor's IntelliSense parses a file the way warplens does.
#pragma once

#include <string>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/findings.h"

namespace warplens {

// What to parse and how.
struct ParsePlan {
  std::vector<std::string> args;   // full command line, argv[0] first, input last
  std::string main_file;           // what clang parses (the file, or its context .cu)
  std::string main_text;
  std::string target_file;         // the file findings are for
  std::string working_directory;
  bool degraded = false;
  bool relocatable = false;        // -rdc: device-side launches are fine
};

// Toolchain facts go to `toolchain`, problems (a missing toolkit, a clamped
// architecture, the compile command's own) to `diagnostics`. An empty
// `resource_dir` leaves -resource-dir out (the parsing clang's own).
ParsePlan plan_parse(const SourceFile& file, const AnalysisOptions& options, const std::string& resource_dir,
                     ToolchainStatus& toolchain, std::vector<Finding>& diagnostics);

// A "toolchain" finding about `file` (no range): the plan's own and the
// front end's (a file it refused to read) share the one code and source.
Finding toolchain_finding(const std::string& file, Severity severity, std::string message);

}  // namespace warplens
