#include "workflows/profile.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <spdlog/spdlog.h>

#include "common/file_read.h"
#include "profiler/build_single_file.h"
#include "profiler/scratch_dir.h"
#include "common/subprocess.h"

namespace warplens::workflows {

namespace fs = std::filesystem;
namespace prof = warplens::profile;
using Kind = ProfileJobError::Kind;

namespace {

std::string read_disk(const std::string& path, bool* ok) {
  common::FileReadResult read = common::read_text_file(path);
  *ok = static_cast<bool>(read);
  return read ? std::move(*read.content) : std::string();
}

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

std::string resolve(const std::string& path, const std::string& directory) {
  fs::path p(path);
  if (p.is_relative() && !directory.empty()) p = fs::path(directory) / p;
  return p.lexically_normal().string();
}

ProfileJobResult load_recorded(const ProfileJobRequest& req, const ProfileProgress& progress) {
  std::string path = resolve(req.profile_file, req.working_directory);
  progress(ProfileStage::Preparing, "reading " + path, 10);
  std::string error;
  auto p = prof::load_profile(path, &error);
  if (!p) throw ProfileJobError("cannot use the profile " + path + ": " + error);
  return {std::make_shared<const prof::Profile>(std::move(*p)), "recorded profile " + path, {}, {}};
}

// The build command through the shell, its output kept in `scratch`.
void run_build_command(const ProfileJobRequest& req, const prof::ScratchDir& scratch, std::stop_token stop) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", req.build_command};
  spec.working_directory = req.working_directory;
  spec.stdout_path = scratch.file("build.stdout");
  spec.stderr_path = scratch.file("build.stderr");
  spec.timeout = req.timeout;
  ProcessResult r = run_process(spec, stop);
  if (stop.stop_requested() || r.cancelled) return;
  if (!r.started)
    throw ProfileJobError("cannot run the build command `" + req.build_command + "`: " + r.start_error,
                          Kind::BuildFailed);
  if (r.timed_out || r.exit_code != 0) {
    // Compilers print errors on stderr; make prints its progress on stdout.
    std::string tail = tail_of_file(scratch.file("build.stderr"), 1500);
    if (tail.empty()) tail = tail_of_file(scratch.file("build.stdout"), 1500);
    std::string how = r.timed_out ? "timed out after " + std::to_string(req.timeout.count()) + " s"
                      : r.signal ? "was killed by signal " + std::to_string(r.signal)
                                 : "exited with code " + std::to_string(r.exit_code);
    throw ProfileJobError("the build command `" + req.build_command + "` " + how +
                              (tail.empty() ? std::string() : ":\n" + tail),
                          Kind::BuildFailed);
  }
}

// The editor's text must be the file on disk: the program is built from it.
void require_saved(const ProfileJobRequest& req) {
  if (req.document_path.empty()) return;
  bool readable = false;
  std::string disk = read_disk(req.document_path, &readable);
  if (!readable) throw ProfileJobError("cannot read " + req.document_path + " from disk: save it first");
  if (disk != req.document_text)
    throw ProfileJobError(file_name(req.document_path) +
                          " has unsaved changes: save it first (the program is built from the file on disk, so "
                          "measured lines would not match the editor)");
}

}  // namespace

bool is_self_contained_program(const std::string& path, const std::string& text) {
  if (fs::path(path).extension() != ".cu") return false;
  // `int main(` at the start of a line, possibly with `auto`/`extern "C"`;
  // good enough to tell a program from a library file.
  static const std::regex main_re(R"((^|\n)\s*(extern\s+"C"\s+)?(int|auto)\s+main\s*\()");
  return std::regex_search(text, main_re);
}

