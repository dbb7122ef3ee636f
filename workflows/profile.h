// What `warplens.profile` does on the job thread, as plain C++ (no LSP): get
// a profile for a document, one of three ways.
//
//   1. A recorded profile (`profileFile`): read and validated; no GPU needed.
//      For profiles taken elsewhere (another machine, `warplens profile
//      --out`), and for tests.
//   2. The workspace's program: `buildCommand` (if set) then `profileCommand`,
//      each run with /bin/sh -c in the workspace folder; the program runs
//      under the CUPTI injection library (profile::run_profile), which its
//      child processes inherit.
//   3. Single-file mode, when `profileCommand` is not set: the document is a
//      .cu file with main(); it is built with nvcc -lineinfo -O3 for the
//      GPU's own architecture (profile::build_single_file) and run.
//
// Modes 2 and 3 need a GPU (checked first) and a saved document: the
// program is built from the file on disk, so measured lines would not match
// unsaved edits.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "profiler/gpu_probe.h"
#include "profiler/profile_data.h"

namespace warplens::workflows {

struct ProfileJobRequest {
  std::string document_path;      // the document the command was run on
  std::string document_text;      // its text in the editor when the command ran
  std::string profile_file;       // mode 1 (absolute, or relative to working_directory)
  std::string profile_command;    // mode 2 (the profileCommand setting)
  std::string build_command;      // the buildCommand setting, run before mode 2
  std::string working_directory;  // the workspace folder (else the document's directory)
  std::chrono::seconds timeout{600};  // per program run and per build
};

struct ProfileJobResult {
  std::shared_ptr<const profile::Profile> profile;
  std::string origin;  // "profiled `./app` on NVIDIA H200", "recorded profile /p.json"
};

// Why there is no profile. `no_gpu`: the machine has no usable GPU (the
// user is told with window/showMessage; nothing else is wrong).
class ProfileJobError : public std::runtime_error {
 public:
  ProfileJobError(const std::string& message, bool no_gpu = false) : std::runtime_error(message), no_gpu(no_gpu) {}
  bool no_gpu;
};

// Progress: a message and a percentage (0..100).
using ProfileProgress = std::function<void(const std::string& message, int percentage)>;
using GpuProbe = std::function<profile::GpuStatus(std::stop_token)>;

// Throws ProfileJobError. Returns an empty result (null profile) when `stop`
// was requested.
ProfileJobResult run_profile_job(const ProfileJobRequest& request, std::stop_token stop,
                                 const ProfileProgress& progress, const GpuProbe& probe);

// Single-file mode applies: a .cu file whose text defines main().
bool is_self_contained_program(const std::string& path, const std::string& text);

}  // namespace warplens::workflows
