// The capture the editor's optimize job verifies against, when the workspace
// says how to run its program (`profileCommand`): buildCommand (if set) then
// the program, both with /bin/sh -c in the workspace folder as for
// warplens.profile (workflows/profile.h), the program under the launch
// capture (verifier::capture_program) keeping the kernel's first K launches.
//
// Plain C++: the optimize backend calls it on the job thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "agent/verifier/capture_program.h"
#include "profiler/scratch_dir.h"

namespace warplens::workflows {

struct KernelCaptureRequest {
  std::string kernel;             // the kernel's name as written (`scale`, not its mangled name)
  // More kernels to capture beside `kernel`, each keeping its own first
  // `max_launches` launches in program order (a fused candidate's producer).
  std::vector<std::string> also_kernels;
  std::string profile_command;    // the profileCommand setting
  std::string build_command;      // the buildCommand setting; empty: no build
  std::string working_directory;  // the workspace folder
  int max_launches = 3;
  std::chrono::seconds timeout{600};  // the build, and the program run
};

struct KernelCapture {
  std::unique_ptr<profile::ScratchDir> scratch;  // owns the capture; removed with it
  std::string capture_dir;                       // <scratch>/capture, holds manifest.json
  int launches = 0;                              // captured launches of the kernel (>= 1)
};

// Throws OptimizeCaptureError with the reason when the build fails or no
// launch of the kernel was captured (quoting the capture's refusals and the
// program's stderr tail). Returns an empty capture when `stop` was requested.
class OptimizeCaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using CaptureFn = std::function<verifier::CaptureRunResult(const verifier::CaptureRequest&, std::stop_token)>;
using StepProgress = std::function<void(const std::string& message)>;

KernelCapture capture_kernel_launches(const KernelCaptureRequest& request, const CaptureFn& capture,
                                      const StepProgress& progress, std::stop_token stop);

// An ECMAScript regex that matches the demangled name of the kernel `name`
// and nothing that merely contains it: `scale(float*, int)`,
// `void scale<float>(float*)`, `ns::scale(...)`, and extern "C" `scale`, but
// not `rescale(...)` or `scale2(...)`.
std::string kernel_name_regex(const std::string& name);

}  // namespace warplens::workflows
