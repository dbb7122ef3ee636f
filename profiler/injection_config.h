// How the runner configures the injection library: environment variables.
//
// The injection library is loaded by the CUDA driver into the user's
// unmodified program (CUDA_INJECTION64_PATH), so the environment is the only
// channel. Both sides use this file: the runner writes the variables with
// to_environment(), the library reads them with config_from_environment().
// The names are documented in docs/profile-format.md.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profiler/profile_data.h"

namespace warplens::profile {

namespace env {
inline constexpr const char* kInjectionPath = "CUDA_INJECTION64_PATH";  // read by the driver
inline constexpr const char* kOutput = "WARPLENS_PROFILE_OUT";          // "%p" becomes the pid
inline constexpr const char* kKernelRegex = "WARPLENS_PROFILE_KERNEL";
inline constexpr const char* kMetricLaunches = "WARPLENS_PROFILE_METRIC_LAUNCHES";
inline constexpr const char* kLaunchRecords = "WARPLENS_PROFILE_LAUNCH_RECORDS";
inline constexpr const char* kBudgetMs = "WARPLENS_PROFILE_BUDGET_MS";
inline constexpr const char* kMetrics = "WARPLENS_PROFILE_METRICS";        // 1 or 0
inline constexpr const char* kSassMode = "WARPLENS_PROFILE_SASS_MODE";     // per-launch | whole-run
inline constexpr const char* kPass = "WARPLENS_PROFILE_PASS";              // metrics | timing
inline constexpr const char* kVerbose = "WARPLENS_PROFILE_VERBOSE";        // 1: log to stderr
inline constexpr const char* kSassDump = "WARPLENS_PROFILE_SASS_DUMP";     // raw SASS records ("%p": pid)
// The Activity API (durations, launch records, copies): 1 or 0. Unset: on
// exactly when SASS metrics are off, because with both on in one process
// CUPTI 13.0 returned every SASS value as 0 on an H200 (second GPU run).
inline constexpr const char* kActivity = "WARPLENS_PROFILE_ACTIVITY";
// Diagnostic, never set by the runner (so a value in its environment reaches
// the program): when the SASS configuration is made.
inline constexpr const char* kSassSetup = "WARPLENS_PROFILE_SASS_SETUP";   // context | launch
}  // namespace env

// When the injection library configures SASS metrics (cuptiProfilerInitialize,
// metric ids, cuptiSassMetricsSetConfig) and, in whole-run mode, enables them.
enum class SassSetup : std::uint8_t {
  // When a context is created, before any module is loaded into it: the
  // order of the probe that worked (context, configuration, enable, module
  // load at the first launch). A failure there is retried at the first launch.
  Context,
  // At the first measured launch (after that kernel's module was loaded).
  Launch,
};
const char* to_string(SassSetup s);
std::optional<SassSetup> sass_setup_from_string(std::string_view s);

struct InjectionConfig {
  Settings settings;
  std::string output_path;        // may contain "%p"; empty: the library only logs
  std::string pass = "metrics";
  bool verbose = false;
  std::string sass_dump_path;     // may contain "%p"; empty: no dump
  SassSetup sass_setup = SassSetup::Context;
  // The Activity API. The runner never combines it with SASS metrics: the
  // metrics pass runs with activity off, the timing pass with metrics off
  // (see runner.h). Both on is possible only by hand, and earns the warning
  // `sass-with-activity`.
  bool activity = false;
};

// The variables the runner sets. The diagnostic sass_setup is left out, and
// so is an empty dump path, so the runner's own environment decides them.
std::vector<std::pair<std::string, std::string>> to_environment(const InjectionConfig& c);

// `get` is getenv or a fake. Bad values keep their defaults and are
// reported in `problems` (the library turns them into profile warnings).
// Without WARPLENS_PROFILE_ACTIVITY, activity is on exactly when metrics are off.
InjectionConfig config_from_environment(const std::function<const char*(const char*)>& get,
                                        std::vector<std::string>* problems);

// Replaces every "%p" in `pattern` by `pid`, so each process of a program
// that forks or spawns CUDA workers writes its own file.
std::string expand_output_path(const std::string& pattern, long pid);

}  // namespace warplens::profile
