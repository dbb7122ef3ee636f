#include "profiler/runner.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <regex>

#include "profiler/injection_config.h"
#include "profiler/profile_merge.h"
#include "profiler/scratch_dir.h"
#include "common/subprocess.h"

namespace warplens::profile {
namespace fs = std::filesystem;

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::Ok: return "ok";
    case RunStatus::BadRequest: return "bad request";
    case RunStatus::NoGpu: return "no GPU";
    case RunStatus::NoInjectionLibrary: return "no injection library";
    case RunStatus::StartFailed: return "could not start";
    case RunStatus::NoProfile: return "no profile";
    case RunStatus::TimedOut: return "timed out";
    case RunStatus::Cancelled: return "cancelled";
  }
  return "?";
}

std::string locate_injection_library(std::vector<std::string>* searched) {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv(kInjectLibEnv); env && *env) candidates.emplace_back(env);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path dir = exe.parent_path();
    candidates.push_back(dir / "libwarplens_inject.so");
    candidates.push_back(dir.parent_path() / "lib" / "libwarplens_inject.so");
    candidates.push_back(dir.parent_path() / "lib" / "warplens" / "libwarplens_inject.so");
  }
  for (const fs::path& c : candidates) {
    if (searched) searched->push_back(c.string());
    if (fs::is_regular_file(c, ec)) return fs::absolute(c, ec).lexically_normal().string();
  }
  return {};
}

namespace {

struct PassOutcome {
  ProcessResult process;
  ProcessSpec spec;
  std::vector<Profile> profiles;
  std::vector<std::string> errors;  // unreadable profile files
};

// One run of the program: the metrics pass (SASS metrics, no Activity API)
// or the timing pass (the Activity API, no SASS metrics).
PassOutcome run_pass(const RunOptions& o, const std::string& dir, const std::string& library,
                     const std::string& pass, bool metrics, std::stop_token stop) {
  PassOutcome out;
  InjectionConfig config;
  config.settings = o.settings;
  config.settings.metrics = metrics;
  config.activity = !metrics;
  config.pass = pass;
  config.verbose = o.verbose;
  config.output_path = dir + "/profile-" + pass + "-%p.json";
  if (metrics) config.sass_dump_path = o.sass_dump;

  out.spec.argv = o.command;
  out.spec.working_directory = o.working_directory;
  out.spec.stdout_path = dir + "/" + pass + ".stdout";
  out.spec.stderr_path = dir + "/" + pass + ".stderr";
  out.spec.timeout = o.timeout;
  out.spec.env_set = to_environment(config);
  out.spec.env_set.emplace_back(env::kInjectionPath, library);

  out.process = run_process(out.spec, stop);

  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("profile-" + pass + "-", 0) == 0 && entry.path().extension() == ".json")
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::string error;
    if (auto p = load_profile(f.string(), &error)) out.profiles.push_back(std::move(*p));
    else out.errors.push_back(error);
  }
  return out;
}

// Why a pass produced no profile, with what the program printed last.
std::string explain_missing_profile(const PassOutcome& pass) {
  std::string msg = describe_process(pass.process, pass.spec) + " without writing a profile";
  for (const std::string& e : pass.errors) msg += "\n  unreadable profile: " + e;
  if (pass.process.exit_code == 0 && pass.errors.empty())
    msg += ".\nDid it use CUDA? The injection library is loaded by the CUDA driver when the "
           "program initialises CUDA; a program that never does (or exits through _exit, "
           "or is statically linked against an old CUDA runtime) is not profiled.";
  std::string tail = tail_of_file(pass.spec.stderr_path, 1500);
  if (!tail.empty()) msg += "\nIts stderr ended with:\n" + tail;
  return msg;
}

}  // namespace

