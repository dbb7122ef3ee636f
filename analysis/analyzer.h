// The analysis engine's one entry point: source text in, kernel model and
// findings out. Stateless and synchronous (clangd's "feature functions"):
// the server's scheduler decides when to call it, on which thread, and
// whether the result is still wanted.
#pragma once

#include <stop_token>
#include <string>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/findings.h"
#include "analysis/kernel_model.h"

namespace warplens {

struct AnalysisResult {
  std::string file;
  KernelModel model;
  std::vector<Finding> findings;   // front-end diagnostics first, then analyses
  ToolchainStatus toolchain;
  bool parsed = false;             // false when the front end could not run at all
  bool cancelled = false;
  double parse_ms = 0;
  double analysis_ms = 0;
};

// Runs the front end and the static analyses. Never throws for bad input:
// problems become findings. Returns early with `cancelled` set when `stop`
// is requested.
AnalysisResult analyze(const SourceFile& file, const AnalysisOptions& options,
                       std::stop_token stop = {});

// True when this build contains the Clang front end (WARPLENS_WITH_CLANG).
bool frontend_available();

}  // namespace warplens
