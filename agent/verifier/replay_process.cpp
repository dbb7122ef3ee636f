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
    std::string next_to_us = (self_executable_dir() / "warplens-replay").string();
    if (usable(next_to_us)) return next_to_us;
  }
  if (error) {
    *error = "warplens-replay not found (tried";
    for (const auto& t : tried) *error += " " + t;
    *error += "); it is built only when CMake finds the CUDA toolkit";
  }
  return "";
}

std::string explain_replay_failure(const ProcessResult& p) {
  if (!p.started) return "cannot start warplens-replay: " + p.start_error;
  if (p.exit_code == 127 && (p.err.find("libcuda.so") != std::string::npos ||
                             p.err.find("error while loading shared libraries") != std::string::npos))
    return "no NVIDIA driver on this machine (libcuda.so.1 cannot be loaded): " + p.err.substr(0, 300);
  if (p.timed_out) return "warplens-replay timed out and was killed";
  if (p.cancelled) return "cancelled";
  std::string tail = p.err.size() > 1500 ? p.err.substr(p.err.size() - 1500) : p.err;
  return "warplens-replay " + p.describe() + (tail.empty() ? "" : ": " + tail);
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
  ProcessSpec spec;
  spec.argv = {replay_binary, "device-info", "--out", out.string()};
  spec.timeout_s = 60;
  ProcessResult p = run_process(spec, stop);
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
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.timeout_s = timeout_s;
  run.process = run_process(spec, stop);
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
