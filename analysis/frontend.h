// The Clang front end: source text + options -> kernel model + Clang's own
// diagnostics. Implemented in clang/ (WARPLENS_WITH_CLANG) or, in builds
// without Clang, by no_clang/frontend_unavailable.cpp, which reports that.
#pragma once

#include <optional>
#include <stop_token>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/findings.h"
#include "analysis/kernel_model.h"

namespace warplens {

struct ParseResult {
  KernelModel model;
  std::vector<Finding> diagnostics;  // source "clang" or toolchain notes
  ToolchainStatus toolchain;
  bool parsed = false;               // false: the front end could not run
  bool cancelled = false;
  // Set when a limit of AnalysisLimits stopped the parse: the finding to
  // report instead of a partial model ("too large to analyse: ...").
  std::optional<Finding> over_limit;
};

ParseResult parse_translation_unit(const SourceFile& file, const AnalysisOptions& options,
                                   std::stop_token stop);

}  // namespace warplens