RunResult run_profile(const RunOptions& o, std::stop_token stop, const Progress& progress,
                      const GpuProbe& quick_probe, const GpuProbe& full_probe) {
  RunResult result;
  auto fail = [&](RunStatus s, std::string message) {
    result.status = s;
    result.message = std::move(message);
    result.profile.reset();
    return result;
  };
  auto report = [&](const std::string& m, double f) {
    if (progress) progress(m, f);
  };

  if (o.command.empty()) return fail(RunStatus::BadRequest, "no program to profile");
  if (!o.settings.kernel_regex.empty()) {
    try {
      std::regex check(o.settings.kernel_regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return fail(RunStatus::BadRequest,
                  "invalid --kernel regex \"" + o.settings.kernel_regex + "\": " + e.what());
    }
  }

  report("looking for a GPU", 0.0);
  GpuStatus gpu = quick_probe(stop);
  if (!gpu.available) return fail(RunStatus::NoGpu, "cannot profile: " + gpu.reason);

  std::vector<std::string> searched;
  std::string library = o.injection_library.empty() ? locate_injection_library(&searched)
                                                      : o.injection_library;
  if (library.empty() || !fs::is_regular_file(library)) {
    std::string where;
    for (const std::string& s : searched) where += "\n  " + s;
    if (!o.injection_library.empty()) where = "\n  " + o.injection_library;
    return fail(RunStatus::NoInjectionLibrary,
                "libwarplens_inject.so was not found; it is built when the CUDA toolkit with "
                "CUPTI is available. Searched:" + where);
  }

  std::unique_ptr<ScratchDir> scratch;
  std::string dir = o.work_dir;
  if (dir.empty()) {
    scratch = std::make_unique<ScratchDir>("warplens-profile-");
    if (!scratch->ok()) return fail(RunStatus::StartFailed, scratch->error());
    dir = scratch->path();
  } else {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return fail(RunStatus::StartFailed, "cannot create " + dir + ": " + ec.message());
    dir = fs::absolute(dir, ec).string();
  }

  // The first pass: the metrics pass, or with metrics off the timing pass
  // alone. Its failure to write a profile is the run's failure.
  const bool metrics = o.settings.metrics;
  const bool two = metrics && o.passes == Passes::Two;
  const std::string first_kind = metrics ? "metrics" : "timing";
  report(!metrics ? "running the program for timings"
                  : two ? "running the program with per-line metrics (pass 1 of 2)"
                        : "running the program with per-line metrics (one pass)",
         0.05);
  PassOutcome first = run_pass(o, dir, library, first_kind, metrics, stop);
  result.program_stdout = first.spec.stdout_path;
  result.program_stderr = first.spec.stderr_path;
  if (!first.process.started) return fail(RunStatus::StartFailed, first.process.start_error);
  if (first.process.cancelled) return fail(RunStatus::Cancelled, "profiling was cancelled");
  if (first.process.timed_out)
    return fail(RunStatus::TimedOut, describe_process(first.process, first.spec) +
                                         "; no profile (raise the timeout, or narrow the run)");
  if (first.profiles.empty()) {
    // The device files exist, but does a GPU work? Tell that apart from a
    // program that simply did not use CUDA.
    GpuStatus full = full_probe(stop);
    if (!full.available) return fail(RunStatus::NoGpu, "cannot profile: " + full.reason);
    return fail(RunStatus::NoProfile, explain_missing_profile(first));
  }

  Profile profile = merge_processes(std::move(first.profiles));
  profile.passes.clear();
  profile.passes.push_back({first_kind, first.process.wall_ms, first.process.exit_code, metrics});
  double wall_ms = first.process.wall_ms;
  if (metrics && !two)
    profile.add_warning("metrics-only",
                        "one pass (--passes 1): per-line metrics and counters only; no durations, "
                        "launch geometry or copies, because the Activity API that measures them is "
                        "never on while SASS metrics are collected (the default second pass "
                        "measures them)");

  if (two) {
    report("running the program again for timings (pass 2 of 2)", 0.55);
    PassOutcome timing = run_pass(o, dir, library, "timing", false, stop);
    result.program_stdout = timing.spec.stdout_path;
    result.program_stderr = timing.spec.stderr_path;
    if (timing.process.cancelled) return fail(RunStatus::Cancelled, "profiling was cancelled");
    wall_ms += timing.process.wall_ms;
    if (timing.process.timed_out || timing.profiles.empty()) {
      profile.add_warning("timing-pass-failed",
                          "the timing pass failed (" + describe_process(timing.process, timing.spec) +
                              "); durations, launch geometry and copies are missing");
    } else {
      Profile t = merge_processes(std::move(timing.profiles));
      t.passes.clear();
      t.passes.push_back({"timing", timing.process.wall_ms, timing.process.exit_code, false});
      merge_timing_pass(profile, t);
      if (timing.process.exit_code != 0 && first.process.exit_code == 0) {
        std::string tail = tail_of_file(timing.spec.stderr_path, 600);
        profile.add_warning("program-failed", "timing pass: " + describe_process(timing.process, timing.spec) +
                                                  (tail.empty() ? "" : "; its stderr ended with: " + tail));
      }
    }
  }

  profile.command = o.command;
  char cwd[4096];
  profile.working_directory =
      !o.working_directory.empty() ? o.working_directory : (getcwd(cwd, sizeof cwd) ? cwd : "");
  profile.exit_code = first.process.exit_code;
  profile.wall_ms = wall_ms;
  if (!o.tool_version.empty()) profile.tool_version = o.tool_version;
  profile.settings = o.settings;
  if (first.process.exit_code != 0) {
    std::string tail = tail_of_file(first.spec.stderr_path, 600);
    profile.add_warning("program-failed", describe_process(first.process, first.spec) +
                                              (tail.empty() ? "" : "; its stderr ended with: " + tail));
  }
  report("done", 1.0);
  result.profile = std::move(profile);
  return result;
}

}  // namespace warplens::profile
