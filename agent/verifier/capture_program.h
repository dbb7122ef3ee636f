// Running the user's unmodified program under the injection library to
// capture the first K launches of the kernels a regex selects
// (profiler/inject/launch_capture.h does the capturing inside the program;
// this side sets it up through the environment and reads the result).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "agent/verifier/tool_process.h"
#include "profiler/capture_format.h"

namespace warplens::verifier {

struct CaptureRequest {
  std::vector<std::string> program;          // argv of the program
  std::string kernel_regex = ".*";           // ECMAScript regex, matched against the demangled and mangled name
  int max_launches = 1;                      // K: first K matching launches
  int max_launches_per_kernel = 0;           // at most this many of each matching kernel (0: no limit)
  std::uint64_t max_bytes = capture::kDefaultMaxBytes;  // cap on all blobs; beyond it launches are refused
  std::filesystem::path out_dir;             // the capture directory (created)
  double timeout_s = 0;                      // 0: none
  std::string inject_library;                // empty: find_capture_library
  std::filesystem::path cwd;
};

struct CaptureRunResult {
  bool ok = false;                           // a manifest was written (it may hold zero launches)
  std::string error;
  std::string library;
  ToolRun process;                           // the program's run (logs in <out>/program.out, .err)
  std::optional<capture::CaptureManifest> manifest;
};

CaptureRunResult capture_program(const CaptureRequest& request, std::stop_token stop = {});

// `configured`, else the profiler's libwarplens_inject.so
// (profile::locate_injection_library: $WARPLENS_INJECT_LIB, next to the
// executable, ../lib), which carries the launch capture module.
std::string find_capture_library(const std::string& configured, std::string* error);

}  // namespace warplens::verifier
