// How the runner configures the injection library: environment variables.
//
// The injection library is loaded by the CUDA driver into the user's
// unmodified program (CUDA_INJECTION64_PATH), so the environment is the only
// channel. Both sides use this file: the runner writes the variables with
// to_environment(), the library reads them with config_from_environment().
// The names are documented in docs/profile-format.md.
#pragma once

#include <functional>
#include <string>
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
}  // namespace env

struct InjectionConfig {
  Settings settings;
  std::string output_path;        // may contain "%p"; empty: the library only logs
  std::string pass = "metrics";
  bool verbose = false;
};

std::vector<std::pair<std::string, std::string>> to_environment(const InjectionConfig& c);

// `get` is getenv or a fake. Bad values keep their defaults and are
// reported in `problems` (the library turns them into profile warnings).
InjectionConfig config_from_environment(const std::function<const char*(const char*)>& get,
                                        std::vector<std::string>* problems);

// Replaces every "%p" in `pattern` by `pid`, so each process of a program
// that forks or spawns CUDA workers writes its own file.
std::string expand_output_path(const std::string& pattern, long pid);

}  // namespace warplens::profile
