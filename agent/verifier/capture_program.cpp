#include "agent/verifier/capture_program.h"

#include <unistd.h>

namespace warplens::verifier {

namespace fs = std::filesystem;

std::string find_capture_library(const std::string& configured, std::string* error) {
  std::vector<std::string> tried;
  auto usable = [&](const std::string& p) {
    tried.push_back(p);
    return !p.empty() && access(p.c_str(), R_OK) == 0;
  };
  if (!configured.empty()) {
    if (usable(configured)) return fs::absolute(configured).string();
  } else {
    if (const char* env = std::getenv("WARPLENS_CAPTURE_INJECT_LIB"); env && usable(env)) return fs::absolute(env).string();
    auto lib = (self_executable_dir() / ".." / "lib" / "libwarplens_capture_inject.so").lexically_normal();
    if (usable(lib.string())) return lib.string();
  }
  if (error) {
    *error = "the capture injection library was not found (tried";
    for (const auto& t : tried) *error += " " + t;
    *error += "); it is built only when CMake finds CUPTI";
  }
  return "";
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
  ProcessSpec spec;
  spec.argv = req.program;
  spec.cwd = req.cwd;
  spec.timeout_s = req.timeout_s;
  spec.env = {{"CUDA_INJECTION64_PATH", r.library},
              {"WARPLENS_CAPTURE_DIR", fs::absolute(req.out_dir).string()},
              {"WARPLENS_CAPTURE_KERNEL", req.kernel_regex},
              {"WARPLENS_CAPTURE_LAUNCHES", std::to_string(req.max_launches)},
              {"WARPLENS_CAPTURE_MAX_BYTES", std::to_string(req.max_bytes)}};
  r.process = run_process(spec, stop);
  if (!r.process.started) {
    r.error = "cannot run " + req.program[0] + ": " + r.process.start_error;
    return r;
  }
  try {
    r.manifest = capture::load_capture(req.out_dir);
    r.ok = true;
  } catch (const capture::CaptureFormatError& e) {
    r.error = "the program " + r.process.describe() + " without a usable capture: " + e.what();
    std::string tail = r.process.err.size() > 2000 ? r.process.err.substr(r.process.err.size() - 2000) : r.process.err;
    if (!tail.empty()) r.error += "\nprogram stderr:\n" + tail;
  }
  return r;
}

}  // namespace warplens::verifier
