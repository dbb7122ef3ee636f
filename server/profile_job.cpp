#include "server/profile_job.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <spdlog/spdlog.h>

#include "common/file_read.h"
#include "profiler/build_single_file.h"
#include "profiler/runner.h"
#include "profiler/scratch_dir.h"
#include "profiler/subprocess.h"

namespace warplens::server {

namespace fs = std::filesystem;
namespace prof = warplens::profile;

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
  progress("reading " + path, 10);
  std::string error;
  auto p = prof::load_profile(path, &error);
  if (!p) throw ProfileJobError("cannot use the profile " + path + ": " + error);
  return {std::make_shared<const prof::Profile>(std::move(*p)), "recorded profile " + path};
}

// The build command through the shell, its output kept in `scratch`.
void run_build_command(const ProfileJobRequest& req, const prof::ScratchDir& scratch, std::stop_token stop) {
  prof::ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", req.build_command};
  spec.working_directory = req.working_directory;
  spec.stdout_path = scratch.file("build.stdout");
  spec.stderr_path = scratch.file("build.stderr");
  spec.timeout = req.timeout;
  prof::ProcessResult r = prof::run_process(spec, stop);
  if (stop.stop_requested() || r.cancelled) return;
  if (!r.started) throw ProfileJobError("cannot run the build command `" + req.build_command + "`: " + r.start_error);
  if (r.timed_out || r.exit_code != 0) {
    // Compilers print errors on stderr; make prints its progress on stdout.
    std::string tail = prof::tail_of_file(scratch.file("build.stderr"), 1500);
    if (tail.empty()) tail = prof::tail_of_file(scratch.file("build.stdout"), 1500);
    std::string how = r.timed_out ? "timed out after " + std::to_string(req.timeout.count()) + " s"
                      : r.signal ? "was killed by signal " + std::to_string(r.signal)
                                 : "exited with code " + std::to_string(r.exit_code);
    throw ProfileJobError("the build command `" + req.build_command + "` " + how +
                          (tail.empty() ? std::string() : ":\n" + tail));
  }
}

}  // namespace

bool is_self_contained_program(const std::string& path, const std::string& text) {
  if (fs::path(path).extension() != ".cu") return false;
  // `int main(` at the start of a line, possibly with `auto`/`extern "C"`;
  // good enough to tell a program from a library file.
  static const std::regex main_re(R"((^|\n)\s*(extern\s+"C"\s+)?(int|auto)\s+main\s*\()");
  return std::regex_search(text, main_re);
}

ProfileJobResult run_profile_job(const ProfileJobRequest& req, std::stop_token stop, const ProfileProgress& progress,
                                 const GpuProbe& probe) {
  if (!req.profile_file.empty()) return load_recorded(req, progress);

  const bool single_file = req.profile_command.empty();
  if (single_file && !is_self_contained_program(req.document_path, req.document_text))
    throw ProfileJobError(
        "nothing to profile: set warplens.profileCommand to the command that runs your program (and "
        "warplens.buildCommand to rebuild it first), or profile a .cu file that has main()");

  progress("looking for a GPU", 2);
  prof::GpuStatus gpu = probe(stop);
  if (stop.stop_requested()) return {};
  if (!gpu.available || gpu.devices.empty())
    throw ProfileJobError("cannot profile: " + (gpu.reason.empty() ? std::string("no GPU found") : gpu.reason),
                          /*no_gpu=*/true);

  bool readable = false;
  std::string disk = read_disk(req.document_path, &readable);
  if (!readable) throw ProfileJobError("cannot read " + req.document_path + " from disk: save it first");
  if (disk != req.document_text)
    throw ProfileJobError(file_name(req.document_path) +
                          " has unsaved changes: save it first (the program is built from the file on disk, so "
                          "measured lines would not match the editor)");

  prof::ScratchDir scratch("warplens-profile-");
  if (!scratch.ok()) throw ProfileJobError(scratch.error());
  prof::RunOptions run;
  run.timeout = req.timeout;
  run.tool_version = prof::tool_version();
  run.working_directory = req.working_directory;
  std::string what;
  if (single_file) {
    prof::BuildOptions b;
    b.source = req.document_path;
    b.arch = gpu.devices.front().arch();
    b.output_dir = scratch.path();
    b.timeout = req.timeout;
    progress("building " + file_name(req.document_path) + " for " + b.arch, 5);
    prof::BuildResult built = prof::build_single_file(b, stop);
    if (stop.stop_requested()) return {};
    if (!built.ok) throw ProfileJobError(built.message);
    run.command = {built.executable};
    // The program may read files next to its source.
    run.working_directory = fs::path(req.document_path).parent_path().string();
    what = file_name(req.document_path);
  } else {
    if (!req.build_command.empty()) {
      progress("building: " + req.build_command, 5);
      run_build_command(req, scratch, stop);
      if (stop.stop_requested()) return {};
    }
    run.command = {"/bin/sh", "-c", req.profile_command};
    what = req.profile_command;
  }

  auto run_progress = [&](const std::string& message, double fraction) {
    progress(message, 20 + static_cast<int>(79 * std::clamp(fraction, 0.0, 1.0)));
  };
  auto known_gpu = [gpu](std::stop_token) { return gpu; };
  prof::RunResult r = prof::run_profile(run, stop, run_progress, known_gpu, probe);
  switch (r.status) {
    case prof::RunStatus::Ok: break;
    case prof::RunStatus::Cancelled: return {};
    case prof::RunStatus::NoGpu: throw ProfileJobError(r.message, /*no_gpu=*/true);
    default: throw ProfileJobError(r.message);
  }
  spdlog::info("profiled `{}`: {} kernel(s), {} line record(s)", what, r.profile->kernels.size(),
               r.profile->lines.size());
  return {std::make_shared<const prof::Profile>(std::move(*r.profile)),
          "profiled `" + what + "` on " + gpu.devices.front().name};
}

}  // namespace warplens::server
