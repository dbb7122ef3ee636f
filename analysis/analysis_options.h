// The analysis' plain input types: the options every analysis reads, the
// source it is given, and what the front end found of the toolchain. Their
// own header, so an analysis includes what it is configured with and not
// the entry point above it (analysis/analyzer.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_limits.h"

namespace warplens {

struct BlockShape {
  std::int64_t x = 1, y = 1, z = 1;
  std::int64_t threads() const { return x * y * z; }
  bool operator==(const BlockShape&) const = default;
};

struct AnalysisOptions {
  std::string arch = "sm_90";                 // target GPU architecture
  std::string compile_commands_dir;           // -p / initializationOptions; empty = search upward
  std::string cuda_path;                      // empty = CUDA_PATH, nvcc on PATH, /usr/local/cuda
  std::vector<std::string> extra_args;        // appended to the clang command line
  double uncoalesced_threshold = 1.25;        // sectors / ideal at or above which we warn
  int bank_conflict_threshold = 2;            // n-way at or above which we warn
  // ...when the line's wavefronts, averaged over its requests (warps, loop
  // iterations), are at least this many times the ideal: the profiler's view
  // (a bitonic network's 2-way strides average 1.5× over its iterations).
  double bank_conflict_average_threshold = 1.25;
  double occupancy_threshold = 0.5;           // fraction of max warps/SM below which we warn
  std::optional<BlockShape> default_block;    // used when no launch site / bounds give one
  std::map<std::string, BlockShape> kernel_blocks;  // per-kernel setting (by kernel name)
  bool run_static_analyses = true;            // false: front end only (report/tests)
  AnalysisLimits limits;                      // too large to analyse beyond these
  // Programs a compile command or the cudaPath setting may make warplens run
  // (nvcc, -ccbin): globs like clangd's --query-driver, on top of the
  // default (the toolkit found in the environment, compilers on PATH).
  // analysis/driver_policy.h.
  std::vector<std::string> allowed_drivers;
  // The editor's workspace folders: the compile_flags.txt search stops at
  // the innermost one holding the file (one above it belongs to something
  // else). Empty (the CLI): every parent directory.
  std::vector<std::string> workspace_roots;
};

struct SourceFile {
  std::string path;   // absolute path; used for compile-command lookup and ranges
  std::string text;   // current contents (may differ from disk: unsaved buffer)
};

struct ToolchainStatus {
  bool cuda_found = false;
  std::string cuda_path;
  std::string cuda_version;         // "13.0"
  bool degraded = false;            // parsed with the bundled prelude, no CUDA headers
  std::string requested_arch;       // what the user asked for
  std::string parse_arch;           // what clang parsed with (clamped to what clang 19 knows)
  std::string compile_command_source;  // "compile_commands.json: <path>" or "defaults"
  std::vector<std::string> clang_args; // the final clang command line
};

}  // namespace warplens
