#include "agent/verifier/capture_program.h"

#include <unistd.h>

#include <algorithm>

#include "profiler/injection_config.h"
#include "profiler/runner.h"

namespace warplens::verifier {

namespace fs = std::filesystem;

std::string find_capture_library(const std::string& configured, std::string* error) {
  std::vector<std::string> tried;
  if (!configured.empty()) {
    tried.push_back(configured);
    if (access(configured.c_str(), R_OK) == 0) return fs::absolute(configured).lexically_normal().string();
  } else {
    std::string found = profile::locate_injection_library(&tried);
    if (!found.empty()) return found;
  }
  if (error) {
    *error = "the injection library was not found (tried";
    for (const auto& t : tried) *error += " " + t;
    *error += "); it is built only when CMake finds CUPTI";
  }
  return "";
}

std::uint64_t automatic_capture_cap(const fs::path& dir) {
  constexpr std::uint64_t kGiB = 1ull << 30;
  std::error_code ec;
  fs::path probe = dir;
  while (!probe.empty() && !fs::exists(probe, ec)) probe = probe.parent_path();
  const fs::space_info space = fs::space(probe.empty() ? fs::current_path(ec) : probe, ec);
  if (ec) return capture::kDefaultMaxBytes;
  const std::uint64_t half_free = space.available / 2;
  const std::uint64_t floor = std::min<std::uint64_t>(kGiB, space.available);
  return std::min<std::uint64_t>(16 * kGiB, std::max<std::uint64_t>(half_free, floor));
}

CaptureRunResult capture_program(const CaptureRequest& req, std::stop_token stop) {
  CaptureRunResult r;
  if (req.program.empty()) {
    r.error = "no program to run";
    return r;
  }
  r.library = find_capture_library(req.inject_library, &r.error);
  if (r.library.empty()) return r;
  std::error_code ec;
  fs::create_directories(req.out_dir, ec);
  if (ec) {
    r.error = "cannot create " + req.out_dir.string() + ": " + ec.message();
    return r;
  }
  fs::remove(req.out_dir / capture::kManifestFile, ec);
  ToolSpec spec;
  spec.argv = req.program;
  spec.cwd = req.cwd;
  spec.timeout_s = req.timeout_s;
  spec.log_stem = req.out_dir / "program";
  // Capture only: the profiler side of the library stays at its cheapest
  // (activity records, no SASS patching) and writes no profile.
  spec.env = {{profile::env::kInjectionPath, r.library},
              {capture::env::kDir, fs::absolute(req.out_dir).string()},
              {capture::env::kKernel, req.kernel_regex},
              {capture::env::kLaunches, std::to_string(req.max_launches)},
              {capture::env::kLaunchesPerKernel, std::to_string(req.max_launches_per_kernel)},
              {capture::env::kMaxBytes,
               std::to_string(req.max_bytes ? req.max_bytes : automatic_capture_cap(req.out_dir))},
              {profile::env::kMetrics, "0"},
              {profile::env::kPass, "timing"},
              {profile::env::kOutput, ""}};
  r.process = run_tool(spec, stop);
  if (!r.process.process.started) {
    r.error = r.process.process.start_error;
    return r;
  }
  try {
    r.manifest = capture::load_capture(req.out_dir);
    r.ok = true;
  } catch (const capture::CaptureFormatError& e) {
    r.error = r.process.description + ", without a usable capture: " + e.what();
    std::string tail = r.process.err.size() > 2000 ? r.process.err.substr(r.process.err.size() - 2000) : r.process.err;
    if (!tail.empty()) r.error += "\nprogram stderr:\n" + tail;
  }
  return r;
}

}  // namespace warplens::verifier
