// Runs a program under the injection library and returns its profile.
//
// The program is the user's, unmodified: the runner sets
// CUDA_INJECTION64_PATH and the WARPLENS_PROFILE_* variables, starts it in
// its own process group with stdout/stderr going to files, enforces a
// timeout, honours cancellation, and reads the profile(s) it wrote.
//
// Passes. SASS metrics and the Activity API are never on in one process:
// with both, CUPTI 13.0 returned every SASS value as 0 on an H200 (second
// GPU run), while SASS metrics alone gave exact per-line numbers. So the
// default runs the program twice:
//   metrics pass  SASS metrics on (the first `metric_launches` launches of
//                 each kernel, bracketed), Activity API off: per-line
//                 metrics, kernel counters, launch counts, the device;
//   timing pass   SASS metrics off, Activity API on: every launch with its
//                 duration and geometry, and the memory copies;
// and merges them (merge_timing_pass). Passes::One runs the metrics pass
// alone (per-line metrics without any timing: the profile says so with the
// warning `metrics-only`); Settings::metrics = false runs the timing pass
// alone.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "profiler/gpu_probe.h"
#include "profiler/profile_data.h"

namespace warplens::profile {

enum class Passes {
  Two,  // metrics pass, then timing pass (default)
  One,  // the metrics pass only: no durations, launch geometry or copies
};

struct RunOptions {
  std::vector<std::string> command;        // the program and its arguments
  std::string working_directory;           // empty: ours
  Settings settings;                       // filter, limits, metrics on/off
  Passes passes = Passes::Two;
  std::chrono::seconds timeout{600};       // per pass
  std::string injection_library;           // empty: locate_injection_library()
  // Keeps the program's output and the raw profiles here (created if
  // needed). Empty: a temporary directory, removed afterwards.
  std::string work_dir;
  bool verbose = false;                    // the library logs details to the program's stderr
  // Raw SASS records of the metrics pass go here ("%p": pid; see
  // docs/profile-format.md, "SASS record dump"). Empty: no dump.
  std::string sass_dump;
  std::string tool_version;
};

enum class RunStatus {
  Ok,
  BadRequest,          // no program, invalid regex, ...
  NoGpu,
  NoInjectionLibrary,
  StartFailed,         // the program could not be started
  NoProfile,           // it ran but wrote no profile (crashed, no CUDA, ...)
  TimedOut,
  Cancelled,
};
const char* to_string(RunStatus s);

struct RunResult {
  RunStatus status = RunStatus::Ok;
  std::string message;                 // what went wrong, for the user (empty when Ok)
  std::optional<Profile> profile;      // set when status == Ok
  std::string program_stdout;          // paths of the last pass's output files
  std::string program_stderr;          // (gone unless work_dir was given)
};

// Progress: a short message and the fraction done (0..1).
using Progress = std::function<void(const std::string& message, double fraction)>;
using GpuProbe = std::function<GpuStatus(std::stop_token)>;

// `quick_probe` runs before the program (default: device files only, see
// quick_gpu_check); `full_probe` only when the program wrote no profile, to
// report a missing or unusable GPU as RunStatus::NoGpu.
RunResult run_profile(const RunOptions& options, std::stop_token stop = {},
                      const Progress& progress = {},
                      const GpuProbe& quick_probe = [](std::stop_token) { return quick_gpu_check(); },
                      const GpuProbe& full_probe = probe_gpus);

// libwarplens_inject.so: $WARPLENS_INJECT_LIB, then next to the running
// executable, then ../lib relative to it (the build tree's bin/ and lib/,
// or an install prefix). Returns "" when not found; `searched` lists where.
inline constexpr const char* kInjectLibEnv = "WARPLENS_INJECT_LIB";
std::string locate_injection_library(std::vector<std::string>* searched = nullptr);

}  // namespace warplens::profile
