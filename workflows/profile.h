// "Profile": get a profile one of four ways, as plain C++. The editor's
// warplens.profile job and `warplens profile` both call run_profile_job.
//
//   1. A recorded profile (`profile_file`): read and validated; no GPU needed.
//      For profiles taken elsewhere (another machine, `warplens profile
//      --out`), and for tests.
//   2. A program and its arguments (`program`, the command line's
//      `-- PROGRAM ARGS`), run as they are.
//   3. The workspace's program: `build_command` (if set) then
//      `profile_command`, each run with /bin/sh -c in the working directory
//      (the editor's buildCommand and profileCommand).
//   4. A single .cu file with main() (`source_file`, else the document when
//      nothing above is set): built with nvcc -lineinfo -O3 for the GPU's own
//      architecture (profile::build_single_file) and run.
// Modes 2-4 run the program under the CUPTI injection library
// (profile::run_profile), whose child processes inherit it; they need a GPU
// (checked first). When the request names the editor's document, it must be
// saved: the program is built from the file on disk, so measured lines
// would not match unsaved edits.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "profiler/gpu_probe.h"
#include "profiler/profile_data.h"
#include "profiler/runner.h"

namespace warplens::workflows {

struct ProfileJobRequest {
  // What to profile: the first of these that is set (see the top).
  std::string profile_file;             // 1. absolute, or relative to working_directory
  std::vector<std::string> program;     // 2.
  std::string profile_command;          // 3. with build_command first
  std::string build_command;
  std::string source_file;              // 4. else document_path
  std::vector<std::string> program_args;  // 4. the built program's arguments
  std::string arch;                     // 4. nvcc -arch; empty: the GPU's own
  std::vector<std::string> nvcc_flags;  // 4. extra nvcc flags
  bool run_next_to_source = true;       // 4. run the program in its source's directory (it may read files there)

  // The editor's document the command ran on and its text there; empty: not
  // checked against the disk (the command line names files on disk).
  std::string document_path;
  std::string document_text;

  // Before running a given program (mode 2) the cheap check of the device
  // files is enough: its own CUDA initialisation is the real test, and the
  // full probe runs when it wrote no profile. Building (mode 4) needs the
  // GPU's architecture: a full probe.
  bool quick_gpu_check = false;

  std::string working_directory;        // the workspace folder (else the document's directory); empty: ours
  std::chrono::seconds timeout{600};    // per program run and per build
  // How to measure (metrics, passes, work directory, ...); its command,
  // working directory and timeout come from the fields above.
  profile::RunOptions run;
};

struct ProfileJobResult {
  std::shared_ptr<const profile::Profile> profile;
  std::string origin;  // "profiled `./app` on NVIDIA H200", "recorded profile /p.json"
  std::string program_stdout, program_stderr;  // the last run's output files (kept with run.work_dir)
};

// Why there is no profile, and which kind of failure it is (the command
// line's exit codes; the editor tells the user about a missing GPU with
// window/showMessage).
class ProfileJobError : public std::runtime_error {
 public:
  enum class Kind { Failed, NoGpu, BuildFailed, BadRequest };
  ProfileJobError(const std::string& message, Kind kind = Kind::Failed)
      : std::runtime_error(message), kind(kind), no_gpu(kind == Kind::NoGpu) {}
  Kind kind;
  bool no_gpu;  // the machine has no usable GPU (nothing else is wrong)
};

// Progress: the stage, a message and a percentage (0..100). The editor
// shows them all; the command line prints the build and the run.
enum class ProfileStage { Preparing, Building, Running };
using ProfileProgress = std::function<void(ProfileStage stage, const std::string& message, int percentage)>;
using GpuProbe = profile::GpuProbe;

// Throws ProfileJobError. Returns an empty result (null profile) when `stop`
// was requested. `probe` (profile::probe_gpus, or a test double) is asked
// before building or running, and again when the program wrote no profile.
ProfileJobResult run_profile_job(const ProfileJobRequest& request, std::stop_token stop,
                                 const ProfileProgress& progress, const GpuProbe& probe);

// Single-file mode applies: a .cu file whose text defines main().
bool is_self_contained_program(const std::string& path, const std::string& text);

}  // namespace warplens::workflows
