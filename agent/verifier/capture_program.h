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
  // Cap on all blobs; beyond it launches are refused. 0: automatic_capture_cap(out_dir).
  std::uint64_t max_bytes = 0;
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

// The cap when the caller sets none: half the free space of the file system
// `dir` is on, at most 16 GiB (a fused pair of 256 MB tensors needs 2 GiB:
// every allocation before and after each launch); at least 1 GiB when that
// much is free. Blobs go to disk, and only the launches a verification uses
// are read back, so disk is the bound that matters.
std::uint64_t automatic_capture_cap(const std::filesystem::path& dir);

CaptureRunResult capture_program(const CaptureRequest& request, std::stop_token stop = {});

// `configured`, else the profiler's libwarplens_inject.so
// (profile::locate_injection_library: $WARPLENS_INJECT_LIB, next to the
// executable, ../lib), which carries the launch capture module.
std::string find_capture_library(const std::string& configured, std::string* error);

}  // namespace warplens::verifier
