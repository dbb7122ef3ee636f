// The Clang front end: source text + options -> kernel model + Clang's own
// diagnostics. Implemented in clang/ (WARPLENS_WITH_CLANG) or, in builds
// without Clang, by no_clang/frontend_unavailable.cpp, which reports that.
#pragma once

#include <stop_token>
#include <vector>

#include "analysis/analyzer.h"

namespace warplens {

struct ParseResult {
  KernelModel model;
  std::vector<Finding> diagnostics;  // source "clang" or toolchain notes
  ToolchainStatus toolchain;
  bool parsed = false;               // false: the front end could not run
  bool cancelled = false;
};

ParseResult parse_translation_unit(const SourceFile& file, const AnalysisOptions& options,
                                   std::stop_token stop);

}  // namespace warplens
