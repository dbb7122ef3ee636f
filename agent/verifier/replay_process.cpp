#include "agent/verifier/replay_process.h"

#include <unistd.h>

#include <map>
#include <mutex>

namespace warplens::verifier {

namespace fs = std::filesystem;

std::string find_replay_binary(const std::string& configured, std::string* error) {
  std::vector<std::string> tried;
  auto usable = [&](const std::string& p) {
    tried.push_back(p);
    return !p.empty() && access(p.c_str(), X_OK) == 0;
  };
  if (!configured.empty()) {
    if (usable(configured)) return configured;
  } else {
    if (const char* env = std::getenv("WARPLENS_REPLAY"); env && usable(env)) return env;
    // The build tree keeps it next to the binary; an installed tree
    // (cmake/WarplensInstall.cmake) under <prefix>/libexec/warplens.
    std::string next_to_us = (self_executable_dir() / "warplens-replay").string();
    if (usable(next_to_us)) return next_to_us;
    std::string installed =
        (self_executable_dir().parent_path() / "libexec" / "warplens" / "warplens-replay").lexically_normal().string();
    if (usable(installed)) return installed;
  }
  if (error) {
    *error = "warplens-replay not found (tried";
    for (const auto& t : tried) *error += " " + t;
    *error += "); it is built only when CMake finds the CUDA toolkit";
  }
  return "";
}

std::string explain_replay_failure(const ToolRun& run) {
  const auto& p = run.process;
  if (!p.started) return "cannot start warplens-replay: " + p.start_error;
  if (p.exit_code == 127 && (run.err.find("libcuda.so") != std::string::npos ||
                             run.err.find("error while loading shared libraries") != std::string::npos))
    return "no NVIDIA driver on this machine (libcuda.so.1 cannot be loaded): " + run.err.substr(0, 300);
  if (p.cancelled) return "cancelled";
  std::string tail = run.err.size() > 1500 ? run.err.substr(run.err.size() - 1500) : run.err;
  return run.description + (tail.empty() ? "" : ": " + tail);
}

DeviceProbe probe_gpu(const std::string& replay_binary, const fs::path& work_dir, std::stop_token stop) {
  static std::mutex mutex;
  static std::map<std::string, DeviceProbe> cache;
  {
    std::lock_guard lock(mutex);
    auto it = cache.find(replay_binary);
    if (it != cache.end()) return it->second;
  }
  DeviceProbe probe;
  fs::path out = work_dir / "device.json";
  ToolSpec spec;
  spec.argv = {replay_binary, "device-info", "--out", out.string()};
  spec.timeout_s = 60;
  spec.log_stem = work_dir / "device-info";
  ToolRun p = run_tool(spec, stop);
  std::error_code ec;
  if (fs::exists(out, ec)) {
    try {
      probe = parse_device_probe(read_text_file(out));
    } catch (const std::exception& e) {
      probe.ok = false;
      probe.error = e.what();
    }
  } else {
    probe.ok = false;
    probe.error = explain_replay_failure(p);
  }
  if (probe.ok) {
    std::lock_guard lock(mutex);
    cache[replay_binary] = probe;
  }
  return probe;
}

namespace {

template <class Result, class Parse>
ReplayRun run_child(std::vector<std::string> argv, const fs::path& out, double timeout_s, Result& result,
                    Parse parse, std::stop_token stop) {
  ReplayRun run;
  std::error_code ec;
  fs::remove(out, ec);
  ToolSpec spec;
  spec.argv = std::move(argv);
  spec.timeout_s = timeout_s;
  spec.log_stem = out.parent_path() / out.stem();
  run.process = run_tool(spec, stop);
  if (fs::exists(out, ec)) {
    try {
      result = parse(read_text_file(out));
      run.have_result = true;
    } catch (const std::exception& e) {
      run.read_error = e.what();
    }
  }
  return run;
}

}  // namespace

ReplayRun run_reference_child(const std::string& replay_binary, const fs::path& plan, const fs::path& out,
                              double timeout_s, ReferenceResult& result, std::stop_token stop) {
  return run_child({replay_binary, "reference", "--plan", plan.string(), "--out", out.string()}, out, timeout_s,
                   result, parse_reference_result, stop);
}

ReplayRun run_candidate_child(const std::string& replay_binary, const fs::path& plan, const fs::path& reference,
                              const fs::path& out, double timeout_s, CandidateResult& result, std::stop_token stop) {
  return run_child({replay_binary, "candidate", "--plan", plan.string(), "--reference", reference.string(), "--out",
                    out.string()},
                   out, timeout_s, result, parse_candidate_result, stop);
}

}  // namespace warplens::verifier