ProfileJobResult run_profile_job(const ProfileJobRequest& req, std::stop_token stop, const ProfileProgress& given,
                                 const GpuProbe& probe) {
  const ProfileProgress progress = given ? given : [](ProfileStage, const std::string&, int) {};
  if (!req.profile_file.empty()) return load_recorded(req, progress);

  const bool given_program = !req.program.empty();
  const bool shell_program = !given_program && !req.profile_command.empty();
  const std::string source = req.source_file.empty() ? req.document_path : req.source_file;
  if (!given_program && !shell_program && req.source_file.empty() &&
      !is_self_contained_program(req.document_path, req.document_text))
    throw ProfileJobError(
        "nothing to profile: set warplens.profileCommand to the command that runs your program (and "
        "warplens.buildCommand to rebuild it first), or profile a .cu file that has main()",
        Kind::BadRequest);

  progress(ProfileStage::Preparing, "looking for a GPU", 2);
  prof::GpuStatus gpu = req.quick_gpu_check && given_program ? prof::quick_gpu_check() : probe(stop);
  if (stop.stop_requested()) return {};
  if (!gpu.available)
    throw ProfileJobError("cannot profile: " + (gpu.reason.empty() ? std::string("no GPU found") : gpu.reason),
                          Kind::NoGpu);
  if (!given_program) require_saved(req);

  prof::ScratchDir scratch("warplens-profile-");
  if (!scratch.ok()) throw ProfileJobError(scratch.error());
  prof::RunOptions run = req.run;
  run.timeout = req.timeout;
  if (run.tool_version.empty()) run.tool_version = prof::tool_version();
  run.working_directory = req.working_directory;
  std::string what;
  if (given_program) {
    run.command = req.program;
    what = req.program.front();
  } else if (shell_program) {
    if (!req.build_command.empty()) {
      progress(ProfileStage::Building, "building: " + req.build_command, 5);
      run_build_command(req, scratch, stop);
      if (stop.stop_requested()) return {};
    }
    run.command = {"/bin/sh", "-c", req.profile_command};
    what = req.profile_command;
  } else {
    prof::BuildOptions b;
    b.source = source;
    b.arch = !req.arch.empty() ? req.arch : gpu.devices.empty() ? std::string() : gpu.devices.front().arch();
    if (b.arch.empty())
      throw ProfileJobError("cannot tell this GPU's architecture to build " + file_name(source) + " for",
                            Kind::BadRequest);
    b.output_dir = scratch.path();
    b.extra_flags = req.nvcc_flags;
    b.timeout = req.timeout;
    progress(ProfileStage::Building, "building " + file_name(source) + " for " + b.arch, 5);
    prof::BuildResult built = prof::build_single_file(b, stop);
    if (stop.stop_requested()) return {};
    if (!built.ok) throw ProfileJobError(built.message, Kind::BuildFailed);
    run.command = {built.executable};
    run.command.insert(run.command.end(), req.program_args.begin(), req.program_args.end());
    // The program may read files next to its source.
    if (req.run_next_to_source) run.working_directory = fs::path(source).parent_path().string();
    what = file_name(source);
  }

  auto run_progress = [&](const std::string& message, double fraction) {
    progress(ProfileStage::Running, message, 20 + static_cast<int>(79 * std::clamp(fraction, 0.0, 1.0)));
  };
  auto known_gpu = [gpu](std::stop_token) { return gpu; };
  prof::RunResult r = prof::run_profile(run, stop, run_progress, known_gpu, probe);
  switch (r.status) {
    case prof::RunStatus::Ok: break;
    case prof::RunStatus::Cancelled: return {};
    case prof::RunStatus::NoGpu: throw ProfileJobError(r.message, Kind::NoGpu);
    case prof::RunStatus::BadRequest: throw ProfileJobError(r.message, Kind::BadRequest);
    default: throw ProfileJobError(r.message);
  }
  spdlog::info("profiled `{}`: {} kernel(s), {} line record(s)", what, r.profile->kernels.size(),
               r.profile->lines.size());
  const std::string on = gpu.devices.empty() ? "this GPU" : gpu.devices.front().name;
  return {std::make_shared<const prof::Profile>(std::move(*r.profile)), "profiled `" + what + "` on " + on,
          r.program_stdout, r.program_stderr};
}

}  // namespace warplens::workflows
