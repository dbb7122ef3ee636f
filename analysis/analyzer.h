// The analysis engine's one entry point: source text in, kernel model and
// findings out. Stateless and synchronous (clangd's "feature functions"):
// the server's scheduler decides when to call it, on which thread, and
// whether the result is still wanted.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "analysis/analysis_limits.h"
#include "analysis/findings.h"
#include "analysis/kernel_model.h"

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
